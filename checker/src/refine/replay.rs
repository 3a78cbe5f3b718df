//! R-CEX: a counterexample found on the axiomatic encoding is replayed on
//! the reference interpreter (M-OPER) before it is reported. The target's
//! behaviour must be reproduced (same per-thread block traces, observable
//! calls, communicating sets of observed convergent calls, and ends) and
//! the source must be shown unable to produce it (no source execution on
//! the same launch shows that observation, none has UB). A disagreement is
//! an internal error, never a verdict.
//!
//! Limitation: values of uninterpreted functions (unknown `readnone` calls,
//! unknown convergent functions with results) are chosen independently by
//! the interpreter in each program, whereas the refinement question shares
//! one interpretation between source and target. When the target uses such
//! values, only the target side is replayed (paths, sets and ends, values
//! ignored) and the replay says so.

use std::collections::BTreeMap;

use semantics::ir::{InstKind, Module};
use semantics::machine::launch::Execution;
use semantics::machine::state::{Observation, ThreadEnd};
use semantics::machine::{
    explore, AnchorMode, ArgValues, ChooserMode, Environment, Options as MOptions, ShuffleOob,
    Uncontrolled as MUnc, Val,
};

use super::encode::Observe;
use super::obs::{CEnd, CEvent, CThread, CVal};
use super::prog::{classify_call, CallSem};
use super::{Cex, FinalByte, FinalMemory, Options};

/// Part of the message of a replay that could not enumerate the target's
/// executions (the interpreter's execution limit): no confirmation, and no
/// disagreement either.
pub const INCOMPLETE: &str = "(exploration incomplete at the interpreter's execution limit)";

/// What the replay established.
#[derive(Clone, Debug)]
pub struct Replayed {
    /// Index (in the interpreter's behaviour list) of the reproduced target
    /// behaviour, and that execution.
    pub target: Execution,
    /// A source execution on the same launch (the one with the solver's
    /// source traces when the interpreter has it), for the side-by-side view.
    pub source: Option<Execution>,
    /// Number of distinct source behaviours examined.
    pub source_behaviours: usize,
    /// Whether the source side was checked (false with uninterpreted values).
    pub source_checked: bool,
    /// Notes printed with the counterexample.
    pub notes: Vec<String>,
}

fn observed(m: &Module, e: &Execution, t: usize, i: usize, observe: Observe) -> Option<bool> {
    // The out-of-range reading does not change whether a call is observed.
    let ev = &e.threads[t].events[i];
    let f = &m.functions[ev.loc.func];
    let inst = f.block(ev.loc.block).insts.get(ev.loc.index)?;
    let InstKind::Call(c) = &inst.kind else {
        return None;
    };
    let info = classify_call(m, c, false).ok()?;
    Some(info.sem.observed(observe))
}

fn cval(v: &Val) -> CVal {
    match v {
        Val::Int { bits, v } => {
            let w = *bits;
            let value = if w == 1 || w >= 128 || v & (1u128 << (w - 1)) == 0 {
                *v as i128
            } else {
                *v as i128 - (1i128 << w)
            };
            CVal::Int { width: w, value }
        }
        // R-FLOAT-SMT: a float is observed as its bit pattern, as the
        // encoding holds it.
        Val::Float { ty, bits } => cval(&Val::Int {
            bits: ty.bits(),
            v: *bits as u128,
        }),
        _ => CVal::Poison,
    }
}

