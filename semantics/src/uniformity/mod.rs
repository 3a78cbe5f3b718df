//! Uniformity analysis (SEMANTICS.md §5, rules U-*), reimplementing LLVM 22's
//! GenericUniformityImpl.h with the AMDGPU target's divergence sources, so
//! that [`print_module`] writes exactly what
//! `opt -mtriple=amdgcn-- -passes='print<uniformity>' -disable-output` writes
//! (rule U-LLVM) for a module without a target triple; the module's triple
//! selects NVPTX, SPIR-V or DirectX instead (`sources::target_of`).
//!
//! | rule     | where                                                          |
//! |----------|----------------------------------------------------------------|
//! | U-SOURCE | [`sources`]                                                    |
//! | U-BRANCH | [`sync::join_points`], `Analysis::analyze_control_divergence`  |
//! | U-PHI    | `Analysis::taint_phis`                                         |
//! | U-EXIT   | [`sync::join_points`] (exits), `Analysis::analyze_cycle_exit_divergence` |
//! | U-MCONV  | `Analysis::int_div_cycle` / `ext_div_cycle` (diverged entry criterion) |
//! | U-FIX    | `Analysis::run`                                                |
//! | U-LLVM   | [`render_function`], [`llvm_text`]                             |
//! | U-SOUND  | [`Mode::Sound`] (`Analysis::with_mode`)                          |
//!
//! Work that can change nothing is left out ([`saturation`],
//! [`sync::ExitFilter`]; issue 15), checked against the unpruned analysis
//! in `semantics/tests/uniformity_prune.rs`.
//!
//! [`oracle`] checks the analysis against the interpreter (MC-05, MC-06).

pub mod analysis;
pub mod cfg_facts;
pub mod explain;
pub mod llvm_text;
pub mod oracle;
pub mod saturation;
pub mod sources;
pub mod sync;
pub mod tables;

use std::io::{self, Write};
use std::sync::Arc;

use serde::Serialize;

use crate::cfg::{Cfg, CycleInfo, DomTree};
use crate::ir::print::Style;
use crate::ir::{Attr, Function, Module};
use analysis::{Analysis, InstRef};

/// Which analysis runs.
///
/// Rule U-LLVM: [`Mode::Llvm`] (the default) reproduces LLVM 22 exactly,
/// including its unsound approximations, so its output can be diffed with
/// `opt`. Rule U-SOUND: [`Mode::Sound`] adds divergence where LLVM 22 misses
/// it against the documents' semantics (checked against the interpreter,
/// MC-05 and MC-06): temporal divergence of always-uniform values defined in
/// assumed-divergent cycles (F-17), divergent branches inside irreducible
/// cycles (F-23), phis at divergent cycle exits that merge different
/// constants, and `nodivergencesource` calls with divergent arguments. Its
/// verdicts only add `DIVERGENT` to the LLVM-compatible ones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    #[default]
    Llvm,
    Sound,
}

/// The verdict on one instruction or terminator.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InstVerdict {
    /// The instruction as LLVM prints it (without indentation).
    pub text: String,
    pub divergent: bool,
}

/// The verdicts of one block.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BlockVerdicts {
    pub name: String,
    /// Every non-terminator instruction, in order.
    pub definitions: Vec<InstVerdict>,
    pub terminator: InstVerdict,
}

/// One use of a value defined in a cycle, outside the cycle, after a
/// divergent exit (D-TEMPORAL, U-EXIT).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TemporalDivergence {
    pub value: String,
    pub used_by: String,
    /// The cycle as `print<cycles>` prints it (shared: the list repeats
    /// each cycle once per use, and a cycle's text is as long as the cycle).
    #[serde(serialize_with = "serialize_shared_str")]
    pub cycle: Arc<str>,
}

fn serialize_shared_str<S: serde::Serializer>(s: &Arc<str>, ser: S) -> Result<S::Ok, S::Error> {
    ser.serialize_str(s)
}

