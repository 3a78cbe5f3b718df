//! Scale of inputs for the reference interpreter (issue 17 item 8): the
//! static facts the machine consults (reachability between blocks, the
//! call graph) are linear in the size of the program, so a long chain of
//! blocks run by one thread for a few steps costs about as much as parsing
//! it. A block-by-block reachability matrix (the earlier design) needs
//! n² bytes: 2.5 GB for the 50,000 blocks below, which this test would not
//! survive on the CI machine. M-OPER, P-LAUNCH.

use semantics::machine::{explore, ArgValues, Options, Outcome};
use semantics::parse_module;

/// A chain of `n` blocks, each branching on the argument to the next one.
fn chain(n: usize) -> String {
    let mut s = String::from("define void @k(i32 %x) {\n");
    for i in 0..n {
        s += &format!("b{i}:\n");
        if i + 1 < n {
            s += &format!(
                "  %c{i} = icmp eq i32 %x, {}\n  br i1 %c{i}, label %b{}, label %b{}\n",
                i % 3,
                i + 1,
                i + 1
            );
        } else {
            s += "  ret void\n";
        }
    }
    s + "}\n"
}

#[test]
fn long_chain_one_thread_few_steps_is_linear() {
    let text = chain(50_000);
    let m = parse_module("chain.ll", &text).expect("the generated chain parses");
    let mut o = Options {
        threads: 1,
        max_steps: 10,
        ..Options::default()
    };
    o.args.insert("x".into(), ArgValues::Uniform(0));
    let ex = explore(&m, &o).expect("explores");
    assert_eq!(ex.explored, 1);
    assert!(matches!(
        ex.behaviours[0].execution.outcome,
        Outcome::Cut { .. }
    ));
}

/// Two threads on a shorter chain run to the end, with one behaviour.
#[test]
fn long_chain_two_threads_finish() {
    let text = chain(2_000);
    let m = parse_module("chain.ll", &text).expect("the generated chain parses");
    let mut o = Options {
        threads: 2,
        max_steps: 10_000,
        ..Options::default()
    };
    o.args.insert("x".into(), ArgValues::Uniform(1));
    let ex = explore(&m, &o).expect("explores");
    assert_eq!((ex.explored, ex.behaviours.len()), (1, 1));
    assert_eq!(ex.behaviours[0].execution.outcome, Outcome::Finished);
}

/// `run --threads N` text (R-CEX tables, convergent calls) and the
/// behaviour key are linear in threads × calls: a communicating set of
/// more than `render::INLINE_SET` threads is printed once by name, and the
/// behaviour key names each set by its first member. CL-05's loop with
/// every thread in one entry set, one loop set per iteration and a
/// ballot: doubling the threads from 300 to 600 at most ~doubles both
/// texts (the earlier text was quadratic: 31 MB at 1,000 threads).
#[test]
fn large_launch_text_is_linear() {
    let path = format!(
        "{}/../examples/interp/cl05-exit-loop-token.ll",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("example exists");
    let m = parse_module(&path, &text).expect("example parses");
    let sizes = |n: u32| {
        let o = Options {
            threads: n,
            max_executions: 1,
            ..Options::default()
        };
        let ex = explore(&m, &o).expect("explores");
        let b = &ex.behaviours[0].execution;
        let out = semantics::machine::render::text(&m, &ex);
        assert!(out.contains("S1 = {t0@"), "the big sets are named");
        (out.len(), b.behaviour_key().len())
    };
    let (t1, k1) = sizes(300);
    let (t2, k2) = sizes(600);
    assert!(t2 * 10 < t1 * 23, "text {t1} -> {t2} bytes");
    assert!(k2 * 10 < k1 * 23, "behaviour key {k1} -> {k2} bytes");
}

/// A kernel whose behaviours are every subset of the threads taking `%a`
/// (2^n of them, all renamings of n + 1 representatives).
const SPLIT: &str = "define void @k(i32 %x) {
entry:
  %c = icmp sgt i32 %x, 0
  br i1 %c, label %a, label %b
a:
  br label %b
b:
  ret void
}";

/// Issue 18 item 4: the closure under renaming (M-RENAME) lists at most
/// `CLOSURE_RECORDS` thread records, so memory stays linear in threads x
/// behaviours, and counts the rest: orbits of blind thread renamings by
/// their size (`symmetry::orbit`), so at 50 threads all 2^50 behaviours
/// are counted, the listing partial (`closure_capped`, `counted`).
/// Before, one orbit of 50 threads (up to C(50, 25) images) was built whole:
/// 13 GB and past any time limit; then its images were counted by digest
/// up to `CLOSURE_DIGESTS` thread records, where the closure stopped
/// without a count. At 12 threads all 4,096 are listed.
#[test]
fn closure_under_renaming_is_bounded() {
    let m = parse_module("split.ll", SPLIT).expect("parses");
    let o = |threads| Options {
        threads,
        ..Options::default()
    };
    let ex = explore(&m, &o(12)).expect("explores");
    assert!(ex.complete);
    assert_eq!(ex.behaviours.len(), 4096);
    assert_eq!(ex.closure_capped, None);
    let start = std::time::Instant::now();
    let ex = explore(&m, &o(50)).expect("explores");
    let cap = semantics::machine::symmetry::CLOSURE_RECORDS / 50;
    assert_eq!(ex.closure_capped, Some(cap));
    assert!(!ex.complete, "the listing is partial");
    assert_eq!(ex.counted, Some(1 << 50), "2^50 behaviours, counted");
    assert!(ex.counted_complete());
    assert_eq!(ex.behaviours.len(), cap);
    assert!(
        start.elapsed().as_secs() < 60,
        "bounded closure took {:?}",
        start.elapsed()
    );
}

/// Issue 18 item 4: the lower bound on launches `run` states before a
/// large enumeration: multisets of per-thread input vectors.
#[test]
fn launches_at_least_counts_multisets() {
    use semantics::machine::launch::launches_at_least;
    let m = parse_module("split.ll", SPLIT).expect("parses");
    let mut o = Options {
        threads: 1000,
        ..Options::default()
    };
    // Domain {0, 1, 2}: C(1002, 2).
    assert_eq!(launches_at_least(&m, &o), Some(501_501.0));
    o.threads = 8;
    assert_eq!(launches_at_least(&m, &o), Some(45.0));
    o.args.insert("x".into(), ArgValues::Uniform(1));
    assert_eq!(launches_at_least(&m, &o), Some(1.0));
}
