//! Thread inputs for interpreter tests (P-LAUNCH, P-INPUT): how many threads,
//! each thread's `i1`/`i32` argument values (small domains, so that threads
//! often agree and convergent operations see interesting communicating sets),
//! and the partition of the threads into launch groups.
//!
//! Strategies shrink towards one thread, all-false / zero arguments, and a
//! single group. [`all_partitions`] and [`all_arg_values`] enumerate the same
//! spaces exhaustively for ground-truth tests (STYLE.md item 12).

use proptest::collection::vec;
use proptest::prelude::{any, Strategy};
use proptest::sample::Index;

use crate::cfg::GenCfg;

/// Largest thread count the strategies produce.
pub const MAX_THREADS: usize = 4;

/// `i32` argument values lie in `0..=I32_MAX_VALUE`: one more than the
/// largest case value of generated switches (cases `0..=3`), so a thread can
/// also take the default edge.
pub const I32_MAX_VALUE: i32 = 4;

/// The argument values of one thread, matching a generated function's
/// parameter list `i1 %c0.., i32 %s0..` (see [`GenCfg::params_ll`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ThreadArgs {
    pub i1: Vec<bool>,
    pub i32: Vec<i32>,
}

impl ThreadArgs {
    /// The arguments as LLVM constants in parameter order (`true`, `3`).
    pub fn to_ll_constants(&self) -> Vec<String> {
        self.i1
            .iter()
            .map(|b| b.to_string())
            .chain(self.i32.iter().map(|v| v.to_string()))
            .collect()
    }
}

/// Inputs of one launch (P-LAUNCH): thread `t` is `threads[t]`, and `groups`
/// partitions `0..threads.len()`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LaunchInputs {
    pub threads: Vec<ThreadArgs>,
    /// Canonical form: each group ascending, groups ordered by their
    /// smallest thread, every thread in exactly one group.
    pub groups: Vec<Vec<usize>>,
}

impl LaunchInputs {
    pub fn num_threads(&self) -> usize {
        self.threads.len()
    }

    /// Index into `groups` of thread `t`'s group.
    pub fn group_of(&self, t: usize) -> Option<usize> {
        self.groups.iter().position(|g| g.contains(&t))
    }

    /// Whether `i1` argument `k` has the same value in every thread.
    pub fn i1_uniform(&self, k: usize) -> bool {
        self.threads.windows(2).all(|w| w[0].i1[k] == w[1].i1[k])
    }

    /// Whether `i32` argument `k` has the same value in every thread.
    pub fn i32_uniform(&self, k: usize) -> bool {
        self.threads.windows(2).all(|w| w[0].i32[k] == w[1].i32[k])
    }

    /// Checks the canonical-form invariants documented on the fields.
    pub fn validate(&self, num_i1: usize, num_i32: usize) -> Result<(), String> {
        let n = self.threads.len();
        if n == 0 {
            return Err("no threads".into());
        }
        for (t, a) in self.threads.iter().enumerate() {
            if a.i1.len() != num_i1 || a.i32.len() != num_i32 {
                return Err(format!("thread {t}: wrong argument count"));
            }
            if a.i32.iter().any(|v| !(0..=I32_MAX_VALUE).contains(v)) {
                return Err(format!("thread {t}: i32 value out of domain"));
            }
        }
        is_canonical_partition(&self.groups, n)
    }
}

/// `groups` is a canonical partition of `0..n` (see [`LaunchInputs::groups`]).
pub fn is_canonical_partition(groups: &[Vec<usize>], n: usize) -> Result<(), String> {
    let mut seen = vec![false; n];
    let mut last_min = None;
    for g in groups {
        if g.is_empty() || g.windows(2).any(|w| w[0] >= w[1]) {
            return Err(format!("group {g:?} empty or not ascending"));
        }
        if last_min.is_some_and(|m| m >= g[0]) {
            return Err("groups not ordered by smallest thread".into());
        }
        last_min = Some(g[0]);
        for &t in g {
            if t >= n || seen[t] {
                return Err(format!("thread {t} out of range or in two groups"));
            }
            seen[t] = true;
        }
    }
    if seen.iter().all(|&s| s) {
        Ok(())
    } else {
        Err("some thread is in no group".into())
    }
}

