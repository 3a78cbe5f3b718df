//! M-AGREE (CLAIMS.md MC-07): the operational interpreter (M-OPER) and the
//! SMT refinement checker (M-AXIOM, [`crate::refine`]) give the same
//! refinement verdict on a source/target pair. One implementation serves
//! the property test (`checker/tests/refine_agree.rs`, which also runs it as
//! the mutation test of issue 6) and `convcheck prove`
//! (`prove/meta.rs`).
//!
//! Both sides use the same bounds: [`THREADS`] threads, the kernel's
//! argument `%x` ranging over [`DOMAIN`] per thread. The interpreter's
//! verdict: on every launch, every target behaviour's observation (R-OBS)
//! is one of the source's, or the source has UB (R-REF); a thread cut by
//! the interpreter's bound is read as never ending and compared by its
//! events (R-PREFIX, R-PREFIX-REC for recursion, which the interpreter
//! executes natively), a reading checked at twice the bound; launches on
//! which no source execution ends are compared too (their cut threads
//! read as never ending), unless the source requires progress
//! (`mustprogress`, as the checker). The checker's
//! verdict is `refines` or a counterexample (whose replay must agree); any
//! other verdict (unknown, vacuous) is an error, not an agreement.

use std::collections::BTreeMap;

use semantics::ir::Module;
use semantics::machine::{explore, ArgValues, Options as MOptions};

use crate::refine::encode::Observe;
use crate::refine::obs::{CEnd, CThread};
use crate::refine::prog::progress_required;
use crate::refine::replay::{project, same_observation};
use crate::refine::{check, Options, PairResult, Verdict};

/// The values each thread's `%x` ranges over.
pub const DOMAIN: [i128; 3] = [0, 1, 2];
/// Threads per launch.
pub const THREADS: usize = 2;
/// The checker's per-thread step bound (the programs of the family take
/// at most this many blocks; the interpreter's bound is larger).
pub const SMT_MAX_STEPS: usize = 8;

/// Every launch of `threads` threads: one `%x` value per thread over
/// [`DOMAIN`].
fn launches(threads: usize) -> Vec<Vec<i128>> {
    let mut out = vec![vec![]];
    for _ in 0..threads {
        out = out
            .into_iter()
            .flat_map(|l: Vec<i128>| {
                DOMAIN.iter().map(move |v| {
                    let mut l = l.clone();
                    l.push(*v);
                    l
                })
            })
            .collect();
    }
    out
}

/// The interpreter's verdict (M-OPER, R-REF): does every target behaviour
/// appear among the source's on every launch (or the source has UB)?
pub fn interp_refines(src: &Module, tgt: &Module) -> Result<bool, String> {
    interp_verdict(src, tgt, None, THREADS)
}

/// [`interp_refines`] on launches of `threads` threads (thread ids
/// `0..threads`, `%x` over [`DOMAIN`] per thread): the interpreter's
/// ground truth at other counts (theorem C-MIRROR's validation,
/// `checker/tests/refine_cutoff.rs`). `Err` when an exploration is
/// incomplete (e.g. too many anchor groupings).
pub fn interp_refines_at(src: &Module, tgt: &Module, threads: usize) -> Result<bool, String> {
    interp_verdict(src, tgt, None, threads)
}

/// The SMT checker's verdict on kernel `@k` under the same bounds; `Err`
/// for any verdict other than refines / counterexample, or a counterexample
/// the interpreter does not replay.
pub fn smt_verdict(src: &Module, tgt: &Module) -> Result<bool, String> {
    let opts = Options {
        threads: vec![THREADS],
        max_steps: SMT_MAX_STEPS,
        input_domain: Some(DOMAIN.to_vec()),
        ..Options::default()
    };
    match check(src, tgt, "k", &opts, true, None).map(|r| r.0) {
        Ok(PairResult::Checked {
            outcome, replay, ..
        }) => {
            if let Some(Err(e)) = replay {
                return Err(format!("replay disagrees: {e}"));
            }
            match outcome.verdict {
                Verdict::Refines { .. } => Ok(true),
                Verdict::Counterexample(_) => Ok(false),
                other => Err(format!("{other:?}")),
            }
        }
        other => Err(format!("{other:?}")),
    }
}

