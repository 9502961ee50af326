//! Parser throughput (criterion). Input: `$TAPLINE_BENCH_CORPUS`, else a 10 MB corpus made by
//! `../shared/perf/gen_corpus.py` into `target/`, else a built-in generator of the same shape.
//! Whole-process figures against the reference parser: see benches/README.md.
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::path::PathBuf;
use tapline::event::run::RunEvent;
use tapline::event::{Event, Sink};
use tapline::protocol::{parse_all, Parser};
use tapline::report::jsonl::JsonlWriter;
use tapline::report::sink::{JsonlRun, RunSink};
use tapline::report::summary::SummaryWriter;

#[derive(Default)]
struct Count(u64);

impl Sink for Count {
    fn event(&mut self, e: &Event<'_>) {
        if let Event::Assert(_) = e {
            self.0 += 1;
        }
    }
}

fn corpus() -> Vec<u8> {
    if let Some(p) = std::env::var_os("TAPLINE_BENCH_CORPUS") {
        return std::fs::read(&p).expect("TAPLINE_BENCH_CORPUS is readable");
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = root.join("target/bench-corpus-10m.tap");
    if !out.exists() {
        let gen = root.join("../shared/perf/gen_corpus.py");
        let _ = std::process::Command::new("python3")
            .arg(&gen)
            .args(["--size", "10m", "-o"])
            .arg(&out)
            .status();
    }
    std::fs::read(&out).unwrap_or_else(|_| builtin_corpus(10 << 20))
}

/// Same shape as gen_corpus.py, coarser: passing points, failures with YAML, subtests, comments.
fn builtin_corpus(size: usize) -> Vec<u8> {
    let mut s = String::from("TAP version 14\n");
    let mut n = 0;
    while s.len() < size {
        n += 1;
        match n % 50 {
            0 => s.push_str(&format!(
                "not ok {n} - parser rejects invalid tokens under load\n  ---\n  message: boom\n  wanted: 1\n  found: 2\n  ...\n"
            )),
            1 => s.push_str(&format!(
                "# Subtest: group {n}\n    1..2\n    ok 1 - cache returns empty input\n    ok 2 - queue sorts deep arrays\nok {n} - group {n}\n"
            )),
            2 => s.push_str("# a comment line in the stream\n"),
            _ => s.push_str(&format!("ok {n} - session validates unicode strings when the cache is cold\n")),
        }
    }
    s.push_str(&format!("1..{n}\n"));
    s.into_bytes()
}

fn bench(c: &mut Criterion) {
    let data = corpus();
    let mut g = c.benchmark_group("parse");
    g.throughput(Throughput::Bytes(data.len() as u64));
    g.sample_size(10);
    g.bench_function("events_to_counting_sink", |b| {
        b.iter(|| {
            let mut p = Parser::new(Count::default());
            for chunk in data.chunks(256 * 1024) {
                p.feed(chunk);
            }
            p.finish().0
        })
    });
    g.bench_function("summary_json", |b| {
        b.iter(|| {
            let mut p = Parser::new(SummaryWriter::new(std::io::sink()));
            for chunk in data.chunks(256 * 1024) {
                p.feed(chunk);
            }
            p.finish().finish().is_ok()
        })
    });
    // Into a reused `Vec`, not `io::sink()`: a sink's no-op writes would hide what making
    // the bytes costs.
    let mut out = Vec::with_capacity(data.len() * 4);
    g.bench_function("jsonl", |b| {
        b.iter(|| {
            out.clear();
            let mut p = Parser::new(JsonlWriter::new(&mut out));
            for chunk in data.chunks(256 * 1024) {
                p.feed(chunk);
            }
            p.finish().finish().is_ok()
        })
    });
    // What `run -o r.jsonl` adds per event, without the parse: the stream's events as a
    // run's `Tap` events, written as lines.
    let events: Vec<RunEvent> = parse_all(&data)
        .into_iter()
        .map(|event| RunEvent::Tap {
            run: 1,
            file: 136,
            event,
        })
        .collect();
    g.bench_function("jsonl_run_events_only", |b| {
        b.iter(|| {
            let mut sink = JsonlRun::new(std::io::sink());
            events.iter().all(|e| sink.on(e).is_ok())
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
