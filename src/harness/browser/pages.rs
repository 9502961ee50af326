//! The run's pages, kept between files: a page (its own browser context, one target, a flat
//! session with the domains on) is opened once and navigated afresh for each file, because
//! what a page costs is its renderer process starting, not the test (issue 26 item 4).
//!
//! How nothing of one file reaches the next in the same page:
//! - each file is served from an origin of its own (a port of the loopback server no other
//!   file of the run gets, [`super::server`]): web storage, sessionStorage, IndexedDB, cache
//!   storage, service workers, BroadcastChannel and permissions are kept per origin;
//! - a new navigation gives a new JS realm: no global, timer, listener or module survives;
//! - between files the page is [`rest`]ed: frozen (`Page.setWebLifecycleState`), so that
//!   nothing of the old document runs again (a timer, an interval, a pending fetch); then its
//!   origin's data is cleared (`Storage.clearDataForOrigin`, every type) and the context's
//!   cookies, which are kept per host and not per port (`Storage.clearCookies`); its history
//!   is reset (a file still sees `history.length` 2: the previous entry is the rested page,
//!   opaque to it); and the context must hold no target but the page (a popup from `window.open`,
//!   a service or shared worker);
//! - what the old document sent that is still on its way is told apart by execution context
//!   ([`super::page`] takes only the contexts created after its own navigation).
//!
//! A page that did not end cleanly is never rested but closed with its context: one that
//! crashed, hung, timed out, was interrupted, wrote past `--max-output`, would not navigate,
//! left its origin, or failed any step of the rest. The next file then gets a fresh one.
use super::cdp::{Cdp, CdpError, CdpEvent};
use super::page::BINDING;
use serde_json::{json, Value};
use std::sync::Mutex;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::Instant;

/// A page: its ids and its events, kept while the page serves file after file.
pub(crate) struct Page {
    pub context: String,
    pub target: String,
    pub session: String,
    pub events: mpsc::UnboundedReceiver<CdpEvent>,
}

/// One Chromium's pages between files (at most one per file running at once, `-j`).
#[derive(Default)]
pub(crate) struct Idle(Mutex<Vec<Page>>);

impl Idle {
    /// A rested page, if one is idle.
    pub(crate) fn take(&self) -> Option<Page> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .pop()
    }

    /// Keeps `page` for a later file.
    pub(crate) fn put(&self, page: Page) {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(page);
    }
}

/// Why a page could not be opened.
pub(crate) enum Opening {
    TimedOut,
    Failed(CdpError, Option<Page>),
}

/// `f` bounded by the file's deadline, and by `limit` from now.
pub(crate) async fn bounded<T>(
    deadline: Option<Instant>,
    limit: Duration,
    f: impl std::future::Future<Output = T>,
) -> Option<T> {
    let limit = Instant::now() + limit;
    let until = deadline.map_or(limit, |d| d.min(limit));
    tokio::time::timeout_at(until, f).await.ok()
}

/// A fresh context, a page in it, attached (flat session) with the domains on and the
/// binding added: what every file's harness needs, sent once per page.
pub(crate) async fn open(
    cdp: &Cdp,
    deadline: Option<Instant>,
    limit: Duration,
) -> Result<Page, Opening> {
    let call = |session: String, method: &'static str, params: Value| async move {
        match bounded(deadline, limit, cdp.call(&session, method, params)).await {
            Some(r) => r.map_err(|e| (e, false)),
            None => Err((CdpError::Closed, true)),
        }
    };
    let fail = |(e, timed): (CdpError, bool), page: Option<Page>| {
        if timed {
            Opening::TimedOut
        } else {
            Opening::Failed(e, page)
        }
    };
    let context = call(String::new(), "Target.createBrowserContext", json!({}))
        .await
        .map_err(|e| fail(e, None))?;
    let context = text(&context, "browserContextId");
    let target = call(
        String::new(),
        "Target.createTarget",
        json!({ "url": "about:blank", "browserContextId": context }),
    )
    .await;
    let target = match target {
        Ok(t) => text(&t, "targetId"),
        Err(e) => {
            let _ = cdp
                .call(
                    "",
                    "Target.disposeBrowserContext",
                    json!({ "browserContextId": context }),
                )
                .await;
            return Err(fail(e, None));
        }
    };
    let (_, events) = mpsc::unbounded_channel();
    let mut page = Page {
        context,
        target,
        session: String::new(),
        events,
    };
    match call(
        String::new(),
        "Target.attachToTarget",
        json!({ "targetId": page.target, "flatten": true }),
    )
    .await
    {
        Ok(reply) => page.session = text(&reply, "sessionId"),
        Err(e) => return Err(fail(e, Some(page))),
    }
    page.events = cdp.subscribe(&page.session);
    for (method, params) in [
        ("Runtime.enable", json!({})),
        ("Page.enable", json!({})),
        ("Inspector.enable", json!({})),
        ("Runtime.addBinding", json!({ "name": BINDING })),
        // A console call's stack is of no use here, and capturing it costs most of a call.
        ("Runtime.setMaxCallStackSizeToCapture", json!({ "size": 0 })),
    ] {
        if let Err(e) = call(page.session.clone(), method, params).await {
            cdp.unsubscribe(&page.session);
            return Err(fail(e, Some(page)));
        }
    }
    Ok(page)
}

