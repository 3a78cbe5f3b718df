//! R-MEM-SMT (docs/RULES.md §9): memory in the encoding. The objects are
//! the kernel's table ([`crate::refine::memobj`]); each thread carries its
//! own view of every object, byte by byte (an 8-bit term and a poison
//! flag): the initial contents (launch input bytes shared with the other
//! program of the pair, global initializers, poison for `alloca`s) updated
//! by the thread's own stores. That view is the value P-MEM-VALUE gives
//! exactly when no byte a thread writes is accessed by another thread;
//! the per-thread write and read flags kept here let the checker ask
//! whether any execution within the bounds breaks that ([`Enc::conflict`]),
//! and answer `unsupported` if one does. Final contents of observed
//! objects (R-MEM) are then, per byte, the writing thread's last value,
//! else the initial one.
//!
//! A pointer value is an `i72`: the object index (8 bits: 0 null, then the
//! table's objects) over the offset (64 bits), P-MEM-PTR's (object,
//! offset); addresses (`icmp`) are the interpreter's base addresses plus
//! the offset. The interpreter's counterparts: `machine/access.rs` (`gep`,
//! `load`, `store`, `alloca`, `mem_intrinsic`) and `machine/memory.rs`
//! (`check`).

use semantics::ir::{Const, ConstExpr, Operand, Type, TypedOperand};

use rustc_hash::FxHashMap as HashMap;

use super::thread::ThreadSt;
use super::{Builder, V};
use crate::refine::callsem::MemOp;
use crate::refine::memobj::{ObjKind, Object};
use crate::refine::prog::{gep_steps, GepStep};
use crate::vc::TermId;

/// Width of a pointer value: object index over offset.
pub const PW: u32 = 72;
/// Width of the object index.
const OW: u32 = 8;
/// The object index of a pointer to no object (not produced yet: no
/// `inttoptr`; kept distinct from every table index).
const NO_OBJ: u128 = 255;

/// One byte of a thread's view (P-MEM-ACCESS): bits (`i8`), poison flag,
/// and a provenance tag (`i24`): 0 for data, else byte `idx` of a stored
/// pointer to object `obj` (`1 << 16 | obj << 8 | idx`; the bits are then
/// the pointer's address byte), as the interpreter's `Byte::Ptr` keeps
/// pointers' provenance in memory (P-MEM-PTR).
#[derive(Clone, Copy, Debug)]
pub struct MByte {
    pub bits: TermId,
    pub poison: TermId,
    pub tag: TermId,
}

/// Width of a byte's provenance tag.
pub(super) const TW: u32 = 24;

impl Builder<'_, '_> {
    fn objects(&self) -> &[Object] {
        &self.p.mem.objects
    }

    /// The pointer (object `j` of the table, or null for `None`, offset 0).
    fn ptr_const(&mut self, j: Option<usize>) -> TermId {
        let obj = j.map_or(0, |j| j as u128 + 1);
        self.bv(PW, obj << 64)
    }

    /// The value of a pointer constant (P-MEM-PTR), None when the encoding
    /// has no object for it (reported unsupported).
    pub(super) fn ptr_constant(&mut self, c: &Const) -> Option<TermId> {
        match c {
            Const::Null => Some(self.ptr_const(None)),
            Const::Global(g) => match self.p.mem.global.get(g) {
                Some(&j) => Some(self.ptr_const(Some(j))),
                None => {
                    self.unsupported(format!("@{g} (a global the encoding has no object for)"));
                    None
                }
            },
            Const::Expr(e) => match &**e {
                ConstExpr::Cast { from, .. } => self.ptr_constant(&from.value),
                _ => None,
            },
            _ => None,
        }
    }

    fn parts(&mut self, p: TermId) -> (TermId, TermId) {
        (self.t.extract(PW - 1, 64, p), self.t.extract(63, 0, p))
    }

