//! The uniformity analysis checked against the reference interpreter
//! (CLAIMS.md MC-05 and MC-06; STYLE 13: the oracle stays in the tree). One
//! implementation serves the property tests
//! (`semantics/tests/uniformity_interp.rs`) and `convcheck prove`
//! (`checker/src/prove/meta.rs`).
//!
//! MC-05 (rules U-DEF, U-FIX): every value the analysis calls uniform is
//! equal in every pair of converged instances (D-CW: block visits in one
//! converged-with class) of every finished execution the interpreter finds.
//! Values are observed by instrumenting the function at the IR level:
//! before each terminator, one call `@convcheck.observe.iN(iN %v)` per
//! integer value defined in the block. Calls to these unknown
//! non-convergent functions are observable (P-INPUT, R-OBS) and change no
//! value, so the k-th observation of a visit of block B is the value of B's
//! k-th observed definition in that visit. The calls are appended after the
//! existing instructions, so instruction indices (and the analysis verdicts
//! indexed by them) are unchanged.
//!
//! MC-06 (rules U-MCONV, D-HIER): every block the analysis treats as
//! m-converged (outside every cycle it assumes divergent) has the same
//! converged-with relation in every cycle hierarchy the interpreter
//! enumerates ([`crate::machine::dmax::not_m_converged`]).

use std::collections::{BTreeMap, BTreeSet};

use crate::cfg::{Cfg, CycleInfo, DomTree};
use crate::ir::{
    Call, CallArg, Const, Function, Inst, InstKind, Module, Operand, Param, Span, Type, ValueId,
};
use crate::machine::dmax::not_m_converged;
use crate::machine::state::Observation;
use crate::machine::{explore, ArgValues, ChooserMode, Options, Outcome, Val};
use crate::uniformity::analysis::Analysis;
use crate::uniformity::Mode;

/// Prefix of the observation callees the instrumentation adds.
const OBSERVE: &str = "convcheck.observe.i";

/// Counts of what one MC-05 check compared (its non-vacuity evidence).
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct SoundnessCounts {
    /// Finished executions examined.
    pub executions: usize,
    /// Converged pairs of instances of uniform values compared.
    pub uniform_pairs: usize,
    /// Converged pairs of instances of divergent values with unequal values
    /// (the analysis was needed).
    pub divergent_unequal: usize,
}

impl SoundnessCounts {
    /// Adds `o` to `self`.
    pub fn add(&mut self, o: SoundnessCounts) {
        self.executions += o.executions;
        self.uniform_pairs += o.uniform_pairs;
        self.divergent_unequal += o.divergent_unequal;
    }
}

/// What one MC-06 check saw.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct MConvCounts {
    /// The most cycle hierarchies of a function explored (1: reducible).
    pub hierarchies: usize,
    /// Blocks whose converged-with relation differs between hierarchies
    /// (each inside a cycle the analysis assumes divergent).
    pub differing_blocks: usize,
}

/// The launch MC-05 and MC-06 use: `threads` threads, uniform values for
/// kernel and `inreg` integer arguments (U-SOURCE: the analysis calls them
/// uniform), distinct per-thread values for the other integer arguments,
/// exhaustive exploration of at most `max_executions` executions of at
/// most `max_steps` instructions per thread.
pub fn launch(f: &Function, threads: u32, max_steps: u64, max_executions: u64) -> Options {
    let kernel = f.has_kernel_cc();
    let mut args = BTreeMap::new();
    for (i, p) in f.params.iter().enumerate() {
        let (Some(v), Type::Int(_)) = (p.value, &p.ty) else {
            continue;
        };
        let inreg = p.attrs.iter().any(|a| a.name() == Some("inreg"));
        let vals = if kernel || inreg {
            ArgValues::Uniform(3 + i as i128)
        } else {
            ArgValues::PerThread(
                (0..threads)
                    .map(|t| (t as i128) * 5 - 2 + i as i128)
                    .collect(),
            )
        };
        args.insert(f.value(v).name.to_string(), vals);
    }
    Options {
        entry: Some(f.name.clone()),
        threads,
        max_steps,
        max_executions,
        args,
        chooser: ChooserMode::Exhaustive,
        ..Options::default()
    }
}

