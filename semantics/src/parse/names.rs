//! Name resolution inside one function (rule P-PROG): local values and
//! blocks share one namespace; unnamed arguments, the implicit entry block,
//! unnamed non-void instructions and unnamed blocks draw from one counter,
//! and an explicitly numbered definition must be at least the counter
//! (LLVM 22 accepts gaps but not decreasing numbers). Forward references
//! get placeholder ids that are patched once the body is complete.

use rustc_hash::FxHashMap;

use super::parser::Parser;
use super::symtab::{hash_name, Entry, Kind, NameTable, Probe, MAX_INDEX};
use super::types::same_type;
use super::ParseError;
use crate::ir::{
    Block, BlockId, Function, InstKind, Name, Operand, Span, TermKind, Type, ValueDef, ValueId,
    ValueInfo,
};

/// Placeholder ids start here; real ids are indices into small vectors.
const FWD: usize = usize::MAX / 2;

/// No index (in [`FwdRef::other`] and [`FwdRef::resolved`]).
const NONE: u32 = u32::MAX;

/// A name used before its definition, as a value or as a block.
struct FwdRef {
    name: Name,
    /// The first use.
    at: Span,
    /// What the name was defined as (a packed [`Entry`]), `NONE` while
    /// undefined.
    resolved: u32,
    /// The forward reference of the other kind to the same name (a name
    /// used as a value and as a block before its definition), or `NONE`.
    other: u32,
}

/// A block name used before its definition, as patching needs it: its
/// name and first use are in [`FnBuilder::fwd_block_names`] until it is
/// resolved to a block (8 bytes a reference instead of 40: every block of
/// a long function can be used before its label, 1,000,000 of them).
struct FwdBlock {
    /// As [`FwdRef::resolved`].
    resolved: u32,
    /// As [`FwdRef::other`].
    other: u32,
}

pub(super) struct FnBuilder {
    pub values: Vec<ValueInfo>,
    /// The blocks read so far, moved into the function by
    /// [`FnBuilder::finish`]; each holds its name, the key of its entry in
    /// the table (a name is stored once: a list of block names beside
    /// them took 24 bytes a block while parsing).
    pub blocks: Vec<Block>,
    /// The name of the block being read (index `blocks.len()`), until
    /// [`FnBuilder::take_open_name`] moves it into its block.
    open_name: Name,
    /// Every name of the body's namespace (values and blocks share one),
    /// defined or used before its definition.
    table: NameTable,
    next_num: u32,
    /// Forward value references, in order of first use.
    fwd_vals: Vec<FwdRef>,
    /// Type each forward use expects: placeholder index, type, use site.
    fwd_uses: Vec<(usize, Type, Span)>,
    /// Forward block references, in order of first use (a name defined as
    /// a value and then used as a block gets one too, already resolved,
    /// so that `finish` reports it in order).
    fwd_blocks: Vec<FwdBlock>,
    /// The name and first use of each forward block reference not resolved
    /// to a block (yet), by index into `fwd_blocks`: the key of its table
    /// entry while undefined, and what `finish` reports.
    fwd_block_names: FxHashMap<u32, (Name, Span)>,
}

/// The result of looking a name up: its hash and where it is.
struct Lookup {
    hash: u32,
    probe: Probe,
}

impl FnBuilder {
    pub fn new() -> FnBuilder {
        FnBuilder {
            values: Vec::new(),
            blocks: Vec::new(),
            open_name: Name::Numbered(0),
            table: NameTable::new(),
            next_num: 0,
            fwd_vals: Vec::new(),
            fwd_uses: Vec::new(),
            fwd_blocks: Vec::new(),
            fwd_block_names: FxHashMap::default(),
        }
    }

    /// The name an entry of the table is keyed by.
    fn key(&self, e: Entry) -> &Name {
        match e.kind() {
            Kind::Value => &self.values[e.index()].name,
            Kind::Block => match self.blocks.get(e.index()) {
                Some(b) => &b.name,
                None => &self.open_name,
            },
            Kind::FwdValue => &self.fwd_vals[e.index()].name,
            Kind::FwdBlock => &self.fwd_block_names[&(e.index() as u32)].0,
        }
    }

