//! What the user types in watch mode.
//!
//! - stdin a terminal (and tapline in the foreground): single keys, read in cbreak mode (no
//!   line buffering, no echo; Ctrl-C still raises SIGINT and output keeps its newline
//!   translation). The terminal's settings are restored on exit, on panic and on drop.
//! - stdin a pipe or socket: one command per line (`a`, `f`, `p PATTERN`, `q`, an empty line
//!   = Enter); end of input quits. This is how scripts and tests drive a session.
//! - anything else (`/dev/null`, a file): stdin is not read; signals end the session.
use rustix::termios::{self, LocalModes, OptionalActions, SpecialCodeIndex, Termios};
use std::io::{self, BufRead, IsTerminal, Read};
use std::os::fd::AsFd;
use std::os::unix::fs::FileTypeExt;
use std::sync::{Mutex, Once};
use tokio::sync::mpsc;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// A key, from a terminal.
    Key(Key),
    /// A command line, from a pipe.
    Line(String),
    /// stdin ended.
    Eof,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Enter,
    Char(char),
    Backspace,
    Escape,
    /// Ctrl-C when the terminal does not turn it into SIGINT.
    Interrupt,
    /// Ctrl-D.
    EndOfInput,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Keys,
    Lines,
    None,
}

/// The terminal's settings before cbreak mode, for the panic hook.
static SAVED: Mutex<Option<Termios>> = Mutex::new(None);
static HOOK: Once = Once::new();

/// Restores the terminal when dropped.
pub struct Cbreak(());

impl Drop for Cbreak {
    fn drop(&mut self) {
        restore();
    }
}

fn restore() {
    let saved = SAVED.lock().map(|mut s| s.take()).unwrap_or(None);
    if let Some(saved) = saved {
        let _ = termios::tcsetattr(io::stdin(), OptionalActions::Now, &saved);
    }
}

/// Decides how stdin is read and starts reading it on a thread of its own (never joined: a
/// blocked read must not keep the process alive). The guard, when keys are read, puts the
/// terminal back.
pub fn start() -> (Mode, mpsc::Receiver<Input>, Option<Cbreak>) {
    // Bounded: a reader of a pipe that floods lines waits for the session to take them.
    let (tx, rx) = mpsc::channel(INPUT_QUEUE);
    let stdin = io::stdin();
    if stdin.is_terminal() {
        // A background job reading its terminal would be stopped (SIGTTIN).
        let foreground =
            matches!(termios::tcgetpgrp(&stdin), Ok(pgrp) if pgrp == rustix::process::getpgrp());
        let guard = foreground.then(cbreak).flatten();
        if guard.is_none() {
            return (Mode::None, rx, None);
        }
        spawn(move || read_keys(tx));
        return (Mode::Keys, rx, guard);
    }
    let piped = stdin
        .as_fd()
        .try_clone_to_owned()
        .and_then(|fd| std::fs::File::from(fd).metadata())
        .is_ok_and(|m| m.file_type().is_fifo() || m.file_type().is_socket());
    if !piped {
        return (Mode::None, rx, None);
    }
    spawn(move || read_lines(tx));
    (Mode::Lines, rx, None)
}

/// Keys or lines read ahead of the session.
const INPUT_QUEUE: usize = 64;

fn spawn(f: impl FnOnce() + Send + 'static) {
    let _ = std::thread::Builder::new()
        .name("tapline stdin".into())
        .spawn(f);
}

fn cbreak() -> Option<Cbreak> {
    let stdin = io::stdin();
    let saved = termios::tcgetattr(&stdin).ok()?;
    let mut t = saved.clone();
    t.local_modes.remove(LocalModes::ICANON | LocalModes::ECHO);
    t.special_codes[SpecialCodeIndex::VMIN] = 1;
    t.special_codes[SpecialCodeIndex::VTIME] = 0;
    *SAVED.lock().ok()? = Some(saved);
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
    });
    termios::tcsetattr(&stdin, OptionalActions::Now, &t).ok()?;
    Some(Cbreak(()))
}

fn read_keys(tx: mpsc::Sender<Input>) {
    let mut stdin = io::stdin().lock();
    let mut buf = [0u8; 64];
    loop {
        let n = match stdin.read(&mut buf) {
            Ok(0) | Err(_) => {
                let _ = tx.blocking_send(Input::Eof);
                return;
            }
            Ok(n) => n,
        };
        for key in keys(&buf[..n]) {
            if tx.blocking_send(Input::Key(key)).is_err() {
                return;
            }
        }
    }
}

/// The keys in one read. An escape sequence (arrow keys, …) arrives in one read and is
/// dropped whole; a lone ESC is the Escape key.
pub fn keys(chunk: &[u8]) -> Vec<Key> {
    if chunk.first() == Some(&0x1b) {
        return if chunk.len() == 1 {
            vec![Key::Escape]
        } else {
            Vec::new()
        };
    }
    String::from_utf8_lossy(chunk)
        .chars()
        .filter_map(|c| match c {
            '\r' | '\n' => Some(Key::Enter),
            '\x7f' | '\x08' => Some(Key::Backspace),
            '\x03' => Some(Key::Interrupt),
            '\x04' => Some(Key::EndOfInput),
            c if c.is_control() => None,
            c => Some(Key::Char(c)),
        })
        .collect()
}

fn read_lines(tx: mpsc::Sender<Input>) {
    for line in io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        if tx.blocking_send(Input::Line(line)).is_err() {
            return;
        }
    }
    let _ = tx.blocking_send(Input::Eof);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_from_chunks() {
        assert_eq!(keys(b"a"), [Key::Char('a')]);
        assert_eq!(keys(b"\n"), [Key::Enter]);
        assert_eq!(keys(b"\r"), [Key::Enter]);
        assert_eq!(keys(b"fq"), [Key::Char('f'), Key::Char('q')]);
        assert_eq!(keys(b"\x1b"), [Key::Escape]);
        assert_eq!(keys(b"\x1b[A"), []);
        assert_eq!(
            keys(b"\x7f\x03\x04\x01"),
            [Key::Backspace, Key::Interrupt, Key::EndOfInput]
        );
        assert_eq!(keys("é".as_bytes()), [Key::Char('é')]);
    }
}
