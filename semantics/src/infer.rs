//! Token inference (D-UNCTRL mode `inferred`): ConvergentOperations.rst,
//! "Inferring Tokens", as a program transformation `Module -> Module`, so
//! that the interpreter and the checker share it.
//!
//! The procedure, per function that has uncontrolled convergent calls and
//! no controlled ones (S-MIX):
//! 1. irreducible cycles would first be made reducible: not implemented
//!    here; such functions are rejected with [`InferError::Irreducible`];
//! 2. `entry` is inserted at the start of the entry block (the function
//!    gets the `convergent` attribute, which S-ENTRY-FUNC requires);
//! 3. `loop` is inserted at the start of every loop header (after its
//!    phis), controlled by the parent loop's heart, or by `entry` for an
//!    outermost loop;
//! 4. every uncontrolled convergent call gets a `"convergencectrl"` bundle
//!    with the token of its sibling definition: the heart of the innermost
//!    cycle containing it, or `entry` outside every cycle.

use crate::cfg::{Cfg, CycleInfo};
use crate::ir::{
    Attr, BlockId, Bundle, Call, Const, Function, Inst, InstKind, Module, Name, Operand, Param,
    Span, Type, TypedOperand, ValueDef, ValueId, ValueInfo,
};
use crate::machine::program::is_convergent_call;

const ENTRY: &str = "llvm.experimental.convergence.entry";
const LOOP: &str = "llvm.experimental.convergence.loop";

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InferError {
    /// Step 1 of the procedure (making irreducible cycles reducible) is not
    /// implemented.
    #[error("@{function}: token inference needs a reducible CFG (step 1 of \"Inferring Tokens\", converting irreducible cycles, is not implemented)")]
    Irreducible { function: String },
}

fn is_control_intrinsic(c: &Call) -> bool {
    c.callee_name()
        .is_some_and(|n| n.starts_with("llvm.experimental.convergence."))
}

/// The uncontrolled convergent calls of `f` as (block, index), or `None`
/// if `f` already uses tokens (S-MIX: then nothing is inferred).
fn uncontrolled_calls(m: &Module, f: &Function) -> Option<Vec<(BlockId, usize)>> {
    let mut out = Vec::new();
    for b in f.block_ids() {
        for (i, inst) in f.block(b).insts.iter().enumerate() {
            if let InstKind::Call(c) = &inst.kind {
                if is_control_intrinsic(c) || c.convergence_bundles().next().is_some() {
                    return None;
                }
                if is_convergent_call(m, c) {
                    out.push((b, i));
                }
            }
        }
    }
    Some(out)
}

fn fresh_name(f: &Function, base: &str) -> Name {
    let taken = |n: &str| {
        f.values
            .iter()
            .any(|v| matches!(&v.name, Name::Named(x) if x == n))
    };
    if !taken(base) {
        return Name::Named(base.into());
    }
    let mut k = 1;
    while taken(&format!("{base}.{k}")) {
        k += 1;
    }
    Name::Named(format!("{base}.{k}").into())
}

/// Inserts `inst` (defining a new token value named `name`) at `index` of
/// block `b`, keeping every `ValueDef::Inst` index right.
fn insert_token(f: &mut Function, b: BlockId, index: usize, name: Name, call: Call) -> ValueId {
    for v in &mut f.values {
        if let ValueDef::Inst { block, index: i } = &mut v.def {
            if *block == b && *i as usize >= index {
                *i += 1;
            }
        }
    }
    let id = ValueId(f.values.len());
    f.values.push(ValueInfo {
        name,
        ty: Type::Token,
        def: ValueDef::inst(b, index),
    });
    f.blocks[b.0].insts.insert(
        index,
        Inst {
            result: Some(id),
            kind: InstKind::Call(Box::new(call)),
            meta: Default::default(),
            span: Span::default(),
        },
    );
    id
}

fn intrinsic_call(name: &str, token: Option<ValueId>) -> Call {
    Call {
        tail: None,
        flags: Vec::new(),
        cconv: None,
        ret_attrs: Vec::new(),
        ty: Type::Token,
        callee: Operand::constant(Const::Global(name.to_string())),
        args: Vec::new(),
        fn_attrs: Vec::new(),
        bundles: token.map(ctrl_bundle).into_iter().collect(),
    }
}