    /// P-MEM-PTR: object `j`'s base address in thread `t` (an `alloca`'s
    /// depends on the thread id, `machine::memory::private_id`).
    fn base(&mut self, t: usize, j: usize) -> TermId {
        match self.objects()[j].kind {
            ObjKind::Private { n } => {
                let tid = self.launch.tid(self.t, t, 64);
                let one = self.bv(64, 1);
                let t1 = self.t.bv_add(tid, one);
                let sh = self.bv(64, 45);
                let hi = self.t.bv_shl(t1, sh);
                let lo = self.bv(64, (n as u128 & 0xff_ffff) << 21);
                self.t.bv_or(hi, lo)
            }
            _ => {
                let b = self.objects()[j].base;
                self.bv(64, b as u128)
            }
        }
    }

    /// P-MEM-PTR: the address of pointer `p` in thread `t` (null: its
    /// offset).
    pub(super) fn address(&mut self, t: usize, p: TermId) -> TermId {
        let (o, off) = self.parts(p);
        let mut acc = off;
        for j in 0..self.objects().len() {
            let jt = self.bv(OW, j as u128 + 1);
            let is = self.t.eq(o, jt);
            let b = self.base(t, j);
            let a = self.t.bv_add(b, off);
            acc = self.t.ite(is, a, acc);
        }
        acc
    }

    /// P-MEM-ACCESS: an `n`-byte access through `p` (bits, poison): its UB
    /// condition and, per object, whether it is the one accessed.
    fn access(&mut self, p: TermId, poison: TermId, n: u64, write: bool) -> (TermId, Vec<TermId>) {
        let _ = write;
        // The constant length folds to `off <= size - n` per object (false
        // for an object smaller than `n`).
        let len = self.bv(64, n as u128);
        self.access_len(p, poison, len)
    }

    /// P-MEM-ACCESS: an access of `len` bytes (a 64-bit term) through `p`
    /// (bits, poison): its UB condition (poison, no object, or
    /// `[off, off + len)` not inside `[0, size)`) and, per object, whether
    /// it is the one accessed. [`Builder::access`] for a length term.
    fn access_len(&mut self, p: TermId, poison: TermId, len: TermId) -> (TermId, Vec<TermId>) {
        let (o, off) = self.parts(p);
        let mut ok = Vec::new();
        let mut hits = Vec::new();
        for j in 0..self.objects().len() {
            let jt = self.bv(OW, j as u128 + 1);
            let is = self.t.eq(o, jt);
            hits.push(is);
            let size = self.bv(64, self.objects()[j].size as u128);
            // len <= size and off <= size - len (no wrap-around).
            let fits = self.t.bv_ule(len, size);
            let room = self.t.bv_sub(size, len);
            let inb = self.t.bv_ule(off, room);
            ok.push(self.t.and(&[is, fits, inb]));
        }
        let any_ok = self.t.or(&ok);
        let bad = self.t.not(any_ok);
        let ub = self.t.or(&[poison, bad]);
        (ub, hits)
    }

