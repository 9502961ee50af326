//! Renamed keys of `tapline.toml`: a project written for an older tapline keeps working.
//!
//! The rooms give the table (`registry::renamed_keys`, `(old, new)` as dotted paths like
//! `"run.old"`); the loader moves each old key present to its new name before the file is
//! read, and says so once per run. Both names set is an error rather than a silent choice:
//! the two values may differ, and which one the user meant cannot be guessed.

/// Moves every old key of `renamed` present in `file` to its new name. `Ok`: one warning per
/// key moved (`[run] old is now [run] new (tapline.toml)`); `Err`: the old and the new name
/// of one key are both set.
pub(super) fn apply(
    file: &mut toml::Table,
    renamed: &[(&str, &str)],
) -> Result<Vec<String>, String> {
    let mut warnings = Vec::new();
    for &(old, new) in renamed {
        let (Some(old_at), Some(new_at)) = (Key::parse(old), Key::parse(new)) else {
            continue;
        };
        let Some(value) = old_at.take(file) else {
            continue;
        };
        if new_at.get(file).is_some() {
            return Err(format!(
                "{} and {} are both set: {} is the old name of {}, keep one",
                old_at, new_at, old_at, new_at
            ));
        }
        new_at.put(file, value);
        warnings.push(format!("{old_at} is now {new_at} ({})", super::FILE_NAME));
    }
    Ok(warnings)
}

/// A dotted key: the table it sits in (`None`: the top level) and its name.
struct Key<'a> {
    table: Option<&'a str>,
    name: &'a str,
}

impl<'a> Key<'a> {
    fn parse(dotted: &'a str) -> Option<Key<'a>> {
        let key = match dotted.rsplit_once('.') {
            Some((table, name)) => Key {
                table: Some(table),
                name,
            },
            None => Key {
                table: None,
                name: dotted,
            },
        };
        (!key.name.is_empty() && key.table != Some("")).then_some(key)
    }

    /// The table the key sits in, when it is a table.
    fn parent<'t>(&self, file: &'t toml::Table) -> Option<&'t toml::Table> {
        match self.table {
            None => Some(file),
            Some(table) => file.get(table)?.as_table(),
        }
    }

    fn get<'t>(&self, file: &'t toml::Table) -> Option<&'t toml::Value> {
        self.parent(file)?.get(self.name)
    }

    fn take(&self, file: &mut toml::Table) -> Option<toml::Value> {
        let parent = match self.table {
            None => file,
            Some(table) => file.get_mut(table)?.as_table_mut()?,
        };
        parent.remove(self.name)
    }

    /// Sets the key, creating its table when the file has none (an old key was read from
    /// that table, so it exists but for a rename across tables).
    fn put(&self, file: &mut toml::Table, value: toml::Value) {
        let parent = match self.table {
            None => file,
            Some(table) => {
                let entry = (file.entry(table.to_owned()))
                    .or_insert_with(|| toml::Value::Table(toml::Table::new()));
                match entry.as_table_mut() {
                    Some(parent) => parent,
                    // Not a table: the file's own shape is wrong, which reading it says.
                    None => return,
                }
            }
        };
        parent.insert(self.name.to_owned(), value);
    }
}

impl std::fmt::Display for Key<'_> {
    /// As the documentation writes a key: `[run] name`, or `name` at the top level.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.table {
            Some(table) => write!(f, "[{table}] {}", self.name),
            None => f.write_str(self.name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RENAMED: &[(&str, &str)] = &[("run.old", "run.new")];

    fn table(text: &str) -> toml::Table {
        toml::from_str(text).expect("valid TOML")
    }

    #[test]
    fn an_old_key_moves_to_its_new_name_with_a_warning() {
        let mut file = table("[run]\nold = \"/x\"\njobs = 2\n");
        let warnings = apply(&mut file, RENAMED).expect("no conflict");
        assert_eq!(warnings, ["[run] old is now [run] new (tapline.toml)"]);
        assert_eq!(file, table("[run]\nnew = \"/x\"\njobs = 2\n"));
    }

    #[test]
    fn a_new_key_alone_is_left_as_written() {
        let mut file = table("[run]\nnew = \"/x\"\n");
        assert_eq!(apply(&mut file, RENAMED), Ok(vec![]));
        assert_eq!(file, table("[run]\nnew = \"/x\"\n"));
        let mut none = table("");
        assert_eq!(apply(&mut none, RENAMED), Ok(vec![]));
    }

    #[test]
    fn both_names_set_is_an_error() {
        let mut file = table("[run]\nold = \"/x\"\nnew = \"/y\"\n");
        assert_eq!(
            apply(&mut file, RENAMED),
            Err(
                "[run] old and [run] new are both set: [run] old is the old name of [run] new, keep one"
                    .to_owned()
            )
        );
    }

    #[test]
    fn a_table_of_the_wrong_shape_is_left_to_the_reader() {
        let mut file = table("run = 3\n");
        assert_eq!(apply(&mut file, RENAMED), Ok(vec![]));
        assert_eq!(file, table("run = 3\n"));
    }

    #[test]
    fn a_top_level_key_is_renamed_too() {
        let mut file = table("old = 1\n");
        let warnings = apply(&mut file, &[("old", "new")]).expect("no conflict");
        assert_eq!(warnings, ["old is now new (tapline.toml)"]);
        assert_eq!(file, table("new = 1\n"));
    }
}
