//! `tapline serve`, `send`, `events` and `status`: command lines into the daemon and its
//! clients (`tapline::daemon`), and their outcomes into exit codes.
use crate::cli::{
    DaemonTarget, EventsArgs, HistoryFormat, RunArgs, RunFormat, SendArgs, ServeArgs, StatusArgs,
};
use crate::reports::stderr_terminal_options;
use crate::{Failure, Outcome};
use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use tapline::daemon::client::{self, ClientError, Target};
use tapline::daemon::forward::{Forward, ForwardAddr};
use tapline::daemon::{self, socket, tls, ServeSettings, Stop};
use tapline::report::{outlets, output};
use tapline::run::options::{Env, Project};
use tapline::state::logs;

/// The socket's place under the project root when `--socket` does not say.
const DEFAULT_SOCKET: &str = ".nogit/tapline.sock";

/// Says why the command stops (exit 2), as every command does ([`Failure`]).
fn usage(msg: impl std::fmt::Display) -> u8 {
    Failure::usage(msg).exit()
}

fn project_root() -> Result<PathBuf, String> {
    let cwd = std::env::current_dir()
        .map_err(|e| format!("failed to read the current directory: {e}"))?;
    Ok(tapline::run::config::find_project_root(&cwd))
}

fn socket_path(flag: Option<&PathBuf>) -> Result<PathBuf, String> {
    match flag {
        Some(p) => Ok(p.clone()),
        None => Ok(project_root()?.join(DEFAULT_SOCKET)),
    }
}

pub fn serve(args: &ServeArgs) -> Outcome {
    let project = Project::current().map_err(Failure::usage)?;
    // Report paths are checked before anything listens or is touched.
    let targets = output::targets(&args.output).map_err(Failure::usage)?;
    let reports =
        crate::reports::build(targets, args.annotations, args.format != RunFormat::Human)?;
    let settings = listen(args, &project).map_err(Failure::Usage)?;
    let live = settings.live;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Failure::internal(format!("failed to start the async runtime: {e}")))?;
    let terminal = stderr_terminal_options(args.color, args.quiet, args.verbose, live);
    let mut outlets = crate::reports::outlets(terminal, args.format, reports);
    let mut opened = outlets.open(live);
    let mut sink = opened.sink(Vec::new());
    let mut warnings = Vec::new();
    let served = runtime.block_on(daemon::serve(settings, &mut sink, &mut |w: &str| {
        warnings.push(w.to_owned())
    }));
    drop(sink);
    let closed = opened.close();
    for w in warnings {
        tapline::say!("tapline: {w}");
    }
    // Stuck connections (a producer that never sends) must not hold the exit.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    let code = served.map(|s| match s.stop {
        Stop::Terminate => 0,
        Stop::Interrupt => outlets::EXIT_INTERRUPTED,
    });
    outlets::exit_code(code, &closed).map_err(Failure::Internal)
}

/// The daemon's sockets bound (Unix, and TCP with `--listen`, TLS with a certificate), its
/// token read and its log folder prepared; the addresses are told on stderr.
fn listen(args: &ServeArgs, project: &Project) -> Result<ServeSettings, String> {
    let token = args.token.as_deref().map(socket::read_token).transpose()?;
    let path = socket_path(args.socket.as_ref())?;
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => Some(tls::server_config(cert, key)?),
        _ => None,
    };
    let tcp = args
        .listen
        .map(|a| socket::bind_tcp(a, token.is_some(), tls.is_some()))
        .transpose()
        .map_err(|e| e.to_string())?;
    let log_dir = if args.no_logs {
        None
    } else {
        let dir = project.serve_log_dir(args.log_dir.as_deref());
        Some(logs::LogDir::prepare(&dir).map_err(|e| e.to_string())?)
    };
    let unix = socket::UnixSocket::bind(&path).map_err(|e| e.to_string())?;
    tapline::say!("tapline: listening on {}", path.display());
    if let Some(addr) = tcp.as_ref().and_then(|l| l.local_addr().ok()) {
        let tls = if tls.is_some() { " (TLS)" } else { "" };
        tapline::say!("tapline: listening on tcp {addr}{tls}");
    }
    Ok(ServeSettings {
        unix,
        tcp,
        token,
        tls,
        log_dir,
        live: Env::current().live(args.verbose),
    })
}