    /// P-MEM-ACCESS / R-MEM-SMT: `llvm.memcpy`, `llvm.memmove`,
    /// `llvm.memset` (and the `.inline` forms) as the interpreter's
    /// `machine::access::mem_intrinsic` runs them: a byte loop under the
    /// load and store rules. `args`: destination, source pointer (or the
    /// `i8` of `memset`), the length (`i{len_w}`, `len_w` at most 64), the
    /// volatile flag (not read, as in the interpreter). A poison length is
    /// UB; a length of 0 does nothing (whatever the pointers); otherwise
    /// UB when a pointer is poison, null or has no object, when
    /// `[off, off + len)` leaves its object, and for `memcpy` when both
    /// ranges share a byte and are not the same range. The length may be
    /// symbolic: byte `c` of each object is written iff the destination
    /// is that object and `off <= c < off + len`, with source byte
    /// `c - dst.off + src.off`
    /// of the view before the call (so `memmove` of overlapping ranges
    /// copies the old bytes) -- bits, poison flag and pointer provenance
    /// tag copied as they are (P-MEM-PTR), `memset`'s byte untagged (a
    /// poison value gives poison bytes). Cost: per destination byte one
    /// choice among all bytes of every object (bytes x total object size
    /// terms per call). Stores to observed objects are observed through
    /// final contents, as ordinary stores (R-MEM-SMT): no event. The
    /// read and written ranges are marked for the conflict check.
    pub(super) fn mem_intrinsic(&mut self, th: &mut ThreadSt, op: MemOp, args: &[V], len_w: u32) {
        let (lb, lp) = self.bits_of(&args[2], len_w);
        let len = if len_w < 64 {
            self.t.zero_ext(64 - len_w, lb)
        } else {
            lb
        };
        let zero = self.bv(64, 0);
        let is0 = self.t.eq(len, zero);
        let nz = self.t.not(is0);
        let (d, dp) = self.bits_of(&args[0], PW);
        let (dub, dhits) = self.access_len(d, dp, len);
        let (dobj, doff) = self.parts(d);
        let mut bad = vec![dub];
        let (fill, src) = match op {
            MemOp::Set => {
                let (vb, vp) = self.bits_of(&args[1], 8);
                let tag = self.bv(TW, 0);
                let fill = MByte {
                    bits: vb,
                    poison: vp,
                    tag,
                };
                (Some(fill), None)
            }
            MemOp::Copy | MemOp::Move => {
                let (s, sp) = self.bits_of(&args[1], PW);
                let (sub, shits) = self.access_len(s, sp, len);
                bad.push(sub);
                let (sobj, soff) = self.parts(s);
                if op == MemOp::Copy {
                    // Overlapping, unequal ranges (LangRef: "must either be
                    // equal or non-overlapping"). Both in bounds (else UB
                    // anyway): no wrap-around.
                    let same = self.t.eq(sobj, dobj);
                    let at = self.t.eq(soff, doff);
                    let moved = self.t.not(at);
                    let dend = self.t.bv_add(doff, len);
                    let send = self.t.bv_add(soff, len);
                    let a = self.t.bv_ult(soff, dend);
                    let b = self.t.bv_ult(doff, send);
                    bad.push(self.t.and(&[same, moved, a, b]));
                }
                (None, Some((soff, shits)))
            }
        };
        let any_bad = self.t.or(&bad);
        let checked = self.t.and(&[nz, any_bad]);
        let ub = self.t.or(&[lp, checked]);
        let nub = self.t.not(ub);
        let pre = self.t.not(th.visit.ub);
        let live = self.t.and(&[th.visit.at, pre, nub]);
        // Objects a pointer cannot name (its object index a constant
        // other than theirs) are skipped: the terms would fold to nothing.
        let never = self.t.fls();
        // The read range is marked before the written one: the copy reads
        // before it writes (R-MEM-SMT's read-before-own-write flag).
        if let Some((soff, shits)) = &src {
            for (k, hit) in shits.iter().enumerate() {
                if *hit != never && self.objects()[k].shared() {
                    let here = self.t.and(&[live, *hit]);
                    self.mark(th, k, *soff, len, here, false);
                }
            }
        }
        // The source bytes as they are before the call.
        let n_obj = self.objects().len();
        let before: Vec<Vec<MByte>> = (0..n_obj).map(|j| Self::view(th, j).to_vec()).collect();
        if th.visit.mem.is_none() {
            th.visit.mem = Some(th.mem.clone());
        }
        let blank = self.blank_byte();
        // delta = src.off - dst.off; dst byte c reads src byte c + delta.
        let delta = src.as_ref().map(|(soff, _)| self.t.bv_sub(*soff, doff));
        let mut is_delta: HashMap<i64, TermId> = HashMap::default();
        for j in 0..n_obj {
            if dhits[j] == never {
                continue;
            }
            let size = self.objects()[j].size;
            let mut view = before[j].clone();
            for (c, byte) in view.iter_mut().enumerate() {
                let ct = self.bv(64, c as u128);
                let ge = self.t.bv_ule(doff, ct);
                let dc = self.t.bv_sub(ct, doff);
                let lt = self.t.bv_ult(dc, len);
                let w = self.t.and(&[dhits[j], nub, ge, lt]);
                let value = match (&fill, &src, delta) {
                    (Some(f), _, _) => *f,
                    (None, Some((_, shits)), Some(delta)) => {
                        let mut v = blank;
                        for (k, sview) in before.iter().enumerate() {
                            if shits[k] == never {
                                continue;
                            }
                            let mut acc = blank;
                            for q in (0..sview.len()).rev() {
                                let dq = q as i64 - c as i64;
                                let e = match is_delta.get(&dq) {
                                    Some(e) => *e,
                                    None => {
                                        let dt = self.bv(64, dq as u64 as u128);
                                        let e = self.t.eq(delta, dt);
                                        is_delta.insert(dq, e);
                                        e
                                    }
                                };
                                acc = self.ite_byte(e, sview[q], acc);
                            }
                            v = self.ite_byte(shits[k], acc, v);
                        }
                        v
                    }
                    _ => unreachable!("a copy has a source, a memset a fill byte"),
                };
                *byte = self.ite_byte(w, value, *byte);
            }
            debug_assert_eq!(view.len() as u64, size);
            if self.objects()[j].shared() {
                let here = self.t.and(&[live, dhits[j]]);
                self.note_changes(th, j, &before[j], &view, here);
                self.mark(th, j, doff, len, here, true);
            }
            if let Some(m) = th.visit.mem.as_mut() {
                m[j] = view;
            }
        }
        th.visit.ub = self.t.or(&[th.visit.ub, ub]);
    }