/// The interpreter's execution as the encoding's observation (R-OBS).
pub fn project(m: &Module, e: &Execution, observe: Observe) -> Vec<CThread> {
    let sets = e.event_sets();
    // Ordinal of each observed event among its thread's observed events.
    let mut ord: Vec<Vec<Option<usize>>> = Vec::new();
    for t in 0..e.threads.len() {
        let mut k = 0;
        let row = (0..e.threads[t].events.len())
            .map(|i| {
                if observed(m, e, t, i, observe) == Some(true) {
                    k += 1;
                    Some(k - 1)
                } else {
                    None
                }
            })
            .collect();
        ord.push(row);
    }
    e.threads
        .iter()
        .enumerate()
        .map(|(t, th)| {
            let blocks = th.trace.iter().map(|v| v.block.0).collect();
            let calls = th
                .observations
                .iter()
                .filter_map(|o| match o {
                    Observation::Call {
                        callee,
                        args,
                        result,
                    } => Some(CEvent {
                        callee: callee.trim_start_matches('@').to_string(),
                        args: args.iter().map(cval).collect(),
                        set: None,
                        // R-STREAM-SMT: the encoder shows integer results
                        // of stream calls, the only observed calls with one.
                        result: match result {
                            Val::Int { .. } | Val::Poison => Some(cval(result)),
                            _ => None,
                        },
                    }),
                    Observation::Store { .. } => None,
                })
                .collect();
            let mut conv = Vec::new();
            for (i, ev) in th.events.iter().enumerate() {
                if ord[t][i].is_none() {
                    continue;
                }
                let mut set: Vec<(usize, usize)> = sets[t][i]
                    .iter()
                    .filter_map(|(u, pos)| {
                        // The member's event at that visit with the same callee.
                        let j = e.threads[*u]
                            .events
                            .iter()
                            .position(|x| x.pos == *pos && x.key == ev.key)?;
                        Some((*u, ord[*u][j]?))
                    })
                    .collect();
                set.sort();
                conv.push(CEvent {
                    callee: ev.callee.trim_start_matches('@').to_string(),
                    args: ev.args.iter().map(cval).collect(),
                    set: Some(set),
                    result: None,
                });
            }
            let end = match &th.end {
                Some(ThreadEnd::Returned(v)) => CEnd::Returned(match v {
                    Val::Void => None,
                    v => Some(cval(v)),
                }),
                Some(ThreadEnd::Ub { .. }) => CEnd::Ub,
                Some(ThreadEnd::Cut) | None => CEnd::Cut,
            };
            CThread {
                blocks,
                calls,
                conv,
                end,
            }
        })
        .collect()
}

fn strip_values(ts: &[CThread]) -> Vec<CThread> {
    ts.iter()
        .map(|t| {
            let mut t = t.clone();
            for e in t.calls.iter_mut().chain(t.conv.iter_mut()) {
                e.args.clear();
            }
            if let CEnd::Returned(Some(_)) = t.end {
                t.end = CEnd::Returned(None);
            }
            t
        })
        .collect()
}

/// The interpreter's run `got` reproduces the encoding's `want`: equal
/// traces, events and ends, except that a thread the encoding shows cut
/// (stuck, R-PREFIX) runs on in the interpreter, whose larger bound cuts
/// it later: its encoded blocks are a prefix of the interpreter's; and a
/// thread ending in UB may stop its events at the faulting instruction,
/// whereas the encoding records the whole block visit (P-ASSUME, division
/// UB); refinement never compares a UB target's observation (R-REF). So
/// when some thread of `want` ends in UB, the other threads are not
/// compared: the execution's behaviour is that UB, and what another thread
/// computes after it (a convergent value over a set the UB thread left
/// early in the interpreter, but joined for its whole block visit in the
/// encoding) is no part of it.
fn same_run(got: &[CThread], want: &[CThread]) -> bool {
    let ub = want.iter().any(|w| w.end == CEnd::Ub);
    got.len() == want.len()
        && got.iter().zip(want).all(|(g, w)| {
            if ub && w.end != CEnd::Ub {
                true
            } else if w.end == CEnd::Ub {
                g.end == CEnd::Ub
                    && g.blocks == w.blocks
                    && w.calls.starts_with(&g.calls)
                    && w.conv.starts_with(&g.conv)
            } else if w.end == CEnd::Cut {
                g.end == CEnd::Cut
                    && g.blocks.starts_with(&w.blocks)
                    && g.calls == w.calls
                    && g.conv == w.conv
            } else {
                g == w
            }
        })
}

/// Observation only (no block traces): what refinement compares. Source
/// poison matches any target value (R-OBS).
pub fn same_observation(src: &[CThread], tgt: &[CThread]) -> bool {
    let ub = |ts: &[CThread]| ts.iter().any(|t| t.end == CEnd::Ub);
    if ub(tgt) {
        return false;
    }
    let vmatch = |a: &CVal, b: &CVal| *a == CVal::Poison || a == b;
    let evs = |a: &[CEvent], b: &[CEvent]| {
        a.len() == b.len()
            && a.iter().zip(b).all(|(x, y)| {
                x.callee == y.callee
                    && x.set == y.set
                    && x.args.len() == y.args.len()
                    && x.args.iter().zip(&y.args).all(|(p, q)| vmatch(p, q))
            })
    };
    src.len() == tgt.len()
        && src.iter().zip(tgt).all(|(s, t)| {
            evs(&s.calls, &t.calls)
                && evs(&s.conv, &t.conv)
                && match (&s.end, &t.end) {
                    (CEnd::Returned(Some(a)), CEnd::Returned(Some(b))) => vmatch(a, b),
                    (a, b) => a == b,
                }
        })
}

