//! Test2's failure table (Test2::Tools::Compare's `is`/`like`, drawn by Term::Table), read as
//! Test2 means it: each row one difference at its `PATH`, between what the test `GOT` and the
//! `CHECK` it failed, by the operator `OP` (`eq`, `==`, `=~`, `TRUE()`, `!exists`…), never a
//! comparison of two strings.
//!
//! ```text
//! +--------+------------------+---------+------------------+
//! | PATH   | GOT              | OP      | CHECK            |
//! +--------+------------------+---------+------------------+
//! | {a}    | 1                | eq      | 2                |
//! | {b}[2] | 3                | !exists | <DOES NOT EXIST> |
//! +--------+------------------+---------+------------------+
//! ```
//!
//! * `<DOES NOT EXIST>` is the absence of the element, never a value: the side that lacks it
//!   has no entry at that path. `<UNDEF>` is perl's `undef`.
//! * A check that is not a value (`TRUE()`, `DEFINED()`, `=~ (?^:z)`, `ne 1`) is shown as the
//!   check, unquoted, on the expected side: what the value was held to.
//! * A structure's differences (a `PATH` column with more than one row, or an element on one
//!   side only) are diffed as two maps from each path to its value there, so every row is a
//!   line of the diff; one difference of a present element is a diff of the two values with
//!   the path in the message.
//! * A structure's own row (`HASH(0x…)` against `<HASH>`, `<BAG>`) is left out when rows below
//!   it say what differs: it only fails because of them.
//! * Term::Table wraps a long cell over rows whose other cells are empty, and ends a line of a
//!   value that goes on with `\n`: the cells are joined back into the value.
//! * Cells are cut by the table's own borders, so a `|` inside a value is the value's.
use crate::explain::diff;
use serde_json::{Map, Value};

/// What a table said: how many lines it took, the message, and the values to diff.
#[derive(Debug, PartialEq)]
pub(super) struct Table {
    pub(super) used: usize,
    pub(super) message: Option<String>,
    pub(super) expected_actual: (Value, Value),
}

/// Most rows read from one table (Test2 prints every difference; a bound keeps a runaway
/// table from being read whole).
const MAX_ROWS: usize = 10_000;
/// Paths named in the message of a structure's differences before it says how many in all.
const NAMED_PATHS: usize = 5;

/// The table starting at `bodies[0]` (a comment's text without its `#`), if one starts there.
pub(super) fn read(bodies: &[Option<&str>]) -> Option<Table> {
    let (header, rows, used) = cells(bodies)?;
    let column = |name: &str| header.iter().position(|h| h == name);
    let (got, check) = (column("GOT")?, column("CHECK")?);
    let (path, op, lns) = (column("PATH"), column("OP"), column("LNs"));
    let rows = join_wrapped(rows, &[path, op, lns]);
    let diffs: Vec<Difference> = rows
        .iter()
        .map(|row| Difference {
            path: path.map(|k| row[k].clone()).unwrap_or_default(),
            got: Cell::of(&row[got]),
            op: op.map(|k| row[k].clone()).unwrap_or_default(),
            check: Cell::of(&row[check]),
        })
        .collect();
    let diffs = without_containers(diffs);
    let (message, expected_actual) = explain(&diffs, path.is_some())?;
    Some(Table {
        used,
        message,
        expected_actual,
    })
}

/// One row: a difference at `path`.
#[derive(Debug, Clone)]
struct Difference {
    path: String,
    got: Cell,
    op: String,
    check: Cell,
}

/// A cell's value as Test2 prints it.
#[derive(Debug, Clone, PartialEq)]
enum Cell {
    /// `<DOES NOT EXIST>`: no element there.
    Absent,
    /// `<UNDEF>`.
    Undef,
    Text(String),
}

impl Cell {
    fn of(text: &str) -> Cell {
        match text {
            "<DOES NOT EXIST>" => Cell::Absent,
            "<UNDEF>" => Cell::Undef,
            _ => Cell::Text(unescape(text)),
        }
    }