/// M-AGREE on one pair given as text: `Ok(verdict)` when both agree
/// (`true`: refines), `Err` describing the disagreement or failure.
pub fn check_agreement(src_text: &str, tgt_text: &str) -> Result<bool, String> {
    let src = semantics::parse_module("src.ll", src_text).map_err(|e| format!("source: {e}"))?;
    let tgt = semantics::parse_module("tgt.ll", tgt_text).map_err(|e| format!("target: {e}"))?;
    let want = interp_refines(&src, &tgt)?;
    let got = smt_verdict(&src, &tgt)?;
    if want == got {
        Ok(want)
    } else {
        Err(format!(
            "M-AGREE: the interpreter says {}, the SMT checker says {}",
            if want { "refines" } else { "does not refine" },
            if got { "refines" } else { "does not refine" }
        ))
    }
}

/// M-AGREE for kernels with memory (R-MEM-SMT): `@k(ptr %in, ptr %out, i32
/// %x)`. The interpreter runs every launch of [`DOMAIN`] with the buffers
/// given (zeros, then a byte pattern) and compares observations and final
/// memory (R-MEM); the checker quantifies over every buffer content. So:
/// the checker's "refines" must be the interpreter's on the buffers tried,
/// and its counterexample (replayed, R-CEX) must be a difference for the
/// interpreter on the counterexample's buffers. `Ok(None)`: the checker
/// answers unsupported because threads communicate through memory
/// (outside R-MEM-SMT); any other unsupported answer is an error.
pub fn check_agreement_memory(src_text: &str, tgt_text: &str) -> Result<Option<bool>, String> {
    match agreement_memory(src_text, tgt_text)? {
        MemAgree::Verdict(v) => Ok(Some(v)),
        MemAgree::Outside => Ok(None),
        MemAgree::SourceAlwaysUb => Err("Vacuous(SourceAlwaysUb)".into()),
    }
}

/// What [`agreement_memory`] found both formalizations agree on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemAgree {
    /// Both say refines (`true`) or both find a difference (`false`).
    Verdict(bool),
    /// The checker answers unsupported: threads communicate through
    /// memory (outside R-MEM-SMT).
    Outside,
    /// The checker's `vacuous` verdict (the source has UB on every launch
    /// and every buffer content), and the interpreter finds that the
    /// target refines the source on both buffer patterns (every launch's
    /// source has UB there, or the target matches it).
    SourceAlwaysUb,
}

