//! The LLVM-compatible verifier (`Options::llvm_compatible`, rule S-LLVM):
//! a replay of what LLVM 22's `Verifier::verify(Function)` and
//! `GenericConvergenceVerifier` (llvm/lib/IR/Verifier.cpp,
//! llvm/include/llvm/IR/GenericConvergenceVerifierImpl.h,
//! llvm/lib/IR/ConvergenceVerifier.cpp) check on the subset, reimplemented:
//!
//! - per function, in module order: `visitFunction` (first failing
//!   signature check only), then every block in layout order and every
//!   instruction: for a call, the convergence visit (bundle shape, control
//!   intrinsic placement, mixing) stops at its first failing check; then the
//!   operands' dominance (first failing operand only);
//! - if the function's convergence kind ended "controlled", the token walk
//!   in reverse post-order: token dominance, the live-token stack (region
//!   nesting), and the cycle checks on LLVM's cycle hierarchy, each use
//!   stopping at its first failing check.
//!
//! Known LLVM 22 behaviours kept here (see proofs/FINDINGS.md): a bundle
//! does not make a call convergent; an `anchor` counts as controlled
//! convergence for the mixing check; unreachable blocks are skipped by the
//! token walk; a function whose first convergent operation is uncontrolled
//! never gets the token walk.

use std::collections::HashMap;

use crate::cfg::CycleId;
use crate::ir::{BlockId, Function, InstKind, Module, Operand, Type};

use super::cycles::{MSG_CYCLE_USE, MSG_HEART_DOM, MSG_TWO_HEARTS};
use super::facts::{is_convergent_llvm, CtrlKind, FnFacts};
use super::local::{
    MSG_BUNDLE_ONCE, MSG_BUNDLE_ONE_TOKEN, MSG_ENTRY_ANCHOR_BUNDLE, MSG_ENTRY_BLOCK,
    MSG_ENTRY_FIRST, MSG_ENTRY_FUNC, MSG_LOOP_BUNDLE, MSG_LOOP_FIRST, MSG_MIX, MSG_PHI_TOKEN,
    MSG_REGION, MSG_SELECT_TOKEN, MSG_TOKEN_DOM, MSG_TOKEN_PRODUCER,
};
use super::print::{print_block_operand, print_typed_operand};
use super::ssa::{signature_failures, signature_violation, ssa_failures, ssa_violation};
use super::{Role, RuleId, Violation};

pub const MSG_TOKEN_PARAM_CALL: &str = "Function has token parameter but isn't an intrinsic";

/// `ConvergenceKind` of the convergence verifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    None,
    Controlled,
    Uncontrolled,
}

type Pos = (BlockId, usize);

/// LLVM's assembler rejects a `select` of tokens before the verifier runs:
/// the module then has exactly that one error. Returns it if present.
pub fn parse_time_error(m: &Module) -> Option<Violation> {
    for f in &m.functions {
        if !f.is_definition || f.blocks.is_empty() {
            continue;
        }
        for b in f.block_ids() {
            for (i, inst) in f.block(b).insts.iter().enumerate() {
                if let InstKind::Select { on_true, .. } = &inst.kind {
                    if on_true.ty.is_token() {
                        let facts = FnFacts::new(m, f, true);
                        return Some(facts.violation(
                            RuleId::SToken,
                            b,
                            Some(i),
                            "S-TOKEN: a token passes through a select (rejected by LLVM's parser)"
                                .into(),
                            Some(MSG_SELECT_TOKEN),
                            Vec::new(),
                            vec![facts.site(Role::Offender, b, Some(i))],
                        ));
                    }
                }
            }
        }
    }
    None
}