/// The analysis result of one function.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FunctionUniformity {
    pub function: String,
    /// False when the target assumes a single lane (everything uniform).
    pub computed: bool,
    /// Divergent arguments as `i32 %a`, in declaration order.
    pub divergent_arguments: Vec<String>,
    /// Cycles made divergent by the diverged entry criterion (U-MCONV).
    pub cycles_assumed_divergent: Vec<String>,
    /// Cycles with a divergent exit (U-EXIT).
    pub cycles_with_divergent_exit: Vec<String>,
    pub temporal_divergence: Vec<TemporalDivergence>,
    pub blocks: Vec<BlockVerdicts>,
}

impl FunctionUniformity {
    /// Whether anything is divergent (otherwise LLVM prints
    /// `ALL VALUES UNIFORM`).
    pub fn found_divergence(&self) -> bool {
        !self.divergent_arguments.is_empty()
            || !self.cycles_assumed_divergent.is_empty()
            || !self.cycles_with_divergent_exit.is_empty()
            || !self.temporal_divergence.is_empty()
            || self
                .blocks
                .iter()
                .any(|b| b.terminator.divergent || b.definitions.iter().any(|d| d.divergent))
    }
}

/// `GCNTTIImpl::hasBranchDivergence`: false for functions that run a single
/// lane (`"amdgpu-flat-work-group-size"="1,1"`).
fn has_branch_divergence(m: &Module, f: &Function) -> bool {
    // LLVM 22's SPIR-V and DirectX TTIs report no branch divergence: opt
    // prints ALL VALUES UNIFORM for every function of those triples.
    if matches!(
        sources::target_of(m),
        crate::intrinsics::Target::Spirv | crate::intrinsics::Target::DirectX
    ) {
        return false;
    }
    !m.expand_attrs(&f.fn_attrs).iter().any(|a| {
        matches!(a, Attr::Str { key, value: Some(v) }
            if key == "amdgpu-flat-work-group-size" && v.replace(' ', "") == "1,1")
    })
}

/// Runs the LLVM-compatible analysis on one defined function of `m`.
pub fn analyze_function(m: &Module, f: &Function) -> FunctionUniformity {
    analyze_function_with(m, f, Mode::Llvm)
}

/// Runs the analysis in `mode` on one defined function of `m`.
pub fn analyze_function_with(m: &Module, f: &Function, mode: Mode) -> FunctionUniformity {
    let (mut u, v) = analyze_parts(m, f, mode);
    u.blocks = f
        .block_ids()
        .map(|b| {
            let blk = f.block(b);
            BlockVerdicts {
                name: llvm_text::block_name(blk),
                definitions: blk
                    .insts
                    .iter()
                    .zip(&v.insts[b.0])
                    .map(|(inst, &divergent)| InstVerdict {
                        text: Style::Llvm.inst(f, inst),
                        divergent,
                    })
                    .collect(),
                terminator: InstVerdict {
                    text: Style::Llvm.term(f, &blk.term),
                    divergent: v.terms[b.0],
                },
            }
        })
        .collect();
    u
}

/// The per-instruction verdicts of a function, without their text.
struct Verdicts {
    /// Per block, per non-terminator instruction.
    insts: tables::PerInst<bool>,
    /// Per block, its terminator.
    terms: Vec<bool>,
}

impl Verdicts {
    fn any(&self) -> bool {
        self.terms.iter().any(|&d| d) || self.insts.iter().flatten().any(|&d| d)
    }
}

