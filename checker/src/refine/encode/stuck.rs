//! Rule R-PREFIX: when a thread cut by the step bound provably never ends.
//!
//! A thread is *stuck* at the bound K when its visits from some step j < K
//! to K form a lasso: the block at step K is the block at step j, every
//! visit j..K-1 is to a *quiet* block (no convergent operation, no
//! observable event, no store or other memory effect, no `freeze`, no call
//! other than deterministic pure ones), and every SSA value those blocks
//! can depend on (the relevant slice below) holds the same bits and poison
//! flag at the start of step K as at the start of step j. A quiet visit is
//! a deterministic function of the block, those values and the thread's
//! memory view (which quiet visits do not change; R-MEM-SMT: no other
//! thread writes it), so the thread repeats the visits j..K-1 forever: it
//! never returns, never has undefined behaviour (it would have had it
//! already), never joins another communicating set and never produces
//! another event. Its prefix is its whole observation, so the checker can
//! compare it (R-PREFIX) instead of setting it aside (R-BOUND).
//!
//! The relevant values of a lasso are those of its blocks: per quiet
//! block, the backward slice of what decides its control flow and
//! undefined behaviour: the terminator's condition and the operands of
//! every instruction that is not a pure computation (divisions and
//! remainders can be UB, loads read addresses, calls take arguments),
//! closed under the operands of pure instructions (phis included) whose
//! results are relevant. Values defined outside the lasso do not change in
//! it. A counter that only feeds itself (`%i.next = add %i, 1` with no
//! other use in the lasso) is not relevant, so `while (c) i++;` is stuck
//! when `c` holds.
//!
//! Rule R-PREFIX-REC, the same for recursion: calls of defined functions
//! are inlined (`semantics::inline`) to `RECURSION_DEPTH` (3) nested copies
//! of a function, and the call that would nest one more becomes a
//! `recursion.cut` block that loops forever. A thread in that block at the
//! bound K is stuck when the recursion provably repeats itself: some
//! enclosing inlined copy of the same callee was entered (its entry block
//! visited at step e) with the same argument values (bits and poison) as
//! the cut call has at K, the copy's part of the entry block and every
//! visit e+1..K is quiet and lies wholly in the copy's frame (every
//! instruction and the terminator belong to the copy or to copies nested
//! in it: the thread did not return from the copy), and the event counts
//! did not change. The callee's body sees its caller only through its
//! arguments, and a quiet path is a deterministic function of the values
//! it reads and of memory it does not change, so the cut call (the
//! copy's callee, called with the copy's arguments) would run the same
//! quiet path to the same call again, forever: the thread never returns,
//! never has undefined behaviour and produces no further event. A
//! recursion whose arguments change (a countdown) is not stuck however
//! deep it goes: it stays cut (R-BOUND).

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use semantics::inline::{Inlined, Loc};
use semantics::ir::{BinOp, Function, Inst, InstKind, Operand, TermKind, Type, ValueDef, ValueId};
use semantics::uniformity::analysis::{operands_of, InstRef};

use super::{width, Builder, V};
use crate::refine::prog::{CallSem, Prepared};
use crate::vc::TermId;

/// The quiet blocks of a kernel and the values each one's visits depend
/// on.
pub(crate) struct Quiet {
    /// Per quiet block: the block and its relevant values.
    pub blocks: Vec<(usize, Vec<ValueId>)>,
}

/// Whether instruction `ii` of block `bi` is quiet: no effect beyond its
/// SSA value, and deterministic.
fn quiet_inst(p: &Prepared, bi: usize, ii: usize, inst: &Inst) -> bool {
    match &inst.kind {
        InstKind::Call(_) => p.call(bi, ii).is_some_and(|c| {
            !c.convergent
                && !c.callee.starts_with("llvm.mem")
                && !c.callee.starts_with("llvm.lifetime")
                && matches!(
                    c.sem,
                    CallSem::Tid
                        | CallSem::Lane(_)
                        | CallSem::Pure
                        | CallSem::UniformInput
                        | CallSem::Ignored
                        | CallSem::PureIntrinsic(_)
                )
        }),
        InstKind::Load {
            volatile, atomic, ..
        } => !volatile && atomic.is_none(),
        InstKind::Store { .. }
        | InstKind::AtomicRmw { .. }
        | InstKind::CmpXchg { .. }
        | InstKind::Alloca { .. }
        | InstKind::Freeze(_) => false,
        _ => true,
    }
}

