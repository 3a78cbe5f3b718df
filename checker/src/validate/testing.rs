//! Bounded testing on the reference interpreter, for functions the
//! refinement encoding cannot express (memory, floats, ...): `validate`
//! runs source and target on the same launches and looks for a target
//! behaviour that no source execution on that launch shows (R-REF, R-OBS,
//! R-MEM). The interpreter is the ground truth (M-OPER), so a difference
//! it finds is a counterexample; finding none proves nothing beyond the
//! launches tried, and `validate` says so (the verdict stays
//! `unsupported`, with the testing figures in the reason).
//!
//! The launches: every thread count of the check, kernel arguments over
//! the interpreter's domain (as `convcheck run` enumerates them), and each
//! pointer parameter's buffer given explicitly (zeros, then a fixed byte
//! pattern) so that source and target read the same memory whatever order
//! they read it in. Functions whose values come from unknown calls (input
//! streams, uninterpreted functions) are not tested: the interpreter draws
//! those independently in each program, so a difference would not be one.

use std::collections::BTreeMap;
use std::time::Instant;

use semantics::ir::{Module, Type};
use semantics::machine::launch::Execution;
use semantics::machine::memory::Byte;
use semantics::machine::state::ThreadEnd;
use semantics::machine::{explore, Options as MOptions, Val};

use crate::refine::replay::{project, same_observation};
use crate::refine::Options;

/// What testing found.
#[derive(Clone, Debug, PartialEq)]
pub enum Tested {
    /// A target behaviour no source execution on its launch shows.
    Counterexample(String),
    /// No difference on these launches.
    NoDifference {
        launches: usize,
        target_behaviours: usize,
        bounds: String,
    },
    /// Testing could not say (why).
    NotTested(String),
}

/// Bytes of each pointer parameter's buffer.
const BUFFER_BYTES: usize = 64;

/// The buffers of one round: zeros, then `(i * 37 + 11) mod 256`.
fn buffers(f: &semantics::ir::Function, round: usize) -> BTreeMap<String, Vec<u8>> {
    f.params
        .iter()
        .filter(|p| matches!(p.ty, Type::Ptr(_)))
        .filter_map(|p| p.value)
        .map(|v| {
            let bytes = (0..BUFFER_BYTES)
                .map(|i| if round == 0 { 0 } else { (i * 37 + 11) as u8 })
                .collect();
            (f.value(v).name.to_string(), bytes)
        })
        .collect()
}

/// Whether source and target final memory agree: equal objects by
/// position, a poison source byte matching anything, an undef one anything
/// but poison (R-MEM, P-MEM-UNDEF). `None` when
/// pointer bytes differ (object numbering may differ between programs).
fn same_memory(src: &Execution, tgt: &Execution) -> Option<bool> {
    if src.memory.len() != tgt.memory.len() {
        return Some(false);
    }
    let mut unsure = false;
    for ((_, a), (_, b)) in src.memory.iter().zip(&tgt.memory) {
        if a.len() != b.len() {
            return Some(false);
        }
        for (x, y) in a.iter().zip(b) {
            match (x, y) {
                (Byte::Poison, _) => {}
                // P-MEM-UNDEF: a source undef byte matches any byte but
                // poison; a target undef byte only undef or poison.
                (Byte::Undef, y) if *y != Byte::Poison => {}
                (Byte::Ptr { .. }, _) | (_, Byte::Ptr { .. }) if x != y => unsure = true,
                _ if x != y => return Some(false),
                _ => {}
            }
        }
    }
    if unsure {
        None
    } else {
        Some(true)
    }
}

fn has_ub(e: &Execution) -> bool {
    e.threads
        .iter()
        .any(|t| matches!(t.end, Some(ThreadEnd::Ub { .. })))
}

fn is_cut(e: &Execution) -> bool {
    e.threads
        .iter()
        .any(|t| matches!(t.end, Some(ThreadEnd::Cut) | None))
}

/// The launch's argument values (by position: opt may rename parameters).
fn launch_key(e: &Execution) -> Vec<Vec<String>> {
    e.inputs
        .iter()
        .map(|(_, vs)| vs.iter().map(Val::to_string).collect())
        .collect()
}