fn ctrl_bundle(t: ValueId) -> Bundle {
    Bundle {
        tag: "convergencectrl".to_string(),
        inputs: vec![TypedOperand {
            ty: Type::Token,
            value: Operand::Local(t),
        }],
    }
}

fn declare(m: &mut Module, name: &str) {
    if m.function(name).is_some() {
        return;
    }
    m.functions.push(Function {
        name: name.to_string(),
        is_definition: false,
        linkage: Vec::new(),
        cconv: None,
        ret_attrs: Vec::new(),
        ret_ty: Type::Token,
        params: Vec::<Param>::new(),
        varargs: false,
        unnamed_addr: None,
        fn_attrs: vec![Attr::Word("convergent".into())],
        trailer: Vec::new(),
        blocks: Vec::new(),
        values: Vec::new(),
        md: Vec::new(),
        unsupported: None,
        span: Span::default(),
    });
}

/// Applies the inference procedure to every function with uncontrolled
/// convergent calls (see the module documentation).
pub fn infer_tokens(module: &Module) -> Result<Module, InferError> {
    let mut out = module.clone();
    let mut changed = false;
    for fi in 0..module.functions.len() {
        let f = &module.functions[fi];
        if !f.has_body() {
            continue;
        }
        let Some(calls) = uncontrolled_calls(module, f) else {
            continue;
        };
        if calls.is_empty() {
            continue;
        }
        let cycles = CycleInfo::compute(&Cfg::from_function(f));
        if cycles.cycles.iter().any(|c| !c.is_reducible()) {
            return Err(InferError::Irreducible {
                function: f.name.clone(),
            });
        }
        let mut g = f.clone();
        // Step 4 first (on the original indices): which token each call
        // takes, named by the cycle whose heart it is (None = entry).
        let owner: Vec<((BlockId, usize), Option<usize>)> = calls
            .iter()
            .map(|(b, i)| ((*b, *i), cycles.innermost(*b).map(|c| c.0)))
            .collect();
        // Step 2: entry.
        if !module.has_attr(&g.fn_attrs, "convergent") {
            g.fn_attrs.push(Attr::Word("convergent".into()));
        }
        let name = fresh_name(&g, "conv.entry");
        let entry = insert_token(&mut g, BlockId(0), 0, name, intrinsic_call(ENTRY, None));
        // Step 3: hearts, parents before children (cycles are stored with
        // parents first? not guaranteed: order by depth).
        let mut order: Vec<usize> = (0..cycles.cycles.len()).collect();
        order.sort_by_key(|c| cycles.cycles[*c].depth);
        let mut heart: Vec<Option<ValueId>> = vec![None; cycles.cycles.len()];
        for c in order {
            let cy = &cycles.cycles[c];
            let parent_tok = match cy.parent {
                Some(p) => heart[p.0].expect("parents are processed first (sorted by depth)"),
                None => entry,
            };
            let h = cy.header();
            let at = g.blocks[h.0]
                .insts
                .iter()
                .take_while(|i| matches!(i.kind, InstKind::Phi { .. }))
                .count();
            let name = fresh_name(&g, &format!("conv.loop.{}", g.blocks[h.0].name));
            heart[c] = Some(insert_token(
                &mut g,
                h,
                at,
                name,
                intrinsic_call(LOOP, Some(parent_tok)),
            ));
        }
        // Step 4: bundles. The inserted tokens sit before every call of
        // their block (entry at index 0, hearts right after the phis), so a
        // call moved by the number of tokens inserted into its block.
        for ((b, i), cyc) in owner {
            let shift = g.blocks[b.0]
                .insts
                .iter()
                .filter(|inst| inst.result.is_some_and(|r| r.0 >= f.values.len()))
                .count();
            let tok = match cyc {
                Some(c) => heart[c].expect("every cycle got a heart"),
                None => entry,
            };
            if let InstKind::Call(c) = &mut g.blocks[b.0].insts[i + shift].kind {
                c.bundles.push(ctrl_bundle(tok));
            }
        }
        out.functions[fi] = g;
        changed = true;
    }
    if changed {
        declare(&mut out, ENTRY);
        declare(&mut out, LOOP);
    }
    Ok(out)
}
