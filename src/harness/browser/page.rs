//! One browser file's page: a page of the run's ([`super::pages`]: kept from file to file,
//! each file on an origin of its own), the harness loaded, the page's console turned into the
//! file's stdout and stderr bytes, and the page's end judged.
//!
//! A page ends as node ends a process, whichever comes first:
//! - the harness calls its binding (the module, and tapbundle's `tapbundleDeferred`, have
//!   settled) and the TAP plan is complete;
//! - the module settled and the harness says nothing is pending any more (no timer, interval,
//!   animation frame, idle callback, fetch or XMLHttpRequest, as node's loop would be empty):
//!   the parser then judges the output as that of an exited process (`planned 2, ran 1`);
//! - the plan is complete and the page has been quiet for [`QUIET_GRACE`] (a module that never
//!   settles, an open handle);
//! - the renderer crashes (`page crashed`), Chromium exits (every page in flight fails, naming
//!   its exit), the file's timeout passes (`timed out after …`: a page kept busy, by a loop or
//!   by an interval, never says it is idle), or the run is interrupted.
//!
//! Every call to Chromium is bounded too: by the file's deadline, or [`CALL_DEADLINE`].
//! A page that ended cleanly is rested for the next file; any other is closed (its context
//! disposed) within the run's grace, and one that will not close (a renderer stuck in a loop)
//! is reported back so the run restarts Chromium for the files left.
use super::cdp::{Cdp, CdpError, CdpEvent};
use super::console::{self, Stream};
use super::pages::{self, Opening, Page};
use super::prepare::Prepared;
use super::server::{Mounted, Server, HARNESS};
use crate::supervise::limits;
use crate::supervise::{Cancel, Chunk};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::time::Duration;
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

/// The binding the harness page calls once loaded ([`READY`]), and once the module has
/// settled.
pub(crate) const BINDING: &str = "__taplineDone";
/// What the harness says through [`BINDING`] when it is loaded and waits for tapline's word
/// (`__taplineGo()`) to import the module.
const READY: &str = r#"{"ready":true}"#;

/// With its plan complete, how long a page that has not settled must be quiet to be done.
pub(crate) const QUIET_GRACE: Duration = Duration::from_millis(500);
/// Longest wait for one answer from Chromium when the file has no nearer deadline.
pub(crate) const CALL_DEADLINE: Duration = Duration::from_secs(30);
/// Largest chunk of console text handed on at once (as a pipe read would be).
const CHUNK: usize = 64 * 1024;

/// What the page driver needs.
pub(crate) struct PageSpec<'a> {
    pub cdp: &'a Cdp,
    pub server: &'a Server,
    /// The run's rested pages in this Chromium: the file takes one, and gives it back.
    pub idle: &'a pages::Idle,
    pub prepared: Prepared,
    /// The file as the user knows it, for messages.
    pub shown: String,
    pub timeout: Option<Duration>,
    pub grace: Duration,
    /// `--max-output`: the page is closed once its console has written this many bytes.
    pub max_output: Option<u64>,
    /// `--coverage`: where the page's coverage goes ([`super::coverage`]).
    pub coverage: Option<std::path::PathBuf>,
}

/// How the page ended.
#[derive(Debug, Default)]
pub(crate) struct PageEnd {
    /// Why it failed (empty when the page itself gave no reason).
    pub reasons: Vec<String>,
    pub timed_out: bool,
    pub cancelled: bool,
    /// Chromium's pipe closed while the page ran.
    pub browser_gone: bool,
    /// The page did not close within the grace: Chromium should be restarted.
    pub hung: bool,
    /// Its console wrote more than `--max-output`.
    pub output_exceeded: bool,
}