    /// The thread's current view of object `j` in this visit.
    fn view(th: &ThreadSt, j: usize) -> &[MByte] {
        match &th.visit.mem {
            Some(m) => &m[j],
            None => &th.mem[j],
        }
    }

    /// P-MEM-ACCESS `load` of an integer type (little-endian; any poison
    /// byte makes it poison); UB goes to the visit. A vector (R-VEC-SMT,
    /// P-VEC-MEM) is loaded as its store size in bytes, element k from
    /// bytes `[k w, (k + 1) w)` (elements of a whole number of bytes,
    /// packed; prepare admits no other), each with its own poison.
    pub(super) fn load(&mut self, th: &mut ThreadSt, ty: &Type, ptr: &TypedOperand) -> V {
        if let Some((n, et)) = semantics::machine::vector::shape(ty) {
            let w = super::width(et);
            let eb = (w / 8) as usize;
            let bytes = self.load_bytes(th, ptr, (n * eb) as u64);
            return V::Vec(
                (0..n)
                    .map(|k| self.int_of_bytes(&bytes[k * eb..(k + 1) * eb], w))
                    .collect(),
            );
        }
        let w = super::width(ty);
        let n = if matches!(ty, Type::Ptr(_)) {
            8
        } else {
            u64::from(w.div_ceil(8))
        };
        let bytes = self.load_bytes(th, ptr, n);
        if let Type::Ptr(space) = ty {
            let V::Int { bits, poison } = self.int_of_bytes(&bytes, 64) else {
                unreachable!("int_of_bytes builds an integer")
            };
            let bits = self.decode_ptr(th.t, *space, &bytes, bits);
            return V::Int { bits, poison };
        }
        self.int_of_bytes(&bytes, w)
    }

    /// The `i{w}` value of little-endian `bytes`, poison if one of them is.
    fn int_of_bytes(&mut self, bytes: &[MByte], w: u32) -> V {
        let mut bits = bytes[0].bits;
        for b in &bytes[1..] {
            bits = self.t.concat(b.bits, bits);
        }
        let qs: Vec<TermId> = bytes.iter().map(|b| b.poison).collect();
        let poison = self.t.or(&qs);
        let bits = if bytes.len() as u32 * 8 > w {
            self.t.extract(w - 1, 0, bits)
        } else {
            bits
        };
        V::Int { bits, poison }
    }

    /// The `n` bytes a load through `ptr` reads from the thread's view
    /// (P-MEM-ACCESS, R-MEM-SMT); UB goes to the visit.
    fn load_bytes(&mut self, th: &mut ThreadSt, ptr: &TypedOperand, n: u64) -> Vec<MByte> {
        let pv = self.operand(&ptr.value, PW, th);
        let (p, pp) = self.bits_of(&pv, PW);
        let (ub, hits) = self.access(p, pp, n, false);
        let (_, off) = self.parts(p);
        let pre = self.t.not(th.visit.ub);
        let live = self.t.and(&[th.visit.at, pre]);
        let blank = self.blank_byte();
        let mut bytes: Vec<MByte> = vec![blank; n as usize];
        for (j, hit) in hits.iter().enumerate() {
            let size = self.objects()[j].size;
            if n > size {
                continue;
            }
            let view = Self::view(th, j).to_vec();
            for (k, slot) in bytes.iter_mut().enumerate() {
                let mut acc = blank;
                for c in (0..=size - n).rev() {
                    let ct = self.bv(64, c as u128);
                    let at = self.t.eq(off, ct);
                    acc = self.ite_byte(at, view[c as usize + k], acc);
                }
                *slot = self.ite_byte(*hit, acc, *slot);
            }
            if self.objects()[j].shared() {
                let here = self.t.and(&[live, *hit]);
                let nt = self.bv(64, n as u128);
                self.mark(th, j, off, nt, here, false);
            }
        }
        th.visit.ub = self.t.or(&[th.visit.ub, ub]);
        bytes
    }

