//! How the child's output reaches tapline: stdout and stderr on a pipe each, or both on one
//! pipe ([`super::Spec::merged`]), which hands over the bytes in the order the child wrote them.
use super::{Chunk, SpawnError};
use std::io;
use std::os::fd::OwnedFd;
use std::process::Stdio;
use tokio::io::AsyncRead;
use tokio::process::{Child, Command};

/// One pipe the child writes into, and what its bytes are called.
pub(super) struct Pipe {
    pub(super) reader: Box<dyn AsyncRead + Unpin + Send>,
    pub(super) wrap: fn(Vec<u8>) -> Chunk,
}

/// Points the command's stdout and stderr at a pipe each, or (`merged`) both at the write end
/// of one pipe, whose read end is returned: kept until the child is spawned.
pub(super) fn attach(
    command: &mut Command,
    merged: bool,
    program: &str,
) -> Result<Option<OwnedFd>, SpawnError> {
    one_pipe(command, merged).map_err(|e| SpawnError::Io {
        program: program.to_owned(),
        error: io::Error::new(e.kind(), format!("cannot create the output pipe: {e}")),
    })
}

fn one_pipe(command: &mut Command, merged: bool) -> io::Result<Option<OwnedFd>> {
    if !merged {
        command.stdout(Stdio::piped()).stderr(Stdio::piped());
        return Ok(None);
    }
    // CLOEXEC: a child another task spawns meanwhile inherits neither end. Ours gets the write
    // end as its fds 1 and 2 (dup2 clears the flag on them), and never the read end, whose
    // copy in a descendant would keep the pipe from ever reading as ended.
    let (read, write) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?;
    let write_err = write.try_clone()?;
    command
        .stdout(Stdio::from(write))
        .stderr(Stdio::from(write_err));
    Ok(Some(read))
}

/// The pipes to read once the child is spawned. The command must be dropped before: it holds
/// tapline's copies of a shared pipe's write end, and the pipe only ends when they are closed.
pub(super) fn take(
    child: &mut Child,
    shared: Option<OwnedFd>,
    program: &str,
) -> Result<Vec<Pipe>, SpawnError> {
    pipes(child, shared).map_err(|error| SpawnError::Io {
        program: program.to_owned(),
        error,
    })
}

fn pipes(child: &mut Child, shared: Option<OwnedFd>) -> io::Result<Vec<Pipe>> {
    if let Some(read) = shared {
        let reader = tokio::net::unix::pipe::Receiver::from_owned_fd(read)?;
        return Ok(vec![Pipe {
            reader: Box::new(reader),
            wrap: Chunk::Stdout,
        }]);
    }
    match (child.stdout.take(), child.stderr.take()) {
        (Some(stdout), Some(stderr)) => Ok(vec![
            Pipe {
                reader: Box::new(stdout),
                wrap: Chunk::Stdout,
            },
            Pipe {
                reader: Box::new(stderr),
                wrap: Chunk::Stderr,
            },
        ]),
        _ => Err(io::Error::other("the child's output pipes are missing")),
    }
}
