//! Thread symmetry of the reference interpreter (M-OPER, D-ANCHOR `all`):
//! threads of one launch group are interchangeable, so the set of
//! behaviours (R-BEHAV) of a launch whose inputs are all enumerated is
//! invariant under renaming the threads (each thread keeping its inputs).
//! A scheduler that favours low thread ids (e.g. only firing anchor sets
//! that contain the lowest waiting thread) finds a behaviour but not its
//! mirror image, and fails this property.
//!
//! Programs: valid token programs (testgen) whose branch conditions are
//! the kernel's arguments `%cK` / `%sK`, given per thread (P-INPUT): a loop
//! either exits at its first test or runs until the step bound, so threads
//! with different inputs iterate loops (anchors, hearts) different numbers
//! of times. Each launch is explored exhaustively, then again with the
//! threads' inputs permuted; the behaviours of the second launch must be
//! exactly those of the first with the threads renamed.

use std::collections::{BTreeMap, BTreeSet};

use proptest::collection::vec;
use proptest::prelude::{prop_assert_eq, ProptestConfig};
use proptest::proptest;

use semantics::machine::launch::{Execution, Exploration};
use semantics::machine::state::ThreadEnd;
use semantics::machine::{explore, ArgValues, Options, Outcome};
use semantics::parse_module;
use testgen::tokens::{arb_valid_token_module, TokenProgram};

/// The execution with thread `t` renamed `perm[t]` (outcome, thread order
/// and ids; keys of dynamic instances are names, so they need no change).
fn renamed(e: &Execution, perm: &[usize]) -> Execution {
    let mut threads = e.threads.clone();
    for (t, th) in e.threads.iter().enumerate() {
        let mut th = th.clone();
        th.tid = perm[t] as u32;
        threads[perm[t]] = th;
    }
    let outcome = match &e.outcome {
        // The outcome names the lowest-numbered thread with UB (a reporting
        // convention; every thread's own end is part of the behaviour).
        Outcome::Ub { .. } => threads
            .iter()
            .find_map(|th| match &th.end {
                Some(ThreadEnd::Ub { loc, why }) => Some(Outcome::Ub {
                    thread: th.tid,
                    loc: *loc,
                    why: why.clone(),
                }),
                _ => None,
            })
            .unwrap_or_else(|| e.outcome.clone()),
        Outcome::Cut { threads } => {
            let mut ts: Vec<u32> = threads.iter().map(|t| perm[*t as usize] as u32).collect();
            ts.sort();
            Outcome::Cut { threads: ts }
        }
        o => o.clone(),
    };
    Execution {
        outcome,
        threads,
        inputs: e.inputs.clone(),
        hierarchy: e.hierarchy.clone(),
        // Observed memory (R-MEM) is named by object, not by thread.
        memory: e.memory.clone(),
    }
}

/// Behaviour keys of `ex` with thread `t` renamed `perm[t]`.
fn renamed_keys(ex: &Exploration, perm: &[usize]) -> BTreeSet<String> {
    ex.behaviours
        .iter()
        .map(|b| renamed(&b.execution, perm).behaviour_key())
        .collect()
}

/// Names and types (`i1` / `i32`) of the kernel's parameters, read from its
/// `define` line.
fn params(text: &str) -> Vec<(String, bool)> {
    let line = text
        .lines()
        .find(|l| l.starts_with("define void @k("))
        .unwrap_or_default();
    let inside = line
        .split_once('(')
        .and_then(|(_, r)| r.split_once(')'))
        .map_or("", |x| x.0);
    inside
        .split(',')
        .filter_map(|p| {
            let (ty, name) = p.trim().split_once(' ')?;
            Some((name.trim_start_matches('%').to_string(), ty == "i1"))
        })
        .collect()
}

/// Explores `p` with per-thread inputs: `raw[t][k]` picks the value of
/// parameter `k` in thread `t` (i1: parity; i32 switch values: 0..=2).
fn launch(p: &TokenProgram, raw: &[Vec<u8>], max_steps: u64) -> (String, Exploration) {
    let text = p.to_ll();
    let module = parse_module("sym.ll", &text).expect("generated module parses");
    let mut args = BTreeMap::new();
    for (k, (name, is_i1)) in params(&text).into_iter().enumerate() {
        let vals = raw
            .iter()
            .map(|r| {
                let x = i128::from(r.get(k).copied().unwrap_or(0));
                if is_i1 {
                    x % 2
                } else {
                    x % 3
                }
            })
            .collect();
        args.insert(name, ArgValues::PerThread(vals));
    }
    let opts = Options {
        threads: raw.len() as u32,
        max_steps,
        args,
        int_domain: vec![0],
        max_executions: 2_000,
        ..Options::default()
    };
    let ex = explore(&module, &opts).expect("explores");
    (text, ex)
}