fn uses_uninterpreted(m: &Module, kernel: &str) -> bool {
    let Some(f) = m.function(kernel) else {
        return false;
    };
    f.blocks
        .iter()
        .flat_map(|b| &b.insts)
        .any(|i| match &i.kind {
            InstKind::Call(c) => {
                matches!(
                    classify_call(m, c, false).map(|x| x.sem),
                    Ok(CallSem::Pure) | Ok(CallSem::UnknownConv { .. })
                ) && c.ty != semantics::ir::Type::Void
            }
            _ => false,
        })
}

fn moptions(m: &Module, kernel: &str, opts: &Options, cex: &Cex) -> MOptions {
    let f = m.function(kernel).expect("prepare found the kernel");
    let mut args = BTreeMap::new();
    for (i, p) in f.params.iter().enumerate() {
        // Pointer parameters point at their buffers (given below).
        if matches!(p.ty, semantics::ir::Type::Ptr(_)) {
            continue;
        }
        if let Some(v) = p.value {
            args.insert(
                f.value(v).name.to_string(),
                ArgValues::PerThread(cex.args[i].clone()),
            );
        }
    }
    let ub_shuffle = m.functions.iter().any(|g| {
        g.name == "subgroupShuffle"
            && m.expand_attrs(&g.fn_attrs).iter().any(|a| {
                matches!(a, semantics::ir::Attr::Str { key, value: Some(v) }
                    if key == "convcheck-out-of-range" && v == "ub")
            })
    }) || opts.shuffle_oob_ub;
    // Instructions of every definition: with calls, the interpreter's
    // per-thread bound counts the callees' instructions too.
    let insts: usize = m
        .functions
        .iter()
        .flat_map(|g| &g.blocks)
        .map(|b| b.insts.len() + 1)
        .sum();
    MOptions {
        entry: Some(kernel.to_string()),
        threads: cex.threads as u32,
        groups: 1,
        subgroup_size: None,
        args,
        max_steps: (opts.max_steps * insts * 4).max(64) as u64,
        environment: Environment::OpenCl,
        anchor: AnchorMode::All,
        uncontrolled: MUnc::Maximal,
        shuffle_oob: if ub_shuffle {
            ShuffleOob::Ub
        } else {
            ShuffleOob::Poison
        },
        // R-FREEZE-SMT: the interpreter's `freeze` picks from this domain,
        // so it holds the values the target's frozen poison took.
        int_domain: {
            let mut d = vec![0, 1, 2];
            for x in &cex.frozen {
                if !d.contains(x) {
                    d.push(*x);
                }
            }
            d
        },
        chooser: ChooserMode::Exhaustive,
        max_executions: 200_000,
        max_merged: None,
        closure_records: semantics::machine::symmetry::CLOSURE_RECORDS,
        reduce: true,
        drawn_results: true,
        buffer_bytes: opts.buffer_bytes,
        buffers: cex.buffers.clone(),
        races: false,
        // R-STREAM-SMT: the solver's input streams, pinned.
        streams: cex.streams.clone(),
        jobs: 1,
    }
}

/// R-MEM: the interpreter's final contents of the objects the encoding
/// observed (by name; a pointer byte or an input byte never given reads as
/// poison, which only a poison source byte matches; P-MEM-UNDEF bytes are
/// undef).
fn interp_memory(e: &Execution, cex: &Cex) -> FinalMemory {
    let all = final_memory(e);
    cex.memory
        .iter()
        .map(|(name, _)| {
            let bytes = all
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, bs)| bs.clone())
                .unwrap_or_default();
            (name.clone(), bytes)
        })
        .collect()
}

/// R-MEM: the interpreter's final contents of every observed object
/// (poison: poison, a pointer byte, or an input byte never given; undef:
/// P-MEM-UNDEF).
pub fn final_memory(e: &Execution) -> FinalMemory {
    use semantics::machine::memory::Byte;
    e.memory
        .iter()
        .map(|(name, bs)| {
            let bytes = bs
                .iter()
                .map(|b| match b {
                    Byte::Data(x) | Byte::Input(x) => FinalByte::Val(*x),
                    Byte::Undef => FinalByte::Undef,
                    _ => FinalByte::Poison,
                })
                .collect();
            (name.clone(), bytes)
        })
        .collect()
}

