//! Rule P-PROG facts the static rules rely on: SSA (every use is dominated
//! by its definition, with LLVM's conventions for phis and unreachable
//! code) and the token-type restrictions of LangRef (only intrinsics take
//! or return `token`; the entry block has no predecessors).

use crate::ir::{BlockId, Function, InstKind, Module, Operand, TermKind, Type, ValueId};

use super::facts::FnFacts;
use super::print::print_local_name;
use super::{Role, RuleId, Violation};

pub const MSG_DOMINATE: &str = "Instruction does not dominate all uses!";
pub const MSG_SELF_REF: &str = "Only PHI nodes may reference their own value!";
pub const MSG_TAKES_TOKEN: &str = "Function takes token but isn't an intrinsic";
pub const MSG_RETURNS_TOKEN: &str = "Function returns a token but isn't an intrinsic";
pub const MSG_ENTRY_PREDS: &str = "Entry block to function must not have predecessors!";

/// One operand of an instruction that is a local instruction result, with
/// the incoming block when the user is a phi.
#[derive(Clone, Copy, Debug)]
pub struct LocalUse {
    pub value: ValueId,
    pub phi_incoming: Option<BlockId>,
}

/// The local operands of instruction `i` of block `b` (the terminator when
/// `i == insts.len()`), in LLVM's operand order: call arguments, then
/// bundle operands, then the callee.
pub fn local_operands(f: &Function, b: BlockId, i: usize) -> Vec<LocalUse> {
    let mut ops: Vec<(&Operand, Option<BlockId>)> = Vec::new();
    let block = f.block(b);
    match block.insts.get(i) {
        Some(inst) => match &inst.kind {
            InstKind::Binary { lhs, rhs, .. }
            | InstKind::ICmp { lhs, rhs, .. }
            | InstKind::FCmp { lhs, rhs, .. } => {
                ops.push((lhs, None));
                ops.push((rhs, None));
            }
            InstKind::FNeg { value, .. } => ops.push((value, None)),
            InstKind::Cast { from, .. } => ops.push((&from.value, None)),
            InstKind::Select {
                cond,
                on_true,
                on_false,
                ..
            } => {
                ops.push((&cond.value, None));
                ops.push((&on_true.value, None));
                ops.push((&on_false.value, None));
            }
            InstKind::Freeze(x) => ops.push((&x.value, None)),
            InstKind::Phi { incoming, .. } => {
                for (v, from) in incoming {
                    ops.push((v, Some(*from)));
                }
            }
            InstKind::Call(c) => {
                for a in &c.args {
                    ops.push((&a.value, None));
                }
                for bd in &c.bundles {
                    for t in &bd.inputs {
                        ops.push((&t.value, None));
                    }
                }
                ops.push((&c.callee, None));
            }
            InstKind::Alloca { count, .. } => {
                if let Some(n) = count {
                    ops.push((&n.value, None));
                }
            }
            InstKind::Load { ptr, .. } => ops.push((&ptr.value, None)),
            InstKind::Store { value, ptr, .. } => {
                ops.push((&value.value, None));
                ops.push((&ptr.value, None));
            }
            InstKind::AtomicRmw { ptr, value, .. } => {
                ops.push((&ptr.value, None));
                ops.push((&value.value, None));
            }
            InstKind::CmpXchg { ptr, cmp, new, .. } => {
                ops.push((&ptr.value, None));
                ops.push((&cmp.value, None));
                ops.push((&new.value, None));
            }
            InstKind::Gep { base, indices, .. } => {
                ops.push((&base.value, None));
                for x in indices {
                    ops.push((&x.value, None));
                }
            }
            InstKind::ExtractValue { agg, .. } => ops.push((&agg.value, None)),
            InstKind::InsertValue { agg, value, .. } => {
                ops.push((&agg.value, None));
                ops.push((&value.value, None));
            }
            InstKind::ExtractElement { vector, index } => {
                ops.push((&vector.value, None));
                ops.push((&index.value, None));
            }
            InstKind::InsertElement {
                vector,
                value,
                index,
            } => {
                ops.push((&vector.value, None));
                ops.push((&value.value, None));
                ops.push((&index.value, None));
            }
            InstKind::ShuffleVector { a, b, mask } => {
                ops.push((&a.value, None));
                ops.push((&b.value, None));
                ops.push((&mask.value, None));
            }
        },
        None => match &block.term.kind {
            TermKind::CondBr { cond, .. } | TermKind::Switch { cond, .. } => ops.push((cond, None)),
            TermKind::Ret(Some(t)) => ops.push((&t.value, None)),
            TermKind::Br(_) | TermKind::Ret(None) | TermKind::Unreachable => {}
        },
    }
    ops.into_iter()
        .filter_map(|(op, inc)| {
            op.as_local().map(|v| LocalUse {
                value: v,
                phi_incoming: inc,
            })
        })
        .collect()
}

/// LLVM's `DominatorTree::dominates(Def, Use)`: a use in unreachable code
/// is dominated by everything; a def in unreachable code dominates no
/// reachable use; a phi use happens at the end of its incoming block.
pub fn def_dominates_use(
    facts: &FnFacts,
    def: (BlockId, usize),
    user: (BlockId, usize),
    phi_incoming: Option<BlockId>,
) -> bool {
    let use_block = phi_incoming.unwrap_or(user.0);
    if !facts.reachable[use_block.0] {
        return true;
    }
    if !facts.reachable[def.0 .0] {
        return false;
    }
    if phi_incoming.is_some() || def.0 != user.0 {
        return facts.dominates(def.0, use_block);
    }
    def.1 < user.1
}

