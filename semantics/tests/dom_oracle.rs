//! Dominator and post-dominator trees: the fast algorithm
//! (semi-NCA) against the simple iterative data-flow oracle
//! (STYLE 13), on generated CFGs with unreachable blocks, infinite loops,
//! irreducible regions and (for this test only) edges back to the entry.

use testgen::support::small_cfg as common;

use proptest::prelude::{prop_assert, prop_assert_eq, proptest, ProptestConfig};
use semantics::cfg::{Cfg, DomTree};
use semantics::ir::BlockId;

/// Dominance by definition: `a` dominates `b` iff `b` is unreachable from the
/// entry once `a` is removed (or `a == b`). Checks `dominates` itself, not
/// just the `idom` vectors the two algorithms share.
fn dominates_by_paths(cfg: &Cfg, a: usize, b: usize) -> bool {
    if a == b {
        return true;
    }
    let n = cfg.len();
    let mut seen = vec![false; n];
    let mut stack = Vec::new();
    if a != 0 {
        seen[0] = true;
        stack.push(0);
    }
    while let Some(v) = stack.pop() {
        for s in &cfg.succs[v] {
            if s.0 != a && !seen[s.0] {
                seen[s.0] = true;
                stack.push(s.0);
            }
        }
    }
    !seen[b]
}

fn reachable(cfg: &Cfg) -> Vec<bool> {
    let mut seen = vec![false; cfg.len()];
    let mut stack = vec![0];
    seen[0] = true;
    while let Some(v) = stack.pop() {
        for s in &cfg.succs[v] {
            if !seen[s.0] {
                seen[s.0] = true;
                stack.push(s.0);
            }
        }
    }
    seen
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    #[test]
    fn fast_dominators_match_oracle(g in common::arb_cfg(24, true)) {
        let cfg = Cfg::from_succs(g.succs());
        let fast = DomTree::dominators(&cfg);
        let simple = DomTree::dominators_simple(&cfg);
        prop_assert_eq!(&fast, &simple);
        let reach = reachable(&cfg);
        for (b, &r) in reach.iter().enumerate() {
            prop_assert_eq!(fast.is_in_tree(BlockId(b)), r);
        }
        for a in 0..cfg.len() {
            for b in 0..cfg.len() {
                let expect = if !reach[b] { true } else if !reach[a] { a == b }
                    else { dominates_by_paths(&cfg, a, b) };
                prop_assert_eq!(fast.dominates(BlockId(a), BlockId(b)), expect,
                    "dominates({}, {})", a, b);
            }
        }
    }

    #[test]
    fn fast_post_dominators_match_oracle(g in common::arb_cfg(24, true)) {
        let cfg = Cfg::from_succs(g.succs());
        let fast = DomTree::post_dominators(&cfg);
        let simple = DomTree::post_dominators_simple(&cfg);
        prop_assert_eq!(&fast, &simple);
        // In the tree exactly when some block without successors is reachable.
        for b in 0..cfg.len() {
            let mut seen = vec![false; cfg.len()];
            let mut stack = vec![b];
            seen[b] = true;
            let mut reaches_exit = false;
            while let Some(v) = stack.pop() {
                reaches_exit |= cfg.succs[v].is_empty();
                for s in &cfg.succs[v] {
                    if !seen[s.0] { seen[s.0] = true; stack.push(s.0); }
                }
            }
            prop_assert_eq!(fast.is_in_tree(BlockId(b)), reaches_exit);
            // A block's immediate post-dominator is one of the blocks it reaches.
            if let Some(p) = fast.idom(BlockId(b)) {
                prop_assert!(seen[p.0]);
                prop_assert!(fast.strictly_dominates(p, BlockId(b)));
            }
        }
    }
}

/// Near-linear: 20,000 blocks in a long chain of diamonds and loops.
#[test]
fn dominators_scale_to_20000_blocks() {
    let n = 20_000;
    let succs: Vec<Vec<usize>> = (0..n)
        .map(|i| match i % 4 {
            _ if i + 3 >= n => vec![],
            0 => vec![i + 1, i + 2],
            1 => vec![i + 2],
            2 => vec![i + 1],
            _ => vec![i + 1, i - 3],
        })
        .collect();
    let cfg = Cfg::from_succs(succs);
    let t = std::time::Instant::now();
    let d = DomTree::dominators(&cfg);
    let p = DomTree::post_dominators(&cfg);
    let el = t.elapsed();
    assert!(d.is_in_tree(BlockId(n - 3)));
    assert!(!d.is_in_tree(BlockId(n - 1)));
    assert!(p.is_in_tree(BlockId(0)));
    assert!(d.dominates(BlockId(n - 8), BlockId(n - 3)));
    assert!(p.dominates(BlockId(n - 4), BlockId(0)));
    assert!(!p.dominates(BlockId(n - 6), BlockId(0)));
    assert!(el.as_millis() < 1000, "dominators took {el:?}");
}