/// Runs the file in a page (a rested one of the run's, or a new one) to its end, sending its
/// console as chunks; the page is rested for the next file when it ended cleanly, closed
/// otherwise.
pub(crate) async fn drive(
    spec: PageSpec<'_>,
    chunks: mpsc::Sender<Chunk>,
    mut cancel: watch::Receiver<Option<Cancel>>,
) -> PageEnd {
    let deadline = spec.timeout.map(|t| Instant::now() + t);
    let mut page = match sound_page(&spec, deadline).await {
        Ok(page) => page,
        Err(failed) => return not_opened(&spec, failed).await,
    };
    let harness = harness(&spec.prepared.entry);
    let mounted = match spec
        .server
        .mount(spec.prepared.serve_root.clone(), harness)
        .await
    {
        Ok(mounted) => mounted,
        Err(e) => {
            spec.idle.put(page);
            return PageEnd {
                reasons: vec![format!("failed to serve {}: {e}", spec.shown)],
                ..PageEnd::default()
            };
        }
    };
    if let Some(out) = &spec.coverage {
        super::coverage::start(spec.cdp, &page.session, out, CALL_DEADLINE).await;
    }
    let mut state = State::new(chunks);
    state.max_output = spec.max_output;
    state.origin = mounted.base();
    state.browser_context = page.context.clone();
    navigate(&spec, &page, &mounted, deadline, &mut state).await;
    if cancel.borrow_and_update().is_some() {
        state.cancelled = true;
        state.done = true;
    }
    while !state.done && !state.timed_out {
        let wake = state.next_check();
        let woke = tokio::select! {
            event = page.events.recv() => Woke::Event(event),
            () = sleep_until(deadline) => Woke::TimedOut,
            () = sleep_until(wake) => Woke::Check,
            changed = cancel.changed() => Woke::Cancel(changed.is_err() || cancel.borrow().is_some()),
        };
        match woke {
            Woke::Event(Some(event)) => {
                let mut batch = vec![event];
                while let (true, Ok(e)) = (batch.len() < 4096, page.events.try_recv()) {
                    batch.push(e);
                }
                for event in batch {
                    state.event(event, &spec, &page.session, &mounted.id).await;
                }
                state.flush().await;
            }
            Woke::Event(None) => {
                state.browser_gone = true;
                state.done = true;
            }
            Woke::TimedOut => state.timed_out = true,
            Woke::Check => {}
            Woke::Cancel(true) => {
                state.cancelled = true;
                state.done = true;
            }
            Woke::Cancel(false) => {}
        }
        state.check();
    }
    let measured = take_coverage(&spec, &page, &state).await;
    spec.server.unmount(&mounted.id);
    let origin = mounted.origin();
    finish(&spec, page, state, measured.then_some(origin.as_str())).await
}

/// What ended a wait of the page's loop.
enum Woke {
    Event(Option<CdpEvent>),
    TimedOut,
    Check,
    Cancel(bool),
}

/// A page for the file: a rested one when one is idle and nothing happened to it while it
/// waited (its renderer gone, say), else a new one.
async fn sound_page(spec: &PageSpec<'_>, deadline: Option<Instant>) -> Result<Page, Opening> {
    while let Some(mut page) = spec.idle.take() {
        let mut sound = true;
        while let Ok(event) = page.events.try_recv() {
            sound &= !matches!(
                event.method.as_str(),
                "Inspector.targetCrashed" | "Inspector.detached"
            );
        }
        if sound && !spec.cdp.is_closed() {
            return Ok(page);
        }
        pages::close(spec.cdp, &page, spec.grace).await;
    }
    pages::open(spec.cdp, deadline, CALL_DEADLINE).await
}

/// Takes the ended page's coverage, unless there is no page left to ask or the run stops;
/// `false` when the page's profiler could not be stopped for the next file.
async fn take_coverage(spec: &PageSpec<'_>, page: &Page, state: &State) -> bool {
    let Some(out) = &spec.coverage else {
        return true;
    };
    if state.browser_gone || state.cancelled {
        return false;
    }
    // A page that timed out is most likely busy in a loop and will not answer: it gets a
    // second at most, so that it is not held for its grace twice (here and to close).
    let bound = match state.timed_out {
        true => spec.grace.min(Duration::from_secs(1)),
        false => spec.grace.max(Duration::from_millis(500)),
    };
    let origin = &state.origin;
    super::coverage::take(spec.cdp, &page.session, out, origin, &spec.prepared, bound).await;
    super::coverage::stop(spec.cdp, &page.session, bound).await
}

/// A page that could not be opened: why, and whatever was opened closed.
async fn not_opened(spec: &PageSpec<'_>, failed: Opening) -> PageEnd {
    let mut end = PageEnd::default();
    match failed {
        Opening::TimedOut => {
            end.timed_out = true;
            end.reasons.push(timed_out(spec.timeout));
        }
        Opening::Failed(why, page) => {
            end.browser_gone = why == CdpError::Closed;
            end.reasons
                .push(format!("failed to open a page in Chromium: {why}"));
            if let Some(page) = page {
                end.hung = pages::close(spec.cdp, &page, spec.grace).await;
            }
        }
    }
    end
}

