#!/usr/bin/env python3
"""The explanation-conformance suite: every recording of a real producer in test-data/producers/
against its known answer, the explanation each failure must get (docs/failures.md,
"Known answers").

Each recording (`X.tap`, `X.jsonl`, `X.junit.xml`, flat or in a producer's folder) is run as a
real one-file `tapline run`: the recording is the test file, printed by `cat` through a
`[[runner]]` of its format, so it goes through the stage that explains a run's failures and
every report of it. From that run the suite reads the explanation tapline gave each failure
(`--format jsonl`, its `explained` events), renders it as the known answer's text and compares
it with `X.answer.txt` beside the recording; then it checks that the terminal (plain), the
file's log under .nogit/testlogs/, JUnit and Markdown each carry that answer's location,
message, values (the diff), stack and output, each failure in its own place; and that three
runs print the same (timings aside).

    python3 scripts/explain-conformance.py                  # check: "N/N recordings agree"
    python3 scripts/explain-conformance.py --update         # (re)write every answer
    python3 scripts/explain-conformance.py mocha/explain.tap --update   # one recording

`--tapline BIN` picks the binary (default target/release/tapline; the cargo test
tests/integration/issue41_explain_conformance.rs passes its own build). An answer's
`# known wrong: …` lines say what is wrong in tapline's explanation of it; `--update` keeps
them, and the check reports each as a divergence (it passes, and says so) while the rest
still has to agree. A recording with no failures has no answer, and must keep explaining
none. Exit 0 when every recording agrees, 1 when one does not, 2 when the suite cannot run.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PRODUCERS = REPO / "test-data" / "producers"
FORMATS = {".tap": "tap", ".jsonl": "go-json", ".junit.xml": "junit"}
ANSWER = ".answer.txt"
RUNS = 3

# What each producer means by the two sides (the answer's header), by the recording's name.
SIDES = [
    ("perl-test2", "expected is Test2's CHECK column, actual its GOT"),
    ("test2/", "expected is Test2's CHECK column, actual its GOT"),
    ("perl-", "expected is Test::More's `expected:`, actual its `got:`"),
    ("pytest", "in `assert LEFT == RIGHT` expected is RIGHT (pytest's `-`), actual LEFT (`+`)"),
    ("tappy", "unittest's `first != second`: expected is the second, actual the first"),
    ("go-", "go test prints no values: a message and its location"),
    ("bats", "expected is bats-assert's `expected`, actual its `actual`"),
    ("mocha/", "node:assert's `expected` and `actual` (its `+ actual - expected` block)"),
    ("tapbundle/", "smartexpect's `expect(actual)`: expected is the argument or the constant its message names (`to be true`), actual what it got (`but got …`)"),
    ("tapbundle", "node:assert's `expected` and `actual` (its `+ actual - expected` block)"),
    ("node-test", "node:test's YAML `expected:` and `actual:` (node:assert's sides)"),
    ("node-tap", "node-tap's YAML `wanted:` (expected) and `found:` (actual)"),
    ("tape", "tape's YAML `expected:` and `actual:` (object-inspect literals)"),
]

DURATION = re.compile(r"\b\d+(\.\d+)?(ms|s|m)\b")
JUNIT_TIME = re.compile(r'(time|timestamp)="[^"]*"')


class Unrunnable(Exception):
    """The suite itself cannot run (no binary, a run that did not finish)."""


def recordings():
    """Every recording under test-data/producers/, as paths relative to it, sorted."""
    found = []
    for path in PRODUCERS.rglob("*"):
        rel = path.relative_to(PRODUCERS)
        if path.is_file() and rel.parts[0] != "src" and "src" not in rel.parts[:-1]:
            if fmt_of(rel.name):
                found.append(rel.as_posix())
    return sorted(found)


def fmt_of(name):
    for ext, fmt in FORMATS.items():
        if name.endswith(ext):
            return fmt
    return None


def answer_path(rec):
    ext = next(e for e in FORMATS if rec.endswith(e))
    return PRODUCERS / (rec[: -len(ext)] + ANSWER)


def sides_of(rec):
    return next((s for prefix, s in SIDES if rec.startswith(prefix)), "the producer's expected and actual")


# ---- running one recording ----


class Run:
    """One real one-file run of a recording: what each report said."""

    def __init__(self, jsonl, terminal, log, junit, markdown, code):
        self.jsonl, self.terminal, self.log = jsonl, terminal, log
        self.junit, self.markdown, self.code = junit, markdown, code

    def explained(self):
        """The explanations the run's stage gave, in order (failures and the file's rest)."""
        out = []
        for line in self.jsonl.splitlines():
            if line.startswith('{"type":"explained"'):
                e = json.loads(line)["explained"]
                if e.get("kind") in ("failure", "rest"):
                    out.append(e)
        return out

    def stable(self, project):
        """Its reports less what may differ between runs: timings and the project's path."""
        def clean(s):
            return DURATION.sub("<t>", s.replace(str(project), "<project>"))
        return (
            self.explained(),
            clean(self.terminal),
            self.log,
            JUNIT_TIME.sub("", clean(self.junit)),
            clean(self.markdown),
            self.code,
        )