/// [`check_agreement_memory`] with the checker's `vacuous` verdict
/// (source always UB) confirmed by the interpreter instead of an error:
/// generated kernels with a constant overlapping `memcpy` or an
/// out-of-bounds one (P-MEM-ACCESS) have such sources.
pub fn agreement_memory(src_text: &str, tgt_text: &str) -> Result<MemAgree, String> {
    let src = semantics::parse_module("src.ll", src_text).map_err(|e| format!("source: {e}"))?;
    let tgt = semantics::parse_module("tgt.ll", tgt_text).map_err(|e| format!("target: {e}"))?;
    let opts = Options {
        threads: vec![THREADS],
        max_steps: SMT_MAX_STEPS,
        input_domain: Some(DOMAIN.to_vec()),
        ..Options::default()
    };
    let pattern = |k: usize| -> BTreeMap<String, Vec<u8>> {
        ["in", "out"]
            .iter()
            .enumerate()
            .map(|(j, n)| {
                let bytes = (0..64)
                    .map(|i| {
                        if k == 0 {
                            0
                        } else {
                            (i * 37 + 11 + j * 5) as u8
                        }
                    })
                    .collect();
                (n.to_string(), bytes)
            })
            .collect()
    };
    let smt = match check(&src, &tgt, "k", &opts, true, None).map(|r| r.0) {
        Ok(PairResult::Checked {
            outcome, replay, ..
        }) => {
            if let Some(Err(e)) = replay {
                return Err(format!("replay disagrees: {e}"));
            }
            match outcome.verdict {
                Verdict::Refines { .. } => None,
                Verdict::Counterexample(c) => Some(c.buffers.clone()),
                Verdict::Vacuous(crate::refine::VacuousWhy::SourceAlwaysUb) => {
                    for k in 0..2 {
                        if let Some(xs) = launch_without_source_ub(&src, &pattern(k))? {
                            return Err(format!(
                                "M-AGREE: the SMT checker finds the source always UB, the \
                                 interpreter finds no UB on launch {xs:?} with buffers {:?}",
                                pattern(k)
                            ));
                        }
                        if !interp_refines_memory(&src, &tgt, &pattern(k))? {
                            return Err(format!(
                                "M-AGREE: the SMT checker finds the source always UB, the \
                                 interpreter finds a difference with buffers {:?}",
                                pattern(k)
                            ));
                        }
                    }
                    return Ok(MemAgree::SourceAlwaysUb);
                }
                other => return Err(format!("{other:?}")),
            }
        }
        Ok(PairResult::Unsupported { message, .. })
            if message.contains("communicate through memory") =>
        {
            return Ok(MemAgree::Outside)
        }
        other => return Err(format!("{other:?}")),
    };
    match smt {
        None => {
            for k in 0..2 {
                if !interp_refines_memory(&src, &tgt, &pattern(k))? {
                    return Err(format!(
                        "M-AGREE: the SMT checker says refines, the interpreter finds a \
                         difference with buffers {:?}",
                        pattern(k)
                    ));
                }
            }
            Ok(MemAgree::Verdict(true))
        }
        Some(buffers) => {
            if interp_refines_memory(&src, &tgt, &buffers)? {
                return Err(format!(
                    "M-AGREE: the SMT checker's counterexample buffers {buffers:?} show no \
                     difference to the interpreter"
                ));
            }
            Ok(MemAgree::Verdict(false))
        }
    }
}

/// A launch of `%x` (over [`DOMAIN`], [`THREADS`] threads, the given
/// buffers) on which no source execution the interpreter explores has UB.
fn launch_without_source_ub(
    src: &Module,
    buffers: &BTreeMap<String, Vec<u8>>,
) -> Result<Option<Vec<i128>>, String> {
    for xs in launches(THREADS) {
        let mut args = BTreeMap::new();
        args.insert("x".to_string(), ArgValues::PerThread(xs.clone()));
        let opts = MOptions {
            entry: Some("k".to_string()),
            threads: THREADS as u32,
            args,
            max_steps: 400,
            buffers: buffers.clone(),
            ..MOptions::default()
        };
        let sx = explore(src, &opts).map_err(|e| format!("source: {e}"))?;
        let ub = sx.behaviours.iter().any(|b| {
            project(src, &b.execution, Observe::Auto)
                .iter()
                .any(|t| t.end == CEnd::Ub)
        });
        if !ub {
            return Ok(Some(xs));
        }
    }
    Ok(None)
}

/// The interpreter's verdict with the given buffers, over every launch of
/// `%x`: observations (R-OBS) and final memory (R-MEM).
fn interp_refines_memory(
    src: &Module,
    tgt: &Module,
    buffers: &BTreeMap<String, Vec<u8>>,
) -> Result<bool, String> {
    interp_verdict(src, tgt, Some(buffers), THREADS)
}

/// Some thread of `e` was cut by the step bound.
fn has_cut(e: &semantics::machine::launch::Execution) -> bool {
    use semantics::machine::state::ThreadEnd;
    e.threads
        .iter()
        .any(|t| matches!(t.end, Some(ThreadEnd::Cut) | None))
}

