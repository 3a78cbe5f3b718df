//! Performance of the reference interpreter (issue 4): the CL-21 loop
//! shape with 64 threads and ~1,000 iterations per thread, using the
//! operational keys (D-MAX-ITER); and the time ratio of the literal D-MAX
//! oracle to the operational one at a size both can do. Timings are
//! printed (`--nocapture`) and reported in the README; the assertions only
//! guard against gross regressions on a loaded 2-core machine.

use std::time::Instant;

use semantics::machine::dmax::literal_classes;
use semantics::machine::program::Program;
use semantics::machine::{explore, ArgValues, Options};
use semantics::parse_module;

fn scaled(threads: u32, n: i128) -> (semantics::ir::Module, Options) {
    let path = format!(
        "{}/../examples/interp/cl21-scaled.ll",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("example exists");
    let m = parse_module(&path, &text).expect("parses");
    let mut o = Options {
        threads,
        max_steps: 100_000,
        ..Options::default()
    };
    o.args.insert("n".into(), ArgValues::Uniform(n));
    (m, o)
}

#[test]
fn cl21_scaled_64_threads_1000_iterations() {
    let (m, o) = scaled(64, 1000);
    let start = Instant::now();
    let ex = explore(&m, &o).expect("explores");
    let secs = start.elapsed().as_secs_f64();
    eprintln!("BENCH cl21-scaled: 64 threads x ~1000 iterations: {secs:.3} s");
    assert_eq!((ex.explored, ex.cut), (1, 0));
    let e = &ex.behaviours[0].execution;
    // Threads with the same trip count and pattern converge on every H.
    let visits: usize = e.threads.iter().map(|t| t.trace.len()).sum();
    assert!(visits > 64 * 2000, "{visits}");
    assert!(secs < 20.0, "took {secs} s");
}

#[test]
fn literal_versus_operational_time_ratio() {
    let (m, o) = scaled(4, 12);
    let start = Instant::now();
    let ex = explore(&m, &o).expect("explores");
    let oper = start.elapsed().as_secs_f64();
    let e = &ex.behaviours[0].execution;
    let prog = Program::new(&m, 0);
    let start = Instant::now();
    let lit = literal_classes(&prog, e).expect("one function");
    let literal = start.elapsed().as_secs_f64();
    assert_eq!(lit, e.visit_classes(), "MC-02 on the benchmark");
    eprintln!(
        "BENCH literal/operational at 4 threads x ~12 iterations: literal {literal:.4} s, operational {oper:.4} s, ratio {:.0}",
        literal / oper.max(1e-9)
    );
}