/// The behaviours of the launch with inputs `raw`, renamed by `perm`,
/// against those of the launch where thread `perm[t]` has `raw[t]`'s inputs.
/// `None` when either exploration was cut by the execution budget.
/// Returns the program text, the renamed behaviours, those found with
/// permuted inputs, and the unrenamed behaviours of the first launch.
type Compared = (String, BTreeSet<String>, BTreeSet<String>, BTreeSet<String>);

fn compare(p: &TokenProgram, raw: &[Vec<u8>], perm: &[usize], max_steps: u64) -> Option<Compared> {
    let (text, ex) = launch(p, raw, max_steps);
    let mut permuted = raw.to_vec();
    for (t, r) in raw.iter().enumerate() {
        permuted[perm[t]] = r.clone();
    }
    let (_, ex2) = launch(p, &permuted, max_steps);
    if !(ex.complete && ex2.complete) {
        return None;
    }
    Some((text, renamed_keys(&ex, perm), keys(&ex2), keys(&ex)))
}

fn keys(ex: &Exploration) -> BTreeSet<String> {
    ex.behaviours
        .iter()
        .map(|b| b.execution.behaviour_key())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// M-OPER / D-ANCHOR `all`: permuting the threads together with their
    /// inputs permutes the behaviours, with 2 threads (swap) or 3
    /// (rotation).
    #[test]
    fn behaviours_are_invariant_under_thread_renaming(
        p in arb_valid_token_module(5),
        raw in vec(vec(proptest::num::u8::ANY, 16), 3),
        three in proptest::bool::ANY,
    ) {
        let (raw, perm): (&[Vec<u8>], Vec<usize>) = if three {
            (&raw, vec![1, 2, 0])
        } else {
            (&raw[..2], vec![1, 0])
        };
        if let Some((text, renamed, found, _)) = compare(&p, raw, &perm, 12) {
            prop_assert_eq!(renamed, found, "inputs {:?}, renaming {:?} on\n{}", raw, perm, text);
        }
    }
}

/// The property is not vacuous: on a fixed sample of generated programs
/// and inputs, the explorations are complete, and many launches have
/// behaviours that change under the renaming (so sets are really compared,
/// not only symmetric singletons).
#[test]
fn symmetry_sample_is_not_vacuous() {
    let progs = testgen::sample(&arb_valid_token_module(5), 40, 11);
    let raws = testgen::sample(&vec(vec(proptest::num::u8::ANY, 16), 2), 40, 12);
    let (mut complete, mut moved) = (0, 0);
    for (p, raw) in progs.iter().zip(&raws) {
        let Some((text, renamed, found, own)) = compare(p, raw, &[1, 0], 12) else {
            continue;
        };
        complete += 1;
        assert_eq!(renamed, found, "inputs {raw:?} on\n{text}");
        if renamed != own {
            moved += 1;
        }
    }
    eprintln!("symmetry sample: {complete}/40 complete, {moved} not their own mirror");
    assert!(
        complete >= 30 && moved >= 5,
        "{complete} complete, {moved} moved"
    );
}

/// The closure under renaming digests an image from the permuted records
/// without building it (`symmetry::renamed_digest`, `launch::DigestParts`):
/// on generated launches, for every behaviour and every order of 3
/// threads, that digest is the built image's `behaviour_digest`, and two
/// images have equal digests exactly when their behaviour keys are equal.
#[test]
fn renamed_digests_are_those_of_the_built_images() {
    use semantics::machine::launch::DigestParts;
    use semantics::machine::symmetry;
    let progs = testgen::sample(&arb_valid_token_module(5), 40, 21);
    let raws = testgen::sample(&vec(vec(proptest::num::u8::ANY, 16), 3), 40, 22);
    let perms = [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ];
    let mut images = 0;
    for (p, raw) in progs.iter().zip(&raws) {
        let (text, ex) = launch(p, raw, 12);
        let mut by_digest: BTreeMap<u128, String> = BTreeMap::new();
        for b in &ex.behaviours {
            let e = &b.execution;
            let parts = DigestParts::new(e);
            for perm in &perms {
                let built = symmetry::renamed(e, perm);
                let digest = symmetry::renamed_digest(&parts, e, perm);
                assert_eq!(digest, built.behaviour_digest(), "{perm:?} on\n{text}");
                let key = built.behaviour_key();
                let prev = by_digest.entry(digest).or_insert_with(|| key.clone());
                assert_eq!(*prev, key, "equal digests, different keys, on\n{text}");
                images += 1;
            }
        }
        let keys: BTreeSet<String> = by_digest.values().cloned().collect();
        assert_eq!(
            keys.len(),
            by_digest.len(),
            "different digests, equal keys, on\n{text}"
        );
    }
    eprintln!("renamed digests: {images} images compared");
    assert!(images >= 240, "only {images} images");
}