def run_once(tapline, project, rec):
    """Runs the recording once in `project`, from a clean slate: no log, history or cached
    result of an earlier run (each would change what the next run says)."""
    for stale in (".nogit", "out.xml", "out.md"):
        p = project / stale
        shutil.rmtree(p, ignore_errors=True) if p.is_dir() else p.unlink(missing_ok=True)
    env = dict(os.environ, COLUMNS="100", NO_COLOR="1")
    env.pop("CI", None)
    try:
        done = subprocess.run(
            [tapline, "run", rec, "--color", "never", "--format", "jsonl", "-o", "out.xml", "-o", "out.md"],
            cwd=project, env=env, capture_output=True, timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise Unrunnable(f"failed to run {tapline} on {rec}: {e}") from e
    logs = sorted((project / ".nogit" / "testlogs").glob("*.log"))
    read = lambda name: (project / name).read_text(encoding="utf-8") if (project / name).exists() else ""
    return Run(
        done.stdout.decode("utf-8", "replace"),
        done.stderr.decode("utf-8", "replace"),
        logs[0].read_bytes() if logs else None,
        read("out.xml"),
        read("out.md"),
        done.returncode,
    )


def project_for(rec, work):
    """A project holding the recording at its own relative path and a runner that prints it."""
    project = Path(tempfile.mkdtemp(dir=work))
    (project / rec).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(PRODUCERS / rec, project / rec)
    ext = next(e for e in FORMATS if rec.endswith(e))
    (project / "tapline.toml").write_text(
        f'[[runner]]\nglob = "**/*{ext}"\ncommand = "cat {{}}"\nformat = "{FORMATS[ext]}"\n'
    )
    return project


# ---- the known answer's text ----


BARE, TYPE, CLASS = "$tapline::bare", "$tapline::type", "$tapline::class"


def value_text(v):
    """A value as JSON text on one line; a word the producer wrote (`undef`, a Date) bare, with
    its type when it has one (`1970-01-01T00:00:00.000Z (Date)`), an instance after its class."""
    if isinstance(v, dict) and BARE in v:
        return str(v[BARE]) + (f" ({v[TYPE]})" if TYPE in v and v[TYPE] != v[BARE] else "")
    if isinstance(v, dict):
        fields = ", ".join(f"{json.dumps(k, ensure_ascii=False)}: {value_text(x)}" for k, x in v.items() if k != CLASS)
        return (f"{v[CLASS]} " if CLASS in v else "") + "{" + fields + "}"
    if isinstance(v, list):
        return "[" + ", ".join(value_text(x) for x in v) + "]"
    return json.dumps(v, ensure_ascii=False)


def block(key, lines, mark=""):
    if not lines:
        return [f"{key}: (none)"]
    return [f"{key}:"] + [f"  {mark}{l}".rstrip() if (mark or l) else "" for l in lines]


def failure_text(n, total, e):
    lines = [f"── failure {n} of {total}: {shown_name(e)}"]
    if e.get("by_children"):
        return lines + ["(failed through its children, which explain it)"]
    if not e.get("full"):
        return lines + ["(named only: past the file's limit of explained failures)"]
    lines.append(f"location: {e.get('location') or '(none)'}")
    lines += block("message", (e.get("message") or "").splitlines())
    if e.get("machine"):
        lines.append(f"machine: {e['machine']}")
    for key, val in e.get("other", []):
        lines += block(f"other {key}", val.splitlines())
    for side in ("expected", "actual"):
        lines.append(f"{side}: {value_text(e[side]) if side in e else '(none)'}")
    lines += block("diff", e.get("diff") or [])
    if e.get("raw_yaml"):
        lines += block("raw yaml", e["raw_yaml"][0].splitlines() + ["(" + e["raw_yaml"][1] + ")"])
    lines += block("stack", (e.get("stack") or "").splitlines())
    lines += block("output", e.get("output") or [], "│ ")
    return lines


def shown_name(e):
    path = list(e.get("path") or [])
    own = path[-1] if path else ""
    if not own:
        own = f"#{e['id']}" if e.get("id") is not None else "(unnamed)"
    return " > ".join(path[:-1] + [own])


def answer_text(rec, run, wrong):
    failures = [e for e in run.explained() if e.get("kind") == "failure"]
    rest = next((e for e in run.explained() if e.get("kind") == "rest"), {})
    out = [
        f"# The known answer for test-data/producers/{rec}: how a one-file `tapline run` explains",
        "# each failure (scripts/explain-conformance.py writes it with --update and checks it).",
        f"# sides: {sides_of(rec)}",
    ]
    ext = next(e for e in FORMATS if rec.endswith(e))
    if (PRODUCERS / (rec[: -len(ext)] + ".stderr")).exists():
        out.append("# its .stderr is not played: the order of the two streams was not recorded")
    out += [f"# known wrong: {w}" for w in wrong]
    out += ["", f"{len(failures)} failure{'' if len(failures) == 1 else 's'}"]
    for n, e in enumerate(failures, 1):
        out += [""] + failure_text(n, len(failures), e)
    after = rest.get("after_last_point") or []
    if after:
        out += [""] + block("the file's output after its last point (no failure's)", after, "│ ")
    return "\n".join(out) + "\n"


def known_wrong(text):
    return [l[len("# known wrong: "):] for l in text.splitlines() if l.startswith("# known wrong: ")]


# ---- each report carries the answer ----


def unescape_xml(s):
    def one(m):
        name = m.group(1)
        if name.startswith("#x"):
            return chr(int(name[2:], 16))
        if name.startswith("#"):
            return chr(int(name[1:]))
        return {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}.get(name, m.group(0))
    return re.sub(r"&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);", one, s)


def markdown_text(s):
    """Markdown read back to text: escapes and entities outside code blocks (inside, a line is
    as written)."""
    out, fenced = [], False
    for line in s.split("\n"):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            line = unescape_xml(re.sub(r"\\(.)", r"\1", line)).replace("\u02cb", "`")
        out.append(line)
    return "\n".join(out)


def swap_sign(line):
    if line.startswith("-"):
        return "+" + line[1:]
    if line.startswith("+"):
        return "-" + line[1:]
    return line


def facts(e, sink):
    """What a sink must show of one failure: (what, text) pairs, each a line of the answer."""
    out = []
    if e.get("location"):
        out.append(("location", f"at `{e['location']}`" if sink == "Markdown" else f"at {e['location']}"))
    for l in (e.get("message") or "").splitlines():
        out.append(("message", l))
    for l in e.get("diff") or []:
        out.append(("diff", swap_sign(l) if sink == "Markdown" else l))
    for l in e.get("output") or []:
        out.append(("output", l))
    if sink != "terminal":
        # The file reports keep the whole stack; the terminal leaves runtime frames out.
        for l in (e.get("stack") or "").splitlines():
            out.append(("stack", l))
    return [(what, t.strip()) for what, t in out if t.strip()]


def find_head(text, head, at):
    """Where `head` starts a line's text and ends it or meets two spaces (a duration), from `at`."""
    while (found := text.find(head, at)) >= 0:
        if text.startswith(("\n", "  "), found + len(head)) or found + len(head) == len(text):
            return found
        at = found + 1
    return -1


def segments(text, heads):
    """The text of each failure: from its heading (found in order, else anywhere: a report of
    several files may list them in another order than the run finished them) to the next
    heading's."""
    spans, at = [], 0
    for head in heads:
        found = find_head(text, head, at)
        if found < 0:
            found = find_head(text, head, 0)
        if found < 0:
            spans.append(None)
            continue
        spans.append(found)
        at = found + len(head)
    out = []
    for start in spans:
        if start is None:
            out.append(None)
            continue
        end = min((s for s in spans if s is not None and s > start), default=len(text))
        out.append(text[start:end])
    return out


def junit_failures(xml, names):
    """Each failure's `<failure>` (message attribute and body, read back to text), found by its
    case's name: JUnit lists cases in the stream's order, a subtest after its children, where
    the explanation has the parent first; two cases of one name are taken in order."""
    cases = {}
    for m in re.finditer(r'<testcase name="([^"]*)"[^>]*>(.*?)</testcase>', xml, re.S):
        f = re.search(r'<failure message="([^"]*)"[^>]*?(?:/>|>(.*?)</failure>)', m.group(2), re.S)
        if f:
            text = unescape_xml(f.group(1)) + "\n" + unescape_xml(f.group(2) or "")
            cases.setdefault(unescape_xml(m.group(1)), []).append(text)
    return [cases.get(name, []).pop(0) if cases.get(name) else None for name in names]


ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def in_sink(fact, sink):
    """A line as the sink writes it: JUnit spells an escape `\\u{1b}` (XML has no ESC), and
    Markdown leaves a child's colours out."""
    if sink == "JUnit":
        return fact.replace("\x1b", "\\u{1b}")
    if sink == "Markdown":
        return ANSI.sub("", fact)
    return fact


def shown_lines(seg):
    """A report's lines as text: trimmed, and again without the gutter (`│`) or quote (`>`)."""
    out = set()
    for l in seg.splitlines():
        l = l.strip()
        out.add(l)
        for mark in ("│", ">"):
            if l.startswith(mark):
                out.add(l[len(mark):].strip())
    return out


STACK_NOTE = re.compile(r"… (?:(\d+) more stack lines)?(?:, )?(?:(\d+) runtime frames? hidden)?")


def terminal_stack_agrees(stack, lines, seg):
    """The terminal shows a stack trimmed (runtime frames left out and counted, at most six
    lines): some of its lines, each a line of the answer's stack, and notes counting no more
    lines than the rest."""
    frames = [l.strip() for l in stack.splitlines() if l.strip()]
    if not frames:
        return True
    shown = sum(1 for f in frames if f in lines)
    counted = 0
    for m in STACK_NOTE.finditer(seg):
        counted += int(m.group(1) or 0) + int(m.group(2) or 0)
    return 0 < shown + counted <= len(frames)


def sink_disagreements(rec, run):
    failures = [e for e in run.explained() if e.get("kind") == "failure" and e.get("full") and not e.get("by_children")]
    said = []
    terminal = run.terminal.split("\nFailures:\n")[0]
    markdown = markdown_text(run.markdown)
    views = {
        "terminal": segments(terminal, [f"✗ {shown_name(e)}" for e in failures]),
        "JUnit": junit_failures(run.junit, [shown_name(e) for e in failures]),
        "Markdown": segments(markdown, [f"› {shown_name(e)}" for e in failures]),
    }
    junit_count = run.junit.count("<failure ")
    if junit_count != len(failures):
        said.append(f"JUnit has {junit_count} failures, the explanation {len(failures)}")
    for n, e in enumerate(failures):
        for sink, segs in views.items():
            seg = segs[n] if n < len(segs) else None
            if seg is None:
                said.append(f"{sink} does not name failure {n + 1} ({shown_name(e)})")
                continue
            lines = shown_lines(seg)
            for what, fact in facts(e, sink):
                fact = in_sink(fact, sink)
                if fact not in lines and not (sink == "JUnit" and what == "message" and fact in seg):
                    said.append(f"{sink} lacks failure {n + 1}'s {what} {fact!r}")
                    break
            if sink == "terminal" and not terminal_stack_agrees(e.get("stack") or "", lines, seg):
                said.append(f"terminal shows failure {n + 1}'s stack otherwise than its answer's, trimmed")
    if run.log != (PRODUCERS / rec).read_bytes():
        said.append("the log is not the recording byte for byte")
    return said


# ---- the suite ----


def check(tapline, rec, work, update):
    """Disagreements of one recording (empty: it agrees), and its known-wrong notes."""
    project = project_for(rec, work)
    runs = [run_once(tapline, project, rec) for _ in range(RUNS)]
    first = runs[0]
    path = answer_path(rec)
    old = path.read_text(encoding="utf-8") if path.exists() else None
    wrong = known_wrong(old or "")
    has_failures = any(e.get("kind") == "failure" for e in first.explained())
    new = answer_text(rec, first, wrong) if has_failures else None
    said = []
    if update:
        if new is None:
            path.unlink(missing_ok=True)
        elif new != old:
            path.write_text(new, encoding="utf-8")
    elif new != old:
        said.append(answer_diff(old, new))
    stable = first.stable(project)
    for i, other in enumerate(runs[1:], 2):
        for what, a, b in zip(("explanation", "terminal", "log", "JUnit", "Markdown", "exit code"), stable, other.stable(project)):
            if a != b:
                said.append(f"run {i}'s {what} differs from run 1's")
    said += sink_disagreements(rec, first)
    return said, wrong


def answer_diff(old, new):
    if old is None:
        return f"no known answer, but the run explains failures ({ANSWER} missing: --update writes it)"
    if new is None:
        return "the known answer has failures, the run explains none"
    a, b = old.splitlines(), new.splitlines()
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"answer line {i + 1}: known {x!r}, the run gives {y!r}"
    return f"answer has {len(a)} lines, the run gives {len(b)}"


def main(argv=None):
    global PRODUCERS
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("recordings", nargs="*", help="recordings to check, relative to test-data/producers/ (default: all)")
    ap.add_argument("--tapline", default=str(REPO / "target" / "release" / "tapline"))
    ap.add_argument("--update", action="store_true", help="(re)write the known answers")
    ap.add_argument("--producers", default=str(PRODUCERS), help="the recordings' folder (a test's copy)")
    args = ap.parse_args(argv)
    PRODUCERS = Path(args.producers).resolve()
    tapline = str(Path(args.tapline).resolve())
    if not os.access(tapline, os.X_OK):
        print(f"failed to find tapline at {tapline} (cargo build --release)", file=sys.stderr)
        return 2
    chosen = args.recordings or recordings()
    unknown = [r for r in chosen if not (PRODUCERS / r).is_file() or not fmt_of(r)]
    if unknown:
        print(f"failed to find recordings: {', '.join(unknown)}", file=sys.stderr)
        return 2
    agree, divergences = 0, 0
    with tempfile.TemporaryDirectory(prefix="tapline-explain-") as work:
        for rec in chosen:
            try:
                said, wrong = check(tapline, rec, Path(work), args.update)
            except Unrunnable as e:
                print(str(e), file=sys.stderr)
                return 2
            divergences += bool(wrong)
            for w in wrong:
                print(f"{rec}: known wrong: {w}")
            for s in said:
                print(f"{rec}: {s}")
            agree += not said
    verb = "written" if args.update else "agree"
    print(f"{agree}/{len(chosen)} recordings {verb}" + (f", {divergences} with known-wrong notes" if divergences else ""))
    return 0 if agree == len(chosen) else 1


if __name__ == "__main__":
    sys.exit(main())