/// Thread counts `1..=MAX_THREADS`.
pub fn arb_thread_count() -> impl Strategy<Value = usize> {
    1..=MAX_THREADS
}

/// Turns a restricted-growth string (`labels[0] == 0`, each label at most one
/// more than the largest before it) into a canonical partition.
fn partition_from_labels(labels: &[usize]) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (t, &l) in labels.iter().enumerate() {
        if l == groups.len() {
            groups.push(Vec::new());
        }
        groups[l].push(t);
    }
    groups
}

/// Resolves one [`Index`] per thread into a restricted-growth string, so
/// every set partition is reachable and shrinking (indices towards 0) merges
/// everything into group 0.
fn labels_from_indices(idx: &[Index]) -> Vec<usize> {
    let mut labels = Vec::with_capacity(idx.len());
    let mut next = 0;
    for (t, i) in idx.iter().enumerate() {
        let l = if t == 0 { 0 } else { i.index(next + 1) };
        if l == next {
            next += 1;
        }
        labels.push(l);
    }
    labels
}

/// Raw partition choice: one group, or a restricted-growth string.
fn arb_raw_partition(n: usize) -> impl Strategy<Value = (bool, Vec<Index>)> {
    (proptest::bool::weighted(0.5), vec(any::<Index>(), n))
}

fn partition_from_raw(n: usize, single: bool, idx: &[Index]) -> Vec<Vec<usize>> {
    if single {
        vec![(0..n).collect()]
    } else {
        partition_from_labels(&labels_from_indices(&idx[..n]))
    }
}

/// Any partition of `n` threads into groups; one group (the P-LAUNCH
/// default) half of the time.
pub fn arb_partition(n: usize) -> impl Strategy<Value = Vec<Vec<usize>>> {
    arb_raw_partition(n).prop_map(move |(single, idx)| partition_from_raw(n, single, &idx))
}

/// One argument's values across `n` threads: the same value in every thread
/// with probability `uniform`, else independent per thread.
fn arb_column<T: Clone + std::fmt::Debug>(
    n: usize,
    uniform: f64,
    value: impl Strategy<Value = T> + Clone,
) -> impl Strategy<Value = Vec<T>> {
    (
        proptest::bool::weighted(uniform),
        value.clone(),
        vec(value, n),
    )
        .prop_map(move |(u, v, vs)| if u { vec![v; n] } else { vs })
}

/// Launch inputs for a function with `num_i1` `i1` and `num_i32` `i32`
/// arguments: 1..=4 threads, each argument uniform across threads half of
/// the time, `i32` values in `0..=I32_MAX_VALUE`, and a group partition.
/// Values are drawn for [`MAX_THREADS`] threads and truncated, so shrinking
/// the thread count keeps the other choices.
pub fn arb_launch(num_i1: usize, num_i32: usize) -> impl Strategy<Value = LaunchInputs> {
    (
        arb_thread_count(),
        arb_launch_n(MAX_THREADS, num_i1, num_i32),
    )
        .prop_map(|(n, full)| {
            let threads: Vec<ThreadArgs> = full.threads[..n].to_vec();
            // Restricting a canonical partition to a prefix of the threads keeps
            // it canonical once empty groups are dropped.
            let groups = full
                .groups
                .iter()
                .map(|g| g.iter().copied().filter(|&t| t < n).collect::<Vec<_>>())
                .filter(|g| !g.is_empty())
                .collect();
            LaunchInputs { threads, groups }
        })
}

/// [`arb_launch`] with exactly `n` threads.
pub fn arb_launch_n(
    n: usize,
    num_i1: usize,
    num_i32: usize,
) -> impl Strategy<Value = LaunchInputs> {
    (
        vec(arb_column(n, 0.5, any::<bool>()), num_i1),
        vec(arb_column(n, 0.5, 0..=I32_MAX_VALUE), num_i32),
        arb_raw_partition(n),
    )
        .prop_map(move |(c1, c32, (single, idx))| LaunchInputs {
            threads: (0..n)
                .map(|t| ThreadArgs {
                    i1: c1.iter().map(|col| col[t]).collect(),
                    i32: c32.iter().map(|col| col[t]).collect(),
                })
                .collect(),
            groups: partition_from_raw(n, single, &idx),
        })
}