fn text(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or("").to_owned()
}

/// Readies a page that ended cleanly for the next file (see the room's doc): `false` when a
/// step failed or did not answer within `bound`, and the page must be closed instead.
pub(crate) async fn rest(cdp: &Cdp, page: &Page, origin: &str, bound: Duration) -> bool {
    let session = page.session.as_str();
    let steps = async {
        let frozen = json!({ "state": "frozen" });
        cdp.call(session, "Page.setWebLifecycleState", frozen)
            .await?;
        let all = json!({ "origin": origin, "storageTypes": "all" });
        cdp.call(session, "Storage.clearDataForOrigin", all).await?;
        let context = json!({ "browserContextId": page.context });
        cdp.call("", "Storage.clearCookies", context).await?;
        // Best effort: the entries are other origins' and opaque, and Chromium keeps at most
        // 50; without this a page's history grows by one entry a file.
        let _ = cdp
            .call(session, "Page.resetNavigationHistory", json!({}))
            .await;
        let targets = cdp.call("", "Target.getTargets", json!({})).await?;
        Ok::<bool, CdpError>(alone(&targets, page))
    };
    matches!(tokio::time::timeout(bound, steps).await, Ok(Ok(true)))
}

/// Whether the page is the only target of its context that a page's code could have made
/// (Chromium's own UI, such as the omnibox popup every context has, does not count, nor a
/// `tab` target, which wraps a page that would be listed too).
fn alone(targets: &Value, page: &Page) -> bool {
    let infos = targets.get("targetInfos").and_then(Value::as_array);
    infos.into_iter().flatten().all(|t| {
        let field = |key| t.get(key).and_then(Value::as_str).unwrap_or("");
        field("browserContextId") != page.context
            || field("targetId") == page.target
            || matches!(field("type"), "browser_ui" | "tab")
            || field("url").starts_with("chrome://")
    })
}

/// Closes the page and disposes of its context; `true` when that did not happen within
/// `grace` (the renderer is stuck).
pub(crate) async fn close(cdp: &Cdp, page: &Page, grace: Duration) -> bool {
    cdp.unsubscribe(&page.session);
    let closing = async {
        let _ = cdp
            .call("", "Target.closeTarget", json!({ "targetId": page.target }))
            .await;
        let _ = cdp
            .call(
                "",
                "Target.disposeBrowserContext",
                json!({ "browserContextId": page.context }),
            )
            .await;
    };
    tokio::time::timeout(grace.max(Duration::from_millis(500)), closing)
        .await
        .is_err()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_is_alone_only_without_another_target_of_its_context() {
        let (_, events) = mpsc::unbounded_channel();
        let page = Page {
            context: "C".into(),
            target: "T".into(),
            session: "S".into(),
            events,
        };
        let own = json!({ "targetId": "T", "browserContextId": "C", "type": "page" });
        let elsewhere = json!({ "targetId": "U", "browserContextId": "D", "type": "page" });
        let popup = json!({ "targetId": "P", "browserContextId": "C", "type": "page" });
        let worker = json!({ "targetId": "W", "browserContextId": "C", "type": "service_worker" });
        let ui = json!({ "targetId": "O", "browserContextId": "C", "type": "browser_ui",
            "url": "chrome://omnibox-popup.top-chrome/" });
        assert!(alone(
            &json!({ "targetInfos": [own, elsewhere, ui] }),
            &page
        ));
        assert!(!alone(&json!({ "targetInfos": [own, popup] }), &page));
        assert!(!alone(&json!({ "targetInfos": [own, worker] }), &page));
    }
}