    /// The little-endian bytes of an `i{w}` value (zero-extended to whole
    /// bytes), each with the value's poison flag and no pointer tag.
    fn bytes_of_int(&mut self, v: &V, w: u32) -> Vec<MByte> {
        let (vb, vp) = self.bits_of(v, w);
        let n = w.div_ceil(8);
        let wide = if n * 8 > w {
            self.t.zero_ext(n * 8 - w, vb)
        } else {
            vb
        };
        let zero_tag = self.bv(TW, 0);
        (0..n)
            .map(|k| MByte {
                bits: self.t.extract(8 * k + 7, 8 * k, wide),
                poison: vp,
                tag: zero_tag,
            })
            .collect()
    }

    /// P-MEM-ACCESS `store` of an integer, float, pointer or vector; UB
    /// goes to the visit.
    pub(super) fn store(&mut self, th: &mut ThreadSt, value: &TypedOperand, ptr: &TypedOperand) {
        // R-VEC-SMT (P-VEC-MEM): a vector's elements one after the other.
        if let Some((_, et)) = semantics::machine::vector::shape(&value.ty) {
            let w = super::width(et);
            let V::Vec(xs) = self.typed(&value.value, &value.ty, th) else {
                unreachable!("typed reads a vector type as V::Vec")
            };
            let vbytes: Vec<MByte> = xs.iter().flat_map(|x| self.bytes_of_int(x, w)).collect();
            return self.store_bytes(th, ptr, &vbytes);
        }
        let w = super::width(&value.ty);
        let vv = self.typed(&value.value, &value.ty, th);
        if !matches!(value.ty, Type::Ptr(_)) {
            let vbytes = self.bytes_of_int(&vv, w);
            return self.store_bytes(th, ptr, &vbytes);
        }
        // P-MEM-PTR: a pointer is stored as its 8 address bytes, each
        // tagged with its object and position (null: plain zero bytes).
        let (vb, vp) = self.bits_of(&vv, w);
        let (o, _) = self.parts(vb);
        let wide = self.address(th.t, vb);
        let zero_tag = self.bv(TW, 0);
        let vbytes: Vec<MByte> = (0..8u32)
            .map(|k| {
                let bits = self.t.extract(8 * k + 7, 8 * k, wide);
                let null_ptr = self.bv(PW, 0);
                let is_null = self.t.eq(vb, null_ptr);
                let one = self.bv(1, 1);
                let hi = self.t.concat(one, o);
                let kt = self.bv(8, k as u128);
                let tag = self.t.concat(hi, kt);
                let tag = self.t.zero_ext(TW - 17, tag);
                MByte {
                    bits,
                    poison: vp,
                    tag: self.t.ite(is_null, zero_tag, tag),
                }
            })
            .collect();
        self.store_bytes(th, ptr, &vbytes);
    }

