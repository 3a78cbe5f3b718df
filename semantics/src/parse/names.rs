//! Name resolution inside one function (rule P-PROG): local values and
//! blocks share one namespace; unnamed arguments, the implicit entry block,
//! unnamed non-void instructions and unnamed blocks draw from one counter,
//! and an explicitly numbered definition must be at least the counter
//! (LLVM 22 accepts gaps but not decreasing numbers). Forward references
//! get placeholder ids that are patched once the body is complete.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::parser::Parser;
use super::types::same_type;
use super::ParseError;
use crate::ir::{
    BlockId, Function, InstKind, Name, Operand, Span, TermKind, Type, ValueDef, ValueId, ValueInfo,
};

/// Placeholder ids start here; real ids are indices into small vectors.
const FWD: usize = usize::MAX / 2;

/// FNV-1a: name tables are hashed on every use, and SipHash's DoS
/// resistance buys nothing for a parser of local files.
#[derive(Default)]
struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

type Map<K, V> = HashMap<K, V, BuildHasherDefault<Fnv>>;

#[derive(Clone, Copy)]
enum Def {
    Value(ValueId),
    Block(BlockId),
}

pub(super) struct FnBuilder {
    pub values: Vec<ValueInfo>,
    defs: Map<Name, Def>,
    next_num: u32,
    block_count: usize,
    /// Forward value references: name, first use.
    fwd_vals: Vec<(Name, Span)>,
    fwd_val_idx: Map<Name, usize>,
    /// Type each forward use expects: placeholder index, type, use site.
    fwd_uses: Vec<(usize, Type, Span)>,
    fwd_blocks: Vec<(Name, Span)>,
    fwd_block_idx: Map<Name, usize>,
}

impl FnBuilder {
    pub fn new() -> FnBuilder {
        FnBuilder {
            values: Vec::new(),
            defs: Map::default(),
            next_num: 0,
            block_count: 0,
            fwd_vals: Vec::new(),
            fwd_val_idx: Map::default(),
            fwd_uses: Vec::new(),
            fwd_blocks: Vec::new(),
            fwd_block_idx: Map::default(),
        }
    }

    /// Checks a written name against the numbering rule and the namespace,
    /// or draws the next number for an unnamed definition.
    fn claim(
        &mut self,
        p: &Parser,
        written: Option<Name>,
        kind: &str,
        at: Span,
    ) -> Result<Name, ParseError> {
        let name = match written {
            None => {
                let n = self.next_num;
                self.next_num = n
                    .checked_add(1)
                    .ok_or_else(|| p.err_at(at, "too many numbered values"))?;
                Name::Numbered(n)
            }
            Some(Name::Numbered(n)) => {
                if n < self.next_num {
                    return Err(p.err_at(
                        at,
                        format!(
                            "{kind} expected to be numbered '%{}' or greater",
                            self.next_num
                        ),
                    ));
                }
                self.next_num = n
                    .checked_add(1)
                    .ok_or_else(|| p.err_at(at, "too many numbered values"))?;
                Name::Numbered(n)
            }
            Some(n) => n,
        };
        if self.defs.contains_key(&name) {
            return Err(p.err_at(at, format!("redefinition of '%{}'", print_name(&name))));
        }
        Ok(name)
    }

    pub fn def_arg(
        &mut self,
        p: &Parser,
        written: Option<Name>,
        ty: Type,
        idx: usize,
        at: Span,
    ) -> Result<ValueId, ParseError> {
        self.def_value(p, written, ty, ValueDef::Arg(idx), "argument", at)
    }

    pub fn def_value(
        &mut self,
        p: &Parser,
        written: Option<Name>,
        ty: Type,
        def: ValueDef,
        kind: &str,
        at: Span,
    ) -> Result<ValueId, ParseError> {
        let name = self.claim(p, written, kind, at)?;
        let id = ValueId(self.values.len());
        self.defs.insert(name.clone(), Def::Value(id));
        self.values.push(ValueInfo { name, ty, def });
        Ok(id)
    }

    /// Starts a new block; returns its id and name.
    pub fn def_block(
        &mut self,
        p: &Parser,
        written: Option<Name>,
        at: Span,
    ) -> Result<(BlockId, Name), ParseError> {
        let name = self.claim(p, written, "label", at)?;
        let id = BlockId(self.block_count);
        self.block_count += 1;
        self.defs.insert(name.clone(), Def::Block(id));
        Ok((id, name))
    }