/// The analysis of `f`: everything but the block listing (`blocks` is
/// empty), and the verdicts the listing is made of. The analysis' own
/// tables are dropped on return.
fn analyze_parts(m: &Module, f: &Function, mode: Mode) -> (FunctionUniformity, Verdicts) {
    // The block names are made after the analysis, for the report.
    let mut cfg = Cfg::from_function_unnamed(f);
    let dt = DomTree::dominators(&cfg);
    let ci = CycleInfo::compute(&cfg);
    // Only the dominator and cycle computations read the predecessors
    // (about 16 bytes a block).
    cfg.preds = Default::default();
    let computed = has_branch_divergence(m, f);
    let mut a = Analysis::with_mode_no_reasons(m, f, &cfg, &dt, &ci, mode);
    if computed {
        a.run();
    } else {
        a.div_args.iter_mut().for_each(|d| *d = false);
        a.div_insts.fill(false);
    }
    // Only the results are kept: the analysis' tables and the dominator
    // tree go before the texts are made (memory on long functions).
    let v = Verdicts {
        insts: std::mem::take(&mut a.div_insts),
        terms: std::mem::take(&mut a.div_term),
    };
    let div_args = std::mem::take(&mut a.div_args);
    let assumed_divergent = std::mem::take(&mut a.assumed_divergent);
    let divergent_exit_cycles = std::mem::take(&mut a.divergent_exit_cycles);
    let temporal = std::mem::take(&mut a.temporal);
    drop(a);
    drop(dt);
    cfg.names = crate::cfg::Names::of_blocks(f);
    let text_of = |r: InstRef| -> String {
        let b = f.block(r.block);
        if r.index == b.insts.len() {
            Style::Llvm.term(f, &b.term)
        } else {
            Style::Llvm.inst(f, &b.insts[r.index])
        }
    };
    // One text per cycle: the temporal-divergence list repeats cycles.
    let mut cycle_texts: Vec<Option<Arc<str>>> = vec![None; ci.cycles.len()];
    let mut cycle_text = |c: crate::cfg::CycleId| -> Arc<str> {
        cycle_texts[c.0]
            .get_or_insert_with(|| cfg_facts::print_cycle(&ci, &cfg, c).into())
            .clone()
    };
    let u = FunctionUniformity {
        function: f.name.clone(),
        computed,
        divergent_arguments: (0..f.params.len())
            .filter(|&i| div_args[i])
            .map(|i| llvm_text::argument(f, i))
            .collect(),
        cycles_assumed_divergent: assumed_divergent
            .iter()
            .map(|&c| cycle_text(c).to_string())
            .collect(),
        cycles_with_divergent_exit: divergent_exit_cycles
            .iter()
            .map(|&c| cycle_text(c).to_string())
            .collect(),
        temporal_divergence: temporal
            .iter()
            .map(|&(d, u, c)| TemporalDivergence {
                value: text_of(d),
                used_by: text_of(u),
                cycle: cycle_text(c),
            })
            .collect(),
        blocks: Vec::new(),
    };
    (u, v)
}

/// Every defined function of the module, in order (as `opt` visits them).
pub fn analyze_module(m: &Module) -> Vec<FunctionUniformity> {
    analyze_module_with(m, Mode::Llvm)
}

/// [`analyze_module`] in `mode`.
pub fn analyze_module_with(m: &Module, mode: Mode) -> Vec<FunctionUniformity> {
    m.functions
        .iter()
        .filter(|f| f.has_body())
        .map(|f| analyze_function_with(m, f, mode))
        .collect()
}

/// Rule U-LLVM: the text `print<uniformity>` writes for one function.
pub fn render_function(u: &FunctionUniformity) -> String {
    let mut out = Vec::new();
    write_function(&mut out, u).expect("writing to a Vec<u8> cannot fail");
    String::from_utf8(out).expect("the report is built from UTF-8 strings")
}

/// Rule U-LLVM: writes what `print<uniformity>` writes for one function to
/// `w`, piece by piece (the text can be far larger than the function: each
/// temporal-divergence entry prints its whole cycle).
pub fn write_function<W: Write>(w: &mut W, u: &FunctionUniformity) -> io::Result<()> {
    if !write_head(w, u, u.found_divergence())? {
        return Ok(());
    }
    for b in &u.blocks {
        write_block(
            w,
            &b.name,
            b.definitions.iter().map(|d| (d.divergent, d.text.as_str())),
            (b.terminator.divergent, &b.terminator.text),
        )?;
    }
    Ok(())
}

/// [`write_function`] of `analyze_function_with(m, f, mode)`, with each
/// instruction's text made as it is written rather than kept for the whole
/// function (memory on functions of a million blocks).
fn write_analyzed<W: Write>(
    w: &mut W,
    f: &Function,
    u: &FunctionUniformity,
    v: &Verdicts,
) -> io::Result<()> {
    if !write_head(w, u, u.found_divergence() || v.any())? {
        return Ok(());
    }
    for b in f.block_ids() {
        let blk = f.block(b);
        write_block(
            w,
            &llvm_text::block_name(blk),
            blk.insts
                .iter()
                .zip(&v.insts[b.0])
                .map(|(inst, &d)| (d, Style::Llvm.inst(f, inst))),
            (v.terms[b.0], &Style::Llvm.term(f, &blk.term)),
        )?;
    }
    Ok(())
}