/// Loads the harness page of `mounted` into the page.
async fn navigate(
    spec: &PageSpec<'_>,
    page: &Page,
    mounted: &Mounted,
    deadline: Option<Instant>,
    state: &mut State,
) {
    let url = format!("{}{HARNESS}", mounted.base());
    let call = spec
        .cdp
        .call(&page.session, "Page.navigate", json!({ "url": url }));
    let error = match pages::bounded(deadline, CALL_DEADLINE, call).await {
        Some(Ok(reply)) => reply
            .get("errorText")
            .and_then(Value::as_str)
            .map(str::to_owned),
        Some(Err(e)) => {
            state.browser_gone = e == CdpError::Closed;
            Some(e.to_string())
        }
        None => {
            state.timed_out = true;
            None
        }
    };
    if let Some(error) = error {
        state
            .reasons
            .push(format!("failed to load the harness page: {error}"));
        state.done = true;
        state.broken = true;
    }
}

/// The page's end: what is left of its console handed on, the page rested for the next file
/// or closed, the reasons. `rest` is the page's origin when its coverage, if any, is done.
async fn finish(spec: &PageSpec<'_>, page: Page, mut state: State, rest: Option<&str>) -> PageEnd {
    state.flush().await;
    let mut end = PageEnd {
        timed_out: state.timed_out,
        cancelled: state.cancelled && !state.timed_out,
        browser_gone: state.browser_gone,
        output_exceeded: state.output_exceeded,
        ..PageEnd::default()
    };
    if state.timed_out {
        end.reasons.push(timed_out(spec.timeout));
    } else if state.cancelled {
        end.reasons.push("interrupted".to_owned());
    }
    end.reasons.append(&mut state.reasons);
    let clean = !(state.timed_out
        || state.cancelled
        || state.browser_gone
        || state.output_exceeded
        || state.broken);
    let bound = spec.grace.max(Duration::from_millis(500));
    match rest {
        Some(origin) if clean && pages::rest(spec.cdp, &page, origin, bound).await => {
            spec.idle.put(page);
        }
        _ if end.browser_gone => spec.cdp.unsubscribe(&page.session),
        _ => end.hung = pages::close(spec.cdp, &page, spec.grace).await,
    }
    if end.hung {
        let note = "tapline: the page did not close within the grace; Chromium is restarted for the files left";
        state.write(Stream::Stderr, note).await;
        state.flush().await;
    }
    end
}

fn timed_out(timeout: Option<Duration>) -> String {
    format!(
        "timed out after {}",
        timeout.map(limits::humane).unwrap_or_default()
    )
}

