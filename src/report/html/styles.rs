//! The report's inline stylesheet: a light theme, a dark one under `prefers-color-scheme`,
//! system fonts only (nothing is fetched).

/// The whole stylesheet; the page's CSP names its hash, so it is a constant.
pub(crate) const CSS: &str = r##"
:root{color-scheme:light dark;--bg:#f6f7f9;--panel:#fff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;
--pass:#1a7f37;--pass-bg:#dafbe1;--fail:#cf222e;--fail-bg:#ffebe9;--skip:#9a6700;--skip-bg:#fff8c5;
--todo:#8250df;--todo-bg:#fbefff;--none:#6e7781;--none-bg:#eaeef2;--link:#0969da;--code-bg:#f6f8fa;
--mark-e:#aceebb;--mark-r:#ffc1c0;--hunk:#0550ae}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--panel:#151b23;--fg:#e6edf3;--muted:#9198a1;
--line:#3d444d;--pass:#3fb950;--pass-bg:#12261e;--fail:#f85149;--fail-bg:#2d1214;--skip:#d29922;
--skip-bg:#2b2111;--todo:#ab7df8;--todo-bg:#231a33;--none:#9198a1;--none-bg:#21262d;--link:#4493f8;
--code-bg:#0d1117;--mark-e:#1f6f35;--mark-r:#8e1f1f;--hunk:#79c0ff}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:1200px;margin:0 auto;padding:24px 24px 48px}
a{color:var(--link);text-decoration:none}a:hover{text-decoration:underline}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,"DejaVu Sans Mono","Liberation Mono",monospace;font-size:12.5px}
h1{font-size:22px;margin:0;font-weight:600}
h2{font-size:17px;margin:32px 0 12px;font-weight:600;display:flex;gap:8px;align-items:baseline}
h2 .n{color:var(--muted);font-weight:400;font-size:14px}
header.top{display:flex;flex-wrap:wrap;align-items:center;gap:12px 16px;padding-bottom:16px;border-bottom:1px solid var(--line)}
.verdict{font-weight:700;letter-spacing:.04em;padding:4px 12px;border-radius:6px;font-size:13px}
.verdict.pass{background:var(--pass-bg);color:var(--pass)}.verdict.fail{background:var(--fail-bg);color:var(--fail)}
.verdict.interrupted{background:var(--skip-bg);color:var(--skip)}
.where{color:var(--muted);width:100%;display:flex;flex-wrap:wrap;gap:4px 20px}
.where b{font-weight:500;color:var(--fg)}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(130px,1fr));gap:12px;margin-top:20px}
.card{background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:12px 14px}
.card .v{font-size:24px;font-weight:600;line-height:1.2;font-variant-numeric:tabular-nums}
.card .k{color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.05em}
.card .s{color:var(--muted);font-size:12px}
.card.fail .v{color:var(--fail)}.card.pass .v{color:var(--pass)}.card.skip .v{color:var(--skip)}.card.todo .v{color:var(--todo)}
.bar{display:block;width:100%;height:8px;border-radius:4px;margin-top:16px;background:var(--none-bg)}
.bar .pass{fill:var(--pass)}.bar .fail{fill:var(--fail)}.bar .skip{fill:var(--skip)}.bar .todo{fill:var(--todo)}
.toolbar{position:sticky;top:0;z-index:2;display:flex;flex-wrap:wrap;gap:8px;align-items:center;background:var(--bg);padding:12px 0;margin-top:12px;border-bottom:1px solid var(--line)}
.toolbar[hidden]{display:none}
.chip{border:1px solid var(--line);background:var(--panel);color:var(--fg);border-radius:999px;padding:3px 12px;font:inherit;font-size:13px;cursor:pointer}
.chip[aria-pressed=true]{background:var(--fg);color:var(--bg);border-color:var(--fg)}
.toolbar input{flex:1;min-width:200px;font:inherit;padding:5px 10px;border:1px solid var(--line);border-radius:6px;background:var(--panel);color:var(--fg)}
.toolbar .count{color:var(--muted);font-size:12px}
.panel{background:var(--panel);border:1px solid var(--line);border-radius:8px;overflow:hidden}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:6px 12px;border-bottom:1px solid var(--line);vertical-align:top}
tr:last-child td{border-bottom:0}
th{font-size:12px;color:var(--muted);font-weight:600;text-transform:uppercase;letter-spacing:.04em;background:var(--code-bg);white-space:nowrap}
th[data-sort]{cursor:pointer;user-select:none}th[aria-sort=ascending]::after{content:" ▲"}th[aria-sort=descending]::after{content:" ▼"}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.path{word-break:break-all}
td .why{display:block;color:var(--fail);font-size:12px;word-break:normal;overflow-wrap:anywhere}
td .note{display:block;color:var(--skip);font-size:12px;word-break:normal;overflow-wrap:anywhere}
td .log{display:block;color:var(--muted);font-size:12px;word-break:break-all}
.st{display:inline-block;min-width:64px;text-align:center;font-size:11px;font-weight:700;letter-spacing:.04em;text-transform:uppercase;padding:1px 8px;border-radius:999px}
.st.pass{background:var(--pass-bg);color:var(--pass)}.st.fail{background:var(--fail-bg);color:var(--fail)}
.st.skip{background:var(--skip-bg);color:var(--skip)}.st.todo{background:var(--todo-bg);color:var(--todo)}
.st.notrun{background:var(--none-bg);color:var(--none)}
.st.notests,.st.cancelled{background:var(--skip-bg);color:var(--skip)}
.c-pass{color:var(--pass)}.c-fail{color:var(--fail)}.c-skip{color:var(--skip)}.c-todo{color:var(--todo)}.c-zero{color:var(--muted);opacity:.6}
.failure{background:var(--panel);border:1px solid var(--line);border-left:4px solid var(--fail);border-radius:8px;padding:12px 16px;margin-bottom:12px}
.failure h3{margin:0;font-size:14px;font-weight:600;overflow-wrap:anywhere}
.failure .file{color:var(--muted);font-weight:400;font-size:12px;display:block;word-break:break-all}
.failure .at{color:var(--link);font-size:12px;margin-top:4px;word-break:break-all}
.failure .tid{color:var(--muted);font-size:12px;margin-top:4px;word-break:break-all;user-select:all}
.failure .msg{font-weight:600;margin:8px 0 0;white-space:pre-wrap;word-break:break-word;font-size:13px}
.failure .kv{color:var(--muted);font-size:12px;margin-top:4px}
.failure .label{font-size:11px;color:var(--muted);text-transform:uppercase;letter-spacing:.05em;margin:10px 0 2px}
pre{margin:0;background:var(--code-bg);border:1px solid var(--line);border-radius:6px;padding:8px 10px;overflow-x:auto;white-space:pre;line-height:1.45}
pre.out{max-height:24em;overflow:auto}
pre.diff span{display:block}
pre.diff .de{color:var(--pass)}pre.diff .dr{color:var(--fail)}pre.diff .dc{color:var(--muted)}
pre.diff .dn{color:var(--muted);font-style:italic}pre.diff .dh{color:var(--hunk)}
pre.diff .de:not(.dl){background:color-mix(in srgb,var(--pass-bg) 70%,transparent)}
pre.diff .dr:not(.dl){background:color-mix(in srgb,var(--fail-bg) 70%,transparent)}
pre.diff .de mark{background:var(--mark-e);color:inherit;border-radius:2px}
pre.diff .dr mark{background:var(--mark-r);color:inherit;border-radius:2px}
.slow{list-style:none;margin:0;padding:8px 0}
.slow li{display:grid;grid-template-columns:minmax(0,1fr) 120px 70px;gap:12px;align-items:center;padding:3px 14px}
.slow .path{word-break:break-all}
.slow meter{width:100%;height:8px}
.slow meter::-webkit-meter-bar{background:var(--none-bg);border:0;border-radius:4px;height:8px}
.slow meter::-webkit-meter-optimum-value{background:var(--link);border-radius:4px}
.slow .num{text-align:right;font-variant-numeric:tabular-nums}
details.tests{border-bottom:1px solid var(--line)}
details.tests:last-child{border-bottom:0}
details.tests>summary{cursor:pointer;padding:6px 14px;display:flex;gap:10px;align-items:center;list-style:none}
details.tests>summary::-webkit-details-marker{display:none}
details.tests>summary::before{content:"▸";color:var(--muted);width:10px;transition:transform .1s}
details.tests[open]>summary::before{transform:rotate(90deg)}
details.tests>summary:hover{background:var(--code-bg)}
details.tests>summary .path{flex:1;word-break:break-all}
details.tests>summary .counts{color:var(--muted);font-size:12px;white-space:nowrap}
details.tests ol{margin:0;padding:4px 14px 10px 48px;columns:2 360px;column-gap:32px;font-size:13px}
details.tests li{break-inside:avoid;word-break:break-word;color:var(--fg)}
details.tests li::marker{color:var(--muted);font-size:11px}
details.tests li.f{color:var(--fail);font-weight:600}details.tests li.s{color:var(--skip)}details.tests li.t{color:var(--todo)}details.tests li.n{color:var(--muted)}
details.tests li .d{color:var(--muted);font-size:12px}
details.tests .more{color:var(--muted);padding:0 14px 10px 48px;font-size:12px}
.empty{color:var(--muted);padding:12px 14px}
footer{margin-top:40px;color:var(--muted);font-size:12px;text-align:center}
[hidden]{display:none!important}
@media print{.toolbar{display:none}details.tests{break-inside:avoid}}
.runs{display:block}.runs .pass{fill:var(--pass)}.runs .fail{fill:var(--fail)}.runs .none{fill:var(--none-bg)}
h3.sub{font-size:14px;margin:16px 0 8px;font-weight:600}
"##;
