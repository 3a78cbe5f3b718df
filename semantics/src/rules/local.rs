//! The rules about single instructions and blocks (ConvergentOperations.rst
//! "Convergence Control Intrinsics", "Uncontrolled Convergent Operations";
//! LangRef "Convergence Control Operand Bundles"), as the documents state
//! them: every violation of every clause is reported.

use crate::ir::{BlockId, InstKind, Operand};

use super::facts::{CtrlKind, FnFacts};
use super::print::print_typed_operand;
use super::{Role, RuleId, Violation};

pub const MSG_BUNDLE_ONCE: &str = "The 'convergencectrl' bundle can occur at most once on a call";
pub const MSG_BUNDLE_ONE_TOKEN: &str =
    "The 'convergencectrl' bundle requires exactly one token use.";
pub const MSG_TOKEN_PRODUCER: &str =
    "Convergence control tokens can only be produced by calls to the convergence control intrinsics.";
pub const MSG_PHI_TOKEN: &str = "PHI nodes cannot have token type!";
pub const MSG_SELECT_TOKEN: &str = "select values cannot have token type";
pub const MSG_ENTRY_FUNC: &str = "Entry intrinsic can occur only in a convergent function.";
pub const MSG_ENTRY_BLOCK: &str = "Entry intrinsic can occur only in the entry block.";
pub const MSG_ENTRY_FIRST: &str =
    "Entry intrinsic cannot be preceded by a convergent operation in the same basic block.";
pub const MSG_ENTRY_ANCHOR_BUNDLE: &str =
    "Entry or anchor intrinsic cannot have a convergencectrl token operand.";
pub const MSG_LOOP_BUNDLE: &str = "Loop intrinsic must have a convergencectrl token operand.";
pub const MSG_LOOP_FIRST: &str =
    "Loop intrinsic cannot be preceded by a convergent operation in the same basic block.";
pub const MSG_MIX: &str =
    "Cannot mix controlled and uncontrolled convergence in the same function.";
pub const MSG_REGION: &str = "Convergence region is not well-nested.";
pub const MSG_TOKEN_DOM: &str = "Convergence control token must dominate all its uses.";

/// Every instruction position of the function, in layout order.
fn positions(facts: &FnFacts) -> Vec<(BlockId, usize)> {
    let f = facts.func;
    f.block_ids()
        .flat_map(|b| (0..f.block(b).insts.len()).map(move |i| (b, i)))
        .collect()
}

/// Positions of control intrinsics of kind `k`.
fn intrinsics(facts: &FnFacts, k: CtrlKind) -> Vec<(BlockId, usize)> {
    positions(facts)
        .into_iter()
        .filter(|(b, i)| facts.ctrl_kind_at(*b, *i) == Some(k))
        .collect()
}

/// The first convergent operation before index `i` in block `b`.
fn preceding_convergent(facts: &FnFacts, b: BlockId, i: usize) -> Option<usize> {
    (0..i).find(|j| facts.is_convergent_at(b, *j))
}