fn target(t: &DaemonTarget) -> Result<Target, String> {
    match &t.connect {
        Some(addr) => Target::tcp(addr, t.token.as_deref(), t.tls_ca.as_deref()),
        None => Ok(Target::Unix(socket_path(t.socket.as_ref())?)),
    }
}

/// `run --forward`'s sink, started; a token or CA file that cannot be read is a usage error
/// (the daemon's absence is not: the run warns and goes on).
pub(crate) fn forward_sink(args: &RunArgs) -> Result<Option<Forward>, String> {
    let Some(addr) = &args.forward else {
        return Ok(None);
    };
    let target = match ForwardAddr::parse(addr) {
        ForwardAddr::Tcp(addr) => Target::tcp(
            &addr,
            args.forward_token.as_deref(),
            args.forward_tls_ca.as_deref(),
        )
        .map_err(|e| format!("--forward: {e}"))?,
        ForwardAddr::Unix(_) if args.forward_token.is_some() || args.forward_tls_ca.is_some() => {
            return Err(format!(
                "--forward {addr}: a Unix socket takes no --forward-token or --forward-tls-ca"
            ))
        }
        ForwardAddr::Unix(path) => Target::Unix(path),
    };
    Ok(Some(Forward::start(target)))
}

fn client_failure(e: ClientError) -> u8 {
    usage(e)
}

pub fn send(args: &SendArgs) -> u8 {
    let target = match target(&args.target) {
        Ok(t) => t,
        Err(e) => return usage(e),
    };
    let meta = match args.meta.as_deref().map(serde_json::from_str).transpose() {
        Ok(Some(serde_json::Value::Object(m))) => Some(serde_json::Value::Object(m)),
        Ok(None) => None,
        Ok(Some(_)) => return usage("invalid --meta: not a JSON object"),
        Err(e) => return usage(format!("invalid --meta: {e}")),
    };
    let mut input: Box<dyn io::Read> = match args.file.as_deref() {
        None => Box::new(io::stdin().lock()),
        Some(p) if p.as_os_str() == "-" => Box::new(io::stdin().lock()),
        Some(p) => match std::fs::File::open(p) {
            Ok(f) => Box::new(f),
            Err(e) => return usage(format!("failed to open {}: {e}", p.display())),
        },
    };
    match client::send(&target, &args.name, meta, &mut input) {
        Ok(v) => {
            let counts = format!("{} passed, {} failed", v.pass, v.fail);
            if v.ok {
                tapline::say!("tapline: {}: passed ({counts})", v.stream);
                0
            } else {
                tapline::say!(
                    "tapline: {}: failed ({counts}) — {}",
                    v.stream,
                    v.reasons.join("; ")
                );
                1
            }
        }
        Err(e) => client_failure(e),
    }
}

pub fn events(args: &EventsArgs) -> u8 {
    let target = match target(&args.target) {
        Ok(t) => t,
        Err(e) => return usage(e),
    };
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    match client::events(&target, args.stream.as_deref(), &mut out) {
        Ok(false) => 0,
        Ok(true) => {
            tapline::say!("tapline: the daemon dropped this subscriber: it fell behind");
            1
        }
        Err(ClientError::Failed(e)) if e.contains("Broken pipe") => 0,
        Err(e) => client_failure(e),
    }
}

pub fn status(args: &StatusArgs) -> u8 {
    let target = match target(&args.target) {
        Ok(t) => t,
        Err(e) => return usage(e),
    };
    // Scripts pipe the JSON; a person at a terminal reads lines.
    let human = match args.format {
        Some(f) => f == HistoryFormat::Human,
        None => io::stdout().is_terminal(),
    };
    match client::status(&target) {
        Ok(doc) => {
            let text = if human {
                status_text(&doc)
            } else {
                serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
            };
            let mut out = io::stdout().lock();
            let _ = out.write_all(text.as_bytes());
            0
        }
        Err(e) => client_failure(e),
    }
}