/// A terminator that goes on to another block (not `ret`, not
/// `unreachable`).
fn continues(kind: &TermKind) -> bool {
    !matches!(kind, TermKind::Ret(_) | TermKind::Unreachable)
}

/// Whether block `bi` is quiet: its visits have no effect beyond its SSA
/// values and are deterministic.
fn quiet_block(p: &Prepared, bi: usize) -> bool {
    let f = p.func;
    // The loop that stands for recursion deeper than the inlining depth
    // (`semantics::inline`) is a truncation, not a real loop: a thread in
    // it is cut, and stuck only by R-PREFIX-REC.
    if f.blocks[bi].name.to_string().starts_with("recursion.cut") {
        return false;
    }
    f.blocks[bi]
        .insts
        .iter()
        .enumerate()
        .all(|(ii, inst)| quiet_inst(p, bi, ii, inst))
        && continues(&f.blocks[bi].term.kind)
}

/// Rule R-PREFIX-REC: one way for a thread in a `recursion.cut` block to
/// be stuck, through one enclosing inlined copy of the cut call's callee
/// (module doc).
#[derive(Clone, Debug)]
pub struct RecLasso {
    /// The `recursion.cut` block.
    pub cut: usize,
    /// The block whose visit enters the copy (its entry block merged in).
    pub entry: usize,
    /// The blocks the thread may visit after that: wholly in the copy's
    /// frame and quiet, and the cut block.
    pub inside: Vec<usize>,
    /// Per argument: the cut call's operand, the copy's call's operand,
    /// and the width the encoding holds them at.
    pub args: Vec<(Operand, Operand, u32)>,
}

/// A type whose values the encoding holds as one bit-vector.
fn scalar(ty: &Type) -> bool {
    matches!(ty, Type::Int(1..=64) | Type::Ptr(_))
        || semantics::ir::float::FloatTy::of(ty).is_some()
}

/// Rule R-PREFIX-REC: the lassos of `p`'s kernel, inlined as `inl` says
/// (one per cut recursive call and enclosing copy of its callee whose
/// entry part is quiet and whose arguments the encoding can compare).
pub(crate) fn recursion_lassos(p: &Prepared, inl: &Inlined) -> Vec<RecLasso> {
    let f = p.func;
    if inl.origins.len() != f.blocks.len() || inl.term_frames.len() != f.blocks.len() {
        return Vec::new();
    }
    let within = |path: &[Loc], frame: &[Loc]| path.starts_with(frame);
    // Block `b` lies wholly in `frame`: every instruction and the
    // terminator belong to that frame or to one nested in it.
    let wholly = |b: usize, frame: &[Loc]| {
        inl.origins[b].iter().all(|o| within(&o.path, frame)) && within(&inl.term_frames[b], frame)
    };
    let mut out = Vec::new();
    for cut in &inl.cuts {
        let copies = inl
            .calls
            .iter()
            .filter(|c| c.callee == cut.callee && within(&cut.frame, &c.frame));
        for c in copies {
            if c.args.len() != cut.args.len() {
                continue;
            }
            let args: Option<Vec<(Operand, Operand, u32)>> = cut
                .args
                .iter()
                .zip(&c.args)
                .map(|((ta, a), (tb, b))| {
                    (ta == tb && scalar(ta)).then(|| (a.clone(), b.clone(), width(ta)))
                })
                .collect();
            let Some(args) = args else {
                continue;
            };
            let (eb, blk) = (c.block.0, &f.blocks[c.block.0]);
            let entry_quiet = (c.start..blk.insts.len()).all(|ii| {
                within(&inl.origins[eb][ii].path, &c.frame) && quiet_inst(p, eb, ii, &blk.insts[ii])
            }) && within(&inl.term_frames[eb], &c.frame)
                && continues(&blk.term.kind);
            if !entry_quiet {
                continue;
            }
            let inside = (0..f.blocks.len())
                .filter(|&b| {
                    b == cut.block.0 || (b != eb && wholly(b, &c.frame) && quiet_block(p, b))
                })
                .collect();
            out.push(RecLasso {
                cut: cut.block.0,
                entry: eb,
                inside,
                args,
            });
        }
    }
    out
}

