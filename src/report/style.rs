//! Terminal styles: ANSI when enabled, nothing at all otherwise (so every renderer's output is
//! plain, deterministic text in tests and pipes).
use std::fmt::Display;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Style {
    pub enabled: bool,
}

pub const RED: &str = "31";
pub const GREEN: &str = "32";
pub const YELLOW: &str = "33";
pub const MAGENTA: &str = "35";
pub const CYAN: &str = "36";
pub const BOLD: &str = "1";
pub const DIM: &str = "2";

impl Style {
    pub fn on() -> Self {
        Style { enabled: true }
    }

    /// `text` wrapped in the SGR `code` when styles are on.
    pub fn paint<T: Display>(&self, code: &str, text: T) -> String {
        if self.enabled {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
}

/// Decides colour for a stream: `--color always|never` win; then a non-empty `NO_COLOR` turns it
/// off; then `CLICOLOR_FORCE` or `FORCE_COLOR` (set and not `0`/`false`) turns it on even into a
/// pipe (CI logs that render colour); else colour goes to terminals only.
pub fn color_enabled(choice_always: Option<bool>, is_terminal: bool) -> bool {
    color_from(choice_always, is_terminal, |k| std::env::var_os(k))
}

fn color_from(
    choice_always: Option<bool>,
    is_terminal: bool,
    var: impl Fn(&str) -> Option<std::ffi::OsString>,
) -> bool {
    if let Some(forced) = choice_always {
        return forced;
    }
    if var("NO_COLOR").is_some_and(|v| !v.is_empty()) {
        return false;
    }
    let forced = |k: &str| var(k).is_some_and(|v| !v.is_empty() && v != "0" && v != "false");
    if forced("CLICOLOR_FORCE") || forced("FORCE_COLOR") {
        return true;
    }
    is_terminal
}

/// `850ms`, `1.2s`, `2m 03s`.
pub fn duration_ms(ms: f64) -> String {
    if !ms.is_finite() || ms < 0.0 {
        return String::new();
    }
    if ms < 1000.0 {
        if ms < 10.0 && ms.fract() != 0.0 {
            format!("{ms:.1}ms")
        } else {
            format!("{}ms", ms.round() as u64)
        }
    } else if ms < 60_000.0 {
        format!("{:.1}s", ms / 1000.0)
    } else {
        let s = (ms / 1000.0).round() as u64;
        format!("{}m {:02}s", s / 60, s % 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_choice_follows_flags_then_environment() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(key, _)| *key == k)
                    .map(|(_, v)| std::ffi::OsString::from(v))
            }
        };
        assert!(!color_from(None, false, env(&[])));
        assert!(color_from(None, true, env(&[])));
        assert!(!color_from(None, true, env(&[("NO_COLOR", "1")])));
        assert!(color_from(None, false, env(&[("FORCE_COLOR", "1")])));
        assert!(color_from(None, false, env(&[("CLICOLOR_FORCE", "1")])));
        assert!(!color_from(None, false, env(&[("FORCE_COLOR", "0")])));
        assert!(!color_from(
            None,
            false,
            env(&[("NO_COLOR", "1"), ("FORCE_COLOR", "1")])
        ));
        assert!(color_from(Some(true), false, env(&[("NO_COLOR", "1")])));
        assert!(!color_from(Some(false), true, env(&[("FORCE_COLOR", "1")])));
    }

    #[test]
    fn durations_read_well() {
        assert_eq!(duration_ms(4.2), "4.2ms");
        assert_eq!(duration_ms(42.0), "42ms");
        assert_eq!(duration_ms(1500.0), "1.5s");
        assert_eq!(duration_ms(123_000.0), "2m 03s");
    }

    #[test]
    fn styles_off_is_plain() {
        assert_eq!(Style::default().paint(RED, "x"), "x");
        assert_eq!(Style::on().paint(RED, "x"), "\x1b[31mx\x1b[0m");
    }
}