/// The status document as lines a person reads: the daemon, then each open stream (the test
/// it is on) and each finished one (its verdict and reasons), with their counts.
fn status_text(doc: &serde_json::Value) -> String {
    let num = |v: &serde_json::Value, key: &str| v.get(key).and_then(|n| n.as_u64()).unwrap_or(0);
    let listening: Vec<&str> = doc
        .get("listening")
        .and_then(|l| l.as_array())
        .map(|l| l.iter().filter_map(|a| a.as_str()).collect())
        .unwrap_or_default();
    let subscribers = num(doc, "subscribers");
    let mut out = format!(
        "tapline daemon (pid {}, up {}) listening on {}; {subscribers} events subscriber{}\n",
        num(doc, "pid"),
        seconds(num(doc, "uptime_ms")),
        listening.join(", "),
        if subscribers == 1 { "" } else { "s" },
    );
    let streams = |key: &str| {
        doc.get(key)
            .and_then(|s| s.as_array())
            .cloned()
            .unwrap_or_default()
    };
    let (open, finished) = (streams("open"), streams("finished"));
    if open.is_empty() && finished.is_empty() {
        out.push_str("no streams yet (`tapline send NAME` starts one)\n");
        return out;
    }
    let width = open
        .iter()
        .chain(&finished)
        .map(|s| stream_name(s).chars().count())
        .max()
        .unwrap_or(0);
    for (title, list) in [("open", &open), ("finished", &finished)] {
        if list.is_empty() {
            continue;
        }
        out.push_str(&format!("{title}: {}\n", list.len()));
        for s in list {
            out.push_str(&stream_line(s, width));
            out.push('\n');
        }
    }
    out
}

fn stream_name(s: &serde_json::Value) -> &str {
    s.get("name").and_then(|n| n.as_str()).unwrap_or("?")
}

/// One stream: mark, name, counts, duration, then the test it is on or why it failed.
fn stream_line(s: &serde_json::Value, width: usize) -> String {
    let num = |key: &str| s.get(key).and_then(|n| n.as_u64()).unwrap_or(0);
    let mark = match s.get("ok").and_then(|o| o.as_bool()) {
        Some(true) => "✓",
        Some(false) => "✗",
        None => "…",
    };
    let mut counts = format!("{} passed, {} failed", num("pass"), num("fail"));
    for (key, word) in [("skip", "skipped"), ("todo", "todo")] {
        if num(key) > 0 {
            counts.push_str(&format!(", {} {word}", num(key)));
        }
    }
    let name = stream_name(s);
    let pad = width.saturating_sub(name.chars().count());
    let mut line = format!(
        "  {mark} {name}{}  {counts} · {}",
        " ".repeat(pad),
        seconds(num("duration_ms"))
    );
    if let Some(current) = s.get("current").and_then(|c| c.as_str()) {
        line.push_str(&format!(" · on {current}"));
    }
    let reasons: Vec<String> = s
        .get("reasons")
        .and_then(|r| r.as_array())
        .map(|r| {
            r.iter()
                .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    if !reasons.is_empty() {
        line.push_str(&format!(" — {}", reasons.join("; ")));
    }
    line
}

/// A duration as the terminal report writes it (one format everywhere).
fn seconds(ms: u64) -> String {
    tapline::report::style::duration_ms(ms as f64)
}

#[cfg(test)]
mod tests {
    use super::status_text;
    use serde_json::json;

    #[test]
    fn a_daemon_with_no_stream_says_how_to_start_one() {
        let doc = json!({"pid": 7, "uptime_ms": 1200, "listening": ["/s.sock"],
            "subscribers": 1, "open": [], "finished": []});
        assert_eq!(
            status_text(&doc),
            "tapline daemon (pid 7, up 1.2s) listening on /s.sock; 1 events subscriber\n\
             no streams yet (`tapline send NAME` starts one)\n"
        );
    }

    #[test]
    fn open_and_finished_streams_read_as_aligned_lines() {
        let doc = json!({"pid": 7, "uptime_ms": 90, "listening": ["/s.sock", "127.0.0.1:7357"],
            "subscribers": 0,
            "open": [{"name": "e2e", "current": "logs in", "pass": 12, "fail": 0, "skip": 0,
                "todo": 0, "duration_ms": 3010}],
            "finished": [{"name": "lint-all", "ok": false, "pass": 3, "fail": 1, "skip": 2,
                "todo": 0, "duration_ms": 412, "reasons": ["exited with code 1"]}]});
        assert_eq!(
            status_text(&doc),
            "tapline daemon (pid 7, up 90ms) listening on /s.sock, 127.0.0.1:7357; \
             0 events subscribers\n\
             open: 1\n  \u{2026} e2e       12 passed, 0 failed · 3.0s · on logs in\n\
             finished: 1\n  ✗ lint-all  3 passed, 1 failed, 2 skipped · 412ms — exited with code 1\n"
        );
    }
}