/// A pure computation: its result is a function of its operands and it
/// cannot be undefined behaviour.
fn pure_inst(kind: &InstKind) -> bool {
    match kind {
        InstKind::Binary { op, .. } => {
            !matches!(op, BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem)
        }
        InstKind::FNeg { .. }
        | InstKind::ICmp { .. }
        | InstKind::FCmp { .. }
        | InstKind::Cast { .. }
        | InstKind::Select { .. }
        | InstKind::Phi { .. }
        | InstKind::Gep { .. }
        | InstKind::ExtractValue { .. }
        | InstKind::InsertValue { .. }
        | InstKind::ExtractElement { .. }
        | InstKind::InsertElement { .. }
        | InstKind::ShuffleVector { .. } => true,
        _ => false,
    }
}

fn locals<'a>(ops: Vec<&'a Operand>) -> impl Iterator<Item = ValueId> + 'a {
    ops.into_iter().filter_map(|o| match o {
        Operand::Local(v) => Some(*v),
        _ => None,
    })
}

impl Quiet {
    /// The quiet blocks of `p`'s kernel.
    pub fn compute(p: &Prepared) -> Quiet {
        let f = p.func;
        let blocks = (0..f.blocks.len())
            .filter(|b| quiet_block(p, *b))
            .map(|b| (b, relevant(f, b)))
            .collect();
        Quiet { blocks }
    }
}

/// The values the visits of block `b` depend on (see the module doc).
fn relevant(f: &Function, b: usize) -> Vec<ValueId> {
    let mut rel: HashSet<ValueId> = HashSet::default();
    let mut work: Vec<ValueId> = Vec::new();
    {
        let block = &f.blocks[b];
        for ii in 0..=block.insts.len() {
            let r = InstRef {
                block: semantics::ir::BlockId(b),
                index: ii,
            };
            let root = ii == block.insts.len() || !pure_inst(&block.insts[ii].kind);
            if root {
                work.extend(locals(operands_of(f, r)));
            }
        }
    }
    // Defining instruction of each value.
    let mut def: HashMap<ValueId, InstRef> = HashMap::default();
    for (vi, info) in f.values.iter().enumerate() {
        if let ValueDef::Inst { block, index } = info.def {
            def.insert(
                ValueId(vi),
                InstRef {
                    block,
                    index: index as usize,
                },
            );
        }
    }
    while let Some(v) = work.pop() {
        if !rel.insert(v) {
            continue;
        }
        if let Some(r) = def.get(&v) {
            let kind = &f.block(r.block).insts[r.index].kind;
            if pure_inst(kind) {
                work.extend(locals(operands_of(f, *r)));
            }
        }
    }
    let mut out: Vec<ValueId> = rel.into_iter().collect();
    out.sort_by_key(|v| v.0);
    out
}

impl Builder<'_, '_> {
    /// Rule R-PREFIX: the thread is stuck at the bound (a lasso of quiet
    /// visits with equal relevant values, see the module doc). `blk` holds
    /// the block terms of steps 0..=K, `snaps` the SSA values at the start
    /// of each of them and `counts` the thread's event counts there.
    pub(super) fn stuck(
        &mut self,
        quiet: &Quiet,
        blk: &[TermId],
        snaps: &[HashMap<ValueId, V>],
        counts: &[[TermId; 2]],
    ) -> TermId {
        let k = self.k;
        let bw = self.t.sort(blk[0]).bv_width().unwrap_or(1);
        let nq = quiet.blocks.len();
        // at[s][i]: the thread is in quiet block i at step s.
        let at: Vec<Vec<TermId>> = (0..=k)
            .map(|s| {
                (0..nq)
                    .map(|i| {
                        let bt = self.t.bv_const(bw, quiet.blocks[i].0 as u128);
                        self.t.eq(blk[s], bt)
                    })
                    .collect()
            })
            .collect();
        let is_quiet: Vec<TermId> = at.iter().map(|row| self.t.or(row)).collect();
        let mut alts = Vec::new();
        for j in 0..k {
            let mut c = vec![self.t.eq(blk[j], blk[k])];
            c.extend(&is_quiet[j..k]);
            // Quiet blocks make no events; said again on the event counts
            // (external and observed convergent), in case a quiet kind
            // ever gets one.
            for (a, b) in counts[j].iter().zip(&counts[k]) {
                c.push(self.t.eq(*a, *b));
            }
            for (i, (_, rel)) in quiet.blocks.iter().enumerate() {
                if rel.is_empty() {
                    continue;
                }
                let visits: Vec<TermId> = (j..k).map(|s| at[s][i]).collect();
                let visited = self.t.or(&visits);
                let same: Vec<TermId> = rel
                    .iter()
                    .map(|v| self.same_value(snaps[j].get(v), snaps[k].get(v)))
                    .collect();
                let same = self.t.and(&same);
                c.push(self.t.implies(visited, same));
            }
            alts.push(self.t.and(&c));
        }
        self.t.or(&alts)
    }

