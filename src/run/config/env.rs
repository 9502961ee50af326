//! Variables as `--env KEY=VALUE` and `[run] env` write them: read and checked here, where
//! the configuration is read, so that reading it needs nothing of the runner; the child
//! environment built from them is `child_env`'s.

/// `--env` or `[run] env` written wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnvError {
    #[error("expected KEY=VALUE, got `{0}`")]
    NoEquals(String),
    #[error("the variable name is empty in `{0}`")]
    EmptyKey(String),
    #[error("`{0}` holds a NUL byte, which no environment variable can")]
    Nul(String),
}

/// Splits `KEY=VALUE` at its first `=`.
pub fn parse_assignment(text: &str) -> Result<(String, String), EnvError> {
    let (key, value) = text
        .split_once('=')
        .ok_or_else(|| EnvError::NoEquals(text.to_owned()))?;
    check_var(key, value)?;
    Ok((key.to_owned(), value.to_owned()))
}

/// Whether `key` may name a variable and `value` be one's value.
pub fn check_var(key: &str, value: &str) -> Result<(), EnvError> {
    if key.is_empty() {
        return Err(EnvError::EmptyKey(format!("{key}={value}")));
    }
    if key.contains('=') {
        return Err(EnvError::NoEquals(key.to_owned()));
    }
    if key.contains('\0') || value.contains('\0') {
        return Err(EnvError::Nul(format!("{key}={value}").replace('\0', "\\0")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assignments() {
        assert_eq!(parse_assignment("A=1"), Ok(("A".into(), "1".into())));
        assert_eq!(parse_assignment("A="), Ok(("A".into(), String::new())));
        assert_eq!(parse_assignment("A=b=c"), Ok(("A".into(), "b=c".into())));
        assert_eq!(parse_assignment("A"), Err(EnvError::NoEquals("A".into())));
        assert_eq!(parse_assignment("=1"), Err(EnvError::EmptyKey("=1".into())));
        assert!(matches!(parse_assignment("A\0=1"), Err(EnvError::Nul(_))));
        assert_eq!(
            parse_assignment("A").map_err(|e| e.to_string()),
            Err("expected KEY=VALUE, got `A`".into())
        );
    }
}
