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
//! [`oracle`] checks the analysis against the interpreter (MC-05, MC-06).

pub mod analysis;
pub mod cfg_facts;
pub mod explain;
pub mod llvm_text;
pub mod oracle;
pub mod sources;
pub mod sync;

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
    let cfg = Cfg::from_function(f);
    let dt = DomTree::dominators(&cfg);
    let ci = CycleInfo::compute(&cfg);
    let computed = has_branch_divergence(m, f);
    let mut a = Analysis::with_mode(m, f, &cfg, &dt, &ci, mode);
    if computed {
        a.run();
    } else {
        a.div_args.iter_mut().for_each(|d| *d = false);
        a.div_insts
            .iter_mut()
            .for_each(|b| b.iter_mut().for_each(|d| *d = false));
    }
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
    FunctionUniformity {
        function: f.name.clone(),
        computed,
        divergent_arguments: (0..f.params.len())
            .filter(|&i| a.div_args[i])
            .map(|i| llvm_text::argument(f, i))
            .collect(),
        cycles_assumed_divergent: a
            .assumed_divergent
            .iter()
            .map(|&c| cycle_text(c).to_string())
            .collect(),
        cycles_with_divergent_exit: a
            .divergent_exit_cycles
            .iter()
            .map(|&c| cycle_text(c).to_string())
            .collect(),
        temporal_divergence: a
            .temporal
            .iter()
            .map(|&(d, u, c)| TemporalDivergence {
                value: text_of(d),
                used_by: text_of(u),
                cycle: cycle_text(c),
            })
            .collect(),
        blocks: f
            .block_ids()
            .map(|b| {
                let blk = f.block(b);
                BlockVerdicts {
                    name: llvm_text::block_name(blk),
                    definitions: blk
                        .insts
                        .iter()
                        .enumerate()
                        .map(|(i, inst)| InstVerdict {
                            text: Style::Llvm.inst(f, inst),
                            divergent: a.div_insts[b.0][i],
                        })
                        .collect(),
                    terminator: InstVerdict {
                        text: Style::Llvm.term(f, &blk.term),
                        divergent: a.div_term[b.0],
                    },
                }
            })
            .collect(),
    }
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
    writeln!(w, "UniformityInfo for function '{}':", u.function)?;
    // LLVM 22 prints only this line when nothing is divergent.
    if !u.found_divergence() {
        return w.write_all(b"ALL VALUES UNIFORM\n");
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
    for b in &u.blocks {
        write!(w, "\nBLOCK {}\nDEFINITIONS\n", b.name)?;
        for d in &b.definitions {
            writeln!(w, "{}  {}", verdict_mark(d.divergent), d.text)?;
        }
        w.write_all(b"TERMINATORS\n")?;
        writeln!(
            w,
            "{}  {}",
            verdict_mark(b.terminator.divergent),
            b.terminator.text
        )?;
        w.write_all(b"END BLOCK\n")?;
    }
    Ok(())
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
        write_function(w, &analyze_function_with(m, f, mode))?;
    }
    Ok(())
}

/// The result as JSON (one object per defined function).
pub fn to_json(m: &Module) -> serde_json::Value {
    serde_json::to_value(analyze_module(m)).unwrap_or(serde_json::Value::Null)
}