/// Rule S-TOKEN: a `convergencectrl` bundle occurs at most once and holds
/// exactly one value of token type (LangRef), produced by a control
/// intrinsic; tokens never pass through `phi` or `select`.
pub fn s_token(facts: &FnFacts, out: &mut Vec<Violation>) {
    let f = facts.func;
    for (b, i) in positions(facts) {
        let inst = &f.block(b).insts[i];
        match &inst.kind {
            InstKind::Phi { ty, .. } if ty.is_token() => out.push(facts.violation(
                RuleId::SToken,
                b,
                Some(i),
                "S-TOKEN: a token passes through a phi".into(),
                Some(MSG_PHI_TOKEN),
                Vec::new(),
                vec![facts.site(Role::Offender, b, Some(i))],
            )),
            InstKind::Select { on_true, .. } if on_true.ty.is_token() => out.push(facts.violation(
                RuleId::SToken,
                b,
                Some(i),
                "S-TOKEN: a token passes through a select".into(),
                Some(MSG_SELECT_TOKEN),
                Vec::new(),
                vec![facts.site(Role::Offender, b, Some(i))],
            )),
            InstKind::Call(call) => {
                let bundles: Vec<_> = call.convergence_bundles().collect();
                if bundles.len() > 1 {
                    out.push(facts.violation(
                        RuleId::SToken,
                        b,
                        Some(i),
                        format!(
                            "S-TOKEN: {} convergencectrl bundles on one call (at most one)",
                            bundles.len()
                        ),
                        Some(MSG_BUNDLE_ONCE),
                        vec![facts.text(b, i)],
                        vec![facts.site(Role::Offender, b, Some(i))],
                    ));
                }
                for bd in &bundles {
                    if bd.inputs.len() != 1 || !bd.inputs[0].ty.is_token() {
                        out.push(facts.violation(
                            RuleId::SToken,
                            b,
                            Some(i),
                            format!(
                                "S-TOKEN: a convergencectrl bundle with {} operand(s); exactly one token is required",
                                bd.inputs.len()
                            ),
                            Some(MSG_BUNDLE_ONE_TOKEN),
                            vec![facts.text(b, i)],
                            vec![facts.site(Role::Offender, b, Some(i))],
                        ));
                        continue;
                    }
                    let input = &bd.inputs[0];
                    let producer = match &input.value {
                        Operand::Local(v) => facts.def_site(*v),
                        _ => None,
                    };
                    let ok = producer.is_some_and(|(db, di)| facts.ctrl_kind_at(db, di).is_some());
                    if !ok {
                        let (first, mut sites) = match producer {
                            Some((db, di)) => (
                                facts.text(db, di),
                                vec![facts.site(Role::Definition, db, Some(di))],
                            ),
                            None => (print_typed_operand(f, input), Vec::new()),
                        };
                        sites.insert(0, facts.site(Role::Use, b, Some(i)));
                        out.push(facts.violation(
                            RuleId::SToken,
                            b,
                            Some(i),
                            format!(
                                "S-TOKEN: the bundle operand {} is not produced by a convergence control intrinsic",
                                print_typed_operand(f, input)
                            ),
                            Some(MSG_TOKEN_PRODUCER),
                            vec![first, facts.text(b, i)],
                            sites,
                        ));
                    }
                }
            }
            _ => {}
        }
    }
}

/// Rule S-ENTRY-FUNC: `entry` in a function without the `convergent`
/// attribute is an error.
pub fn s_entry_func(facts: &FnFacts, out: &mut Vec<Violation>) {
    if facts.func_is_convergent() {
        return;
    }
    for (b, i) in intrinsics(facts, CtrlKind::Entry) {
        out.push(facts.violation(
            RuleId::SEntryFunc,
            b,
            Some(i),
            format!(
                "S-ENTRY-FUNC: entry in @{}, which is not convergent",
                facts.func.name
            ),
            Some(MSG_ENTRY_FUNC),
            vec![facts.text(b, i)],
            vec![facts.site(Role::Offender, b, Some(i))],
        ));
    }
}

/// Rule S-ENTRY-PLACE: `entry` occurs at most once per function, only in
/// the entry block, and before every other convergent operation of that
/// block. Each clause is reported separately.
pub fn s_entry_place(facts: &FnFacts, out: &mut Vec<Violation>) {
    let entries = intrinsics(facts, CtrlKind::Entry);
    for (k, &(b, i)) in entries.iter().enumerate() {
        if b != BlockId(0) {
            out.push(facts.violation(
                RuleId::SEntryPlace,
                b,
                Some(i),
                format!(
                    "S-ENTRY-PLACE: entry in block %{}, not in the entry block",
                    facts.func.block_name(b)
                ),
                Some(MSG_ENTRY_BLOCK),
                vec![facts.text(b, i)],
                vec![facts.site(Role::Offender, b, Some(i))],
            ));
        }
        if let Some(j) = preceding_convergent(facts, b, i) {
            out.push(facts.violation(
                RuleId::SEntryPlace,
                b,
                Some(i),
                "S-ENTRY-PLACE: entry is preceded by a convergent operation in its block".into(),
                Some(MSG_ENTRY_FIRST),
                vec![facts.text(b, i)],
                vec![
                    facts.site(Role::Offender, b, Some(i)),
                    facts.site(Role::Earlier, b, Some(j)),
                ],
            ));
        }
        if k > 0 {
            let (fb, fi) = entries[0];
            out.push(facts.violation(
                RuleId::SEntryPlace,
                b,
                Some(i),
                "S-ENTRY-PLACE: a second entry in the function (at most one)".into(),
                None,
                vec![facts.text(b, i)],
                vec![
                    facts.site(Role::Offender, b, Some(i)),
                    facts.site(Role::Earlier, fb, Some(fi)),
                ],
            ));
        }
    }
}