/// R-PREFIX on the interpreter's side: exploring `m` with twice the step
/// bound gives the same observations (block traces aside) as `x`, so the
/// threads cut at the bound made no observable progress in between; on
/// the generated family (loops that finish within a few iterations or
/// spin forever) this is exactly "they never end".
fn stable(
    m: &Module,
    opts: &MOptions,
    x: &semantics::machine::Exploration,
    observe: Observe,
) -> Result<(), String> {
    let longer = MOptions {
        max_steps: opts.max_steps * 2,
        ..opts.clone()
    };
    let y = explore(m, &longer).map_err(|e| e.to_string())?;
    let obs = |x: &semantics::machine::Exploration| -> Vec<Vec<CThread>> {
        x.behaviours
            .iter()
            .map(|b| {
                let mut p = project(m, &b.execution, observe);
                for t in &mut p {
                    t.blocks.clear();
                }
                p
            })
            .collect()
    };
    let (a, b) = (obs(x), obs(&y));
    if a.iter().all(|o| b.contains(o)) && b.iter().all(|o| a.contains(o)) {
        Ok(())
    } else {
        Err(format!(
            "the observations at step bound {} and {} differ: a thread cut by the bound \
             is not stuck",
            opts.max_steps, longer.max_steps
        ))
    }
}

/// Both interpreter verdicts: over every launch of `%x`, every target
/// behaviour's observations (R-OBS) are some source behaviour's (or the
/// source has UB on the launch); with `buffers`, the kernels run on them
/// and the final memory (R-MEM) must match too.
fn interp_verdict(
    src: &Module,
    tgt: &Module,
    buffers: Option<&BTreeMap<String, Vec<u8>>>,
    threads: usize,
) -> Result<bool, String> {
    use crate::refine::replay::{final_memory, memory_refines};
    /// Final memory as the replay compares it (R-MEM).
    type Memory = crate::refine::FinalMemory;
    let observe = Observe::Auto;
    let memory = |e: &semantics::machine::launch::Execution| -> Option<Memory> {
        buffers.map(|_| final_memory(e))
    };
    for xs in launches(threads) {
        let mut args = BTreeMap::new();
        args.insert("x".to_string(), ArgValues::PerThread(xs.clone()));
        let opts = MOptions {
            // The kernel is `@k` (a recursive helper may be defined too).
            entry: Some("k".to_string()),
            threads: threads as u32,
            args,
            max_steps: 400,
            buffers: buffers.cloned().unwrap_or_default(),
            ..MOptions::default()
        };
        let sx = explore(src, &opts).map_err(|e| format!("source: {e}"))?;
        let tx = explore(tgt, &opts).map_err(|e| format!("target: {e}"))?;
        if !sx.complete || !tx.complete {
            return Err(format!("exploration incomplete on launch {xs:?}"));
        }
        // R-BOUND, as the checker: a launch on which no source execution
        // ends or is stuck in every thread is not compared. Every cut
        // thread is read as stuck (checked below), so that is no launch,
        // unless the source requires progress: then cut threads do not
        // count.
        if progress_required(src) && !sx.behaviours.iter().any(|b| !has_cut(&b.execution)) {
            continue;
        }
        // R-PREFIX: a thread cut by the interpreter's bound is read as
        // never ending, compared with its events so far (`same_observation`
        // equates two cut ends). That reading is checked, not assumed: the
        // same launch at twice the bound must show the same observations.
        for (side, m, x) in [("source", src, &sx), ("target", tgt, &tx)] {
            if x.behaviours.iter().any(|b| has_cut(&b.execution)) {
                stable(m, &opts, x, observe)
                    .map_err(|e| format!("{side} on launch {xs:?}: {e}"))?;
            }
        }
        // R-STREAM-SMT: each behaviour with the stream values it read; it
        // is a behaviour of exactly the launches whose streams extend
        // them (the interpreter draws every value the domain allows).
        let sobs: Vec<(Vec<CThread>, Option<Memory>, Prefix)> = sx
            .behaviours
            .iter()
            .map(|b| {
                (
                    project(src, &b.execution, observe),
                    memory(&b.execution),
                    stream_prefix(&b.execution),
                )
            })
            .collect();
        let ub: Vec<&Prefix> = sobs
            .iter()
            .filter(|o| o.0.iter().any(|t| t.end == CEnd::Ub))
            .map(|o| &o.2)
            .collect();
        for b in &tx.behaviours {
            let t = project(tgt, &b.execution, observe);
            let tm = memory(&b.execution);
            let tp = stream_prefix(&b.execution);
            let matched = |(s, sm, sp): &(Vec<CThread>, Option<Memory>, Prefix)| {
                *sp == tp
                    && same_observation(s, &t)
                    && match (sm, &tm) {
                        (Some(sm), Some(tm)) => memory_refines(sm, tm),
                        _ => true,
                    }
            };
            if !sobs.iter().any(matched) && !ub_covers(&ub, &tp)? {
                return Ok(false);
            }
        }
    }
    Ok(true)
}