    /// A use of local value `name` expecting type `ty`.
    pub fn use_value(
        &mut self,
        p: &Parser,
        name: Name,
        ty: &Type,
        at: Span,
    ) -> Result<Operand, ParseError> {
        self.use_value_opt(p, name, Some(ty), at)
    }

    /// A use of local value `name`, type-checked when `ty` is given.
    pub fn use_value_opt(
        &mut self,
        p: &Parser,
        name: Name,
        ty: Option<&Type>,
        at: Span,
    ) -> Result<Operand, ParseError> {
        match self.defs.get(&name) {
            Some(Def::Value(v)) => {
                let def_ty = &self.values[v.0].ty;
                let Some(ty) = ty else {
                    return Ok(Operand::Local(*v));
                };
                if !same_type(def_ty, ty) {
                    return Err(p.err_at(
                        at,
                        format!(
                            "'%{}' defined with type '{}' but expected '{}'",
                            print_name(&name),
                            crate::ir::print::type_str(def_ty),
                            crate::ir::print::type_str(ty)
                        ),
                    ));
                }
                Ok(Operand::Local(*v))
            }
            Some(Def::Block(_)) => Err(p.err_at(
                at,
                format!("'%{}' is a basic block, not a value", print_name(&name)),
            )),
            None => {
                let k = match self.fwd_val_idx.get(&name) {
                    Some(k) => *k,
                    None => {
                        let k = self.fwd_vals.len();
                        self.fwd_vals.push((name.clone(), at));
                        self.fwd_val_idx.insert(name, k);
                        k
                    }
                };
                if let Some(ty) = ty {
                    self.fwd_uses.push((k, ty.clone(), at));
                }
                Ok(Operand::Local(ValueId(FWD + k)))
            }
        }
    }

    /// A use of block `name` (`label %name`, or a phi's incoming block).
    pub fn use_block(&mut self, name: Name, at: Span) -> BlockId {
        match self.defs.get(&name) {
            Some(Def::Block(b)) => *b,
            _ => {
                let k = match self.fwd_block_idx.get(&name) {
                    Some(k) => *k,
                    None => {
                        let k = self.fwd_blocks.len();
                        self.fwd_blocks.push((name.clone(), at));
                        self.fwd_block_idx.insert(name, k);
                        k
                    }
                };
                BlockId(FWD + k)
            }
        }
    }

    /// Resolves every placeholder in `f` and fills `f.values`.
    pub fn finish(self, p: &Parser, f: &mut Function) -> Result<(), ParseError> {
        let mut vmap = Vec::with_capacity(self.fwd_vals.len());
        for (name, at) in &self.fwd_vals {
            match self.defs.get(name) {
                Some(Def::Value(v)) => vmap.push(*v),
                Some(Def::Block(_)) => {
                    return Err(p.err_at(
                        *at,
                        format!("'%{}' is a basic block, not a value", print_name(name)),
                    ))
                }
                None => {
                    return Err(p.err_at(
                        *at,
                        format!("use of undefined value '%{}'", print_name(name)),
                    ))
                }
            }
        }
        for (k, ty, at) in &self.fwd_uses {
            let v = vmap[*k];
            let def_ty = &self.values[v.0].ty;
            if !same_type(def_ty, ty) {
                return Err(p.err_at(
                    *at,
                    format!(
                        "'%{}' defined with type '{}' but expected '{}'",
                        print_name(&self.fwd_vals[*k].0),
                        crate::ir::print::type_str(def_ty),
                        crate::ir::print::type_str(ty)
                    ),
                ));
            }
        }
        let mut bmap = Vec::with_capacity(self.fwd_blocks.len());
        for (name, at) in &self.fwd_blocks {
            match self.defs.get(name) {
                Some(Def::Block(b)) => bmap.push(*b),
                _ => {
                    return Err(p.err_at(
                        *at,
                        format!("use of undefined label '%{}'", print_name(name)),
                    ))
                }
            }
        }
        if !vmap.is_empty() || !bmap.is_empty() {
            let fix_v = |o: &mut Operand| {
                if let Operand::Local(v) = o {
                    if v.0 >= FWD {
                        *v = vmap[v.0 - FWD];
                    }
                }
            };
            let fix_b = |b: &mut BlockId| {
                if b.0 >= FWD {
                    *b = bmap[b.0 - FWD];
                }
            };
            for block in &mut f.blocks {
                for inst in &mut block.insts {
                    for_each_operand_mut(&mut inst.kind, &mut |o| fix_v(o));
                    if let InstKind::Phi { incoming, .. } = &mut inst.kind {
                        for (_, b) in incoming.iter_mut() {
                            fix_b(b);
                        }
                    }
                }
                match &mut block.term.kind {
                    TermKind::Br(b) => fix_b(b),
                    TermKind::CondBr {
                        cond,
                        on_true,
                        on_false,
                    } => {
                        fix_v(cond);
                        fix_b(on_true);
                        fix_b(on_false);
                    }
                    TermKind::Switch {
                        cond,
                        default,
                        cases,
                        ..
                    } => {
                        fix_v(cond);
                        fix_b(default);
                        for (_, b) in cases.iter_mut() {
                            fix_b(b);
                        }
                    }
                    TermKind::Ret(Some(v)) => fix_v(&mut v.value),
                    TermKind::Ret(None) | TermKind::Unreachable => {}
                }
            }
        }
        f.values = self.values;
        // Both grew by doubling: up to half of each is slack on a long
        // function (90 MB of values at 1,000,000 blocks).
        f.values.shrink_to_fit();
        f.blocks.shrink_to_fit();
        Ok(())
    }
}