/// A failing operand of one instruction: the self-reference or the first
/// operand whose definition does not dominate the use (LLVM reports only
/// the first; the document mode reports each).
#[derive(Clone, Copy, Debug)]
pub enum SsaFailure {
    SelfRef,
    NotDominated {
        value: ValueId,
        def: (BlockId, usize),
    },
}

/// Every SSA failure of instruction (b, i), in operand order.
pub fn ssa_failures(facts: &FnFacts, b: BlockId, i: usize) -> Vec<SsaFailure> {
    let f = facts.func;
    let mut out = Vec::new();
    let block = f.block(b);
    let is_phi = matches!(
        block.insts.get(i).map(|x| &x.kind),
        Some(InstKind::Phi { .. })
    );
    let result = block.insts.get(i).and_then(|x| x.result);
    let ops = local_operands(f, b, i);
    // LLVM allows self-reference in unreachable code.
    if !is_phi
        && facts.reachable[b.0]
        && result.is_some()
        && ops.iter().any(|u| Some(u.value) == result)
    {
        out.push(SsaFailure::SelfRef);
        return out;
    }
    for u in ops {
        let Some(def) = facts.def_site(u.value) else {
            continue;
        };
        if !def_dominates_use(facts, def, (b, i), u.phi_incoming) {
            out.push(SsaFailure::NotDominated {
                value: u.value,
                def,
            });
        }
    }
    out
}

/// The violation for one SSA failure.
pub fn ssa_violation(facts: &FnFacts, b: BlockId, i: usize, fail: SsaFailure) -> Violation {
    let f = facts.func;
    match fail {
        SsaFailure::SelfRef => facts.violation(
            RuleId::PProg,
            b,
            Some(i),
            "P-PROG (SSA): a non-phi instruction uses its own result".into(),
            Some(MSG_SELF_REF),
            vec![facts.text(b, i)],
            vec![facts.site(Role::Offender, b, Some(i))],
        ),
        SsaFailure::NotDominated { value, def } => facts.violation(
            RuleId::PProg,
            b,
            Some(i),
            format!(
                "P-PROG (SSA): the use of {} is not dominated by its definition",
                print_local_name(&f.value(value).name)
            ),
            Some(MSG_DOMINATE),
            vec![facts.text(def.0, def.1), facts.text(b, i)],
            vec![
                facts.site(Role::Use, b, Some(i)),
                facts.site(Role::Definition, def.0, Some(def.1)),
            ],
        ),
    }
}

/// Rule P-PROG (SSA): every use is dominated by its definition. Every
/// failing operand is reported.
pub fn p_prog_ssa(facts: &FnFacts, out: &mut Vec<Violation>) {
    for b in facts.func.block_ids() {
        let n = facts.func.block(b).insts.len();
        for i in 0..=n {
            for fail in ssa_failures(facts, b, i) {
                out.push(ssa_violation(facts, b, i, fail));
            }
        }
    }
}

/// The signature defects LLVM checks in `visitFunction`, in its order.
/// Each is `(message, printed lines, explanation)`.
pub fn signature_failures(m: &Module, f: &Function) -> Vec<(&'static str, Vec<String>, String)> {
    let _ = m;
    let mut out = Vec::new();
    let fname = format!("ptr @{}", f.name);
    if !f.name.starts_with("llvm.") {
        for (k, p) in f.params.iter().enumerate() {
            if p.ty == Type::Token {
                let name = match (p.value, &p.decl_name) {
                    (Some(v), _) => print_local_name(&f.value(v).name),
                    (None, Some(n)) => print_local_name(n),
                    (None, None) => format!("%{k}"),
                };
                out.push((
                    MSG_TAKES_TOKEN,
                    vec![format!("token {name}"), fname.clone()],
                    format!("P-PROG: parameter {name} has type token; only intrinsics take tokens"),
                ));
            }
        }
        if f.ret_ty == Type::Token {
            out.push((
                MSG_RETURNS_TOKEN,
                vec![fname.clone()],
                "P-PROG: only intrinsics return tokens (S-TOKEN: tokens come from control intrinsics)"
                    .into(),
            ));
        }
    }
    if f.is_definition && !f.blocks.is_empty() {
        let entry = BlockId(0);
        let has_pred = f
            .blocks
            .iter()
            .any(|b| b.term.successors().contains(&entry));
        if has_pred {
            out.push((
                MSG_ENTRY_PREDS,
                vec![format!("label {}", print_local_name(&f.blocks[0].name))],
                "P-PROG: the entry block has a predecessor".into(),
            ));
        }
    }
    out
}

/// Rule P-PROG (signatures): `token` parameters and results only on
/// intrinsics; no branch to the entry block. Every defect is reported.
pub fn p_prog_signature(m: &Module, f: &Function, out: &mut Vec<Violation>) {
    for (msg, lines, expl) in signature_failures(m, f) {
        out.push(signature_violation(f, msg, lines, expl));
    }
}

pub fn signature_violation(f: &Function, msg: &str, lines: Vec<String>, expl: String) -> Violation {
    let block = if f.blocks.is_empty() {
        String::new()
    } else {
        f.block_name(BlockId(0))
    };
    Violation {
        rule: RuleId::PProg,
        function: f.name.clone(),
        block,
        inst: None,
        message: expl,
        llvm_message: Some(msg.to_string()),
        llvm_lines: lines,
        sites: Vec::new(),
        cycle: None,
    }
}
