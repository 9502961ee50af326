//! Why a child could not be started, in words a user can act on: a missing program, a
//! missing `#!` interpreter, a denied permission, an unusable working directory.
use super::Spec;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use tokio::io::AsyncReadExt;

/// Why a run could not be started (or, rarely, finished).
///
/// Messages are complete sentences starting with "failed to …" and already
/// include the OS error text, so no `source()` chain is exposed (printing one
/// would repeat it).
#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    #[error("failed to start `{program}`: program not found")]
    NotFound { program: String },
    /// The program exists but the kernel could not find the interpreter its
    /// `#!` line names.
    #[error("failed to start `{program}`: its interpreter `{interpreter}` (from the #! line) was not found")]
    InterpreterNotFound {
        program: String,
        interpreter: String,
    },
    #[error("failed to start `{program}`: permission denied")]
    PermissionDenied { program: String },
    #[error("failed to start `{program}`: working directory `{}` is unusable: {error}", cwd.display())]
    Cwd {
        program: String,
        cwd: PathBuf,
        error: io::Error,
    },
    #[error("failed to start `{program}`: {error}")]
    Io { program: String, error: io::Error },
    #[error("failed to wait for `{program}`: {error}")]
    Wait { program: String, error: io::Error },
}

impl SpawnError {
    pub fn program(&self) -> &str {
        match self {
            SpawnError::NotFound { program }
            | SpawnError::InterpreterNotFound { program, .. }
            | SpawnError::PermissionDenied { program }
            | SpawnError::Cwd { program, .. }
            | SpawnError::Io { program, .. }
            | SpawnError::Wait { program, .. } => program,
        }
    }

    /// The executable that does not exist — the program itself or its `#!`
    /// interpreter — so a caller can say which program is not installed.
    pub fn missing_executable(&self) -> Option<&str> {
        match self {
            SpawnError::NotFound { program } => Some(program),
            SpawnError::InterpreterNotFound { interpreter, .. } => Some(interpreter),
            _ => None,
        }
    }
}

/// Turns a spawn failure into the error a user can act on.
pub(super) async fn classify_spawn_error(
    spec: &Spec,
    program: String,
    error: io::Error,
) -> SpawnError {
    // A missing working directory fails with the same ENOENT/EACCES as a
    // missing program; check it first so the right thing gets blamed.
    match tokio::fs::metadata(&spec.cwd).await {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => {
            return SpawnError::Cwd {
                program,
                cwd: spec.cwd.clone(),
                error: io::Error::new(io::ErrorKind::NotADirectory, "not a directory"),
            }
        }
        Err(error) => {
            return SpawnError::Cwd {
                program,
                cwd: spec.cwd.clone(),
                error,
            }
        }
    }
    match error.kind() {
        io::ErrorKind::NotFound => {
            // A path (not a PATH lookup) that exists yet fails with ENOENT:
            // the kernel could not find its #! interpreter.
            if spec.program.as_bytes().contains(&b'/') {
                if let Some(interpreter) = shebang_interpreter(&spec.cwd.join(&spec.program)).await
                {
                    return SpawnError::InterpreterNotFound {
                        program,
                        interpreter,
                    };
                }
            }
            SpawnError::NotFound { program }
        }
        io::ErrorKind::PermissionDenied => SpawnError::PermissionDenied { program },
        _ => SpawnError::Io { program, error },
    }
}

/// The interpreter named on a script's `#!` line, if it has one.
async fn shebang_interpreter(path: &Path) -> Option<String> {
    let mut file = tokio::fs::File::open(path).await.ok()?;
    // Linux reads at most this much of a #! line anyway.
    let mut head = [0u8; 256];
    let n = file.read(&mut head).await.ok()?;
    let line = head.get(..n)?.strip_prefix(b"#!")?;
    let line = line.split(|&b| b == b'\n').next()?;
    let interpreter = line
        .split(u8::is_ascii_whitespace)
        .find(|word| !word.is_empty())?;
    Some(String::from_utf8_lossy(interpreter).into_owned())
}