    /// The cell as a value compared by `op`: `None` when absent.
    fn value(&self, op: &str) -> Option<Value> {
        match self {
            Cell::Absent => None,
            Cell::Undef => Some(diff::bare("undef")),
            // `eq` compares strings: a reference there was stringified, so `Foo=HASH(0x…)` is
            // the string it printed, compared as the other side is (Test2::Util::Ref's own test
            // `is(render_ref($ref), "$ref")`).
            Cell::Text(t) if is_word(t) && op != "eq" => Some(diff::bare(t)),
            Cell::Text(t) if op == "==" => Some(
                t.parse::<f64>()
                    .ok()
                    .and_then(serde_json::Number::from_f64)
                    .map_or_else(|| diff::bare(t), Value::Number),
            ),
            Cell::Text(t) => Some(Value::String(t.clone())),
        }
    }

    fn text(&self) -> &str {
        match self {
            Cell::Absent => "<DOES NOT EXIST>",
            Cell::Undef => "undef",
            Cell::Text(t) => t,
        }
    }
}

impl Difference {
    /// What the element was held to: the check's value for an equality (or an element that
    /// must not exist), else the check itself (`TRUE()`, `=~ (?^:z)`).
    fn expected(&self) -> Option<Value> {
        match self.op.as_str() {
            "" | "eq" | "==" | "!exists" | "IS" => self.check.value(&self.op),
            op if op.ends_with("()") => Some(diff::bare(op)),
            op => Some(diff::bare(&format!("{op} {}", self.check.text()))),
        }
    }

    fn actual(&self) -> Option<Value> {
        self.got.value(&self.op)
    }
}

/// The message and the values of a table's differences (`deep`: it has a `PATH` column).
fn explain(diffs: &[Difference], deep: bool) -> Option<(Option<String>, (Value, Value))> {
    let absent = diffs
        .iter()
        .any(|d| d.got == Cell::Absent || d.check == Cell::Absent);
    match diffs {
        [] => None,
        [one] if !deep => {
            let expected = one
                .expected()
                .unwrap_or_else(|| diff::bare("<DOES NOT EXIST>"));
            let actual = one
                .actual()
                .unwrap_or_else(|| diff::bare("<DOES NOT EXIST>"));
            Some((None, (expected, actual)))
        }
        [one] if !absent => {
            let message = format!("Structures begin differing at {}", one.path);
            Some((Some(message), (one.expected()?, one.actual()?)))
        }
        _ => {
            let mut expected = Map::new();
            let mut actual = Map::new();
            for d in diffs {
                if let Some(v) = d.expected() {
                    expected.insert(d.path.clone(), v);
                }
                if let Some(v) = d.actual() {
                    actual.insert(d.path.clone(), v);
                }
            }
            let mut named: Vec<&str> = diffs.iter().map(|d| d.path.as_str()).collect();
            let all = named.len();
            named.truncate(NAMED_PATHS);
            let mut message = format!("Structures differ at {}", named.join(", "));
            if all > NAMED_PATHS {
                message.push_str(&format!(", … ({all} differences)"));
            }
            Some((
                Some(message),
                (Value::Object(expected), Value::Object(actual)),
            ))
        }
    }
}

/// Leaves out a structure's own row when a row below its path says what differs.
fn without_containers(diffs: Vec<Difference>) -> Vec<Difference> {
    let paths: Vec<String> = diffs.iter().map(|d| d.path.clone()).collect();
    diffs
        .into_iter()
        .filter(|d| {
            let container = matches!(&d.check, Cell::Text(t) if is_type_check(t));
            let below = paths
                .iter()
                .any(|p| p.len() > d.path.len() && p.starts_with(&d.path));
            !(container && below)
        })
        .collect()
}

/// A check of a structure's type: `<HASH>`, `<ARRAY>`, `<BAG>`, `<OBJECT>`, `<EVENT: Fail>`.
fn is_type_check(text: &str) -> bool {
    text.strip_prefix('<')
        .and_then(|t| t.strip_suffix('>'))
        .map(|t| t.split_once(": ").map_or(t, |(kind, _)| kind))
        .is_some_and(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_uppercase() || b == b'_'))
}

