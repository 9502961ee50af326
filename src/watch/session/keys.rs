//! The watch session's keys and stdin lines: what each asks for, and the prompt they type a
//! pattern at.
use super::*;

impl Session<'_> {
    pub(in crate::watch) fn on_input(&mut self, input: Input) -> Action {
        match input {
            Input::Eof => Action::Quit(Ended::Quit),
            Input::Line(line) => {
                let line = line.trim();
                match line {
                    "" | "a" => Action::Run(Want::all("all files (a)")),
                    "f" => self.failing(),
                    "F" => self.failing_tests(),
                    "t" => self.set_tests(""),
                    "q" => Action::Quit(Ended::Quit),
                    "p" => {
                        self.say("usage: p PATTERN\n");
                        Action::None
                    }
                    _ => match (line.strip_prefix("p "), line.strip_prefix("t ")) {
                        (Some(pattern), _) => pattern_want(pattern.trim()),
                        (_, Some(pattern)) => self.set_tests(pattern),
                        _ => {
                            self.say(&format!(
                                "unknown command `{line}`: a, f, F, p PATTERN, t [PATTERN] or q\n"
                            ));
                            Action::None
                        }
                    },
                }
            }
            Input::Key(key) => {
                if let Some(mut text) = self.prompt.take() {
                    return match key {
                        Key::Char(c) => {
                            text.push(c);
                            self.prompt = Some(text);
                            self.draw_prompt();
                            Action::None
                        }
                        Key::Backspace => {
                            text.pop();
                            self.prompt = Some(text);
                            self.draw_prompt();
                            Action::None
                        }
                        Key::Escape | Key::EndOfInput => {
                            self.end_prompt();
                            Action::None
                        }
                        Key::Enter if self.prompt_tests => {
                            self.end_prompt();
                            self.set_tests(&text)
                        }
                        Key::Enter => {
                            self.end_prompt();
                            if text.trim().is_empty() {
                                Action::None
                            } else {
                                pattern_want(text.trim())
                            }
                        }
                        Key::Interrupt => Action::Quit(Ended::Interrupted),
                    };
                }
                match key {
                    Key::Enter | Key::Char('a') => Action::Run(Want::all("all files (a)")),
                    Key::Char('f') => self.failing(),
                    Key::Char('F') => self.failing_tests(),
                    Key::Char(c @ ('p' | 't')) => {
                        self.prompt = Some(String::new());
                        self.prompt_tests = c == 't';
                        self.draw_prompt();
                        Action::None
                    }
                    Key::Char('q') | Key::EndOfInput => Action::Quit(Ended::Quit),
                    Key::Interrupt => Action::Quit(Ended::Interrupted),
                    _ => Action::None,
                }
            }
        }
    }

    pub(in crate::watch) fn is_own_output(&self, path: &Path) -> bool {
        use std::os::unix::fs::MetadataExt;
        !self.own_output.is_empty()
            && std::fs::metadata(path).is_ok_and(|m| self.own_output.contains(&(m.dev(), m.ino())))
    }

    pub(in crate::watch) fn failing(&mut self) -> Action {
        if self.verdicts.values().any(|ok| !ok) {
            Action::Run(Want {
                failing: true,
                asked: true,
                reasons: vec!["failing files (f)".into()],
                ..Want::default()
            })
        } else {
            self.say("no failing test file\n");
            Action::None
        }
    }

    /// `F`: the failing files, only their failing tests.
    pub(in crate::watch) fn failing_tests(&mut self) -> Action {
        match self.failing() {
            Action::Run(want) => Action::Run(Want {
                failed_tests: true,
                reasons: vec!["failing tests (F)".into()],
                ..want
            }),
            other => other,
        }
    }

    /// `t`'s pattern (empty: none) from now on, and a run of every file with it.
    pub(in crate::watch) fn set_tests(&mut self, text: &str) -> Action {
        if let Err(e) = self.by_test.set(text) {
            self.say(&format!("{e}\n"));
            return Action::None;
        }
        let reason = match self.by_test.label() {
            Some(_) => "test pattern (t)",
            None => "all tests (t cleared)",
        };
        Action::Run(Want::all(reason))
    }

    pub(in crate::watch) fn draw_prompt(&self) {
        // Drawn only between runs: during one, the report owns the screen.
        if let (Some(text), false, true) = (&self.prompt, self.running, self.stderr_tty) {
            let what = match self.prompt_tests {
                true => "test pattern (empty clears) › ",
                false => "pattern › ",
            };
            self.say(&format!(
                "\r\x1b[2K{}{text}",
                self.style.paint(style::BOLD, what)
            ));
        }
    }

    pub(in crate::watch) fn end_prompt(&self) {
        if !self.running && self.stderr_tty {
            self.say("\r\x1b[2K");
        }
    }
}

/// `p PATTERN`: a run of the files whose paths match it.
fn pattern_want(pattern: &str) -> Action {
    Action::Run(Want {
        patterns: vec![pattern.to_owned()],
        asked: true,
        reasons: vec![format!("files matching `{pattern}` (p)")],
        ..Want::default()
    })
}