    /// Rule R-PREFIX-REC: the thread sits in a `recursion.cut` block at
    /// the bound and one of `lassos` shows that the recursion repeats
    /// itself (module doc). `blk`, `snaps` and `counts` as for
    /// [`Builder::stuck`].
    pub(super) fn rec_stuck(
        &mut self,
        lassos: &[RecLasso],
        blk: &[TermId],
        snaps: &[HashMap<ValueId, V>],
        counts: &[[TermId; 2]],
    ) -> TermId {
        let k = self.k;
        let bw = self.t.sort(blk[0]).bv_width().unwrap_or(1);
        let mut alts = Vec::new();
        for l in lassos {
            let cut = self.t.bv_const(bw, l.cut as u128);
            let at_cut = self.t.eq(blk[k], cut);
            let inside: Vec<TermId> = l
                .inside
                .iter()
                .map(|b| self.t.bv_const(bw, *b as u128))
                .collect();
            // from[s]: every visit s..=K is inside the copy.
            let tru = self.t.tru();
            let mut from = vec![tru; k + 2];
            for s in (1..=k).rev() {
                let here: Vec<TermId> = inside.iter().map(|b| self.t.eq(blk[s], *b)).collect();
                let here = self.t.or(&here);
                from[s] = self.t.and(&[here, from[s + 1]]);
            }
            let entry = self.t.bv_const(bw, l.entry as u128);
            let mut entered = Vec::new();
            for e in 0..k {
                let at = self.t.eq(blk[e], entry);
                let mut c = vec![at, from[e + 1]];
                // Quiet visits make no events; said again on the counts
                // after the entry's visit (its caller's part may have some).
                for (a, b) in counts[e + 1].iter().zip(&counts[k]) {
                    c.push(self.t.eq(*a, *b));
                }
                entered.push(self.t.and(&c));
            }
            let entered = self.t.or(&entered);
            let mut c = vec![at_cut, entered];
            let snap = &snaps[k];
            for (a, b, w) in &l.args {
                let look = |op: &Operand| match op {
                    Operand::Local(v) => Some(snap.get(v).cloned()),
                    _ => None,
                };
                let (fa, fb) = (look(a), look(b));
                let va = self.read(a, fa, *w);
                let vb = self.read(b, fb, *w);
                c.push(self.same_value(Some(&va), Some(&vb)));
            }
            alts.push(self.t.and(&c));
        }
        self.t.or(&alts)
    }

    /// Two values of one SSA variable are equal (bits and poison flag; a
    /// token's key and definition step).
    fn same_value(&mut self, a: Option<&V>, b: Option<&V>) -> TermId {
        match (a, b) {
            (Some(V::Int { bits: a, poison: p }), Some(V::Int { bits: b, poison: q }))
                if self.t.sort(*a) == self.t.sort(*b) =>
            {
                let eb = self.t.eq(*a, *b);
                let ep = self.t.eq(*p, *q);
                self.t.and(&[eb, ep])
            }
            (Some(V::Tok { key: x, def: d }), Some(V::Tok { key: y, def: e })) => {
                let ek = super::keys_eq(self.t, x, y);
                let ed = self.t.eq(*d, *e);
                self.t.and(&[ek, ed])
            }
            (Some(V::Void), Some(V::Void)) | (None, None) => self.t.tru(),
            // A value the lasso cannot compare: never stuck.
            _ => self.t.fls(),
        }
    }
}
