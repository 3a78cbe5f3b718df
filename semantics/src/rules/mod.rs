//! Static rules S-* of `../shared/SEMANTICS.md` §3: the verifier.
//!
//! Checklist (one function per rule, in this order; grep the ID):
//!
//! | rule            | function                          | file         |
//! |-----------------|-----------------------------------|--------------|
//! | P-PROG (SSA)    | [`ssa::p_prog_ssa`], [`ssa::p_prog_signature`] | ssa.rs |
//! | S-TOKEN         | [`local::s_token`]                | local.rs     |
//! | S-ENTRY-FUNC    | [`local::s_entry_func`]           | local.rs     |
//! | S-ENTRY-PLACE   | [`local::s_entry_place`]          | local.rs     |
//! | S-ENTRY-BUNDLE  | [`local::s_entry_bundle`]         | local.rs     |
//! | S-ANCHOR-BUNDLE | [`local::s_anchor_bundle`]        | local.rs     |
//! | S-LOOP-BUNDLE   | [`local::s_loop_bundle`]          | local.rs     |
//! | S-LOOP-PLACE    | [`local::s_loop_place`]           | local.rs     |
//! | S-MIX           | [`local::s_mix`]                  | local.rs     |
//! | S-CYCLE-1..4    | [`cycles::s_cycle_1`] .. [`cycles::s_cycle_4`], oracle [`cycles::closed_paths`] | cycles.rs |
//! | S-REGION        | [`region::s_region`]              | region.rs    |
//!
//! Two modes ([`Options::llvm_compatible`]): the default follows the
//! documents (ConvergentOperations.rst, LangRef) and reports every violation
//! of every rule; the LLVM mode ([`llvm`]) replays LLVM 22's
//! `Verifier.cpp` + `GenericConvergenceVerifierImpl.h` (reimplemented, not
//! copied): the same checks, in the same order, stopping where LLVM stops,
//! so that its output can be compared with `opt-22 -passes=verify` message
//! by message (rule S-LLVM). Where the two disagree see `proofs/FINDINGS.md`.

pub mod cycles;
pub mod facts;
pub mod llvm;
pub mod local;
pub mod print;
pub mod region;
pub mod render;
pub mod ssa;

use std::fmt;

use serde::Serialize;

use crate::ir::{BlockId, Function, Module};

pub use facts::{CtrlKind, FnFacts};
pub use render::{render_json, render_text};

/// Options of [`verify_module`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Follow LLVM 22 exactly (which defects it checks, the order and
    /// number of its messages) instead of the documents.
    pub llvm_compatible: bool,
    /// Check S-CYCLE-1..4 by brute force over every closed path of at most
    /// this many edges instead of over the cycles of LLVM's cycle hierarchy
    /// (the oracle for MC-03 / S-CYCLE-SUFF). Ignored in LLVM mode.
    pub closed_paths: Option<usize>,
}

/// Rule identifiers of SEMANTICS.md §1/§3 that the verifier reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum RuleId {
    /// P-PROG: well-formed IR the rules rely on (SSA dominance, token types
    /// only on intrinsics, entry block without predecessors).
    #[serde(rename = "P-PROG")]
    PProg,
    #[serde(rename = "S-TOKEN")]
    SToken,
    #[serde(rename = "S-ENTRY-FUNC")]
    SEntryFunc,
    #[serde(rename = "S-ENTRY-PLACE")]
    SEntryPlace,
    #[serde(rename = "S-ENTRY-BUNDLE")]
    SEntryBundle,
    #[serde(rename = "S-ANCHOR-BUNDLE")]
    SAnchorBundle,
    #[serde(rename = "S-LOOP-BUNDLE")]
    SLoopBundle,
    #[serde(rename = "S-LOOP-PLACE")]
    SLoopPlace,
    #[serde(rename = "S-MIX")]
    SMix,
    #[serde(rename = "S-CYCLE-1")]
    SCycle1,
    #[serde(rename = "S-CYCLE-2")]
    SCycle2,
    #[serde(rename = "S-CYCLE-3")]
    SCycle3,
    #[serde(rename = "S-CYCLE-4")]
    SCycle4,
    #[serde(rename = "S-REGION")]
    SRegion,
}

impl RuleId {
    pub fn as_str(self) -> &'static str {
        match self {
            RuleId::PProg => "P-PROG",
            RuleId::SToken => "S-TOKEN",
            RuleId::SEntryFunc => "S-ENTRY-FUNC",
            RuleId::SEntryPlace => "S-ENTRY-PLACE",
            RuleId::SEntryBundle => "S-ENTRY-BUNDLE",
            RuleId::SAnchorBundle => "S-ANCHOR-BUNDLE",
            RuleId::SLoopBundle => "S-LOOP-BUNDLE",
            RuleId::SLoopPlace => "S-LOOP-PLACE",
            RuleId::SMix => "S-MIX",
            RuleId::SCycle1 => "S-CYCLE-1",
            RuleId::SCycle2 => "S-CYCLE-2",
            RuleId::SCycle3 => "S-CYCLE-3",
            RuleId::SCycle4 => "S-CYCLE-4",
            RuleId::SRegion => "S-REGION",
        }
    }
}

impl RuleId {
    /// Every rule the verifier reports.
    pub const ALL: [RuleId; 14] = [
        RuleId::PProg,
        RuleId::SToken,
        RuleId::SEntryFunc,
        RuleId::SEntryPlace,
        RuleId::SEntryBundle,
        RuleId::SAnchorBundle,
        RuleId::SLoopBundle,
        RuleId::SLoopPlace,
        RuleId::SMix,
        RuleId::SCycle1,
        RuleId::SCycle2,
        RuleId::SCycle3,
        RuleId::SCycle4,
        RuleId::SRegion,
    ];
}