    /// P-MEM-ACCESS: a store of `vbytes` through `ptr` into the thread's
    /// view (R-MEM-SMT); UB goes to the visit.
    fn store_bytes(&mut self, th: &mut ThreadSt, ptr: &TypedOperand, vbytes: &[MByte]) {
        let n = vbytes.len() as u64;
        let pv = self.operand(&ptr.value, PW, th);
        let (p, pp) = self.bits_of(&pv, PW);
        let (ub, hits) = self.access(p, pp, n, true);
        let (_, off) = self.parts(p);
        let pre = self.t.not(th.visit.ub);
        let nub = self.t.not(ub);
        let live = self.t.and(&[th.visit.at, pre, nub]);
        if th.visit.mem.is_none() {
            th.visit.mem = Some(th.mem.clone());
        }
        for j in 0..self.objects().len() {
            let size = self.objects()[j].size;
            if n > size {
                continue;
            }
            let old = Self::view(th, j).to_vec();
            let mut view = old.clone();
            for (c, byte) in view.iter_mut().enumerate() {
                // Byte c takes value byte k when off = c - k.
                for (k, vbk) in vbytes.iter().enumerate() {
                    let Some(start) = (c as u64).checked_sub(k as u64) else {
                        continue;
                    };
                    if start > size - n {
                        continue;
                    }
                    let st = self.bv(64, start as u128);
                    let at = self.t.eq(off, st);
                    let hit = self.t.and(&[hits[j], nub, at]);
                    *byte = self.ite_byte(hit, *vbk, *byte);
                }
            }
            if self.objects()[j].shared() {
                let here = self.t.and(&[live, hits[j]]);
                self.note_changes(th, j, &old, &view, here);
                let nt = self.bv(64, n as u128);
                self.mark(th, j, off, nt, here, true);
            }
            if let Some(m) = th.visit.mem.as_mut() {
                m[j] = view;
            }
        }
        th.visit.ub = self.t.or(&[th.visit.ub, ub]);
    }

    fn blank_byte(&mut self) -> MByte {
        MByte {
            bits: self.bv(8, 0),
            poison: self.t.fls(),
            tag: self.bv(TW, 0),
        }
    }

    /// Two bytes are the same value: both poison, or neither and equal
    /// bits and provenance tags (R-MEM-SMT's agreeing writers).
    pub(super) fn same_byte(&mut self, a: MByte, b: MByte) -> TermId {
        let both = self.t.and(&[a.poison, b.poison]);
        let np_a = self.t.not(a.poison);
        let np_b = self.t.not(b.poison);
        let bits = self.t.eq(a.bits, b.bits);
        let tag = self.t.eq(a.tag, b.tag);
        let defined = self.t.and(&[np_a, np_b, bits, tag]);
        self.t.or(&[both, defined])
    }

    pub(super) fn ite_byte(&mut self, c: TermId, a: MByte, b: MByte) -> MByte {
        MByte {
            bits: self.t.ite(c, a.bits, b.bits),
            poison: self.t.ite(c, a.poison, b.poison),
            tag: self.t.ite(c, a.tag, b.tag),
        }
    }

    /// P-MEM-PTR: the pointer that 8 loaded bytes hold (`addr`: their
    /// little-endian value), as the interpreter's `memory::decode`: the
    /// stored pointer itself when every byte is byte `i` of one stored
    /// pointer; else null for address 0; else the object of address space
    /// `space` whose `[base, base + size]` holds the address, or a pointer
    /// to no object.
    fn decode_ptr(&mut self, t: usize, space: u32, bytes: &[MByte], addr: TermId) -> TermId {
        let first = bytes[0].tag;
        let o = self.t.extract(15, 8, first);
        let flag = self.t.extract(16, 16, first);
        let one = self.bv(1, 1);
        let mut same = vec![self.t.eq(flag, one)];
        for (i, b) in bytes.iter().enumerate() {
            let hi = self.t.extract(TW - 1, 8, first);
            let it = self.bv(8, i as u128);
            let want = self.t.concat(hi, it);
            same.push(self.t.eq(b.tag, want));
        }
        let consistent = self.t.and(&same);
        // The stored pointer: offset = address - base(o).
        let mut base = self.bv(64, 0);
        for j in 0..self.objects().len() {
            let jt = self.bv(OW, j as u128 + 1);
            let is = self.t.eq(o, jt);
            let b = self.base(t, j);
            base = self.t.ite(is, b, base);
        }
        let off = self.t.bv_sub(addr, base);
        let stored = self.t.concat(o, off);
        // Integer bytes: inttoptr of the address.
        let none = self.bv(OW, NO_OBJ);
        let mut by_addr = self.t.concat(none, addr);
        for j in 0..self.objects().len() {
            if self.objects()[j].space != space {
                continue;
            }
            let b = self.base(t, j);
            let size = self.bv(64, self.objects()[j].size as u128);
            let end = self.t.bv_add(b, size);
            let ge = self.t.bv_uge(addr, b);
            let le = self.t.bv_ule(addr, end);
            let inside = self.t.and(&[ge, le]);
            let jt = self.bv(OW, j as u128 + 1);
            let d = self.t.bv_sub(addr, b);
            let p = self.t.concat(jt, d);
            by_addr = self.t.ite(inside, p, by_addr);
        }
        let zero = self.bv(64, 0);
        let is_null = self.t.eq(addr, zero);
        let null = self.bv(PW, 0);
        let int_ptr = self.t.ite(is_null, null, by_addr);
        self.t.ite(consistent, stored, int_ptr)
    }