/// Launch inputs matching a generated CFG's parameter list.
pub fn arb_launch_for(cfg: &GenCfg) -> impl Strategy<Value = LaunchInputs> {
    arb_launch(cfg.num_i1, cfg.num_i32)
}

/// A CFG together with inputs for it (the usual interpreter-test shape).
pub fn arb_cfg_with_launch(
    cfgs: impl Strategy<Value = GenCfg>,
) -> impl Strategy<Value = (GenCfg, LaunchInputs)> {
    cfgs.prop_flat_map(|g| {
        let l = arb_launch_for(&g);
        (proptest::strategy::Just(g), l)
    })
}

/// Every canonical partition of `0..n` (Bell(n) of them), for exhaustive
/// ground-truth tests.
pub fn all_partitions(n: usize) -> Vec<Vec<Vec<usize>>> {
    fn rec(
        t: usize,
        n: usize,
        labels: &mut Vec<usize>,
        next: usize,
        out: &mut Vec<Vec<Vec<usize>>>,
    ) {
        if t == n {
            out.push(partition_from_labels(labels));
            return;
        }
        let top = if t == 0 { 0 } else { next };
        for l in 0..=top {
            labels.push(l);
            rec(t + 1, n, labels, next.max(l + 1), out);
            labels.pop();
        }
    }
    let mut out = Vec::new();
    rec(0, n, &mut Vec::with_capacity(n), 0, &mut out);
    out
}

/// Every argument tuple of one thread with `i32` values in `0..=i32_max`.
pub fn all_arg_values(num_i1: usize, num_i32: usize, i32_max: i32) -> Vec<ThreadArgs> {
    let mut out = vec![ThreadArgs {
        i1: Vec::new(),
        i32: Vec::new(),
    }];
    for _ in 0..num_i1 {
        out = out
            .into_iter()
            .flat_map(|a| {
                [false, true].into_iter().map(move |b| {
                    let mut a = a.clone();
                    a.i1.push(b);
                    a
                })
            })
            .collect();
    }
    for _ in 0..num_i32 {
        out = out
            .into_iter()
            .flat_map(|a| {
                (0..=i32_max).map(move |v| {
                    let mut a = a.clone();
                    a.i32.push(v);
                    a
                })
            })
            .collect();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{all_arg_values, all_partitions, is_canonical_partition, labels_from_indices};

    #[test]
    fn partitions_are_counted_by_bell_numbers() {
        let bell = [1, 1, 2, 5, 15, 52];
        for (n, &b) in bell.iter().enumerate() {
            let ps = all_partitions(n);
            assert_eq!(ps.len(), b, "n = {n}");
            for p in &ps {
                assert_eq!(is_canonical_partition(p, n), Ok(()));
            }
            let mut dedup = ps.clone();
            dedup.sort();
            dedup.dedup();
            assert_eq!(dedup.len(), ps.len());
        }
    }

    #[test]
    fn argument_tuples_are_complete() {
        let all = all_arg_values(2, 1, 4);
        assert_eq!(all.len(), 4 * 5);
        assert!(all
            .iter()
            .any(|a| a.i1 == vec![true, false] && a.i32 == vec![3]));
    }

    #[test]
    fn canonical_partition_check_rejects_bad_ones() {
        assert!(is_canonical_partition(&[vec![1], vec![0]], 2).is_err());
        assert!(is_canonical_partition(&[vec![0, 1]], 3).is_err());
        assert!(is_canonical_partition(&[vec![0, 0]], 1).is_err());
        assert!(is_canonical_partition(&[vec![0], vec![1, 2]], 3).is_ok());
    }

    #[test]
    fn empty_label_input_is_empty() {
        assert!(labels_from_indices(&[]).is_empty());
    }
}