/// The report up to the block listing; false when LLVM prints nothing more
/// (`divergent`: whether anything in the function is divergent).
fn write_head<W: Write>(w: &mut W, u: &FunctionUniformity, divergent: bool) -> io::Result<bool> {
    writeln!(w, "UniformityInfo for function '{}':", u.function)?;
    // LLVM 22 prints only this line when nothing is divergent.
    if !divergent {
        w.write_all(b"ALL VALUES UNIFORM\n")?;
        return Ok(false);
    }
    if !u.divergent_arguments.is_empty() {
        w.write_all(b"DIVERGENT ARGUMENTS:\n")?;
        for a in &u.divergent_arguments {
            writeln!(w, "  DIVERGENT: {a}")?;
        }
    }
    if !u.cycles_assumed_divergent.is_empty() {
        w.write_all(b"CYCLES ASSUMED DIVERGENT:\n")?;
        for c in &u.cycles_assumed_divergent {
            writeln!(w, "  {c}")?;
        }
    }
    if !u.cycles_with_divergent_exit.is_empty() {
        w.write_all(b"CYCLES WITH DIVERGENT EXIT:\n")?;
        for c in &u.cycles_with_divergent_exit {
            writeln!(w, "  {c}")?;
        }
    }
    if !u.temporal_divergence.is_empty() {
        w.write_all(b"\nTEMPORAL DIVERGENCE LIST:\n")?;
        for t in &u.temporal_divergence {
            write!(
                w,
                "Value         :  {}\nUsed by       :  {}\nOutside cycle :{}\n\n",
                t.value, t.used_by, t.cycle
            )?;
        }
    }
    Ok(true)
}

/// One `BLOCK ... END BLOCK` entry: the definitions' and the terminator's
/// verdicts and texts.
fn write_block<W: Write, S: AsRef<str>>(
    w: &mut W,
    name: &str,
    definitions: impl Iterator<Item = (bool, S)>,
    (term_divergent, term): (bool, &str),
) -> io::Result<()> {
    write!(w, "\nBLOCK {name}\nDEFINITIONS\n")?;
    for (divergent, text) in definitions {
        writeln!(w, "{}  {}", verdict_mark(divergent), text.as_ref())?;
    }
    w.write_all(b"TERMINATORS\n")?;
    writeln!(w, "{}  {term}", verdict_mark(term_divergent))?;
    w.write_all(b"END BLOCK\n")
}

/// The column before an instruction in LLVM's block listing.
fn verdict_mark(divergent: bool) -> &'static str {
    if divergent {
        "  DIVERGENT: "
    } else {
        "             "
    }
}

/// Rule U-LLVM: the whole `print<uniformity>` output for a module.
pub fn print_module(m: &Module) -> String {
    print_module_with(m, Mode::Llvm)
}

/// The `print<uniformity>` text of the analysis in `mode`.
pub fn print_module_with(m: &Module, mode: Mode) -> String {
    let mut out = Vec::new();
    write_module_with(&mut out, m, mode).expect("writing to a Vec<u8> cannot fail");
    String::from_utf8(out).expect("the report is built from UTF-8 strings")
}

/// [`print_module_with`] written to `w` one function at a time, each
/// dropped once written (use a buffered writer).
pub fn write_module_with<W: Write>(w: &mut W, m: &Module, mode: Mode) -> io::Result<()> {
    for f in m.functions.iter().filter(|f| f.has_body()) {
        let (u, v) = analyze_parts(m, f, mode);
        write_analyzed(w, f, &u, &v)?;
    }
    Ok(())
}

/// The result as JSON (one object per defined function).
pub fn to_json(m: &Module) -> serde_json::Value {
    serde_json::to_value(analyze_module(m)).unwrap_or(serde_json::Value::Null)
}