/// R-STREAM-SMT: per thread, the input-stream values an execution read
/// (the results of its observed calls with a value), in order.
type Prefix = Vec<Vec<semantics::machine::Val>>;

fn stream_prefix(e: &semantics::machine::launch::Execution) -> Prefix {
    use semantics::machine::state::Observation;
    e.threads
        .iter()
        .map(|th| {
            th.observations
                .iter()
                .filter_map(|o| match o {
                    Observation::Call { result, .. }
                        if *result != semantics::machine::Val::Void =>
                    {
                        Some(result.clone())
                    }
                    _ => None,
                })
                .collect()
        })
        .collect()
}

/// R-REF with input streams (R-STREAM-SMT): a target behaviour that read
/// the stream prefix `tp` is a behaviour of every launch whose streams
/// extend `tp`; with no matching source behaviour it is excused only if
/// on each of those launches the source has UB, i.e. if the source's UB
/// behaviours (each a behaviour of the launches extending its own prefix
/// `ub`) cover every extension of `tp` over [`DOMAIN`]. Without stream
/// reads every prefix is empty and this is "the source has UB on the
/// launch".
fn ub_covers(ub: &[&Prefix], tp: &Prefix) -> Result<bool, String> {
    use semantics::machine::Val;
    if ub.is_empty() {
        return Ok(false);
    }
    let threads = tp.len();
    // Positions past `tp` that some UB prefix reads: they are enumerated.
    let len: Vec<usize> = (0..threads)
        .map(|t| {
            ub.iter()
                .map(|u| u.get(t).map_or(0, Vec::len))
                .max()
                .unwrap_or(0)
                .max(tp[t].len())
        })
        .collect();
    let free: usize = (0..threads).map(|t| len[t] - tp[t].len()).sum();
    if free > 10 {
        return Err(format!(
            "R-STREAM-SMT: {free} stream positions to enumerate past the target's"
        ));
    }
    let fits = |u: &Val, x: i128| match u {
        Val::Int { bits, v } => *v == (x as u128) & semantics::machine::value::mask(*bits),
        _ => false,
    };
    let total = DOMAIN.len().pow(free as u32);
    for code in 0..total {
        // The extension: the free positions' values, thread by thread.
        let mut c = code;
        let mut ext: Vec<Vec<i128>> = Vec::with_capacity(threads);
        for t in 0..threads {
            let row = (tp[t].len()..len[t])
                .map(|_| {
                    let x = DOMAIN[c % DOMAIN.len()];
                    c /= DOMAIN.len();
                    x
                })
                .collect();
            ext.push(row);
        }
        let below = |u: &Prefix| {
            (0..threads).all(|t| {
                let row = u.get(t).map_or(&[][..], Vec::as_slice);
                row.iter().enumerate().all(|(j, v)| match tp[t].get(j) {
                    Some(w) => v == w,
                    None => fits(v, ext[t][j - tp[t].len()]),
                })
            })
        };
        if !ub.iter().any(|u| below(u)) {
            return Ok(false);
        }
    }
    Ok(true)
}