    /// R-MEM-SMT: records that bytes `[off, off + n)` of shared object `j`
    /// are written or read by this thread when `here` (a read while the
    /// thread has not written the byte yet also sets `nw`).
    /// `nt`: the length, a 64-bit term (a memory intrinsic's may be
    /// symbolic).
    fn mark(
        &mut self,
        th: &mut ThreadSt,
        j: usize,
        off: TermId,
        nt: TermId,
        here: TermId,
        write: bool,
    ) {
        let size = self.objects()[j].size;
        for c in 0..size {
            // c in [off, off + n): off <= c and c - off < n.
            let ct = self.bv(64, c as u128);
            let ge = self.t.bv_ule(off, ct);
            let d = self.t.bv_sub(ct, off);
            let lt = self.t.bv_ult(d, nt);
            let hit = self.t.and(&[here, ge, lt]);
            let c = c as usize;
            if !write {
                // Read before the thread's own first write of the byte.
                let nwr = self.t.not(th.wr[j][c]);
                let first = self.t.and(&[hit, nwr]);
                th.nw[j][c] = self.t.or(&[th.nw[j][c], first]);
            }
            let flags = if write { &mut th.wr } else { &mut th.rd };
            let old = flags[j][c];
            flags[j][c] = self.t.or(&[old, hit]);
            if !self.epochs.is_empty() {
                // R-MEM-SYNC-SMT: the epoch's accesses.
                let flags = if write { &mut th.wre } else { &mut th.rde };
                let old = flags[j][c];
                flags[j][c] = self.t.or(&[old, hit]);
            }
        }
    }

    /// R-MEM-SMT (agreeing reads): a write that turns the thread's view of
    /// shared object `j` from `old` to `new` when `here` changes a byte the
    /// thread had already written to another value (`ch`). Called before
    /// the write is marked (so `wr` is the state before it).
    fn note_changes(
        &mut self,
        th: &mut ThreadSt,
        j: usize,
        old: &[MByte],
        new: &[MByte],
        here: TermId,
    ) {
        for (c, (o, n)) in old.iter().zip(new).enumerate() {
            let same = self.same_byte(*o, *n);
            if same == self.t.tru() {
                continue;
            }
            let differs = self.t.not(same);
            let hit = self.t.and(&[here, th.wr[j][c], differs]);
            th.ch[j][c] = self.t.or(&[th.ch[j][c], hit]);
        }
    }

    /// P-MEM-OBJ `alloca` of the entry block: this thread's object.
    pub(super) fn alloca(&mut self, ii: usize) -> V {
        match self.p.mem.alloca.get(&ii).copied() {
            Some(j) => {
                let p = self.ptr_const(Some(j));
                self.int(p)
            }
            None => {
                self.unsupported("alloca without an object".into());
                self.poison(PW)
            }
        }
    }