/// A cell Test2 prints as a word, not a string: a type check (`<HASH>`) or a reference
/// (`ARRAY(0x55ba06412840)`, `My::Class=HASH(0x…)`).
fn is_word(text: &str) -> bool {
    if is_type_check(text) {
        return true;
    }
    let Some((kind, address)) = text.strip_suffix(')').and_then(|t| t.rsplit_once('(')) else {
        return false;
    };
    let kind = kind.rsplit('=').next().unwrap_or(kind);
    matches!(
        kind,
        "ARRAY" | "HASH" | "CODE" | "SCALAR" | "REF" | "GLOB" | "Regexp"
    ) && address
        .strip_prefix("0x")
        .is_some_and(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Term::Table's escapes of characters it will not print: `\N{U+20}` (a space at an edge,
/// a control character).
fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("\\N{U+") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "\\N{U+".len()..];
        let decoded = after.split_once('}').and_then(|(hex, tail)| {
            let c = char::from_u32(u32::from_str_radix(hex, 16).ok()?)?;
            Some((c, tail))
        });
        match decoded {
            Some((c, tail)) => {
                out.push(c);
                rest = tail;
            }
            None => {
                out.push_str("\\N{U+");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A table's header and rows cut into trimmed cells, and how many lines it took: a border,
/// the header, a border, the rows, a border.
fn cells(bodies: &[Option<&str>]) -> Option<(Vec<String>, Vec<Vec<String>>, usize)> {
    let line = |k: usize| bodies.get(k).copied().flatten().map(str::trim);
    let border: Vec<char> = line(0)?.chars().collect();
    let is_border =
        |l: &str| l.len() > 2 && l.starts_with("+-") && l.bytes().all(|b| b == b'+' || b == b'-');
    if !is_border(line(0)?) || !is_border(line(2)?) {
        return None;
    }
    let bounds: Vec<usize> = border
        .iter()
        .enumerate()
        .filter(|(_, c)| **c == '+')
        .map(|(k, _)| k)
        .collect();
    let header = split(line(1)?, &bounds)?;
    let mut rows = Vec::new();
    for k in 3..bodies.len().min(MAX_ROWS + 3) {
        let l = line(k)?;
        if is_border(l) {
            return Some((header, rows, k + 1));
        }
        rows.push(split(l, &bounds)?);
    }
    None
}

/// A row's cells, cut at the border's `+` columns (a `|` inside a value stays the value's);
/// by its `|`s when the row does not line up (a wide character), if that gives as many.
fn split(row: &str, bounds: &[usize]) -> Option<Vec<String>> {
    let chars: Vec<char> = row.chars().collect();
    let width = *bounds.last()? + 1;
    let lined_up = chars.len() == width && bounds.iter().all(|&b| chars[b] == '|');
    if lined_up {
        return Some(
            bounds
                .windows(2)
                .map(|w| cell(&chars[w[0] + 1..w[1]].iter().collect::<String>()))
                .collect(),
        );
    }
    let inner = row.strip_prefix('|')?.strip_suffix('|')?;
    let cells: Vec<String> = inner.split('|').map(cell).collect();
    (cells.len() + 1 == bounds.len()).then_some(cells)
}

/// A cell's text without the table's padding: the one space after the `|`, and the spaces
/// that fill it out. A value's own leading spaces stay (Term::Table escapes only trailing
/// ones, as `\N{U+20}`).
fn cell(text: &str) -> String {
    text.strip_prefix(' ').unwrap_or(text).trim_end().to_owned()
}

/// Rows joined where Term::Table wrapped a cell. When any row takes more than one line,
/// Term::Table puts an empty line between rows: each stretch between them is one row, its
/// `PATH` wrapped too. Without them, a line after the first whose `PATH`, `OP` and `LNs`
/// cells (those the table has) are empty goes on the row above. A line of a value that ends
/// with `\n` goes on after a line break; a cell wrapped for width goes straight on.
fn join_wrapped(lines: Vec<Vec<String>>, keys: &[Option<usize>]) -> Vec<Vec<String>> {
    let blank = |line: &Vec<String>| line.iter().all(String::is_empty);
    let separated = lines.iter().any(blank);
    let mut joined: Vec<Vec<String>> = Vec::new();
    let mut open = false;
    for line in lines {
        if separated && blank(&line) {
            open = false;
            continue;
        }
        let goes_on = if separated {
            open
        } else {
            keys.iter().flatten().all(|&k| line[k].is_empty())
        };
        open = true;
        match joined.last_mut() {
            Some(above) if goes_on => {
                for (cell, more) in above.iter_mut().zip(line) {
                    if more.is_empty() {
                        continue;
                    }
                    if let Some(text) = cell.strip_suffix("\\n") {
                        *cell = format!("{text}\n");
                    }
                    cell.push_str(&more);
                }
            }
            _ => joined.push(line),
        }
    }
    for row in &mut joined {
        for cell in row.iter_mut() {
            if let Some(text) = cell.strip_suffix("\\n") {
                *cell = format!("{text}\n");
            }
        }
    }
    joined
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn table(text: &str) -> Table {
        let lines: Vec<&str> = text
            .lines()
            .map(|l| l.strip_prefix('#').unwrap_or(l))
            .collect();
        let bodies: Vec<Option<&str>> = lines.into_iter().map(Some).collect();
        read(&bodies).expect("a table")
    }

    #[test]
    fn a_scalars_row_is_a_diff_of_its_values() {
        let t = table(
            "# +-----+----+-------+\n# | GOT | OP | CHECK |\n# +-----+----+-------+\n# | 1   | eq | 2     |\n# +-----+----+-------+",
        );
        assert_eq!(t.used, 5);
        assert_eq!(t.message, None);
        assert_eq!(t.expected_actual, (json!("2"), json!("1")));
    }

    #[test]
    fn every_row_is_a_difference_at_its_path_and_absence_is_no_value() {
        let t = table(
            "# +--------+------------------+---------+------------------+\n\
             # | PATH   | GOT              | OP      | CHECK            |\n\
             # +--------+------------------+---------+------------------+\n\
             # | {a}    | 1                | eq      | 2                |\n\
             # | {b}[2] | 3                | !exists | <DOES NOT EXIST> |\n\
             # | {d}    | <DOES NOT EXIST> |         | y                |\n\
             # +--------+------------------+---------+------------------+",
        );
        assert_eq!(t.used, 7);
        assert_eq!(
            t.message.as_deref(),
            Some("Structures differ at {a}, {b}[2], {d}")
        );
        assert_eq!(
            t.expected_actual,
            (
                json!({"{a}": "2", "{d}": "y"}),
                json!({"{a}": "1", "{b}[2]": "3"})
            )
        );
    }

    #[test]
    fn a_check_that_is_no_value_is_the_check() {
        let t = table(
            "+------+---------+-----------+---------+-----+\n\
             | PATH | GOT     | OP        | CHECK   | LNs |\n\
             +------+---------+-----------+---------+-----+\n\
             | {x}  | 1       | FALSE()   | FALSE   | 6   |\n\
             | {y}  | <UNDEF> | DEFINED() | DEFINED | 6   |\n\
             +------+---------+-----------+---------+-----+",
        );
        assert_eq!(
            t.expected_actual,
            (
                json!({"{x}": diff::bare("FALSE()"), "{y}": diff::bare("DEFINED()")}),
                json!({"{x}": "1", "{y}": diff::bare("undef")})
            )
        );
        let like = table(
            "+-----+----+--------+\n| GOT | OP | CHECK  |\n+-----+----+--------+\n| abc | =~ | (?^:z) |\n+-----+----+--------+",
        );
        assert_eq!(
            like.expected_actual,
            (diff::bare("=~ (?^:z)"), json!("abc"))
        );
    }

    #[test]
    fn a_reference_compared_by_eq_is_the_string_it_printed() {
        let t = table(
            "+-------------------------------+----+------------------------------+\n\
             | GOT                           | OP | CHECK                        |\n\
             +-------------------------------+----+------------------------------+\n\
             | Test::A->HASH(0x5637b0963760) | eq | Test::A=HASH(0x5637b0963760) |\n\
             +-------------------------------+----+------------------------------+",
        );
        assert_eq!(
            t.expected_actual,
            (
                json!("Test::A=HASH(0x5637b0963760)"),
                json!("Test::A->HASH(0x5637b0963760)")
            )
        );
    }

    #[test]
    fn wrapped_cells_and_lines_join_into_the_value() {
        let t = table(
            "+-----+----+-------+\n| GOT | OP | CHECK |\n+-----+----+-------+\n| a\\n | eq | a\\n   |\n| b   |    | c     |\n+-----+----+-------+",
        );
        assert_eq!(t.expected_actual, (json!("a\nc"), json!("a\nb")));
        let wide = table(
            "+-----+----+-------+\n| GOT | OP | CHECK |\n+-----+----+-------+\n| xxx | eq | yyy   |\n| xx  |    | y     |\n+-----+----+-------+",
        );
        assert_eq!(wide.expected_actual, (json!("yyyy"), json!("xxxxx")));
    }

    #[test]
    fn rows_of_many_lines_are_told_apart_by_blank_lines() {
        let t = table(
            "+------+-------+----+-------+\n\
             | PATH | GOT   | OP | CHECK |\n\
             +------+-------+----+-------+\n\
             | {a}  | x\\n   | eq | x\\n   |\n\
             |      | y     |    | z     |\n\
             |      |       |    |       |\n\
             | [1]- | kkkkk | eq | jjjjj |\n\
             | >{b} | kk    |    | j     |\n\
             +------+-------+----+-------+",
        );
        assert_eq!(
            t.message.as_deref(),
            Some("Structures differ at {a}, [1]->{b}")
        );
        assert_eq!(
            t.expected_actual,
            (
                json!({"{a}": "x\nz", "[1]->{b}": "jjjjjj"}),
                json!({"{a}": "x\ny", "[1]->{b}": "kkkkkkk"})
            )
        );
    }

    #[test]
    fn a_pipe_in_a_value_is_the_values_and_escapes_are_read() {
        let t = table(
            "+-----+----+----------+\n| GOT | OP | CHECK    |\n+-----+----+----------+\n| a|b | eq | \\N{U+20} |\n+-----+----+----------+",
        );
        assert_eq!(t.expected_actual, (json!(" "), json!("a|b")));
        // Two spaces against one: the first is the value's, the last escaped.
        let t = table(
            "+-----------+----+----------+\n| GOT       | OP | CHECK    |\n+-----------+----+----------+\n|  \\N{U+20} | eq | \\N{U+20} |\n+-----------+----+----------+",
        );
        assert_eq!(t.expected_actual, (json!(" "), json!("  ")));
    }

    #[test]
    fn a_structures_own_row_goes_when_its_children_say_why() {
        let t = table(
            "+------+----------------------+--------+------+\n\
             | PATH | GOT                  | CHECK  | LNs  |\n\
             +------+----------------------+--------+------+\n\
             |      | HASH(0x55ba06fd14b0) | <HASH> | 9, 9 |\n\
             | {b}  | <DOES NOT EXIST>     | 2      | 9    |\n\
             +------+----------------------+--------+------+",
        );
        assert_eq!(t.message.as_deref(), Some("Structures differ at {b}"));
        assert_eq!(t.expected_actual, (json!({"{b}": "2"}), json!({})));
        let kind = table(
            "+-----------------------+--------+\n| GOT                   | CHECK  |\n+-----------------------+--------+\n| ARRAY(0x55ba06412840) | <HASH> |\n+-----------------------+--------+",
        );
        assert_eq!(
            kind.expected_actual,
            (diff::bare("<HASH>"), diff::bare("ARRAY(0x55ba06412840)"))
        );
    }

    #[test]
    fn not_a_table() {
        let bodies = [Some(" +---+"), Some(" | x |"), Some(" +---+")];
        assert_eq!(read(&bodies), None, "no GOT/CHECK");
        let open = [
            Some("+-----+-------+"),
            Some("| GOT | CHECK |"),
            Some("+-----+-------+"),
            Some("| 1   | 2     |"),
        ];
        assert_eq!(read(&open), None, "never closed");
    }
}
