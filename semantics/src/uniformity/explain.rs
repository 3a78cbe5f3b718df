//! `convcheck uniformity --explain VALUE`: why a value is divergent, as the
//! chain of reasons the analysis recorded when it first marked each link
//! ([`Reason`]): from a divergence source (U-SOURCE) through data
//! dependence (U-FIX), sync dependence at the join of a divergent branch
//! (U-PHI), a cycle assumed divergent by the diverged entry criterion
//! (U-MCONV), or temporal divergence after a divergent cycle exit (U-EXIT,
//! D-TEMPORAL). The chain is the analysis' own derivation, so it explains
//! exactly the verdict `print<uniformity>` prints (LLVM-compatible mode).

use super::analysis::{Analysis, InstRef, Reason};
use super::{cfg_facts, has_branch_divergence, llvm_text, Mode};
use crate::cfg::{Cfg, CycleInfo, DomTree};
use crate::ir::print::Style;
use crate::ir::{Function, Module, Name, ValueDef, ValueId};

/// The answer for one value.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Explanation {
    /// `%x` in `@f`.
    pub value: String,
    pub divergent: bool,
    /// One line per link, from the value back to its divergence source.
    pub chain: Vec<String>,
}

/// The value named `name` (`%x`, `x`, `%5`) in `f`.
pub fn find_value(f: &Function, name: &str) -> Option<ValueId> {
    let bare = name.strip_prefix('%').unwrap_or(name);
    f.values
        .iter()
        .position(|v| match &v.name {
            Name::Named(s) => s == bare,
            Name::Numbered(n) => n.to_string() == bare,
        })
        .map(ValueId)
}

/// Explains value `v` of the defined function `f` of `m` (LLVM-compatible
/// analysis).
pub fn explain(m: &Module, f: &Function, v: ValueId) -> Explanation {
    explain_with(m, f, v, Mode::Llvm)
}

/// Explains value `v` under the analysis in `mode`.
pub fn explain_with(m: &Module, f: &Function, v: ValueId, mode: Mode) -> Explanation {
    let cfg = Cfg::from_function(f);
    let dt = DomTree::dominators(&cfg);
    let ci = CycleInfo::compute(&cfg);
    let mut a = Analysis::with_mode(m, f, &cfg, &dt, &ci, mode);
    let value = format!("%{} in @{}", f.value(v).name, f.name);
    if !has_branch_divergence(m, f) {
        return Explanation {
            value,
            divergent: false,
            chain: vec!["the function runs a single lane (\"amdgpu-flat-work-group-size\"=\"1,1\"): everything is uniform".into()],
        };
    }
    a.run();
    let divergent = a.is_divergent_value(v);
    let mut chain = Vec::new();
    if divergent {
        let start = match f.value(v).def {
            ValueDef::Arg(i) => Link::Arg(i),
            ValueDef::Inst { block, index } => Link::Inst(InstRef {
                block,
                index: index as usize,
            }),
        };
        walk(&a, f, &cfg, &ci, start, &mut chain);
    }
    Explanation {
        value,
        divergent,
        chain,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Link {
    Arg(usize),
    Inst(InstRef),
}

fn walk(a: &Analysis, f: &Function, cfg: &Cfg, ci: &CycleInfo, start: Link, out: &mut Vec<String>) {
    let text = |r: InstRef| -> String {
        let b = f.block(r.block);
        if r.index == b.insts.len() {
            format!(
                "`{}` (terminator of %{})",
                Style::Llvm.term(f, &b.term),
                b.name
            )
        } else {
            format!(
                "`{}` (in %{})",
                Style::Llvm.inst(f, &b.insts[r.index]),
                b.name
            )
        }
    };
    let cycle = |c| format!("cycle `{}`", cfg_facts::print_cycle(ci, cfg, c));
    let term_of = |b: crate::ir::BlockId| InstRef {
        block: b,
        index: f.block(b).insts.len(),
    };
    let def_of = |v: ValueId| match f.value(v).def {
        ValueDef::Arg(i) => Link::Arg(i),
        ValueDef::Inst { block, index } => Link::Inst(InstRef {
            block,
            index: index as usize,
        }),
    };
    let mut seen: Vec<Link> = Vec::new();
    let mut cur = start;
    loop {
        if seen.contains(&cur) {
            out.push("(the chain repeats a link: stopping)".into());
            return;
        }
        seen.push(cur);
        let r = match cur {
            Link::Arg(i) => {
                out.push(format!(
                    "argument `{}` is divergent: a divergence source (U-SOURCE: an argument of a non-kernel function without `inreg`)",
                    llvm_text::argument(f, i)
                ));
                return;
            }
            Link::Inst(r) => r,
        };
        let Some(reason) = a.reason(r) else {
            out.push(format!("{} is divergent (no recorded reason)", text(r)));
            return;
        };
        cur = match reason {
            Reason::Source => {
                out.push(format!("{} is a divergence source (U-SOURCE)", text(r)));
                return;
            }
            Reason::Operand(v) => {
                out.push(format!(
                    "{} reads the divergent value %{} (data dependence, U-FIX)",
                    text(r),
                    f.value(v).name
                ));
                def_of(v)
            }
            Reason::Join { branch, join } => {
                out.push(format!(
                    "{} is a phi at %{}, where disjoint paths from the divergent branch in %{} join (sync dependence, U-BRANCH/U-PHI)",
                    text(r),
                    f.block(join).name,
                    f.block(branch).name
                ));
                term_of(branch).into()
            }
            Reason::IrreducibleRegion { cycle: c, branch } => {
                out.push(format!(
                    "{} is defined in {}, an irreducible cycle assumed divergent because the divergent branch in %{} lies inside it: its diverged paths may meet at the branch or at another entry, where the cycle hierarchies disagree (--sound, U-SOUND)",
                    text(r),
                    cycle(c),
                    f.block(branch).name,
                ));
                term_of(branch).into()
            }
            Reason::AssumedCycle {
                cycle: c,
                branch,
                join,
            } => {
                out.push(format!(
                    "{} is defined in {}, assumed divergent because the divergent branch in %{} joins at %{} inside it and the diverged paths may enter it through another entry (diverged entry criterion, U-MCONV)",
                    text(r),
                    cycle(c),
                    f.block(branch).name,
                    f.block(join).name
                ));
                term_of(branch).into()
            }
            Reason::ExitPhi { cycle: c, branch } => {
                out.push(format!(
                    "{} is a phi at an exit of {} reading a value from the cycle, which threads leave in different iterations through the divergent branch in %{} (divergent exit, U-EXIT)",
                    text(r),
                    cycle(c),
                    f.block(branch).name
                ));
                term_of(branch).into()
            }
            Reason::Temporal {
                def,
                cycle: c,
                branch,
            } => {
                out.push(format!(
                    "{} uses {}, defined in {}, outside the cycle after its divergent exit through the branch in %{}: threads read it from different iterations (temporal divergence, U-EXIT/D-TEMPORAL)",
                    text(r),
                    text(def),
                    cycle(c),
                    f.block(branch).name
                ));
                term_of(branch).into()
            }
        };
    }
}

impl From<InstRef> for Link {
    fn from(r: InstRef) -> Link {
        Link::Inst(r)
    }
}
