//! Issue 15: the analysis leaves out work that can change nothing (the
//! joins of a divergent branch whose reachable blocks are all saturated,
//! the divergent exits of irreducible cycles whose U-EXIT consequence is in
//! place already). Its state after the fixed point (divergent arguments,
//! instructions and terminators, the reason of each, the cycles assumed
//! divergent and those with a divergent exit in order, the temporal
//! divergence list in order) must equal that of the analysis that computes
//! every join and exit, as LLVM does (`Analysis::prune` off): rules U-BRANCH,
//! U-PHI, U-MCONV, U-EXIT, U-FIX, U-LLVM, U-SOUND.
//!
//! Inputs: the hard shape (`gen_hard_kernel`: many nested and irreducible
//! cycles, where pruning applies) and the ordinary generator
//! (`gen_function`), in both modes.

use proptest::prelude::{prop_assert, proptest, ProptestConfig};
use semantics::cfg::{Cfg, CycleInfo, DomTree};
use semantics::ir::Module;
use semantics::uniformity::analysis::{Analysis, InstRef};
use semantics::uniformity::Mode;
use testgen::support::ugen;
use testgen::uniformity::{gen_function, gen_hard_kernel, UFunc};

/// Everything the report and `--explain` are made of.
type State = (
    Vec<bool>,
    Vec<Vec<bool>>,
    Vec<bool>,
    Vec<String>,
    Vec<usize>,
    Vec<usize>,
    Vec<(InstRef, InstRef, usize)>,
);

fn state(u: &UFunc, mode: Mode, prune: bool) -> State {
    state_and_pruned(u, mode, prune).0
}

fn state_and_pruned(u: &UFunc, mode: Mode, prune: bool) -> (State, usize) {
    let mut m = Module::default();
    m.functions.push(ugen::build(u));
    m.functions.extend(ugen::declarations());
    let f = &m.functions[0];
    let cfg = Cfg::from_function(f);
    let dt = DomTree::dominators(&cfg);
    let ci = CycleInfo::compute(&cfg);
    let mut a = Analysis::with_mode(&m, f, &cfg, &dt, &ci, mode);
    a.prune = prune;
    a.run();
    let mut reasons = Vec::new();
    for b in f.block_ids() {
        for index in 0..=f.block(b).insts.len() {
            reasons.push(format!("{:?}", a.reason(InstRef { block: b, index })));
        }
    }
    let s = (
        a.div_args.clone(),
        a.div_insts.to_vecs(),
        a.div_term.clone(),
        reasons,
        a.assumed_divergent.iter().map(|c| c.0).collect(),
        a.divergent_exit_cycles.iter().map(|c| c.0).collect(),
        a.temporal.iter().map(|&(d, u, c)| (d, u, c.0)).collect(),
    );
    (s, a.pruned_joins)
}

fn same_with_and_without_pruning(u: &UFunc) -> bool {
    [Mode::Llvm, Mode::Sound]
        .iter()
        .all(|&mode| state(u, mode, true) == state(u, mode, false))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Pruning changes nothing on the hard shape (30 to 600 blocks).
    #[test]
    fn pruning_changes_nothing_on_hard_kernels(seed in 0u64.., n in 30usize..600) {
        let u = gen_hard_kernel(seed, "h", n);
        prop_assert!(same_with_and_without_pruning(&u), "seed {seed}, {n} blocks");
    }

    /// Pruning changes nothing on the ordinary generator's kernels.
    #[test]
    fn pruning_changes_nothing_on_random_kernels(seed in 0u64..) {
        let u = gen_function(seed, "f");
        prop_assert!(same_with_and_without_pruning(&u), "seed {seed}");
    }
}

/// One larger hard kernel, where most branches are pruned (issue 15's
/// shape: deep nests of irreducible cycles).
#[test]
fn pruning_changes_nothing_on_a_large_hard_kernel() {
    let u = gen_hard_kernel(7, "big", 3000);
    assert!(same_with_and_without_pruning(&u));
    // The check is not vacuous: most branches here are pruned.
    let (_, pruned) = state_and_pruned(&u, Mode::Llvm, true);
    assert!(pruned > 100, "only {pruned} branches pruned");
}