/// Per-thread step bound of [`prepare`]'s launch.
pub const MAX_STEPS: u64 = 60;
/// Execution budget of [`prepare`]'s launch.
pub const MAX_EXECUTIONS: u64 = 300;

/// Parses `text` and builds the [`launch`] of its function `func` with
/// `threads` threads and the bounds [`MAX_STEPS`], [`MAX_EXECUTIONS`]: the
/// setting the property tests and `convcheck prove` share.
pub fn prepare(text: &str, func: &str, threads: u32) -> Result<(Module, Options), String> {
    let m = crate::parse_module("oracle.ll", text).map_err(|e| format!("parse: {e}"))?;
    let f = m
        .function(func)
        .ok_or_else(|| format!("no function @{func}"))?;
    let opts = launch(f, threads, MAX_STEPS, MAX_EXECUTIONS);
    Ok((m, opts))
}

/// The analysis of function `fi` of `m`: per block and instruction, whether
/// it is divergent, and the blocks inside cycles assumed divergent.
fn analyse(m: &Module, fi: usize, mode: Mode) -> (Vec<Vec<bool>>, BTreeSet<usize>) {
    let f = &m.functions[fi];
    let cfg = Cfg::from_function(f);
    let dt = DomTree::dominators(&cfg);
    let ci = CycleInfo::compute(&cfg);
    let mut a = Analysis::with_mode(m, f, &cfg, &dt, &ci, mode);
    a.run();
    let assumed: BTreeSet<usize> = a
        .assumed_divergent
        .iter()
        .flat_map(|c| ci.cycles[c.0].blocks.iter().map(|b| b.0))
        .collect();
    (a.div_insts.to_vecs(), assumed)
}

fn observe_decl(bits: u32) -> Function {
    Function {
        name: format!("{OBSERVE}{bits}"),
        is_definition: false,
        linkage: vec![],
        cconv: None,
        ret_attrs: vec![],
        ret_ty: Type::Void,
        params: vec![Param {
            ty: Type::Int(bits),
            attrs: vec![],
            value: None,
            decl_name: None,
        }],
        varargs: false,
        unnamed_addr: None,
        fn_attrs: vec![],
        trailer: vec![],
        blocks: vec![],
        values: vec![],
        md: Vec::new(),
        unsupported: None,
        span: Span::default(),
    }
}

/// `m` with function `fi` instrumented (module doc), and per block the
/// observed values in order.
pub fn instrument(m: &Module, fi: usize) -> (Module, Vec<Vec<ValueId>>) {
    let mut out = m.clone();
    let mut widths = BTreeSet::new();
    let f = &mut out.functions[fi];
    let mut observed = Vec::with_capacity(f.blocks.len());
    for bi in 0..f.blocks.len() {
        let mut obs = Vec::new();
        let mut calls = Vec::new();
        for inst in &f.blocks[bi].insts {
            let Some(v) = inst.result else { continue };
            let Type::Int(bits) = f.values[v.0].ty else {
                continue;
            };
            widths.insert(bits);
            obs.push(v);
            calls.push(Inst {
                result: None,
                kind: InstKind::Call(Box::new(Call {
                    tail: None,
                    flags: vec![],
                    cconv: None,
                    ret_attrs: vec![],
                    ty: Type::Void,
                    callee: Operand::constant(Const::Global(format!("{OBSERVE}{bits}"))),
                    args: vec![CallArg {
                        ty: Type::Int(bits),
                        attrs: vec![],
                        value: Operand::Local(v),
                    }],
                    fn_attrs: vec![],
                    bundles: vec![],
                })),
                meta: Default::default(),
                span: Span::default(),
            });
        }
        f.blocks[bi].insts.extend(calls);
        observed.push(obs);
    }
    for bits in widths {
        if out.function(&format!("{OBSERVE}{bits}")).is_none() {
            out.functions.push(observe_decl(bits));
        }
    }
    (out, observed)
}

fn function_index(m: &Module, func: &str) -> Result<usize, String> {
    m.functions
        .iter()
        .position(|f| f.name == func && f.has_body())
        .ok_or_else(|| format!("no definition of @{func}"))
}

