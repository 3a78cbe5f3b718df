//! Shared proptest generators (CFGs, convergence-token programs, thread
//! inputs) rendered as LLVM IR, and helpers that tests of every crate use.
//! Every strategy is a deterministic function of proptest's RNG and shrinks
//! towards smaller programs; [`sample`] draws fixed-seed batches.
//!
//! Index:
//! - [`cfg`]: random CFGs (any / reducible / irreducible) as `.ll` functions.
//! - [`graph`]: simple independent graph oracles (dominator sets, T1/T2
//!   reducibility, natural loops, closed walks avoiding a block).
//! - [`tokens`]: convergence-token programs (arbitrary and likely-valid)
//!   over generated CFGs, and batched `opt` verdicts per program.
//! - [`data_flow`]: kernels whose integer inputs feed only data
//!   (arithmetic into observed calls and returns), some with a planted use
//!   that makes them control, for the interpreter's M-DATA reduction
//!   against the plain enumeration.
//! - [`defects`]: token programs with one planted defect labelled by rule ID
//!   and LLVM message.
//! - [`floats`]: one floating-point instruction over constants per
//!   function, for the differential test against `opt-22`'s folding; and
//!   kernels over floats, pointers and memory with barriers, for the
//!   interpreter's reductions oracle.
//! - [`vector_kernels`]: vector kernels with memory, a reduction and a
//!   ballot, and their mutants, for MC-07 on vectors (R-VEC-SMT).
//! - [`vectors`]: one vector instruction over constants per function, for
//!   the differential test against `opt-22`'s folding (P-VEC-*).
//! - [`lanes`]: kernels that read lane ids, shuffle by input lanes and pass
//!   values to unknown functions, for the interpreter's renamings
//!   (M-RENAME) against the plain enumeration.
//! - [`inputs`]: thread counts, per-thread argument values and launch
//!   groups for interpreter tests (random and exhaustive).
//! - [`modules`]: random well-formed modules as text covering the whole
//!   P-PROG subset the parser accepts (round-trip and fuzz tests).
//! - [`oracle`]: finding and running `opt-22`, locating `../shared`, and the
//!   SKIP-or-fail-in-CI rule.
//! - [`refine_family`]: convergent programs and their mutations for the
//!   interpreter/SMT agreement (MC-07, M-AGREE).
//! - [`uniformity`]: whole programs (values, phis, thread ids, stores) for
//!   the uniformity analysis (rules U-*).
//! - `support` (feature `test-support`, test-only): helpers that build
//!   `semantics` IR directly for the semantics crate's tests.
//!
//! The product (`checker::prove::meta`) uses [`cfg`], [`tokens`],
//! [`uniformity`], [`refine_family`] and [`sample`]; the rest serves tests.

pub mod buffer_kernels;
pub mod cfg;
pub mod data_flow;
pub mod defects;
pub mod float_kernels;
pub mod floats;
pub mod graph;
pub mod inputs;
pub mod int_memory;
pub mod lanes;
pub mod modules;
pub mod oracle;
pub mod refine_family;
#[cfg(feature = "test-support")]
pub mod support;
pub mod tokens;
pub mod uniformity;
pub mod vector_kernels;
pub mod vectors;

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// `count` values of `strategy` drawn from a fixed-seed RNG: the same values
/// on every run and machine. For batch tests (e.g. many functions per `opt`
/// run) that want generator output without proptest's shrinking loop.
pub fn sample<S: Strategy>(strategy: &S, count: usize, seed: u8) -> Vec<S::Value> {
    let mut seed_bytes = [0u8; 32];
    seed_bytes[0] = seed;
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    (0..count)
        .map(|_| {
            strategy
                .new_tree(&mut runner)
                .expect("generator strategies in this crate do not reject whole values")
                .current()
        })
        .collect()
}
