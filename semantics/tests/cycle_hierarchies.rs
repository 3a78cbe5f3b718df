//! Rule D-HIER: `all_hierarchies` against brute force over every successor
//! permutation of every block (every DFS order) on small CFGs, plus
//! hand-checked cases and a cost check on 40-block CFGs.

use testgen::support::small_cfg as common;

use proptest::test_runner::{Config, TestCaseError, TestRunner};
use semantics::cfg::{all_hierarchies, all_hierarchies_checked, Cfg, CycleInfo};
use semantics::ir::BlockId;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};

type Key = Vec<(usize, Vec<usize>)>;

fn key(ci: &CycleInfo) -> Key {
    let mut k: Key = ci
        .cycles
        .iter()
        .map(|c| {
            let mut b: Vec<usize> = c.blocks.iter().map(|b| b.0).collect();
            b.sort();
            (c.header().0, b)
        })
        .collect();
    k.sort();
    k
}

/// Distinct permutations of a list (duplicates kept as a multiset).
fn perms(v: &[BlockId]) -> Vec<Vec<BlockId>> {
    if v.len() <= 1 {
        return vec![v.to_vec()];
    }
    let mut out = BTreeSet::new();
    for i in 0..v.len() {
        let mut rest = v.to_vec();
        let x = rest.remove(i);
        for mut p in perms(&rest) {
            p.insert(0, x);
            out.insert(p);
        }
    }
    out.into_iter().collect()
}

/// Every hierarchy LLVM's algorithm builds over all successor orders, or
/// `None` when there are more than `cap` orders.
fn brute_force(cfg: &Cfg, cap: usize) -> Option<BTreeSet<Key>> {
    let options: Vec<Vec<Vec<BlockId>>> = cfg.succs.iter().map(perms).collect();
    let total = options
        .iter()
        .try_fold(1usize, |a, o| a.checked_mul(o.len()))?;
    if total > cap {
        return None;
    }
    let mut out = BTreeSet::new();
    let mut idx = vec![0usize; cfg.len()];
    loop {
        let permuted = cfg.with_succs(
            idx.iter()
                .enumerate()
                .map(|(b, &i)| options[b][i].clone())
                .collect(),
        );
        out.insert(key(&CycleInfo::compute(&permuted)));
        let mut b = 0;
        loop {
            if b == idx.len() {
                return Some(out);
            }
            idx[b] += 1;
            if idx[b] < options[b].len() {
                break;
            }
            idx[b] = 0;
            b += 1;
        }
    }
}

fn check_against_brute_force(cfg: &Cfg) -> Result<Option<usize>, TestCaseError> {
    let Some(expected) = brute_force(cfg, 20_000) else {
        return Ok(None);
    };
    let checked = all_hierarchies_checked(cfg, usize::MAX);
    proptest::prop_assert!(checked.complete);
    let got = checked.hierarchies;
    proptest::prop_assert_eq!(key(&got[0]), key(&CycleInfo::compute(cfg)), "LLVM's first");
    let keys: Vec<Key> = got.iter().map(key).collect();
    let set: BTreeSet<Key> = keys.iter().cloned().collect();
    proptest::prop_assert_eq!(set.len(), keys.len(), "duplicates");
    proptest::prop_assert_eq!(&set, &expected, "succs {:?}", cfg.succs);
    // `limit` caps the count and keeps LLVM's first.
    let capped = all_hierarchies(cfg, 1);
    proptest::prop_assert_eq!(capped.len(), 1);
    proptest::prop_assert_eq!(&capped[0], &got[0]);
    Ok(Some(set.len()))
}

#[test]
fn hierarchies_match_brute_force_on_small_cfgs() {
    let checked = AtomicUsize::new(0);
    let several = AtomicUsize::new(0);
    for entry_preds in [false, true] {
        let mut runner = TestRunner::new(Config {
            cases: 400,
            failure_persistence: None,
            ..Config::default()
        });
        runner
            .run(&common::arb_cfg_with(7, entry_preds, 2), |g| {
                let cfg = Cfg::from_succs(g.succs());
                if let Some(k) = check_against_brute_force(&cfg)? {
                    checked.fetch_add(1, Ordering::Relaxed);
                    if k > 1 {
                        several.fetch_add(1, Ordering::Relaxed);
                    }
                }
                Ok(())
            })
            .unwrap();
    }
    let (checked, several) = (checked.into_inner(), several.into_inner());
    eprintln!("D-HIER brute force: {checked} CFGs checked, {several} with several hierarchies");
    assert!(
        checked >= 600,
        "only {checked} CFGs small enough for brute force"
    );
    assert!(
        several >= 30,
        "only {several} CFGs with several hierarchies"
    );
}

/// Two irreducible cycles, each entered from both arms of one branch: only
/// two of the four header combinations are realisable (the choices are
/// coupled), which a product of per-cycle choices would get wrong.
#[test]
fn coupled_header_choices() {
    // 0=e 1=x 2=y 3=a1 4=b1 5=a2 6=b2
    let cfg = Cfg::from_succs(vec![
        vec![1, 2],
        vec![3, 6],
        vec![4, 5],
        vec![4],
        vec![3],
        vec![6],
        vec![5],
    ]);
    let got: BTreeSet<Key> = all_hierarchies(&cfg, 100).iter().map(key).collect();
    let expected: BTreeSet<Key> = [
        vec![(3, vec![3, 4]), (6, vec![5, 6])],
        vec![(4, vec![3, 4]), (5, vec![5, 6])],
    ]
    .into_iter()
    .collect();
    assert_eq!(got, expected);
    assert_eq!(Some(got), brute_force(&cfg, 1000));
}