/// R-MEM: source final memory `s` matches target memory `t`, byte by byte
/// ([`FinalByte::matches`]: poison matches anything, undef anything but
/// poison, P-MEM-UNDEF).
pub fn memory_refines(s: &[(String, Vec<FinalByte>)], t: &[(String, Vec<FinalByte>)]) -> bool {
    s.len() == t.len()
        && s.iter().zip(t).all(|((n1, a), (n2, b))| {
            n1 == n2 && a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.matches(*y))
        })
}

fn uses_atomics(m: &Module, kernel: &str) -> bool {
    m.function(kernel).is_some_and(|f| {
        f.blocks
            .iter()
            .flat_map(|b| &b.insts)
            .any(|i| matches!(i.kind, InstKind::AtomicRmw { .. }))
    })
}

/// The memory abstraction's `atomicrmw` events are not events of the
/// interpreter (which executes them on memory): drop them for comparison.
fn strip_atomics(ts: &[CThread]) -> Vec<CThread> {
    ts.iter()
        .map(|t| {
            let mut t = t.clone();
            t.calls.retain(|e| !e.callee.starts_with("atomicrmw "));
            t
        })
        .collect()
}

/// The observation without block traces (what inlining must preserve).
fn observation_only(ts: &[CThread]) -> Vec<CThread> {
    ts.iter()
        .map(|t| {
            let mut t = t.clone();
            t.blocks.clear();
            t
        })
        .collect()
}

/// Replays `cex` (R-CEX). `Err` is a disagreement between the encoding and
/// the interpreter (an internal error).
pub fn replay(
    src: &Module,
    tgt: &Module,
    kernel: &str,
    opts: &Options,
    cex: &Cex,
) -> Result<Replayed, String> {
    replay_with(src, tgt, None, kernel, opts, cex)
}

/// [`replay`] on the modules the encoding checked (`src`, `tgt`: after
/// inlining), and, when `originals` is given (calls were inlined), an
/// independent cross-check of the inlining on the original modules, where
/// the interpreter executes calls natively: the original target must show
/// the counterexample's observation (block traces are not compared: they
/// name other blocks) and, when the source side is checked, no execution
/// of the original source may show it or have UB.
///
/// With `atomicrmw` (the memory abstraction, `prog::AtomicInfo`) values
/// are not compared and atomic events are dropped, and the source side is
/// not replayed: the interpreter's atomics read real memory.
pub fn replay_with(
    src: &Module,
    tgt: &Module,
    originals: Option<(&Module, &Module)>,
    kernel: &str,
    opts: &Options,
    cex: &Cex,
) -> Result<Replayed, String> {
    let mut r = replay_inner(src, tgt, kernel, opts, cex)?;
    let Some((osrc, otgt)) = originals else {
        return Ok(r);
    };
    let uf = uses_uninterpreted(tgt, kernel)
        || uses_uninterpreted(src, kernel)
        || uses_atomics(tgt, kernel)
        || uses_atomics(src, kernel);
    let norm = |ts: &[CThread]| {
        let ts = strip_atomics(ts);
        let ts = if uf { strip_values(&ts) } else { ts };
        observation_only(&ts)
    };
    let want = norm(&cex.target);
    let tex = explore(otgt, &moptions(otgt, kernel, opts, cex)).map_err(|e| e.to_string())?;
    let ub = want.iter().any(|t| t.end == CEnd::Ub);
    if !tex.behaviours.iter().any(|b| {
        let got = norm(&project(otgt, &b.execution, opts.observe));
        got == want || ub && same_run(&got, &want)
    }) {
        return Err(format!(
            "inlining cross-check: the interpreter on the original target (calls executed \
             natively) finds {} behaviours on this launch, none with the counterexample's \
             observation",
            tex.behaviours.len()
        ));
    }
    if r.source_checked {
        let sex = explore(osrc, &moptions(osrc, kernel, opts, cex)).map_err(|e| e.to_string())?;
        for b in &sex.behaviours {
            let p = project(osrc, &b.execution, opts.observe);
            if p.iter().any(|t| t.end == CEnd::Ub) {
                return Err(
                    "inlining cross-check: the interpreter finds undefined behaviour \
                            in the original source on this launch"
                        .into(),
                );
            }
            let (p, t) = if uf {
                (
                    strip_values(&strip_atomics(&p)),
                    strip_values(&strip_atomics(&cex.target)),
                )
            } else {
                (p, cex.target.clone())
            };
            if same_observation(&p, &t) {
                return Err(
                    "inlining cross-check: the interpreter finds an execution of the \
                            original source with the target's observation"
                        .into(),
                );
            }
        }
    }
    r.notes.push(
        "calls were inlined for the encoding; the interpreter confirms the observation on the \
         original modules, executing the calls"
            .into(),
    );
    Ok(r)
}

