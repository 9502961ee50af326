//! The report's inline script: filtering by status and text, and sorting the files table.
//! The page is complete without it (everything is rendered server-side); the script only
//! hides, shows and reorders what is there, never inserts text as markup.

/// The whole script; the page's CSP names its hash, so it is a constant.
pub(crate) const JS: &str = r##"
(function () {
  "use strict";
  var bar = document.getElementById("toolbar");
  if (!bar) return;
  bar.hidden = false;
  var query = document.getElementById("q");
  var count = document.getElementById("shown");
  var chips = bar.querySelectorAll("button[data-st]");
  var items = document.querySelectorAll("[data-k]");
  var rows = document.querySelectorAll("#files tbody tr");
  var want = "all";
  var timer = 0;
  var filtered = false;

  function matchesStatus(el) {
    return want === "all" || el.getAttribute("data-st") === want;
  }

  function filterTests(el, text) {
    var hit = false;
    var points = el.querySelectorAll("li");
    for (var i = 0; i < points.length; i++) {
      var show = !text || points[i].textContent.toLowerCase().indexOf(text) >= 0;
      points[i].hidden = !show;
      hit = hit || (text && show);
    }
    return hit;
  }

  function apply() {
    var text = query.value.trim().toLowerCase();
    for (var i = 0; i < items.length; i++) {
      var el = items[i];
      var show = matchesStatus(el);
      var keyHit = !text || el.getAttribute("data-k").indexOf(text) >= 0;
      if (el.tagName === "DETAILS") {
        // Test points are only visited while a text filter is (or was just) active: a big
        // report has hundreds of thousands of them.
        var inner = false;
        if (show && text && !keyHit) inner = filterTests(el, text);
        else if (filtered) filterTests(el, "");
        if (inner) el.open = true;
        show = show && (keyHit || inner);
      } else {
        show = show && keyHit;
      }
      el.hidden = !show;
    }
    filtered = !!text;
    var shown = 0;
    for (var r = 0; r < rows.length; r++) if (!rows[r].hidden) shown++;
    count.textContent = shown + " of " + rows.length + " files";
    document.body.classList.toggle("filtered", want !== "all" || !!text);
  }

  function choose(status) {
    want = "all";
    for (var j = 0; j < chips.length; j++) {
      var on = chips[j].getAttribute("data-st") === status;
      if (on) want = status;
      chips[j].setAttribute("aria-pressed", String(on));
    }
    if (want === "all") chips[0].setAttribute("aria-pressed", "true");
  }

  // The filters live in the address (#status=fail&q=text), so a filtered view can be shared.
  function remember() {
    var parts = [];
    if (want !== "all") parts.push("status=" + encodeURIComponent(want));
    if (query.value) parts.push("q=" + encodeURIComponent(query.value));
    history.replaceState(null, "", parts.length ? "#" + parts.join("&") : location.pathname);
  }

  for (var c = 0; c < chips.length; c++) {
    chips[c].addEventListener("click", function (ev) {
      choose(ev.currentTarget.getAttribute("data-st"));
      apply();
      remember();
    });
  }
  var hash = location.hash.slice(1).split("&");
  for (var p = 0; p < hash.length; p++) {
    var kv = hash[p].split("=");
    var value = kv.length > 1 ? decodeURIComponent(kv[1]) : "";
    if (kv[0] === "status") choose(value);
    if (kv[0] === "q") query.value = value;
  }
  // "/" jumps to the filter, as in many code hosts; Escape clears it.
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "/" && document.activeElement !== query) {
      ev.preventDefault();
      query.focus();
    } else if (ev.key === "Escape" && document.activeElement === query) {
      query.value = "";
      apply();
      remember();
    }
  });
  query.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(function () {
      apply();
      remember();
    }, 120);
  });

  var table = document.querySelector("#files table");
  var heads = table ? table.querySelectorAll("th[data-sort]") : [];
  for (var h = 0; h < heads.length; h++) {
    heads[h].addEventListener("click", function (ev) {
      var th = ev.currentTarget;
      var col = Array.prototype.indexOf.call(th.parentNode.children, th);
      var numeric = th.getAttribute("data-sort") === "num";
      var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
      for (var k = 0; k < heads.length; k++) heads[k].removeAttribute("aria-sort");
      th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
      var body = table.tBodies[0];
      var list = Array.prototype.slice.call(body.rows);
      list.sort(function (a, b) {
        var x = a.cells[col].getAttribute("data-v") || a.cells[col].textContent;
        var y = b.cells[col].getAttribute("data-v") || b.cells[col].textContent;
        if (numeric) return dir * (parseFloat(x) - parseFloat(y));
        return dir * x.localeCompare(y);
      });
      for (var m = 0; m < list.length; m++) body.appendChild(list[m]);
    });
  }
  apply();
})();
"##;
