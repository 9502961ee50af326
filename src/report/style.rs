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

/// Decides colour for a stream: `always`/`never` win; `auto` means a terminal and no `NO_COLOR`.
pub fn color_enabled(choice_always: Option<bool>, is_terminal: bool) -> bool {
    match choice_always {
        Some(forced) => forced,
        None => is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    }
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