/// MC-05 on function `func` of `m` under launch `opts` (see [`launch`]);
/// `Err` describes a violation (value, block, threads, values) or a failure
/// to explore.
pub fn check_soundness(m: &Module, func: &str, opts: &Options) -> Result<SoundnessCounts, String> {
    check_soundness_with(m, func, opts, Mode::Llvm)
}

/// [`check_soundness`] of the analysis in `mode`.
pub fn check_soundness_with(
    m: &Module,
    func: &str,
    opts: &Options,
    mode: Mode,
) -> Result<SoundnessCounts, String> {
    let fi = function_index(m, func)?;
    let (div, _) = analyse(m, fi, mode);
    let (im, observed) = instrument(m, fi);
    let f = &m.functions[fi];
    // The analysis verdict of each observed value.
    let divergent = |v: ValueId| match f.values[v.0].def {
        crate::ir::ValueDef::Inst { block, index } => div[block.0][index as usize],
        crate::ir::ValueDef::Arg(_) => false,
    };
    let ex = explore(&im, opts).map_err(|e| format!("explore: {e}"))?;
    let mut c = SoundnessCounts::default();
    for b in &ex.behaviours {
        let e = &b.execution;
        if e.outcome != Outcome::Finished {
            continue;
        }
        c.executions += 1;
        // Per visit (thread, trace position), the observed values in order.
        let mut at: BTreeMap<(usize, usize), Vec<Val>> = BTreeMap::new();
        for (t, th) in e.threads.iter().enumerate() {
            let mut obs = th.observations.iter().filter_map(|o| match o {
                Observation::Call { callee, args, .. } if callee.starts_with(OBSERVE) => {
                    args.first().cloned()
                }
                _ => None,
            });
            for (p, v) in th.trace.iter().enumerate() {
                // Visits of other functions observe nothing.
                let n = if v.func == fi {
                    observed[v.block.0].len()
                } else {
                    0
                };
                at.insert((t, p), obs.by_ref().take(n).collect());
            }
        }
        for class in e.visit_classes() {
            let (t0, p0) = class[0];
            let visit = &e.threads[t0].trace[p0];
            if visit.func != fi {
                continue;
            }
            let block = visit.block.0;
            for &(t, p) in &class[1..] {
                for (k, &v) in observed[block].iter().enumerate() {
                    let (x, y) = (at[&(t0, p0)].get(k), at[&(t, p)].get(k));
                    if divergent(v) {
                        c.divergent_unequal += usize::from(x != y);
                        continue;
                    }
                    c.uniform_pairs += 1;
                    if x != y {
                        return Err(format!(
                            "MC-05: %{} (block {}) is uniform by the analysis but converged \
                             instances of threads {t0} and {t} have {x:?} and {y:?}",
                            f.values[v.0].name,
                            f.block_name(visit.block)
                        ));
                    }
                }
            }
        }
    }
    Ok(c)
}

/// MC-06 on function `func` of `m` under launch `opts`; `Err` names a block
/// the analysis treats as m-converged whose relation differs between
/// hierarchies.
pub fn check_m_convergence(m: &Module, func: &str, opts: &Options) -> Result<MConvCounts, String> {
    check_m_convergence_with(m, func, opts, Mode::Llvm)
}

/// [`check_m_convergence`] of the analysis in `mode`.
pub fn check_m_convergence_with(
    m: &Module,
    func: &str,
    opts: &Options,
    mode: Mode,
) -> Result<MConvCounts, String> {
    let fi = function_index(m, func)?;
    let (_, claimed) = analyse(m, fi, mode);
    let ex = explore(m, opts).map_err(|e| format!("explore: {e}"))?;
    let observed = not_m_converged(&ex);
    for (g, b) in &observed {
        if *g == fi && !claimed.contains(&b.0) {
            return Err(format!(
                "MC-06: block {} is m-converged by the analysis (no assumed-divergent \
                 cycle contains it) but its converged-with relation differs between \
                 cycle hierarchies",
                m.functions[fi].block_name(*b)
            ));
        }
    }
    Ok(MConvCounts {
        hierarchies: ex.hierarchies.iter().map(|h| h.1).max().unwrap_or(1),
        differing_blocks: observed.len(),
    })
}
