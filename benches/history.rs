//! The history store's cost per run of 500 files: appending the run's 500 records (what every
//! run pays at its end) and loading the store into the ordering index (what every run pays at
//! its start), with a young store (10 runs per file) and a full one (200 runs per file, the
//! compaction limit).
//!
//!     cargo bench --bench history
//!
//! Figures and the comparison with a whole 500-file run are in `benches/README.md`.
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use tapline::state::history::{Index, Record, Store, Verdict};

const FILES: usize = 500;

fn run_records(run: usize) -> Vec<Record> {
    (0..FILES)
        .map(|f| Record {
            run: format!("1795421882745-11306-{run}"),
            start: "2026-11-23T08:18:02.745Z".into(),
            commit: Some("0123456789abcdef0123456789abcdef01234567".into()),
            path: format!("test/t{f:03}.sh"),
            attempt: 1,
            verdict: if (f + run).is_multiple_of(97) {
                Verdict::Failed
            } else {
                Verdict::Passed
            },
            reasons: Vec::new(),
            duration_ms: (f % 50) as u64,
            failing: Vec::new(),
            tests: 2,
            flaky: false,
        })
        .collect()
}

fn store_with(runs: usize) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::in_dir(dir.path());
    for run in 0..runs {
        store.append(&run_records(run)).expect("append");
    }
    // As after the last compaction, so an append does not compact (the steady state).
    store.compact().expect("compact");
    (dir, store)
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("history");
    g.sample_size(20);
    let (_young_dir, young) = store_with(10);
    let batch = run_records(11);
    let wanted: Vec<String> = batch.iter().map(|r| r.path.clone()).collect();
    let wanted: Vec<&str> = wanted.iter().map(String::as_str).collect();
    g.bench_function("append_500_records", |b| {
        b.iter_batched(
            || (store_with(10), batch.clone()),
            // Returned, so the temporary folder is removed outside the measurement.
            |((dir, store), records)| {
                store.append(&records).expect("append");
                dir
            },
            BatchSize::PerIteration,
        )
    });
    g.bench_function("tail_index_10_runs_x_500_files", |b| {
        b.iter(|| Index::of(&young.recent(&wanted).expect("tail").records))
    });
    let (_full_dir, full) = store_with(200);
    g.bench_function("tail_index_200_runs_x_500_files", |b| {
        b.iter(|| Index::of(&full.recent(&wanted).expect("tail").records))
    });
    g.bench_function("whole_load_200_runs_x_500_files", |b| {
        b.iter(|| Index::of(&full.load().expect("load").records))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
