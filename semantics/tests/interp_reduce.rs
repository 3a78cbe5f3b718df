//! The exact reductions of the enumeration (issue 18; memoized states, in
//! `semantics/src/machine/reduce.rs`) against the plain enumeration, the
//! oracle (`Options::reduce = false`, `run --no-reduce`): on generated
//! programs at 2 and 3 threads, both find exactly the same distinct
//! behaviours (R-BEHAV: the behaviour keys, which hold outcomes, traces,
//! converged-with classes, communicating sets, results, observations and
//! how each thread ended), and the reduced search never runs more
//! executions.
//!
//! Families (all from `testgen`; at least 1,000 programs compared in all):
//! valid token programs (anchors, hearts, nested loops, an unknown
//! convergent `@op`) with branch conditions read from per-thread arguments
//! enumerated over the domain; the uniformity generator's functions (thread ids, memory,
//! switches, C-OPS); the MC-07 family (reductions, observed barriers,
//! loops with hearts).

use std::collections::BTreeSet;

use semantics::machine::launch::Exploration;
use semantics::machine::{explore, Options};
use semantics::parse_module;
use testgen::tokens::{arb_valid_token_module, TokenProgram};

fn keys(ex: &Exploration) -> BTreeSet<String> {
    ex.behaviours
        .iter()
        .map(|b| b.execution.behaviour_key())
        .collect()
}

/// Compares the two searches on `text`; `None` when either was cut by the
/// execution budget (then nothing can be compared).
fn compare(text: &str, opts: &Options) -> Option<(u64, u64)> {
    let module = parse_module("gen.ll", text).expect("generated module parses");
    let plain = explore(
        &module,
        &Options {
            reduce: false,
            ..opts.clone()
        },
    )
    .expect("explores");
    if !plain.complete {
        return None;
    }
    let reduced = explore(
        &module,
        &Options {
            reduce: true,
            ..opts.clone()
        },
    )
    .expect("explores");
    assert!(reduced.complete, "the reduced search is never longer");
    let (a, b) = (keys(&plain), keys(&reduced));
    assert!(
        a == b,
        "memoization changed the behaviours ({} plain, {} reduced; {} only plain, {} only reduced) at {} threads on\n{text}",
        a.len(),
        b.len(),
        a.difference(&b).count(),
        b.difference(&a).count(),
        opts.threads
    );
    assert!(reduced.explored + reduced.pruned <= plain.explored + plain.pruned);
    assert_eq!(
        reduced.cut > 0,
        plain.cut > 0,
        "cut executions are found in both"
    );
    Some((
        plain.explored + plain.pruned,
        reduced.explored + reduced.pruned,
    ))
}

fn opts(threads: u32, max_steps: u64, domain: Vec<i128>) -> Options {
    Options {
        threads,
        max_steps,
        int_domain: domain,
        max_executions: 600,
        ..Options::default()
    }
}

struct Tally {
    compared: usize,
    skipped: usize,
    plain: u64,
    reduced: u64,
}

impl Tally {
    fn new() -> Tally {
        Tally {
            compared: 0,
            skipped: 0,
            plain: 0,
            reduced: 0,
        }
    }
    fn add(&mut self, r: Option<(u64, u64)>) {
        match r {
            Some((p, q)) => {
                self.compared += 1;
                self.plain += p;
                self.reduced += q;
            }
            None => self.skipped += 1,
        }
    }
    fn report(&self, what: &str) {
        eprintln!(
            "memoization {what}: {} programs compared ({} skipped at the budget); executions plain {} / reduced {}",
            self.compared, self.skipped, self.plain, self.reduced
        );
    }
}

/// Token programs with anchors and hearts whose branch conditions are
/// per-thread arguments, at 3 threads. (Branch conditions drawn from input
/// streams make loops iterate under every sequence of draws: most such
/// programs exceed any budget that keeps this test short.)
#[test]
fn reduced_equals_plain_on_token_programs_at_3_threads() {
    let progs: Vec<TokenProgram> = testgen::sample(&arb_valid_token_module(4), 300, 41);
    let mut t = Tally::new();
    for p in &progs {
        t.add(compare(&p.to_ll(), &opts(3, 10, vec![0])));
    }
    t.report("token programs, 3 threads");
    assert!(t.compared >= 120, "too few compared: {}", t.compared);
}

/// The same programs with branch conditions read from per-thread
/// arguments enumerated over the domain (inputs that may not matter).
#[test]
fn reduced_equals_plain_on_token_programs_with_arguments() {
    let progs: Vec<TokenProgram> = testgen::sample(&arb_valid_token_module(4), 300, 42);
    let mut t = Tally::new();
    for (i, p) in progs.iter().enumerate() {
        let text = p.to_ll();
        let threads = 2 + u32::from(i % 4 == 0);
        t.add(compare(&text, &opts(threads, 14, vec![0])));
    }
    t.report("token programs, arguments");
    assert!(t.compared >= 180, "too few compared: {}", t.compared);
    assert!(
        t.reduced < t.plain,
        "the family exercises merges (anchors fired in either order)"
    );
}

/// The uniformity generator's functions: thread ids, memory, switches.
#[test]
fn reduced_equals_plain_on_uniformity_functions() {
    let mut t = Tally::new();
    for seed in 0..300u64 {
        let text = testgen::uniformity::gen_function_sized(seed, "k", 6).to_llvm();
        let threads = 2 + (seed % 2) as u32;
        t.add(compare(&text, &opts(threads, 12, vec![0, 1])));
    }
    t.report("uniformity functions");
    assert!(t.compared >= 250, "too few compared: {}", t.compared);
}

/// The MC-07 family: reductions, observed convergent barriers, loops with
/// hearts, and their mutations.
#[test]
fn reduced_equals_plain_on_mc07_family() {
    let progs = testgen::sample(&testgen::refine_family::arb_prog(3), 200, 43);
    let muts = testgen::sample(&testgen::refine_family::arb_mutation(), 200, 44);
    let mut t = Tally::new();
    for (i, (p, (at, to))) in progs.iter().zip(&muts).enumerate() {
        let threads = 2 + (i % 2) as u32;
        let src = testgen::refine_family::render(p);
        t.add(compare(&src, &opts(threads, 30, vec![0, 1, 2])));
        let tgt = testgen::refine_family::render(&testgen::refine_family::mutate(p, *at, *to));
        t.add(compare(&tgt, &opts(threads, 30, vec![0, 1, 2])));
    }
    t.report("MC-07 family");
    assert!(t.compared >= 350, "too few compared: {}", t.compared);
}