fn show_memory(e: &Execution) -> String {
    e.memory
        .iter()
        .map(|(name, bytes)| {
            let shown: Vec<String> = bytes
                .iter()
                .take(16)
                .map(|b| match b {
                    Byte::Data(x) | Byte::Input(x) => format!("{x:02x}"),
                    Byte::Poison => "pp".into(),
                    Byte::Undef => "uu".into(),
                    Byte::Unread => "..".into(),
                    Byte::Ptr { .. } => "pt".into(),
                })
                .collect();
            let more = if bytes.len() > 16 { " ..." } else { "" };
            format!("{name} = [{}{more}]", shown.join(" "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn show_ends(e: &Execution) -> String {
    e.threads
        .iter()
        .map(|t| match &t.end {
            Some(ThreadEnd::Returned(Val::Void)) => "returned".to_string(),
            Some(ThreadEnd::Returned(v)) => format!("returned {v}"),
            Some(ThreadEnd::Ub { why, .. }) => format!("UB ({why})"),
            Some(ThreadEnd::Cut) | None => "cut".into(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Tests `@kernel` of `tgt` against `src` on the interpreter within
/// `opts`' thread counts, stopping at `deadline`.
pub fn test_refinement(
    src: &Module,
    tgt: &Module,
    kernel: &str,
    opts: &Options,
    deadline: Option<Instant>,
) -> Tested {
    let (Some(sf), Some(_)) = (src.function(kernel), tgt.function(kernel)) else {
        return Tested::NotTested(format!("@{kernel} is missing"));
    };
    for m in [src, tgt] {
        let unknown = semantics::machine::program::unknown_callees_from(m, kernel);
        if let Some((name, how)) = unknown.first() {
            return Tested::NotTested(format!(
                "@{name} is an unknown call ({how}); the interpreter draws its values \
                 independently in each program"
            ));
        }
    }
    let observe = opts.observe;
    // The interpreter's bound counts instructions (the callees' too): K
    // visits of every block of the larger module, four times over, as the
    // counterexample replay sets it.
    let insts: usize = [src, tgt]
        .iter()
        .map(|m| {
            m.functions
                .iter()
                .flat_map(|g| &g.blocks)
                .map(|b| b.insts.len() + 1)
                .sum::<usize>()
        })
        .max()
        .unwrap_or(1);
    let (mut launches, mut target_behaviours) = (0, 0);
    for &n in &opts.threads {
        for round in 0..2 {
            if deadline.is_some_and(|d| Instant::now() > d) {
                return Tested::NotTested(format!("time limit reached after {launches} launches"));
            }
            let mo = MOptions {
                entry: Some(kernel.to_string()),
                threads: n as u32,
                max_steps: (opts.max_steps * insts * 4).max(64) as u64,
                max_executions: 20_000,
                buffers: buffers(sf, round),
                ..MOptions::default()
            };
            let run = |m: &Module| explore(m, &mo).map_err(|e| e.to_string());
            let (s, t) = match (run(src), run(tgt)) {
                (Ok(s), Ok(t)) => (s, t),
                (Err(e), _) => return Tested::NotTested(format!("the source does not run: {e}")),
                (_, Err(e)) => return Tested::NotTested(format!("the target does not run: {e}")),
            };
            let mut by_launch: BTreeMap<Vec<Vec<String>>, Vec<&Execution>> = BTreeMap::new();
            for b in &s.behaviours {
                by_launch
                    .entry(launch_key(&b.execution))
                    .or_default()
                    .push(&b.execution);
            }
            launches += by_launch.len();
            for b in &t.behaviours {
                let te = &b.execution;
                target_behaviours += 1;
                let sources = by_launch
                    .get(&launch_key(te))
                    .map_or(&[][..], Vec::as_slice);
                if sources.iter().any(|e| has_ub(e)) {
                    continue; // the source's UB allows anything
                }
                let tobs = project(tgt, te, observe);
                let mut unsure = !s.complete || sources.iter().any(|e| is_cut(e));
                let matched = sources.iter().any(|e| {
                    if !same_observation(&project(src, e, observe), &tobs) {
                        return false;
                    }
                    match same_memory(e, te) {
                        Some(same) => same,
                        None => {
                            unsure = true;
                            false
                        }
                    }
                });
                if matched {
                    continue;
                }
                if is_cut(te) {
                    // R-PREFIX: a target thread cut by the bound is compared
                    // by its prefix (a source execution cut alike, with the
                    // same events, matches it), but the interpreter cannot
                    // show that it never ends, so a miss is no verdict.
                    return Tested::NotTested(format!(
                        "a target behaviour at {n} threads with a thread cut by the step bound \
                         is not matched by the source; the interpreter cannot show that the \
                         thread never ends, so this is not a counterexample"
                    ));
                }
                if unsure || sources.is_empty() {
                    return Tested::NotTested(format!(
                        "a target behaviour at {n} threads is not matched, but the source's \
                         exploration is incomplete or cut ({} executions), so this is not a \
                         counterexample",
                        s.explored
                    ));
                }
                let inputs: Vec<String> = te
                    .inputs
                    .iter()
                    .map(|(p, vs)| {
                        let vs: Vec<String> = vs.iter().map(Val::to_string).collect();
                        format!("%{p} = [{}]", vs.join(", "))
                    })
                    .collect();
                let mut text = format!(
                    "counterexample found by the reference interpreter (bounded testing: the \
                     refinement encoding cannot express this function)\n\
                     launch: {n} threads; {}; buffers {}\n\
                     target: {}; memory {}\n\
                     no source execution on this launch shows it ({} source behaviour(s), \
                     exploration complete):\n",
                    if inputs.is_empty() {
                        "no arguments".to_string()
                    } else {
                        inputs.join(", ")
                    },
                    if round == 0 {
                        "zero-filled"
                    } else {
                        "filled with (i*37+11) mod 256"
                    },
                    show_ends(te),
                    show_memory(te),
                    sources.len()
                );
                for e in sources.iter().take(4) {
                    text.push_str(&format!(
                        "  source: {}; memory {}\n",
                        show_ends(e),
                        show_memory(e)
                    ));
                }
                return Tested::Counterexample(text);
            }
        }
    }
    Tested::NoDifference {
        launches,
        target_behaviours,
        bounds: format!(
            "threads {:?}, kernel arguments over the interpreter's domain {{0, 1, 2}}, \
             buffers of {BUFFER_BYTES} bytes zero-filled and patterned",
            opts.threads
        ),
    }
}