/// LLVM 22's checks on one function, in its order.
pub fn verify_function(m: &Module, f: &Function, out: &mut Vec<Violation>) {
    if let Some((msg, lines, expl)) = signature_failures(m, f).into_iter().next() {
        out.push(signature_violation(f, msg, lines, expl));
    }
    if !f.is_definition || f.blocks.is_empty() {
        return;
    }
    let facts = FnFacts::new(m, f, true);
    let mut kind = Kind::None;
    let mut tokens: HashMap<Pos, Pos> = HashMap::new();
    for b in f.block_ids() {
        let mut seen_first = false;
        let block = f.block(b);
        for (i, inst) in block.insts.iter().enumerate() {
            match &inst.kind {
                InstKind::Phi { ty, .. } if ty.is_token() => {
                    // visitPHINode returns before visitInstruction.
                    out.push(facts.violation(
                        RuleId::SToken,
                        b,
                        Some(i),
                        "S-TOKEN: a token passes through a phi".into(),
                        Some(MSG_PHI_TOKEN),
                        Vec::new(),
                        vec![facts.site(Role::Offender, b, Some(i))],
                    ));
                    continue;
                }
                InstKind::Call(call) => {
                    let intrinsic = call.callee_name().is_some_and(|n| n.starts_with("llvm."));
                    if !intrinsic && call.args.iter().any(|a| a.ty == Type::Token) {
                        out.push(facts.violation(
                            RuleId::PProg,
                            b,
                            Some(i),
                            "P-PROG: a call passes a token to a function that is not an intrinsic"
                                .into(),
                            Some(MSG_TOKEN_PARAM_CALL),
                            vec![facts.text(b, i)],
                            vec![facts.site(Role::Offender, b, Some(i))],
                        ));
                        continue;
                    }
                    visit_call(&facts, b, i, &mut kind, &mut seen_first, &mut tokens, out);
                }
                _ => {}
            }
            if let Some(fail) = ssa_failures(&facts, b, i).into_iter().next() {
                out.push(ssa_violation(&facts, b, i, fail));
            }
        }
        let t = block.insts.len();
        if let Some(fail) = ssa_failures(&facts, b, t).into_iter().next() {
            out.push(ssa_violation(&facts, b, t, fail));
        }
    }
    if kind == Kind::Controlled {
        token_walk(&facts, &tokens, out);
    }
}

/// `findAndCheckConvergenceTokenUsed`: the token's definition if the
/// bundle is well formed, reporting the first defect otherwise.
fn token_used(facts: &FnFacts, b: BlockId, i: usize, out: &mut Vec<Violation>) -> Option<Pos> {
    let call = facts.call_at(b, i)?;
    let bundles: Vec<_> = call.convergence_bundles().collect();
    let one = |msg: &'static str, expl: &str, lines: Vec<String>| {
        facts.violation(
            RuleId::SToken,
            b,
            Some(i),
            format!("S-TOKEN: {expl}"),
            Some(msg),
            lines,
            vec![facts.site(Role::Offender, b, Some(i))],
        )
    };
    if bundles.len() > 1 {
        out.push(one(
            MSG_BUNDLE_ONCE,
            "more than one convergencectrl bundle",
            vec![facts.text(b, i)],
        ));
        return None;
    }
    let bundle = bundles.first()?;
    if bundle.inputs.len() != 1 || !bundle.inputs[0].ty.is_token() {
        out.push(one(
            MSG_BUNDLE_ONE_TOKEN,
            "a convergencectrl bundle needs exactly one token",
            vec![facts.text(b, i)],
        ));
        return None;
    }
    let input = &bundle.inputs[0];
    let def = match &input.value {
        Operand::Local(v) => facts.def_site(*v),
        _ => None,
    };
    match def {
        Some((db, di)) if facts.ctrl_kind_at(db, di).is_some() => Some((db, di)),
        _ => {
            let first = match def {
                Some((db, di)) => facts.text(db, di),
                None => print_typed_operand(facts.func, input),
            };
            out.push(one(
                MSG_TOKEN_PRODUCER,
                "the bundle operand is not produced by a convergence control intrinsic",
                vec![first, facts.text(b, i)],
            ));
            None
        }
    }
}