    fn lookup(&self, name: &Name) -> Lookup {
        let hash = hash_name(name);
        let probe = self.table.probe(hash, |e| self.key(e) == name);
        Lookup { hash, probe }
    }

    /// Binds the name looked up in `l` to the definition `def`; a forward
    /// reference to it (of either kind) is resolved to `def`.
    fn bind(&mut self, l: Lookup, def: Entry) {
        match l.probe {
            Probe::Vacant { slot } => self.table.insert(slot, l.hash, def),
            Probe::Found { slot, entry } => {
                match entry.kind() {
                    Kind::FwdValue => {
                        let r = &mut self.fwd_vals[entry.index()];
                        r.resolved = def.packed();
                        let other = r.other;
                        if other != NONE {
                            self.resolve_fwd_block(other, def);
                        }
                    }
                    Kind::FwdBlock => {
                        let j = entry.index() as u32;
                        let other = self.fwd_blocks[j as usize].other;
                        self.resolve_fwd_block(j, def);
                        if other != NONE {
                            self.fwd_vals[other as usize].resolved = def.packed();
                        }
                    }
                    Kind::Value | Kind::Block => {
                        unreachable!("claim rejects a redefinition before binding")
                    }
                }
                self.table.set(slot, def);
            }
        }
    }

    /// Resolves forward block reference `j` to `def`; only an error reads
    /// the name of a reference not resolved to a block.
    fn resolve_fwd_block(&mut self, j: u32, def: Entry) {
        self.fwd_blocks[j as usize].resolved = def.packed();
        if def.kind() == Kind::Block {
            self.fwd_block_names.remove(&j);
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
    ) -> Result<(Name, Lookup), ParseError> {
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
        let l = self.lookup(&name);
        if let Probe::Found { entry, .. } = l.probe {
            if matches!(entry.kind(), Kind::Value | Kind::Block) {
                return Err(p.err_at(at, format!("redefinition of '%{}'", print_name(&name))));
            }
        }
        Ok((name, l))
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
        let (name, l) = self.claim(p, written, kind, at)?;
        let id = self.values.len();
        if id > MAX_INDEX {
            return Err(p.err_at(at, "too many values in one function"));
        }
        self.values.push(ValueInfo { name, ty, def });
        self.bind(l, Entry::new(Kind::Value, id));
        Ok(ValueId(id))
    }

    /// Starts a new block; returns its id. Its name is kept here until
    /// the block is complete ([`FnBuilder::take_open_name`]).
    pub fn def_block(
        &mut self,
        p: &Parser,
        written: Option<Name>,
        at: Span,
    ) -> Result<BlockId, ParseError> {
        let (name, l) = self.claim(p, written, "label", at)?;
        let id = self.blocks.len();
        if id > MAX_INDEX {
            return Err(p.err_at(at, "too many blocks in one function"));
        }
        self.open_name = name;
        self.bind(l, Entry::new(Kind::Block, id));
        Ok(BlockId(id))
    }

    /// The name of the block being read, for its [`Block`], pushed onto
    /// `blocks` next (its table entry then finds the name there).
    pub fn take_open_name(&mut self) -> Name {
        std::mem::replace(&mut self.open_name, Name::Numbered(0))
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
        let l = self.lookup(&name);
        let k = match l.probe {
            Probe::Found { entry, .. } if entry.kind() == Kind::Value => {
                let v = entry.index();
                let def_ty = &self.values[v].ty;
                let Some(ty) = ty else {
                    return Ok(Operand::Local(ValueId(v)));
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
                return Ok(Operand::Local(ValueId(v)));
            }
            Probe::Found { entry, .. } if entry.kind() == Kind::Block => {
                return Err(p.err_at(
                    at,
                    format!("'%{}' is a basic block, not a value", print_name(&name)),
                ))
            }
            Probe::Found { entry, .. } if entry.kind() == Kind::FwdValue => entry.index(),
            Probe::Found { entry, .. } => {
                // Used as a block before: link a value reference to it.
                let j = entry.index();
                match self.fwd_blocks[j].other {
                    NONE => {
                        let k = self.push_fwd_val(p, name, at, j as u32)?;
                        self.fwd_blocks[j].other = k as u32;
                        k
                    }
                    k => k as usize,
                }
            }
            Probe::Vacant { slot } => {
                let k = self.push_fwd_val(p, name, at, NONE)?;
                self.table
                    .insert(slot, l.hash, Entry::new(Kind::FwdValue, k));
                k
            }
        };
        if let Some(ty) = ty {
            self.fwd_uses.push((k, ty.clone(), at));
        }
        Ok(Operand::Local(ValueId(FWD + k)))
    }

    fn push_fwd_val(
        &mut self,
        p: &Parser,
        name: Name,
        at: Span,
        other: u32,
    ) -> Result<usize, ParseError> {
        let k = self.fwd_vals.len();
        if k > MAX_INDEX {
            return Err(p.err_at(at, "too many forward references in one function"));
        }
        self.fwd_vals.push(FwdRef {
            name,
            at,
            resolved: NONE,
            other,
        });
        Ok(k)
    }

    /// A use of block `name` (`label %name`, or a phi's incoming block).
    pub fn use_block(&mut self, p: &Parser, name: Name, at: Span) -> Result<BlockId, ParseError> {
        let l = self.lookup(&name);
        let (name, resolved, other) = match l.probe {
            Probe::Found { entry, .. } => match entry.kind() {
                Kind::Block => return Ok(BlockId(entry.index())),
                Kind::FwdBlock => return Ok(BlockId(FWD + entry.index())),
                // A value: reported as an undefined label by `finish`,
                // in order with the other forward block references.
                Kind::Value => (name, entry.packed(), NONE),
                Kind::FwdValue => {
                    let j = entry.index();
                    if self.fwd_vals[j].other != NONE {
                        return Ok(BlockId(FWD + self.fwd_vals[j].other as usize));
                    }
                    (name, NONE, j as u32)
                }
            },
            Probe::Vacant { .. } => (name, NONE, NONE),
        };
        let k = self.fwd_blocks.len();
        if k > MAX_INDEX {
            return Err(p.err_at(at, "too many forward references in one function"));
        }
        self.fwd_blocks.push(FwdBlock { resolved, other });
        self.fwd_block_names.insert(k as u32, (name, at));
        match l.probe {
            Probe::Vacant { slot } => {
                self.table
                    .insert(slot, l.hash, Entry::new(Kind::FwdBlock, k))
            }
            Probe::Found { entry, .. } if entry.kind() == Kind::FwdValue => {
                self.fwd_vals[entry.index()].other = k as u32;
            }
            Probe::Found { .. } => {}
        }
        Ok(BlockId(FWD + k))
    }

    /// Resolves every placeholder in `f`, names its blocks and fills
    /// `f.values`.
    pub fn finish(mut self, p: &Parser, f: &mut Function) -> Result<(), ParseError> {
        f.blocks = std::mem::take(&mut self.blocks);
        let mut vmap = Vec::with_capacity(self.fwd_vals.len());
        for r in &self.fwd_vals {
            match Entry::unpack(r.resolved) {
                Some(e) if e.kind() == Kind::Value => vmap.push(ValueId(e.index())),
                Some(_) => {
                    return Err(p.err_at(
                        r.at,
                        format!("'%{}' is a basic block, not a value", print_name(&r.name)),
                    ))
                }
                None => {
                    return Err(p.err_at(
                        r.at,
                        format!("use of undefined value '%{}'", print_name(&r.name)),
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
                        print_name(&self.fwd_vals[*k].name),
                        crate::ir::print::type_str(def_ty),
                        crate::ir::print::type_str(ty)
                    ),
                ));
            }
        }
        let mut bmap = Vec::with_capacity(self.fwd_blocks.len());
        for (k, r) in self.fwd_blocks.iter().enumerate() {
            match Entry::unpack(r.resolved) {
                Some(e) if e.kind() == Kind::Block => bmap.push(BlockId(e.index())),
                _ => {
                    let (name, at) = &self.fwd_block_names[&(k as u32)];
                    return Err(p.err_at(
                        *at,
                        format!("use of undefined label '%{}'", print_name(name)),
                    ));
                }
            }
        }
        drop(self.fwd_vals);
        drop(self.fwd_blocks);
        drop(self.fwd_block_names);
        drop(self.table);
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