    /// P-MEM-LAYOUT `getelementptr`: the base's offset plus the indices
    /// times the layout's strides and field offsets; a poison operand gives
    /// poison, and so does an `inbounds` result outside `[0, size]` of its
    /// object.
    pub(super) fn gep(
        &mut self,
        th: &ThreadSt,
        flags: &[String],
        source_ty: &Type,
        base: &TypedOperand,
        indices: &[TypedOperand],
    ) -> V {
        let steps = match gep_steps(&self.p.mem, self.p.module, source_ty, indices) {
            Ok(s) => s,
            Err(e) => {
                self.unsupported(format!("getelementptr ({e})"));
                return self.poison(PW);
            }
        };
        let bv = self.operand(&base.value, PW, th);
        let (p, pp) = self.bits_of(&bv, PW);
        let (o, off) = self.parts(p);
        let mut poison = vec![pp];
        let mut acc = off;
        for (idx, step) in indices.iter().zip(steps) {
            let w = super::width(&idx.ty);
            let iv = self.operand(&idx.value, w, th);
            let (ib, ip) = self.bits_of(&iv, w);
            poison.push(ip);
            let i64v = match w.cmp(&64) {
                std::cmp::Ordering::Less => self.t.sign_ext(64 - w, ib),
                std::cmp::Ordering::Equal => ib,
                std::cmp::Ordering::Greater => self.t.extract(63, 0, ib),
            };
            let delta = match step {
                GepStep::Field(f) => self.bv(64, f as u128),
                GepStep::Stride(s) => {
                    let st = self.bv(64, s as u128);
                    self.t.bv_mul(i64v, st)
                }
            };
            acc = self.t.bv_add(acc, delta);
        }
        if flags.iter().any(|f| f == "inbounds") {
            let zero = self.bv(64, 0);
            let neg = self.t.bv_slt(acc, zero);
            let mut outside = vec![neg];
            for j in 0..self.objects().len() {
                let jt = self.bv(OW, j as u128 + 1);
                let is = self.t.eq(o, jt);
                let size = self.bv(64, self.objects()[j].size as u128);
                let big = self.t.bv_sgt(acc, size);
                outside.push(self.t.and(&[is, big]));
            }
            let none = self.bv(OW, NO_OBJ);
            let is_none = self.t.eq(o, none);
            let z = self.t.eq(acc, zero);
            let nz = self.t.not(z);
            outside.push(self.t.and(&[is_none, nz]));
            // `outside[0]` (negative) counts only for non-null objects.
            let null = self.bv(OW, 0);
            let is_null = self.t.eq(o, null);
            let not_null = self.t.not(is_null);
            let any = self.t.or(&outside);
            let p2 = self.t.and(&[not_null, any]);
            poison.push(p2);
        }
        let bits = self.t.concat(o, acc);
        let poison = self.t.or(&poison);
        V::Int { bits, poison }
    }

    /// P-MEM-PTR `icmp` on pointers: the predicate on their addresses.
    pub(super) fn ptr_icmp(
        &mut self,
        th: &ThreadSt,
        pred: semantics::ir::ICmpPred,
        lhs: &Operand,
        rhs: &Operand,
    ) -> V {
        let a = self.operand(lhs, PW, th);
        let c = self.operand(rhs, PW, th);
        let (ab, ap) = self.bits_of(&a, PW);
        let (cb, cp) = self.bits_of(&c, PW);
        let x = self.address(th.t, ab);
        let y = self.address(th.t, cb);
        let r = self.icmp_pred(pred, x, y);
        let one = self.bv(1, 1);
        let zero = self.bv(1, 0);
        let bits = self.t.ite(r, one, zero);
        let poison = self.t.or(&[ap, cp]);
        V::Int { bits, poison }
    }

    /// P-MEM-OBJ: thread `t`'s initial view of every object.
    pub(super) fn mem_start(&mut self) -> Vec<Vec<MByte>> {
        let fls = self.t.fls();
        let tru = self.t.tru();
        let tag = self.bv(TW, 0);
        let z = self.bv(8, 0);
        let byte = |bits, poison| MByte { bits, poison, tag };
        let mut out = Vec::new();
        for j in 0..self.objects().len() {
            let o = self.objects()[j].clone();
            let bytes = match o.kind {
                ObjKind::Input { param } => {
                    let ins = self
                        .launch
                        .buffers
                        .iter()
                        .find(|b| b.0 == param)
                        .map(|b| b.2.clone())
                        .unwrap_or_default();
                    (0..o.size as usize)
                        .map(|c| match ins.get(c) {
                            Some(x) => byte(*x, fls),
                            None => byte(z, tru),
                        })
                        .collect()
                }
                ObjKind::Global | ObjKind::Workgroup => o
                    .init
                    .iter()
                    .map(|b| match b {
                        Some(x) => byte(self.bv(8, *x as u128), fls),
                        None => byte(z, tru),
                    })
                    .collect(),
                ObjKind::Private { .. } => vec![byte(z, tru); o.size as usize],
            };
            out.push(bytes);
        }
        out
    }
}