/// A rule ID the verifier does not report.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown rule ID `{0}`")]
pub struct UnknownRule(pub String);

impl std::str::FromStr for RuleId {
    type Err = UnknownRule;
    /// The ID as SEMANTICS.md spells it (`S-CYCLE-1`), case-insensitive.
    fn from_str(s: &str) -> Result<RuleId, UnknownRule> {
        RuleId::ALL
            .into_iter()
            .find(|r| r.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| UnknownRule(s.to_string()))
    }
}

impl fmt::Display for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a [`Site`] is in a violation (STYLE 6: every site involved).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// The offending instruction.
    Offender,
    /// A use of a token.
    Use,
    /// The definition of the token used.
    Definition,
    /// The earlier instruction that makes this one wrong (a preceding
    /// convergent operation, the first `entry`, the other heart, the
    /// controlled operation that forbids uncontrolled ones).
    Earlier,
    /// A block the heart / use fails to dominate.
    NotDominated,
    /// The header of the cycle involved.
    CycleHeader,
}

/// One program point involved in a violation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Site {
    pub role: Role,
    /// Block name as LLVM prints it (`entry`, `7`).
    pub block: String,
    /// Instruction index in the block; `None` for a whole block; the
    /// terminator has index `insts.len()`.
    pub inst: Option<usize>,
    /// The instruction (or block label) printed as LLVM prints it.
    pub text: String,
    /// `line:col` in the source file, when known.
    pub line: u32,
    pub col: u32,
}

/// One violated rule at one place (STYLE 5).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Violation {
    pub rule: RuleId,
    /// The function, without `@`.
    pub function: String,
    /// The block and instruction the violation is reported at.
    pub block: String,
    pub inst: Option<usize>,
    /// Our explanation, in terms of the rule.
    pub message: String,
    /// The message LLVM 22's verifier prints for the same defect, when it
    /// has one.
    pub llvm_message: Option<String>,
    /// The lines LLVM prints after its message (instructions, `label %B`,
    /// the cycle), so the text output can be compared line for line.
    pub llvm_lines: Vec<String>,
    /// Every site involved.
    pub sites: Vec<Site>,
    /// The cycle involved (`depth=1: entries(B) C`), for S-CYCLE-*.
    pub cycle: Option<String>,
}

/// The verdict of [`verify_module`] on one module.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    pub violations: Vec<Violation>,
}

impl Report {
    pub fn is_valid(&self) -> bool {
        self.violations.is_empty()
    }
    /// The distinct rules violated.
    pub fn rules(&self) -> Vec<RuleId> {
        let mut r: Vec<RuleId> = self.violations.iter().map(|v| v.rule).collect();
        r.sort();
        r.dedup();
        r
    }
}

/// Checks every function of `m` against the static rules and reports every
/// violation (rule S-LLVM: each with its rule ID and LLVM's message).
pub fn verify_module(m: &Module, opts: &Options) -> Report {
    let mut violations = Vec::new();
    if opts.llvm_compatible {
        if let Some(v) = llvm::parse_time_error(m) {
            return Report {
                violations: vec![v],
            };
        }
    }
    for f in &m.functions {
        if opts.llvm_compatible {
            llvm::verify_function(m, f, &mut violations);
        } else {
            verify_function_doc(m, f, opts, &mut violations);
        }
    }
    Report { violations }
}

/// The document-following verifier on one function: every rule, every
/// violation, sorted by place.
fn verify_function_doc(m: &Module, f: &Function, opts: &Options, out: &mut Vec<Violation>) {
    let mut v = Vec::new();
    ssa::p_prog_signature(m, f, &mut v);
    if !f.is_definition || f.blocks.is_empty() {
        out.extend(v);
        return;
    }
    let facts = FnFacts::new(m, f, false);
    ssa::p_prog_ssa(&facts, &mut v);
    local::s_token(&facts, &mut v);
    local::s_entry_func(&facts, &mut v);
    local::s_entry_place(&facts, &mut v);
    local::s_entry_bundle(&facts, &mut v);
    local::s_anchor_bundle(&facts, &mut v);
    local::s_loop_bundle(&facts, &mut v);
    local::s_loop_place(&facts, &mut v);
    local::s_mix(&facts, &mut v);
    match opts.closed_paths {
        None => {
            cycles::s_cycle_1(&facts, &mut v);
            cycles::s_cycle_2(&facts, &mut v);
            cycles::s_cycle_3(&facts, &mut v);
            cycles::s_cycle_4(&facts, &mut v);
        }
        Some(n) => cycles::closed_paths(&facts, n, &mut v),
    }
    region::s_region(&facts, &mut v);
    // Sort by place, then rule; stable so that each rule's own order of
    // sites is kept.
    v.sort_by_key(|x| {
        (
            block_index(f, &x.block),
            x.inst.unwrap_or(usize::MAX),
            x.rule,
        )
    });
    out.extend(v);
}

fn block_index(f: &Function, name: &str) -> usize {
    f.block_ids()
        .find(|b| f.block_name(*b) == name)
        .map(|b: BlockId| b.0)
        .unwrap_or(usize::MAX)
}

#[cfg(test)]
mod rule_id_tests {
    use super::RuleId;

    #[test]
    fn rule_ids_round_trip_through_text() {
        for r in RuleId::ALL {
            assert_eq!(r.to_string().parse::<RuleId>(), Ok(r));
            assert_eq!(r.as_str().to_lowercase().parse::<RuleId>(), Ok(r));
        }
        assert!("S-CYCLE-5".parse::<RuleId>().is_err());
    }
}