/// `GenericConvergenceVerifier::visit(Instruction)` for a call.
fn visit_call(
    facts: &FnFacts,
    b: BlockId,
    i: usize,
    kind: &mut Kind,
    seen_first: &mut bool,
    tokens: &mut HashMap<Pos, Pos>,
    out: &mut Vec<Violation>,
) {
    let token_def = token_used(facts, b, i, out);
    if let Some(d) = token_def {
        tokens.insert((b, i), d);
    }
    let ctrl = facts.ctrl_kind_at(b, i);
    let report = |rule: RuleId, msg: &'static str, expl: &str| {
        facts.violation(
            rule,
            b,
            Some(i),
            format!("{rule}: {expl}"),
            Some(msg),
            vec![facts.text(b, i)],
            vec![facts.site(Role::Offender, b, Some(i))],
        )
    };
    match ctrl {
        Some(CtrlKind::Entry) => {
            if !facts.func_is_convergent() {
                out.push(report(
                    RuleId::SEntryFunc,
                    MSG_ENTRY_FUNC,
                    "entry in a function that is not convergent",
                ));
                return;
            }
            if b != BlockId(0) {
                out.push(report(
                    RuleId::SEntryPlace,
                    MSG_ENTRY_BLOCK,
                    "entry outside the entry block",
                ));
                return;
            }
            if *seen_first {
                out.push(report(
                    RuleId::SEntryPlace,
                    MSG_ENTRY_FIRST,
                    "entry preceded by a convergent operation",
                ));
                return;
            }
            if token_def.is_some() {
                out.push(report(
                    RuleId::SEntryBundle,
                    MSG_ENTRY_ANCHOR_BUNDLE,
                    "entry with a convergencectrl bundle",
                ));
                return;
            }
        }
        Some(CtrlKind::Anchor) if token_def.is_some() => {
            out.push(report(
                RuleId::SAnchorBundle,
                MSG_ENTRY_ANCHOR_BUNDLE,
                "anchor with a convergencectrl bundle",
            ));
            return;
        }
        Some(CtrlKind::Anchor) => {}
        Some(CtrlKind::Loop) => {
            if token_def.is_none() {
                out.push(report(
                    RuleId::SLoopBundle,
                    MSG_LOOP_BUNDLE,
                    "loop without a convergencectrl token",
                ));
                return;
            }
            if *seen_first {
                out.push(report(
                    RuleId::SLoopPlace,
                    MSG_LOOP_FIRST,
                    "loop preceded by a convergent operation",
                ));
                return;
            }
        }
        None => {}
    }
    let call = facts
        .call_at(b, i)
        .expect("visit_call is only called on calls");
    let convergent = is_convergent_llvm(facts.module, call);
    if convergent {
        *seen_first = true;
    }
    if token_def.is_some() || ctrl.is_some() {
        if *kind == Kind::Uncontrolled {
            out.push(report(
                RuleId::SMix,
                MSG_MIX,
                "controlled convergence after uncontrolled convergence",
            ));
            return;
        }
        *kind = Kind::Controlled;
    } else if convergent {
        if *kind == Kind::Controlled {
            out.push(report(
                RuleId::SMix,
                MSG_MIX,
                "uncontrolled convergent operation after controlled convergence",
            ));
            return;
        }
        *kind = Kind::Uncontrolled;
    }
}

/// libstdc++'s `std::partition` on a random-access range (what
/// `llvm::partition` calls): not stable, and the order of the kept tokens
/// matters to the live-token stack, so it is replayed exactly. Returns the
/// number of elements satisfying `pred` (moved to the front).
fn std_partition<T: Copy>(v: &mut [T], pred: impl Fn(&T) -> bool) -> usize {
    let mut first = 0usize;
    let mut last = v.len();
    loop {
        loop {
            if first == last {
                return first;
            }
            if pred(&v[first]) {
                first += 1;
            } else {
                break;
            }
        }
        last -= 1;
        loop {
            if first == last {
                return first;
            }
            if !pred(&v[last]) {
                last -= 1;
            } else {
                break;
            }
        }
        v.swap(first, last);
        first += 1;
    }
}

/// `GenericConvergenceVerifier::verify(DT)`: the token walk.
fn token_walk(facts: &FnFacts, tokens: &HashMap<Pos, Pos>, out: &mut Vec<Violation>) {
    let f = facts.func;
    let mut live_map: HashMap<BlockId, Vec<Pos>> = HashMap::new();
    let mut hearts: HashMap<CycleId, Pos> = HashMap::new();
    for &b in &facts.rpo {
        let mut live = live_map.remove(&b).unwrap_or_default();
        for i in 0..f.block(b).insts.len() {
            if let Some(&def) = tokens.get(&(b, i)) {
                check_token(facts, def, (b, i), &mut live, &mut hearts, out);
            }
            if facts.ctrl_kind_at(b, i).is_some() {
                live.push((b, i));
            }
        }
        for &s in &facts.cfg.succs[b.0] {
            match live_map.get_mut(&s) {
                None => {
                    let inherited: Vec<Pos> = live
                        .iter()
                        .take_while(|t| facts.dominates(t.0, s))
                        .copied()
                        .collect();
                    live_map.insert(s, inherited);
                }
                Some(v) => {
                    let keep = std_partition(v, |t| live.contains(t));
                    v.truncate(keep);
                }
            }
        }
    }
}

