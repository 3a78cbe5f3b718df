//! Lemma C-SUB (proofs/CUTOFF.md, "Sub-launches"): when no thread can
//! tell how many other threads run or which they are (no value of a
//! convergent operation, no thread id or launch size, no memory shared),
//! a counterexample on a launch of m threads stays one on every launch of
//! N >= m threads made of the m threads and copies of them. The check at
//! N threads is then not re-solved (issue 16: at 32 threads with anchors
//! that query alone took 27 s of CPU): the N-thread counterexample is
//! built from the m-thread one, each copy making its original's choices,
//! and the m-thread counterexample is what the interpreter replays when
//! the N-thread launch is beyond its enumeration (anchors).
//!
//! Anchors are allowed: unlike theorem C-PAIR, the lemma never combines
//! witnesses of different sub-launches; it restricts one N-thread
//! execution to a sub-launch (every rule the encoding and the interpreter
//! apply between threads is per thread or per pair of threads, so a
//! restriction of an execution is an execution) and inflates one m-thread
//! execution by copies (a copy converges with its original at every
//! instance, which no per-pair rule forbids).

use semantics::intrinsics::Index;
use semantics::ir::Type;

use super::cutoff::Failure;
use super::obs::{CEvent, CThread};
use super::prog::{CallSem, Prepared};
use super::{Cex, Side};

/// C-SUB's side conditions that do not hold on the pair (empty: the lemma
/// applies). Conservative: (S1) no convergent call has a result other than
/// a token (its value would depend on the communicating set), and none is
/// undefined behaviour depending on the set (shuffle out of range); (S2)
/// nothing reads the thread id, a launch size or another geometry value,
/// and no unknown function depends on the thread (`readnone` functions
/// and vector-register reads are functions of the thread id, P-INPUT);
/// (S3) no memory access, as C-PAIR's (C).
pub fn conditions(src: &Prepared, tgt: &Prepared) -> Vec<Failure> {
    conditions_with(src, tgt, false)
}

/// [`conditions`]; with `free_ids` (a check whose thread ids range over
/// the wave, C-PAIR's and C-MIRROR's) reads of the thread id, of other
/// ids, and functions of the thread id are allowed; launch sizes are not.
pub fn conditions_with(src: &Prepared, tgt: &Prepared, free_ids: bool) -> Vec<Failure> {
    let mut out = Vec::new();
    for (role, p) in [(Side::Source, src), (Side::Target, tgt)] {
        calls(role, p, free_ids, &mut out);
        super::cutoff::memory(role, p, &mut out);
    }
    out
}

/// (S1) and (S2), reported as C-PAIR's (B) and (E) letters.
fn calls(role: Side, p: &Prepared, free_ids: bool, out: &mut Vec<Failure>) {
    let f = p.func;
    for (b, row) in p.calls.iter().enumerate() {
        for (i, c) in row.iter().enumerate() {
            let Some(c) = c else { continue };
            let inst = &f.blocks[b].insts[i];
            let has_value = inst
                .result
                .is_some_and(|v| !matches!(f.value(v).ty, Type::Void | Type::Token));
            let at = || super::cutoff::at(p, b, i);
            let size = matches!(
                c.sem,
                CallSem::Geometry {
                    what: Index::LocalSize
                        | Index::GlobalSize
                        | Index::NumGroups
                        | Index::SubgroupSize
                        | Index::MaxSubgroupSize
                        | Index::NumSubgroups,
                    ..
                }
            );
            let why = match &c.sem {
                CallSem::Geometry { .. } if size => Some(('E', "reads a launch size")),
                CallSem::Tid | CallSem::Lane(_) | CallSem::Geometry { .. } | CallSem::Pure
                    if free_ids =>
                {
                    None
                }
                CallSem::Tid => Some(('E', "reads the thread id")),
                CallSem::Lane(_) => Some(('E', "reads the thread's lane")),
                CallSem::Geometry { .. } => Some(('E', "reads the launch geometry")),
                CallSem::Pure => Some(('E', "is a function of the thread id (P-INPUT)")),
                CallSem::Set { oob_ub: true, .. } => Some((
                    'B',
                    "is undefined behaviour when its lane is outside the set",
                )),
                CallSem::Set { .. } | CallSem::UnknownConv { .. } if has_value => {
                    Some(('B', "has a value that depends on the communicating set"))
                }
                CallSem::Stream if has_value => {
                    Some(('E', "returns a per-thread input (P-INPUT stream)"))
                }
                _ => None,
            };
            if let Some((condition, what)) = why {
                out.push(Failure {
                    condition,
                    role,
                    what: format!("@{} at {} {what}", c.callee, at()),
                });
            }
        }
    }
}