fn bundle_on(facts: &FnFacts, k: CtrlKind, rule: RuleId, name: &str, out: &mut Vec<Violation>) {
    for (b, i) in intrinsics(facts, k) {
        if facts.has_bundle_at(b, i) {
            out.push(facts.violation(
                rule,
                b,
                Some(i),
                format!("{rule}: {name} takes no convergencectrl bundle"),
                Some(MSG_ENTRY_ANCHOR_BUNDLE),
                vec![facts.text(b, i)],
                vec![facts.site(Role::Offender, b, Some(i))],
            ));
        }
    }
}

/// Rule S-ENTRY-BUNDLE: `entry` takes no bundle.
pub fn s_entry_bundle(facts: &FnFacts, out: &mut Vec<Violation>) {
    bundle_on(facts, CtrlKind::Entry, RuleId::SEntryBundle, "entry", out);
}

/// Rule S-ANCHOR-BUNDLE: `anchor` takes no bundle.
pub fn s_anchor_bundle(facts: &FnFacts, out: &mut Vec<Violation>) {
    bundle_on(
        facts,
        CtrlKind::Anchor,
        RuleId::SAnchorBundle,
        "anchor",
        out,
    );
}

/// Rule S-LOOP-BUNDLE: `loop` requires a bundle.
pub fn s_loop_bundle(facts: &FnFacts, out: &mut Vec<Violation>) {
    for (b, i) in intrinsics(facts, CtrlKind::Loop) {
        if !facts.has_bundle_at(b, i) {
            out.push(facts.violation(
                RuleId::SLoopBundle,
                b,
                Some(i),
                "S-LOOP-BUNDLE: loop without a convergencectrl bundle".into(),
                Some(MSG_LOOP_BUNDLE),
                vec![facts.text(b, i)],
                vec![facts.site(Role::Offender, b, Some(i))],
            ));
        }
    }
}

/// Rule S-LOOP-PLACE: `loop` precedes every other convergent operation of
/// its block (convergent in the sense of C-CONV: a bundle makes a call
/// convergent).
pub fn s_loop_place(facts: &FnFacts, out: &mut Vec<Violation>) {
    for (b, i) in intrinsics(facts, CtrlKind::Loop) {
        if let Some(j) = preceding_convergent(facts, b, i) {
            out.push(facts.violation(
                RuleId::SLoopPlace,
                b,
                Some(i),
                "S-LOOP-PLACE: loop is preceded by a convergent operation in its block".into(),
                Some(MSG_LOOP_FIRST),
                vec![facts.text(b, i)],
                vec![
                    facts.site(Role::Offender, b, Some(i)),
                    facts.site(Role::Earlier, b, Some(j)),
                ],
            ));
        }
    }
}

/// Rule S-MIX: if a function contains a controlled convergent operation
/// (one with a bundle), every convergent operation in it is controlled or
/// is a control intrinsic. Each uncontrolled one is reported, with the
/// first controlled operation as the other site.
pub fn s_mix(facts: &FnFacts, out: &mut Vec<Violation>) {
    let all = positions(facts);
    let Some(&(cb, ci)) = all
        .iter()
        .find(|(b, i)| facts.has_bundle_at(*b, *i) && facts.is_convergent_at(*b, *i))
    else {
        return;
    };
    for &(b, i) in &all {
        if facts.is_convergent_at(b, i)
            && !facts.has_bundle_at(b, i)
            && facts.ctrl_kind_at(b, i).is_none()
        {
            out.push(facts.violation(
                RuleId::SMix,
                b,
                Some(i),
                "S-MIX: an uncontrolled convergent operation in a function with controlled ones"
                    .into(),
                Some(MSG_MIX),
                vec![facts.text(b, i)],
                vec![
                    facts.site(Role::Offender, b, Some(i)),
                    facts.site(Role::Earlier, cb, Some(ci)),
                ],
            ));
        }
    }
}