/// The harness page, importing `entry` (a path under the mount; the page is one folder
/// down, in `__tapline__/`).
pub(crate) fn harness(entry: &str) -> String {
    let url = format!("../{entry}");
    let quoted = serde_json::to_string(&url).unwrap_or_else(|_| "\"\"".to_owned());
    include_str!("harness.html").replace("__TAPLINE_ENTRY__", &quoted)
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// What the harness said when the module settled, and then when nothing was pending.
struct Settled {
    idle: bool,
}

/// The page's state as its events arrive.
struct State {
    chunks: mpsc::Sender<Chunk>,
    /// Console text not yet handed on, and its stream.
    pending: Vec<u8>,
    pending_stream: Stream,
    plan: PlanTracker,
    last_output: Instant,
    settled: Option<Settled>,
    reasons: Vec<String>,
    done: bool,
    timed_out: bool,
    cancelled: bool,
    browser_gone: bool,
    /// The URL prefix of the file's folder, which stacks and messages show as a path
    /// ([`State::local`]).
    origin: String,
    /// `console.group` depth: Node indents what is printed inside by two spaces a level.
    group: usize,
    /// Bytes written so far, against `max_output`.
    written: u64,
    max_output: Option<u64>,
    output_exceeded: bool,
    /// The page cannot serve another file: it crashed, was closed, would not load the
    /// harness, or left the file's folder.
    broken: bool,
    /// The execution contexts created since this file's navigation: what an earlier file's
    /// document sent on its way out is not this file's.
    contexts: HashSet<i64>,
    /// The page's browser context, whose cookies are cleared before the module runs.
    browser_context: String,
}

impl State {
    fn new(chunks: mpsc::Sender<Chunk>) -> State {
        State {
            chunks,
            pending: Vec::new(),
            pending_stream: Stream::Stdout,
            plan: PlanTracker::default(),
            last_output: Instant::now(),
            settled: None,
            reasons: Vec::new(),
            done: false,
            timed_out: false,
            cancelled: false,
            browser_gone: false,
            origin: String::new(),
            group: 0,
            written: 0,
            max_output: None,
            output_exceeded: false,
            broken: false,
            contexts: HashSet::new(),
            browser_context: String::new(),
        }
    }

    /// When the end conditions must next be looked at, if time alone can end the page: only
    /// a complete plan in a page that has not settled waits for quiet; a settled page ends by
    /// its plan or the harness's word that nothing is pending.
    fn next_check(&self) -> Option<Instant> {
        (self.settled.is_none() && self.plan.complete()).then(|| self.last_output + QUIET_GRACE)
    }

    fn check(&mut self) {
        if let Some(settled) = &self.settled {
            if self.plan.complete() || settled.idle {
                self.done = true;
            }
        } else if self.plan.complete() && Instant::now() >= self.last_output + QUIET_GRACE {
            self.done = true;
        }
    }

    /// Writes `text` and a newline to `stream`, after what is pending.
    async fn write(&mut self, stream: Stream, text: &str) {
        if stream != self.pending_stream || self.pending.len() + text.len() >= CHUNK {
            self.flush().await;
            self.pending_stream = stream;
        }
        if stream == Stream::Stdout {
            self.plan.feed(text);
        }
        self.pending.extend_from_slice(text.as_bytes());
        self.pending.push(b'\n');
        self.last_output = Instant::now();
        self.written += text.len() as u64 + 1;
        if self.max_output.is_some_and(|max| self.written > max) && !self.output_exceeded {
            self.output_exceeded = true;
            self.done = true;
        }
    }

    /// Hands the pending text on. A file task that is gone means the run is over.
    async fn flush(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let bytes = std::mem::take(&mut self.pending);
        let chunk = match self.pending_stream {
            Stream::Stdout => Chunk::Stdout(bytes),
            Stream::Stderr => Chunk::Stderr(bytes),
        };
        let _ = self.chunks.send(chunk).await;
    }

    /// Whether an event of the page comes from one of this file's execution contexts (an
    /// event that names none is the page's).
    fn own(&self, event: &CdpEvent) -> bool {
        let p = &event.params;
        let id = (p.get("executionContextId"))
            .or_else(|| p.get("exceptionDetails")?.get("executionContextId"));
        id.and_then(Value::as_i64)
            .is_none_or(|id| self.contexts.contains(&id))
    }

    async fn event(&mut self, event: CdpEvent, spec: &PageSpec<'_>, session: &str, mount: &str) {
        if !self.own(&event) {
            return;
        }
        let p = &event.params;
        match event.method.as_str() {
            "Runtime.executionContextCreated" => {
                let id = p.get("context").and_then(|c| c.get("id"));
                if let Some(id) = id.and_then(Value::as_i64) {
                    self.contexts.insert(id);
                }
            }
            "Page.frameNavigated" => {
                let frame = p.get("frame").unwrap_or(&Value::Null);
                let url = frame.get("url").and_then(Value::as_str).unwrap_or("");
                if frame.get("parentId").is_none() && !url.starts_with(&self.origin) {
                    // The file sent its page elsewhere: what it did there is not cleared.
                    self.broken = true;
                }
            }
            "Runtime.consoleAPICalled" => {
                let kind = p.get("type").and_then(Value::as_str).unwrap_or("log");
                let args = p
                    .get("args")
                    .and_then(Value::as_array)
                    .map(Vec::as_slice)
                    .unwrap_or(&[]);
                if kind == "endGroup" {
                    self.group = self.group.saturating_sub(1);
                }
                if let Some(text) = console::text(kind, args) {
                    let text = match text.contains("http://127.0.0.1:") {
                        true => self.local(&text),
                        false => text,
                    };
                    let text = console::indent(&text, self.group);
                    self.write(console::stream(kind), &text).await;
                }
                if kind.starts_with("startGroup") {
                    self.group += 1;
                }
            }
            "Runtime.exceptionThrown" => {
                self.exception(p.get("exceptionDetails").unwrap_or(&Value::Null), spec)
                    .await
            }
            "Runtime.bindingCalled" if p.get("name").and_then(Value::as_str) == Some(BINDING) => {
                let payload = p.get("payload").and_then(Value::as_str).unwrap_or("{}");
                if payload == READY {
                    let context = p.get("executionContextId").and_then(Value::as_i64);
                    self.go(spec, session, context).await;
                } else {
                    self.settle(payload, spec, mount).await;
                }
            }
            "Page.javascriptDialogOpening" => {
                let kind = p.get("type").and_then(Value::as_str).unwrap_or("dialog");
                let message = p.get("message").and_then(Value::as_str).unwrap_or("");
                let _ = spec
                    .cdp
                    .call(
                        session,
                        "Page.handleJavaScriptDialog",
                        json!({ "accept": false }),
                    )
                    .await;
                let note = format!(
                    "{kind}({}) dismissed: a test page cannot answer dialogs",
                    serde_json::to_string(message).unwrap_or_default()
                );
                self.write(Stream::Stderr, &format!("tapline: {note}"))
                    .await;
                self.reasons.push(note);
            }
            "Inspector.targetCrashed" => {
                self.write(Stream::Stderr, "tapline: the page crashed")
                    .await;
                self.reasons.push("page crashed".to_owned());
                self.done = true;
                self.broken = true;
            }
            "Inspector.detached" => {
                self.reasons.push("the page was closed".to_owned());
                self.done = true;
                self.broken = true;
            }
            _ => {}
        }
    }

    /// An uncaught exception or unhandled rejection: the stack to stderr, the first line as a
    /// reason.
    async fn exception(&mut self, details: &Value, spec: &PageSpec<'_>) {
        let headline = details
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or("Uncaught");
        let rejection = headline.contains("(in promise)");
        let thrown = details.get("exception");
        let body = match thrown {
            Some(e) if e.get("subtype").and_then(Value::as_str) == Some("error") => e
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or("Error")
                .to_owned(),
            Some(e) => console::inspect(e),
            None => headline
                .trim_start_matches("Uncaught (in promise)")
                .trim_start_matches("Uncaught")
                .trim()
                .to_owned(),
        };
        // Mapped while the bundle's URLs are whole, then what is left made local.
        let (body, first) = in_sources(&spec.prepared, &body);
        let (body, first) = (self.local(&body), self.local(&first));
        let kind = if rejection {
            "Uncaught (in promise)"
        } else {
            "Uncaught"
        };
        self.write(Stream::Stderr, &format!("{kind} {body}")).await;
        let what = if rejection {
            "unhandled rejection"
        } else {
            "uncaught exception"
        };
        self.add_reason(format!("{what}: {first}"));
    }

    /// The harness is loaded and waits to import the module: the context's cookies are
    /// cleared first (they are kept per host, not per origin, and an earlier file's document
    /// may have set one as it was left: a `pagehide` or `unload` handler), then it may go.
    async fn go(&mut self, spec: &PageSpec<'_>, session: &str, context: Option<i64>) {
        let cookies = json!({ "browserContextId": self.browser_context });
        let go = json!({ "expression": "globalThis.__taplineGo()", "contextId": context });
        let calls = async {
            spec.cdp.call("", "Storage.clearCookies", cookies).await?;
            spec.cdp.call(session, "Runtime.evaluate", go).await
        };
        let failed = match tokio::time::timeout(CALL_DEADLINE, calls).await {
            Ok(Ok(reply)) if reply.get("exceptionDetails").is_none() => return,
            Ok(Ok(reply)) => reply["exceptionDetails"]["text"].to_string(),
            Ok(Err(e)) => e.to_string(),
            Err(_) => "Chromium did not answer".to_owned(),
        };
        self.reasons
            .push(format!("failed to start the harness page: {failed}"));
        self.done = true;
        self.broken = true;
    }

    /// The harness's report: the module settled, or failed to load, or threw; or, after
    /// that, nothing is pending any more.
    async fn settle(&mut self, payload: &str, spec: &PageSpec<'_>, mount: &str) {
        let outcome: Value = serde_json::from_str(payload).unwrap_or(Value::Null);
        if outcome.get("idle").and_then(Value::as_bool) == Some(true) {
            if let Some(settled) = &mut self.settled {
                settled.idle = true;
            }
            return;
        }
        if let Some(raw) = outcome.get("error").and_then(Value::as_str) {
            let error = self.local(raw);
            let first = error.lines().next().unwrap_or("").to_owned();
            if outcome.get("load").and_then(Value::as_bool) == Some(true) {
                let missing = spec.server.missing(mount);
                if missing.is_empty() {
                    self.add_reason(format!("failed to load {}: {first}", spec.shown));
                } else {
                    for path in missing.iter().take(5) {
                        self.add_reason(format!("failed to load {path}: 404"));
                    }
                }
                self.write(Stream::Stderr, &format!("tapline: {error}"))
                    .await;
            } else {
                let (error, first) = in_sources(&spec.prepared, raw);
                let (error, first) = (self.local(&error), self.local(&first));
                self.write(Stream::Stderr, &format!("Uncaught {error}"))
                    .await;
                self.add_reason(format!("uncaught exception: {first}"));
            }
        }
        self.settled = Some(Settled { idle: false });
    }

    /// `text` with the served folder's URLs as paths under it: a stack reads
    /// `at test/a.browser.js:2:16`, as the file is named in the project, not
    /// `at http://127.0.0.1:41234/3/test/a.browser.js:2:16`.
    fn local(&self, text: &str) -> String {
        if self.origin.is_empty() {
            return text.to_owned();
        }
        text.replace(&self.origin, "")
    }

    /// A reason, once (a loop throwing the same error a thousand times is one reason), and at
    /// most ten.
    fn add_reason(&mut self, reason: String) {
        if !self.reasons.contains(&reason) && self.reasons.len() < 10 {
            self.reasons.push(reason);
        }
    }
}

/// An error's stack with its bundle frames mapped back to the sources, and its first line
/// naming where it was thrown (`Error: boom (test/a.browser.ts:12:5)`) when the map says.
fn in_sources(prepared: &Prepared, stack: &str) -> (String, String) {
    let first = stack.lines().next().unwrap_or("");
    let first = match prepared.thrown_at(stack) {
        Some(place) => format!("{first} ({place})"),
        None => first.to_owned(),
    };
    (prepared.map_stack(stack), first)
}

/// Follows the top level of the TAP a page prints, only to know when its plan is complete:
/// the parser proper runs on the same bytes in the file task.
#[derive(Debug, Default)]
pub(crate) struct PlanTracker {
    planned: Option<u64>,
    points: u64,
    bailed: bool,
}

impl PlanTracker {
    pub(crate) fn feed(&mut self, text: &str) {
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("1..") {
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                if let Ok(n) = digits.parse() {
                    self.planned = Some(n);
                }
            } else if is_point(line) {
                self.points += 1;
            } else if line.starts_with("Bail out!") {
                self.bailed = true;
            }
        }
    }

    pub(crate) fn complete(&self) -> bool {
        self.bailed || self.planned.is_some_and(|n| self.points >= n)
    }
}

fn is_point(line: &str) -> bool {
    let rest = line
        .strip_prefix("not ok")
        .or_else(|| line.strip_prefix("ok"));
    rest.is_some_and(|r| r.is_empty() || r.starts_with([' ', '\t']))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_is_followed_at_the_top_level_only() {
        let mut t = PlanTracker::default();
        t.feed("TAP version 14\n1..2\n    1..1\n    ok 1 - inner\nok 1 - a");
        assert!(!t.complete());
        t.feed("okay\nnot ok 2 - b # TODO");
        assert!(t.complete());
        let mut t = PlanTracker::default();
        t.feed("ok 1\nok 2");
        assert!(!t.complete(), "no plan yet");
        t.feed("1..2");
        assert!(t.complete());
        let mut t = PlanTracker::default();
        t.feed("Bail out! no database");
        assert!(t.complete());
    }

    #[test]
    fn the_harness_imports_the_entry_under_its_mount() {
        let page = harness("test/a \"b\".js");
        assert!(
            page.contains(r#"const entry = "../test/a \"b\".js";"#),
            "{page}"
        );
        assert!(page.contains(BINDING));
    }
}