/// The `n`-thread counterexample C-SUB gives from `small`: thread `t` of
/// the launch runs as `small`'s thread `template[t]` (its inputs, its
/// trace, its choices), and each convergent instance's set holds every
/// copy of every member. `None` when a thread is not a copy (its inputs
/// are free) or `small` observes memory (excluded by (S3) anyway).
pub(super) fn inflate(
    small: &Cex,
    template: &[Option<usize>],
    p: &Prepared,
    how: &str,
) -> Option<Cex> {
    let n = template.len();
    let tmpl: Vec<usize> = template.iter().copied().collect::<Option<_>>()?;
    if !small.memory.is_empty() || tmpl.iter().any(|j| *j >= small.threads) {
        return None;
    }
    // Each small thread's copies, in thread order.
    let mut copies: Vec<Vec<usize>> = vec![Vec::new(); small.threads];
    for (t, j) in tmpl.iter().enumerate() {
        copies[*j].push(t);
    }
    let args: Vec<Vec<i128>> = small
        .args
        .iter()
        .enumerate()
        .map(|(i, row)| {
            if p.uniform_param.get(i).copied().unwrap_or(false) || p.mem.param.contains_key(&i) {
                vec![row.first().copied().unwrap_or(0); n]
            } else {
                tmpl.iter()
                    .map(|j| row.get(*j).copied().unwrap_or(0))
                    .collect()
            }
        })
        .collect();
    let inputs = input_names(p, &args, n);
    let inflate_set = |set: &Option<Vec<(usize, usize)>>| {
        set.as_ref().map(|s| {
            let mut out: Vec<(usize, usize)> = s
                .iter()
                .flat_map(|(u, m)| copies[*u].iter().map(move |t| (*t, *m)))
                .collect();
            out.sort_unstable();
            out
        })
    };
    let target: Vec<CThread> = tmpl
        .iter()
        .map(|j| {
            let th = &small.target[*j];
            CThread {
                blocks: th.blocks.clone(),
                calls: th.calls.clone(),
                conv: th
                    .conv
                    .iter()
                    .map(|e| CEvent {
                        callee: e.callee.clone(),
                        args: e.args.clone(),
                        set: inflate_set(&e.set),
                        result: e.result.clone(),
                    })
                    .collect(),
                end: th.end.clone(),
            }
        })
        .collect();
    let target_choices = tmpl
        .iter()
        .enumerate()
        .flat_map(|(t, j)| {
            small
                .target_choices
                .iter()
                .filter(move |(u, _, _)| u == j)
                .map(move |(_, k, v)| (t, k.clone(), *v))
        })
        .collect();
    Some(Cex {
        threads: n,
        inputs,
        args,
        target,
        source: None,
        buffers: small.buffers.clone(),
        memory: Vec::new(),
        source_memory: None,
        lifted: Some(format!(
            "a {}-thread counterexample lifted to {n} threads ({how}), a counterexample at \
             {n} threads by lemma C-SUB (proofs/CUTOFF.md: every added thread a copy; no \
             convergent values, thread ids or memory), not re-solved at {n} threads",
            small.threads
        )),
        target_choices,
        replay_note: None,
        frozen: small.frozen.clone(),
        sub: Some(Box::new(small.clone())),
        // R-STREAM-SMT: a copy reads its original's stream.
        streams: if small.streams.is_empty() {
            Vec::new()
        } else {
            tmpl.iter()
                .map(|j| small.streams.get(*j).cloned().unwrap_or_default())
                .collect()
        },
    })
}

/// The launch's inputs by name, as [`super::launch_inputs`] names them
/// (`x` for a uniform parameter, `x[t3]` per thread; buffers apart).
fn input_names(p: &Prepared, args: &[Vec<i128>], n: usize) -> Vec<(String, i128)> {
    let mut out = Vec::new();
    for (i, param) in p.func.params.iter().enumerate() {
        if p.mem.param.contains_key(&i) {
            continue;
        }
        let name = match param.value {
            Some(v) => p.func.value(v).name.to_string(),
            None => format!("arg{i}"),
        };
        let Some(row) = args.get(i) else { continue };
        if p.uniform_param[i] {
            out.push((name, row.first().copied().unwrap_or(0)));
        } else {
            for (t, v) in row.iter().enumerate().take(n) {
                out.push((format!("{name}[t{t}]"), *v));
            }
        }
    }
    out
}