fn replay_inner(
    src: &Module,
    tgt: &Module,
    kernel: &str,
    opts: &Options,
    cex: &Cex,
) -> Result<Replayed, String> {
    let mut notes = Vec::new();
    let atomics = uses_atomics(tgt, kernel) || uses_atomics(src, kernel);
    let real_uf = uses_uninterpreted(tgt, kernel) || uses_uninterpreted(src, kernel);
    let uf = real_uf || atomics;
    let tex = explore(tgt, &moptions(tgt, kernel, opts, cex)).map_err(|e| e.to_string())?;
    let want = if uf {
        strip_values(&strip_atomics(&cex.target))
    } else {
        cex.target.clone()
    };
    let found = tex.behaviours.iter().find(|b| {
        let got = project(tgt, &b.execution, opts.observe);
        let got = if uf { strip_values(&got) } else { got };
        same_run(&got, &want) && (uf || interp_memory(&b.execution, cex) == cex.memory)
    });
    let Some(found) = found else {
        return Err(format!(
            "the interpreter finds {} target behaviours on this launch {}, none with the \
             solver's traces and observation",
            tex.behaviours.len(),
            if tex.complete {
                "(exploration complete)"
            } else {
                INCOMPLETE
            }
        ));
    };
    let target = found.execution.clone();
    if atomics && !real_uf {
        // The memory abstraction lets atomics return any value; the
        // interpreter reads real memory. The counterexample is confirmed
        // only if no source execution shows the target's observation with
        // values and atomic events set aside (coarser than the encoding's
        // comparison: a miss here answers "unknown", never a verdict).
        let sex = explore(src, &moptions(src, kernel, opts, cex)).map_err(|e| e.to_string())?;
        for b in &sex.behaviours {
            let p = strip_values(&project(src, &b.execution, opts.observe));
            if p.iter().any(|t| t.end == CEnd::Ub) {
                return Err(
                    "the interpreter finds undefined behaviour in the source on this launch".into(),
                );
            }
            if same_observation(&p, &want) {
                return Err(
                    "the interpreter (real memory) finds a source execution with the target's \
                     observation, values and atomic events aside"
                        .into(),
                );
            }
        }
        notes.push(
            "memory abstraction: atomicrmw results are inputs of the encoding; on replay values \
             and atomic events are not compared (the interpreter's atomics read real memory), \
             and no source execution shows the target's paths, calls, sets and ends"
                .into(),
        );
        return Ok(Replayed {
            target,
            source: sex.behaviours.first().map(|b| b.execution.clone()),
            source_behaviours: sex.behaviours.len(),
            source_checked: true,
            notes,
        });
    }
    if uf {
        notes.push(
            "values of uninterpreted functions are not compared on replay; the source side is \
             not replayed (the interpreter chooses them per program)"
                .into(),
        );
        return Ok(Replayed {
            target,
            source: None,
            source_behaviours: 0,
            source_checked: false,
            notes,
        });
    }
    let sex = explore(src, &moptions(src, kernel, opts, cex)).map_err(|e| e.to_string())?;
    if !sex.complete {
        notes.push("the interpreter's exploration of the source was incomplete".into());
    }
    for b in &sex.behaviours {
        let p = project(src, &b.execution, opts.observe);
        if p.iter().any(|t| t.end == CEnd::Ub) {
            return Err(
                "the interpreter finds undefined behaviour in the source on this launch".into(),
            );
        }
        if same_observation(&p, &cex.target)
            && memory_refines(&interp_memory(&b.execution, cex), &cex.memory)
        {
            return Err(
                "the interpreter finds a source execution with the target's observation".into(),
            );
        }
    }
    let same_blocks = |e: &Execution| {
        cex.source.as_ref().is_some_and(|s| {
            project(src, e, opts.observe)
                .iter()
                .zip(s)
                .all(|(a, b)| a.blocks == b.blocks)
        })
    };
    let source = sex
        .behaviours
        .iter()
        .find(|b| same_blocks(&b.execution))
        .or(sex.behaviours.first())
        .map(|b| b.execution.clone());
    Ok(Replayed {
        target,
        source,
        source_behaviours: sex.behaviours.len(),
        source_checked: true,
        notes,
    })
}