/// The `checkToken` lambda: one token use, first failing check only.
fn check_token(
    facts: &FnFacts,
    def: Pos,
    user: Pos,
    live: &mut Vec<Pos>,
    hearts: &mut HashMap<CycleId, Pos>,
    out: &mut Vec<Violation>,
) {
    let both = vec![
        facts.site(Role::Use, user.0, Some(user.1)),
        facts.site(Role::Definition, def.0, Some(def.1)),
    ];
    let pair_lines = vec![facts.text(def.0, def.1), facts.text(user.0, user.1)];
    if !facts.dominates(def.0, user.0) {
        out.push(facts.violation(
            RuleId::PProg,
            user.0,
            Some(user.1),
            "P-PROG (SSA): the token's definition does not dominate this use".into(),
            Some(MSG_TOKEN_DOM),
            pair_lines,
            both,
        ));
        return;
    }
    if !live.contains(&def) {
        out.push(facts.violation(
            RuleId::SRegion,
            user.0,
            Some(user.1),
            "S-REGION: the token is not live here (a region nested in it was closed by a later use, or it is used before its definition)".into(),
            Some(MSG_REGION),
            pair_lines,
            both,
        ));
        return;
    }
    while live.last() != Some(&def) {
        live.pop();
    }
    let ci = &facts.cycles;
    let Some(mut cyc) = ci.innermost(user.0) else {
        return;
    };
    if def.0 == user.0 || ci.cycle(cyc).contains(def.0) {
        return;
    }
    let user_kind = facts.ctrl_kind_at(user.0, user.1);
    if user_kind != Some(CtrlKind::Loop) {
        let mut v = facts.violation(
            RuleId::SCycle1,
            user.0,
            Some(user.1),
            "S-CYCLE-1: a use other than a loop intrinsic in a cycle without the token's definition".into(),
            Some(MSG_CYCLE_USE),
            vec![facts.text(user.0, user.1), facts.cycle_text(cyc)],
            both,
        );
        v.cycle = Some(facts.cycle_text(cyc));
        out.push(v);
        return;
    }
    while let Some(p) = ci.cycle(cyc).parent {
        if ci.cycle(p).contains(def.0) {
            break;
        }
        cyc = p;
    }
    let c = ci.cycle(cyc);
    if !(c.is_reducible() && c.header() == user.0) {
        let mut sites = both;
        sites.push(facts.site(Role::CycleHeader, c.header(), None));
        let mut v = facts.violation(
            RuleId::SCycle4,
            user.0,
            Some(user.1),
            "S-CYCLE-4: a heart that is not the header of a reducible cycle".into(),
            Some(MSG_HEART_DOM),
            vec![
                facts.text(user.0, user.1),
                print_block_operand(facts.func, user.0),
                facts.cycle_text(cyc),
            ],
            sites,
        );
        v.cycle = Some(facts.cycle_text(cyc));
        out.push(v);
        return;
    }
    if let Some(&prev) = hearts.get(&cyc) {
        let prev_token = tokens_of(facts, prev);
        let this_token = tokens_of(facts, user);
        let rule = if prev_token == this_token {
            RuleId::SCycle2
        } else {
            RuleId::SCycle3
        };
        let mut sites = both;
        sites.push(facts.site(Role::Earlier, prev.0, Some(prev.1)));
        let mut v = facts.violation(
            rule,
            user.0,
            Some(user.1),
            format!("{rule}: a second heart in a cycle that contains neither token's definition"),
            Some(MSG_TWO_HEARTS),
            vec![
                facts.text(user.0, user.1),
                facts.text(prev.0, prev.1),
                facts.cycle_text(cyc),
            ],
            sites,
        );
        v.cycle = Some(facts.cycle_text(cyc));
        out.push(v);
        return;
    }
    hearts.insert(cyc, user);
}

fn tokens_of(facts: &FnFacts, p: Pos) -> Option<crate::ir::ValueId> {
    facts
        .call_at(p.0, p.1)
        .and_then(|c| facts.valid_token_of(c))
}
