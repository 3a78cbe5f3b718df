//! Cost of the CFG analyses on 20,000-block CFGs: near-linear algorithms
//! take milliseconds (the budgets below leave a wide margin for a loaded
//! machine; a quadratic algorithm takes seconds to minutes here).

use semantics::cfg::{all_hierarchies, all_hierarchies_checked, Cfg, CycleInfo, DomTree};
use semantics::ir::BlockId;
use std::time::{Duration, Instant};

/// A deterministic pseudo-random structured CFG in the shape compilers see:
/// a sequence of regions, each a straight block, an if/else diamond, a loop
/// (nested up to three deep, with an early exit), or a two-entry irreducible
/// cycle; plus a few unreachable blocks.
fn random_cfg(n: usize, seed: u64) -> Cfg {
    let mut x = seed;
    let mut next = move |m: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % m as u64) as usize
    };
    let mut succs: Vec<Vec<usize>> = Vec::with_capacity(n);
    while succs.len() + 8 < n {
        let b = succs.len();
        match next(6) {
            0 => succs.push(vec![b + 1]),
            1 => {
                // b -> {b+1, b+2} -> b+3
                succs.push(vec![b + 1, b + 2]);
                succs.push(vec![b + 3]);
                succs.push(vec![b + 3]);
            }
            2 | 3 => {
                // Loop nest of depth d: headers b..b+d, latches back.
                let d = 1 + next(3);
                for k in 0..d {
                    succs.push(vec![b + k + 1]);
                }
                // Innermost body with an early exit to the end of the nest.
                succs.push(vec![b + d + 1, b + 2 * d + 1]);
                for k in (0..d).rev() {
                    let here = succs.len();
                    succs.push(vec![b + k, here + 1]);
                }
            }
            4 => {
                // b -> {b+1, b+2}, b+1 <-> b+2, both may leave to b+3.
                succs.push(vec![b + 1, b + 2]);
                succs.push(vec![b + 2, b + 3]);
                succs.push(vec![b + 1, b + 3]);
            }
            _ => {
                // An unreachable block branching into the graph.
                succs.push(vec![b + 2]);
                succs.push(vec![b - 1 + usize::from(b == 0)]);
                succs.push(vec![b + 3]);
                if let Some(first) = succs.get_mut(b) {
                    *first = vec![b + 2];
                }
            }
        }
    }
    while succs.len() < n {
        let i = succs.len();
        succs.push(if i + 1 < n { vec![i + 1] } else { vec![] });
    }
    Cfg::from_succs(succs)
}

/// Loops nested `depth` deep, each with a body chain, repeated to `n` blocks.
fn nested_loops(n: usize, depth: usize) -> Cfg {
    let mut succs: Vec<Vec<usize>> = Vec::with_capacity(n);
    // Nest k occupies blocks [base, base + 2*depth): headers then latches.
    let nest = 2 * depth;
    let nests = (n - 1) / nest;
    succs.push(vec![1]);
    for k in 0..nests {
        let base = 1 + k * nest;
        for d in 0..depth {
            succs.push(vec![base + d + 1]); // header d -> header d+1 (or first latch)
        }
        for d in (0..depth).rev() {
            let latch = base + depth + (depth - 1 - d);
            succs.push(vec![base + d, latch + 1]); // latch d -> header d, or next
        }
    }
    while succs.len() < n {
        let i = succs.len();
        succs.push(if i + 1 < n { vec![i + 1] } else { vec![] });
    }
    // The last latch of the last nest falls into the tail (or off the end).
    if let Some(last) = succs.last_mut() {
        last.clear();
    }
    Cfg::from_succs(
        succs
            .into_iter()
            .map(|v| v.into_iter().filter(|&t| t < n).collect())
            .collect(),
    )
}

/// The result and the fastest of five runs (the machine is shared; the
/// minimum is the least noisy estimate of the cost).
fn timed<T>(f: impl Fn() -> T) -> (T, Duration) {
    let mut best = Duration::MAX;
    let mut result = None;
    for _ in 0..5 {
        let t = Instant::now();
        let r = f();
        best = best.min(t.elapsed());
        result = Some(r);
    }
    (result.expect("ran five times"), best)
}