/// A name as written after `%` (quoted when needed).
fn print_name(n: &Name) -> String {
    crate::ir::print::quote_name(n)
}

/// Applies `f` to every operand of an instruction.
pub(crate) fn for_each_operand_mut(kind: &mut InstKind, f: &mut dyn FnMut(&mut Operand)) {
    match kind {
        InstKind::Binary { lhs, rhs, .. }
        | InstKind::ICmp { lhs, rhs, .. }
        | InstKind::FCmp { lhs, rhs, .. } => {
            f(lhs);
            f(rhs);
        }
        InstKind::FNeg { value, .. } => f(value),
        InstKind::Cast { from, .. } => f(&mut from.value),
        InstKind::Select {
            cond,
            on_true,
            on_false,
            ..
        } => {
            f(&mut cond.value);
            f(&mut on_true.value);
            f(&mut on_false.value);
        }
        InstKind::Freeze(v) => f(&mut v.value),
        InstKind::Phi { incoming, .. } => {
            for (v, _) in incoming.iter_mut() {
                f(v);
            }
        }
        InstKind::Call(c) => {
            f(&mut c.callee);
            for a in c.args.iter_mut() {
                f(&mut a.value);
            }
            for b in c.bundles.iter_mut() {
                for i in b.inputs.iter_mut() {
                    f(&mut i.value);
                }
            }
        }
        InstKind::Alloca { count, .. } => {
            if let Some(c) = count {
                f(&mut c.value);
            }
        }
        InstKind::Load { ptr, .. } => f(&mut ptr.value),
        InstKind::Store { value, ptr, .. } => {
            f(&mut value.value);
            f(&mut ptr.value);
        }
        InstKind::AtomicRmw { ptr, value, .. } => {
            f(&mut ptr.value);
            f(&mut value.value);
        }
        InstKind::CmpXchg { ptr, cmp, new, .. } => {
            f(&mut ptr.value);
            f(&mut cmp.value);
            f(&mut new.value);
        }
        InstKind::Gep { base, indices, .. } => {
            f(&mut base.value);
            for i in indices.iter_mut() {
                f(&mut i.value);
            }
        }
        InstKind::ExtractValue { agg, .. } => f(&mut agg.value),
        InstKind::InsertValue { agg, value, .. } => {
            f(&mut agg.value);
            f(&mut value.value);
        }
        InstKind::ExtractElement { vector, index } => {
            f(&mut vector.value);
            f(&mut index.value);
        }
        InstKind::InsertElement {
            vector,
            value,
            index,
        } => {
            f(&mut vector.value);
            f(&mut value.value);
            f(&mut index.value);
        }
        InstKind::ShuffleVector { a, b, mask } => {
            f(&mut a.value);
            f(&mut b.value);
            f(&mut mask.value);
        }
    }
}