/// The figure of ConvergenceAndUniformity.rst "Cycle hierarchies": a
/// reducible CFG has exactly one hierarchy; a two-entry cycle has two.
#[test]
fn reducible_has_one_irreducible_two() {
    let reducible = Cfg::from_succs(vec![vec![1], vec![2, 3], vec![1], vec![]]);
    assert_eq!(all_hierarchies(&reducible, 10).len(), 1);
    let irreducible = Cfg::from_succs(vec![vec![1, 2], vec![2], vec![1, 3], vec![]]);
    let hs = all_hierarchies(&irreducible, 10);
    let headers: BTreeSet<usize> = hs.iter().map(|h| h.cycles[0].header().0).collect();
    assert_eq!(headers, [1, 2].into_iter().collect());
}

/// No exponential blow-up on 40-block CFGs: every generated CFG (the shared
/// generators, half of them with planted irreducible cycles) is enumerated
/// up to 256 hierarchies within a time budget.
#[test]
fn hierarchies_of_40_block_cfgs_are_cheap() {
    let mut cfgs = testgen::sample(&testgen::cfg::arb_cfg(40), 200, 11);
    cfgs.extend(testgen::sample(
        &testgen::cfg::arb_irreducible_cfg(40),
        200,
        12,
    ));
    let t = std::time::Instant::now();
    let mut most = 0;
    let mut several = 0;
    for g in &cfgs {
        let cfg = Cfg::from_succs(g.succs());
        let checked = all_hierarchies_checked(&cfg, 256);
        assert!(checked.complete, "search bound hit on {:?}", cfg.succs);
        let hs = checked.hierarchies;
        let keys: BTreeSet<Key> = hs.iter().map(key).collect();
        assert_eq!(keys.len(), hs.len());
        assert_eq!(hs[0], CycleInfo::compute(&cfg));
        most = most.max(hs.len());
        several += usize::from(hs.len() > 1);
    }
    let el = t.elapsed();
    eprintln!(
        "{} CFGs of <= 40 blocks in {el:?}; {several} with several hierarchies, at most {most}",
        cfgs.len()
    );
    assert!(
        several >= 100,
        "only {several} CFGs with several hierarchies"
    );
    assert!(el.as_secs() < 30, "too slow: {el:?}");
}

/// The shared irreducible generator against brute force, on CFGs small
/// enough to permute (7 and 9 blocks; about a fifth of them have header
/// choices below the top level).
#[test]
fn hierarchies_match_brute_force_on_shared_irreducible_cfgs() {
    let mut checked = 0;
    let mut cfgs = testgen::sample(&testgen::cfg::arb_irreducible_cfg(7), 300, 13);
    cfgs.extend(testgen::sample(
        &testgen::cfg::arb_irreducible_cfg(9),
        150,
        14,
    ));
    for g in cfgs {
        let cfg = Cfg::from_succs(g.succs());
        if check_against_brute_force(&cfg)
            .expect("matches brute force")
            .is_some()
        {
            checked += 1;
        }
    }
    eprintln!("D-HIER brute force (shared irreducible generator): {checked} CFGs");
    assert!(checked >= 300, "only {checked} CFGs small enough");
}

/// Joins CFGs in sequence: every exit of one (a block without successors)
/// branches to the next one's entry; with `wrap`, the last one's exits also
/// branch back to the first entry (one big cycle around all of them).
fn chain(parts: &[Vec<Vec<usize>>], wrap: bool) -> Vec<Vec<usize>> {
    let mut succs: Vec<Vec<usize>> = Vec::new();
    let mut starts = Vec::new();
    for p in parts {
        starts.push(succs.len());
        let base = succs.len();
        succs.extend(
            p.iter()
                .map(|s| s.iter().map(|t| t + base).collect::<Vec<_>>()),
        );
    }
    for (i, p) in parts.iter().enumerate() {
        let next = match starts.get(i + 1) {
            Some(&n) => Some(n),
            None if wrap => Some(0),
            None => None,
        };
        for (b, s) in p.iter().enumerate() {
            if s.is_empty() {
                if let Some(n) = next {
                    succs[starts[i] + b].push(n);
                }
            }
        }
    }
    succs
}

/// Rule D-HIER on chains of small irreducible CFGs against brute force: the
/// witness search stops at cut points (blocks dominating all they reach:
/// the chained parts' entries) and decides them first, which only CFGs with
/// several irreducible regions in sequence exercise; `wrap` puts all of
/// them in one cycle, so the parts' entries are no longer cut points.
#[test]
fn hierarchies_match_brute_force_on_chained_cfgs() {
    let parts = testgen::sample(&testgen::cfg::arb_irreducible_cfg(5), 600, 21);
    let (mut checked, mut several) = (0, 0);
    for (i, trio) in parts.chunks(3).enumerate() {
        let succs: Vec<Vec<Vec<usize>>> = trio.iter().map(|g| g.succs()).collect();
        let cfg = Cfg::from_succs(chain(&succs, i % 3 == 2));
        if let Some(k) = check_against_brute_force(&cfg).expect("matches brute force") {
            checked += 1;
            several += usize::from(k > 1);
        }
    }
    eprintln!("D-HIER brute force (chained): {checked} CFGs, {several} with several hierarchies");
    assert!(checked >= 60, "only {checked} chained CFGs small enough");
    assert!(
        several >= 20,
        "only {several} chained CFGs with several hierarchies"
    );
}