#[test]
fn cycle_info_and_dominators_on_20000_blocks() {
    for cfg in [
        random_cfg(20_000, 0x9e37_79b9_7f4a_7c15),
        nested_loops(20_000, 100),
    ] {
        let (ci, t_cycles) = timed(|| CycleInfo::compute(&cfg));
        let (dom, t_dom) = timed(|| DomTree::dominators(&cfg));
        let (pdom, t_pdom) = timed(|| DomTree::post_dominators(&cfg));
        let (text, t_print) = timed(|| ci.print(&cfg));
        let max_depth = ci.cycles.iter().map(|c| c.depth).max().unwrap_or(0);
        eprintln!(
            "{} blocks: {} cycles (max depth {max_depth}) in {t_cycles:?}, print {t_print:?} \
             ({} bytes), dominators {t_dom:?}, post-dominators {t_pdom:?}",
            cfg.len(),
            ci.cycles.len(),
            text.len()
        );
        assert!(!ci.cycles.is_empty());
        assert!(dom.is_in_tree(BlockId(cfg.len() / 2)));
        assert!(pdom.is_in_tree(BlockId(0)));
        let budget = Duration::from_millis(500);
        assert!(t_cycles < budget && t_dom < budget && t_pdom < budget);
    }
}

#[test]
fn all_hierarchies_of_a_reducible_20000_block_cfg() {
    let cfg = nested_loops(20_000, 100);
    let (hs, t) = timed(|| all_hierarchies(&cfg, 16));
    eprintln!(
        "all_hierarchies on 20000 reducible blocks: {} in {t:?}",
        hs.len()
    );
    assert_eq!(hs.len(), 1);
    assert!(t < Duration::from_secs(5), "{t:?}");
}

/// `all_hierarchies` on 20,000 blocks with many irreducible cycles: the
/// witness search stops at cut points (blocks that dominate all they
/// reach) and walks only between them, so each hierarchy costs about the
/// size of the function (before, every DFS step walked the rest of the
/// function: 2,000 blocks took seconds and `run` on a 10,000-block
/// function 26 s; issue 17 item 8).
#[test]
fn all_hierarchies_of_an_irreducible_20000_block_cfg() {
    for n in [2_000, 20_000] {
        let cfg = random_cfg(n, 0x2545_f491_4f6c_dd1d);
        let t = Instant::now();
        let r = all_hierarchies_checked(&cfg, 8);
        let t = t.elapsed();
        eprintln!(
            "all_hierarchies on {n} blocks with irreducible cycles: {} (complete: {}) in {t:?}",
            r.hierarchies.len(),
            r.complete
        );
        assert_eq!(r.hierarchies.len(), 8);
        assert!(t < Duration::from_secs(10), "{t:?}");
    }
}

/// An irreducible pair followed by a chain of 10,000 loops (header -> latch
/// -> header or next header), the shape of `big_uniformity`'s chain:
/// D-HIER's enumeration of hierarchies must not recurse once per cycle
/// (issue 17 item 8: `run` on such a chain overflowed the stack). Run on a
/// thread with a 1 MB stack, which a recursion per loop exhausts.
#[test]
fn all_hierarchies_of_a_chain_of_10000_loops_on_a_small_stack() {
    let loops = 10_000;
    let mut succs: Vec<Vec<usize>> = Vec::with_capacity(2 * loops + 4);
    // 0 -> {1, 2}, 1 <-> 2, both leave to 3: two hierarchies (header 1 or 2).
    succs.push(vec![1, 2]);
    succs.push(vec![2, 3]);
    succs.push(vec![1, 3]);
    for k in 0..loops {
        let header = 3 + 2 * k;
        succs.push(vec![header + 1]);
        succs.push(vec![header, header + 2]);
    }
    succs.push(vec![]);
    let cfg = Cfg::from_succs(succs);
    let t = Instant::now();
    let hs = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || all_hierarchies(&cfg, 4))
        .expect("spawning the test thread")
        .join()
        .expect("all_hierarchies on a chain of loops (stack overflow aborts instead)");
    let t = t.elapsed();
    eprintln!(
        "all_hierarchies on a chain of {loops} loops: {} in {t:?}",
        hs.len()
    );
    assert_eq!(
        hs.len(),
        2,
        "the irreducible pair has two candidate headers"
    );
    assert!(hs.iter().all(|h| h.cycles.len() == loops + 1));
    assert!(t < Duration::from_secs(5), "{t:?}");
}
