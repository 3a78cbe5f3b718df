//! Memory of one launch (docs/RULES.md §9): objects of bytes (P-MEM-OBJ),
//! pointers as (object, offset) (P-MEM-PTR), typed accesses through the data
//! layout (P-MEM-ACCESS, P-MEM-LAYOUT).
//!
//! Object identities are chosen so that they do not depend on the order in
//! which threads ran (memoization compares states reached by different
//! schedules, machine/reduce.rs): a global's object is its index (one
//! instance per launch group for workgroup globals), an input buffer's the
//! parameter's position, an `alloca`'s the allocating thread and that
//! thread's count of allocations.

use im::{OrdMap, Vector};

use crate::ir::layout::DataLayout;
use crate::ir::{Module, Type};

use super::value::{mask, UbKind, Val};

/// The address space of workgroup-shared memory (P-MEM-OBJ: AMDGPU and
/// NVPTX `addrspace(3)`, SPIR-V Workgroup = 3).
pub const WORKGROUP_SPACE: u32 = 3;

/// First object id of input buffers (P-INPUT).
const INPUT_BASE: u32 = 1 << 20;

/// Object id of a thread's `n`-th allocation.
pub fn private_id(tid: u32, n: u32) -> u32 {
    ((tid + 1) << 24) | (n & 0xff_ffff)
}

/// Object id of the `k`-th input buffer.
pub fn input_id(k: u32) -> u32 {
    INPUT_BASE + k
}

/// Object id of global `index` (position in the module) as seen by a thread
/// of launch group `group`: workgroup globals have one instance per group
/// (P-MEM-OBJ).
pub fn global_id(module: &Module, index: usize, group: u32) -> u32 {
    let n = module.globals.len() as u32;
    if is_workgroup(&module.globals[index]) {
        1 + index as u32 + n * group
    } else {
        1 + index as u32
    }
}

/// Whether a global lives in workgroup memory.
pub fn is_workgroup(g: &crate::ir::Global) -> bool {
    g.keywords
        .iter()
        .any(|k| *k == format!("addrspace({WORKGROUP_SPACE})"))
}

/// P-MEM-PTR: objects sit at fixed addresses: object `id` starts at `id`
/// times this stride (2 MiB; objects are at most 1 MiB, so one-past-the-end
/// addresses stay inside the slot and every base is 2 MiB-aligned). Ids do
/// not depend on the schedule, so neither do addresses.
pub const SLOT: u64 = 1 << 21;

/// The provenance of an `inttoptr` result whose address is in no object
/// (P-MEM-PTR): never an object id, so an access through it is UB
/// ([`UbKind::NoObject`]); its offset is the address itself.
pub const NO_OBJECT: u32 = u32::MAX;

/// P-MEM-PTR: the base address of object `id`.
pub fn base_address(id: u32) -> u64 {
    id as u64 * SLOT
}

/// P-MEM-PTR: the address of a pointer (object base plus offset; null and
/// object-less pointers are their offset), modulo 2^64.
pub fn address(obj: u32, off: i64) -> u64 {
    match obj {
        0 | NO_OBJECT => off as u64,
        _ => base_address(obj).wrapping_add(off as u64),
    }
}

/// What an object is (who sees it, whether it is observed: R-MEM).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ObjKind {
    /// A global outside workgroup memory: one per launch, observed.
    Global,
    /// A workgroup global's instance for one launch group: not observed.
    Workgroup { group: u32 },
    /// A kernel pointer argument's buffer (P-INPUT): observed.
    Input,
    /// An `alloca` of one thread: never shared, never observed.
    Private { tid: u32 },
}

/// One byte of memory (P-MEM-ACCESS).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Byte {
    /// Uninitialised (LangRef undef, read as poison) or written poison.
    Poison,
    /// An input byte not read yet: its value is chosen at the first load
    /// (P-INPUT), so that untouched inputs are not enumerated.
    Unread,
    Data(u8),
    /// An input byte whose value was chosen when it was first read: reads
    /// as `Data`; R-MEM does not observe it (inputs are observed only
    /// through what the program computes from them).
    Input(u8),
    /// Byte `idx` of a stored pointer: pointers keep their provenance in
    /// memory (P-MEM-PTR).
    Ptr {
        obj: u32,
        off: i64,
        idx: u8,
    },
    /// P-MEM-UNDEF: a byte of the *final* contents of an observed object
    /// whose last writes by two threads, neither happening before the
    /// other, differ (LangRef: a read that may see several writes returns
    /// `undef`). Only [`Memory::final_byte`] makes it; it never sits in a
    /// live object, so no load reads it.
    Undef,
}

/// A memory object (P-MEM-OBJ).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Object {
    /// `@g`, `%buf`, `alloca in t3`: how reports name it.
    pub name: String,
    pub kind: ObjKind,
    /// Address space.
    pub space: u32,
    /// Contents; the size is `bytes.len()`.
    pub bytes: Vector<Byte>,
}

/// One access remembered for race detection (P-MEM-RACE).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Access {
    pub tid: u32,
    /// The thread's epoch (its own vector-clock entry) at the access.
    pub epoch: u32,
    pub atomic: bool,
    /// Where it happened, as reports print it.
    pub at: String,
}

/// The accesses to one byte that later accesses are checked against: the
/// last write, and each thread's last read since it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Shadow {
    pub write: Option<Access>,
    pub reads: OrdMap<u32, Access>,
}

/// All objects of a launch by id (0 is never an object: null).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Memory {
    /// Each object shared copy-on-write: a write copies that object
    /// alone, not the map node's other objects with their bytes.
    pub objects: OrdMap<u32, std::sync::Arc<Object>>,
    /// P-MEM-SYNC (only with race detection): each thread's vector clock,
    /// sparse; a thread's own entry is its epoch minus one, others the
    /// latest epoch of that thread that happens before it.
    pub clocks: OrdMap<u32, OrdMap<u32, u32>>,
    /// P-MEM-RACE (only with race detection): per (object, byte) of shared
    /// objects, the accesses to check against.
    pub shadow: OrdMap<(u32, u64), Shadow>,
    /// P-MEM-UNDEF: per (object, byte) of observed objects, the last
    /// non-atomic write of each thread that no later write happens after
    /// (P-MEM-SYNC), as (value, the writer's epoch).
    pub last: OrdMap<(u32, u64), OrdMap<u32, (Byte, u32)>>,
}

/// Why a typed value cannot be read or written as bytes: outside what the
/// interpreter models (reported as an unsupported construct).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unmodelled(pub String);

impl Memory {
    /// A thread's current epoch (P-MEM-SYNC: epochs start at 1).
    fn epoch(&self, tid: u32) -> u32 {
        self.clocks
            .get(&tid)
            .and_then(|c| c.get(&tid))
            .copied()
            .unwrap_or(0)
            + 1
    }

    /// Whether an access made by `a.tid` at `a.epoch` happens before the
    /// current point of thread `tid` (program order, or a synchronization).
    fn hb(&self, a: &Access, tid: u32) -> bool {
        self.hb_at(a.tid, a.epoch, tid)
    }

    /// Whether a point of thread `u` in its epoch `epoch` happens before
    /// the current point of thread `tid`.
    fn hb_at(&self, u: u32, epoch: u32, tid: u32) -> bool {
        u == tid
            || self
                .clocks
                .get(&tid)
                .and_then(|c| c.get(&u))
                .is_some_and(|known| epoch <= *known)
    }

    /// Whether synchronizations must be tracked (P-MEM-SYNC clocks): under
    /// race detection, or once a thread wrote an observed object
    /// (P-MEM-UNDEF orders writes by them). Before the first such write a
    /// synchronization orders no two of them, so skipping it loses nothing.
    pub fn tracks_sync(&self, races: bool) -> bool {
        races || !self.last.is_empty()
    }

    /// P-MEM-UNDEF: records a write by `tid` of `bytes` at `[off, ..)` of
    /// `obj` (only observed objects: globals outside workgroup memory and
    /// input buffers). Each byte keeps, per thread, the last write no later
    /// write happens after: the new write replaces the writer's own and
    /// drops every other thread's that happens before it. An atomic write
    /// (P-MEM-RACE: atomics are sequentially consistent, so atomic writes
    /// are ordered) forgets the byte's writes: the byte's final value is
    /// then the latest write, as without this rule.
    pub fn note_write(&mut self, obj: u32, off: u64, bytes: &[Byte], tid: u32, atomic: bool) {
        if !matches!(
            self.objects.get(&obj).map(|o| &o.kind),
            Some(ObjKind::Global | ObjKind::Input)
        ) {
            return;
        }
        let epoch = self.epoch(tid);
        for (i, b) in bytes.iter().enumerate() {
            let key = (obj, off + i as u64);
            if atomic {
                self.last.remove(&key);
                continue;
            }
            let mut ws: OrdMap<u32, (Byte, u32)> = self
                .last
                .get(&key)
                .map(|ws| {
                    ws.iter()
                        .filter(|(u, (_, e))| !self.hb_at(**u, *e, tid))
                        .map(|(u, x)| (*u, *x))
                        .collect()
                })
                .unwrap_or_default();
            ws.insert(tid, (*b, epoch));
            self.last.insert(key, ws);
        }
    }

    /// P-MEM-UNDEF / R-MEM: what the final contents show of byte `i` of
    /// object `obj`, whose contents hold `b` (the latest write in the
    /// schedule run): `undef` when two of the writes [`Memory::note_write`]
    /// kept (by different threads, neither happening before the other)
    /// differ in value (bits, poison, pointer provenance: [`same_value`]);
    /// else `b` (writers that agree give their common value, R-MEM-SMT's
    /// relaxation).
    pub fn final_byte(&self, obj: u32, i: u64, b: Byte) -> Byte {
        match self.last.get(&(obj, i)) {
            Some(ws) if ws.len() > 1 => {
                let mut vs = ws.values().map(|(v, _)| *v);
                let first = vs.next().expect("len > 1");
                if vs.all(|v| same_value(v, first)) {
                    b
                } else {
                    Byte::Undef
                }
            }
            _ => b,
        }
    }

    /// P-MEM-SYNC: the members of a fired synchronizing set: everything each
    /// did before happens before everything each does after (clocks joined,
    /// then each member starts a new epoch).
    pub fn synchronize(&mut self, tids: &[u32]) {
        let mut join: OrdMap<u32, u32> = OrdMap::new();
        for t in tids {
            join.insert(*t, self.epoch(*t));
            if let Some(c) = self.clocks.get(t) {
                for (u, e) in c {
                    if u != t {
                        let x = join.get(u).copied().unwrap_or(0).max(*e);
                        join.insert(*u, x);
                    }
                }
            }
        }
        for t in tids {
            let mut c = join.clone();
            // Own entry: epoch - 1, so the new epoch is the old one plus 1.
            c.insert(*t, join.get(t).copied().unwrap_or(1));
            self.clocks.insert(*t, c);
        }
    }

    /// P-MEM-RACE: records an access by `tid` to bytes `[off, off + n)` of
    /// `obj` (private objects are never shared and not tracked) and returns
    /// the first earlier access it races with: to a common byte, by another
    /// thread, one of the two a write, not both atomic, neither happening
    /// before the other (a later access never happens before an earlier
    /// one: threads run alone between scheduling points).
    #[allow(clippy::too_many_arguments)]
    pub fn race_check(
        &mut self,
        obj: u32,
        off: u64,
        n: u64,
        tid: u32,
        write: bool,
        atomic: bool,
        at: &str,
    ) -> Option<(u64, Access, bool)> {
        if matches!(
            self.objects.get(&obj).map(|o| &o.kind),
            Some(ObjKind::Private { .. }) | None
        ) {
            return None;
        }
        let me = Access {
            tid,
            epoch: self.epoch(tid),
            atomic,
            at: at.to_string(),
        };
        for i in off..off + n {
            let sh = self.shadow.get(&(obj, i)).cloned().unwrap_or_default();
            let conflicts = |a: &Access| !(self.hb(a, tid) || (atomic && a.atomic));
            if let Some(w) = sh.write.as_ref().filter(|w| conflicts(w)) {
                return Some((i, w.clone(), true));
            }
            if write {
                if let Some(r) = sh.reads.values().find(|r| conflicts(r)) {
                    return Some((i, r.clone(), false));
                }
            }
            let mut sh = sh;
            if write {
                sh.write = Some(me.clone());
                sh.reads = OrdMap::new();
            } else {
                sh.reads.insert(tid, me.clone());
            }
            self.shadow.insert((obj, i), sh);
        }
        None
    }

    /// P-MEM-PTR `inttoptr`: the pointer of address space `space` with the
    /// provenance of the object whose range `[base, base + size]` holds
    /// `addr`; 0 is null; an address in no object gives a pointer with no
    /// object ([`NO_OBJECT`]).
    pub fn pointer_at(&self, addr: u64, space: u32) -> Val {
        if addr == 0 {
            return Val::Ptr { obj: 0, off: 0 };
        }
        let id = addr / SLOT;
        let off = (addr % SLOT) as i64;
        match u32::try_from(id)
            .ok()
            .and_then(|id| Some((id, self.objects.get(&id)?)))
        {
            Some((id, o)) if o.space == space && off as usize <= o.bytes.len() => {
                Val::Ptr { obj: id, off }
            }
            _ => Val::Ptr {
                obj: NO_OBJECT,
                off: addr as i64,
            },
        }
    }

    pub fn add(&mut self, id: u32, obj: Object) {
        self.objects.insert(id, std::sync::Arc::new(obj));
    }

    /// P-MEM-ACCESS: the object and offset a `size`-byte access through `p`
    /// by thread `tid` touches, or the undefined behaviour it is.
    pub fn check(&self, p: Val, size: u64, tid: u32, write: bool) -> Result<(u32, u64), UbKind> {
        let (obj, off) = match p {
            Val::Ptr { obj: 0, .. } => {
                return Err(if write {
                    UbKind::StoreThroughNull
                } else {
                    UbKind::LoadThroughNull
                })
            }
            Val::Ptr { obj, off } => (obj, off),
            _ => {
                return Err(if write {
                    UbKind::StoreThroughPoison
                } else {
                    UbKind::LoadThroughPoison
                })
            }
        };
        let Some(o) = self.objects.get(&obj) else {
            return Err(UbKind::NoObject);
        };
        if let ObjKind::Private { tid: owner } = o.kind {
            if owner != tid {
                return Err(UbKind::OtherThreadsPrivate {
                    object: o.name.clone(),
                });
            }
        }
        let len = o.bytes.len() as u64;
        match u64::try_from(off) {
            Ok(start) if start.checked_add(size).is_some_and(|end| end <= len) => Ok((obj, start)),
            _ => Err(UbKind::OutOfBounds {
                object: o.name.clone(),
                off,
                size,
                object_size: len,
            }),
        }
    }

    /// The bytes at `[off, off + n)` of object `obj` (checked by [`Memory::check`]).
    pub fn read(&self, obj: u32, off: u64, n: u64) -> Vec<Byte> {
        let o = &self.objects[&obj];
        (off..off + n).map(|i| o.bytes[i as usize]).collect()
    }

    pub fn write(&mut self, obj: u32, off: u64, bytes: &[Byte]) {
        let o = std::sync::Arc::make_mut(
            self.objects
                .get_mut(&obj)
                .expect("P-MEM-ACCESS: writes go to objects checked by Memory::check"),
        );
        for (i, b) in bytes.iter().enumerate() {
            o.bytes.set(off as usize + i, *b);
        }
    }
}

/// The bytes of `v` stored as `ty` (little-endian, P-MEM-ACCESS; a vector
/// element by element, packed, P-VEC-MEM).
pub fn encode(v: Val, ty: &Type, dl: &DataLayout, m: &Module) -> Result<Vec<Byte>, Unmodelled> {
    let size = dl
        .store_size(ty, m)
        .map_err(|e| Unmodelled(format!("memory access of this type ({})", e.0)))?;
    if let Some((n, et)) = super::vector::shape(ty) {
        let w = vector_element_bytes(et, dl, m)?;
        let mut out = Vec::with_capacity(size as usize);
        for x in super::vector::lanes(&v, n) {
            let bytes = encode(x, et, dl, m)?;
            out.extend_from_slice(&bytes[..w as usize]);
        }
        out.resize(size as usize, Byte::Poison);
        return Ok(out);
    }
    Ok(match (v.clone(), ty) {
        (Val::Poison, _) => vec![Byte::Poison; size as usize],
        (Val::Int { v, .. }, Type::Int(_)) => (0..size)
            .map(|i| Byte::Data(if i < 16 { (v >> (8 * i)) as u8 } else { 0 }))
            .collect(),
        // P-FLOAT: a float is stored as its bit pattern.
        (Val::Float { ty: f, bits }, t) if crate::ir::float::FloatTy::of(t) == Some(f) => (0..size)
            .map(|i| Byte::Data((bits >> (8 * i)) as u8))
            .collect(),
        (Val::Ptr { obj: 0, off: 0 }, Type::Ptr(_)) => vec![Byte::Data(0); size as usize],
        (Val::Ptr { obj, off }, Type::Ptr(_)) => (0..size)
            .map(|i| Byte::Ptr {
                obj,
                off,
                idx: i as u8,
            })
            .collect(),
        _ => {
            return Err(Unmodelled(format!(
                "store of {v} as {}",
                crate::ir::print::type_str(ty)
            )))
        }
    })
}

/// P-VEC-MEM: the bytes each element of a vector of `et` occupies in
/// memory. LLVM packs vector elements by their size in bits
/// (`DataLayout::getTypeSizeInBits`: no padding between elements), so
/// element k starts at bit k times that size; elements whose size is not
/// a whole number of bytes (`<8 x i1>`) would share bytes, and a poison
/// element would then poison its neighbours' bits: not modelled.
pub fn vector_element_bytes(et: &Type, dl: &DataLayout, m: &Module) -> Result<u64, Unmodelled> {
    let unmodelled = |why: String| {
        Unmodelled(format!(
            "memory access of a vector of {} ({why})",
            crate::ir::print::type_str(et)
        ))
    };
    let bits = match et {
        Type::Int(b) => u64::from(*b),
        _ => dl.store_size(et, m).map_err(|e| unmodelled(e.0))? * 8,
    };
    if bits % 8 != 0 {
        return Err(unmodelled(
            "elements narrower than a byte or not a whole number of bytes".into(),
        ));
    }
    Ok(bits / 8)
}

/// The value of type `ty` that `bytes` hold (P-MEM-ACCESS: any poison byte
/// makes the value poison; the bytes of a stored pointer read as an integer
/// are its address, P-MEM-PTR `ptrtoint`, and integer bytes read as a
/// pointer are `inttoptr` of them in `mem`).
pub fn decode(bytes: &[Byte], ty: &Type, mem: &Memory) -> Result<Val, Unmodelled> {
    if let Some((n, et)) = super::vector::shape(ty) {
        // P-VEC-MEM: element k at byte k * w, each decoded on its own (a
        // poison byte poisons its element only).
        let w = bytes.len() / n.max(1);
        if matches!(et, Type::Int(b) if b % 8 != 0) || w * n != bytes.len() {
            return Err(Unmodelled(format!(
                "memory access of a vector of {} (elements narrower than a byte or not a whole number of bytes)",
                crate::ir::print::type_str(et)
            )));
        }
        return Ok(super::vector::of(
            (0..n)
                .map(|k| decode(&bytes[k * w..(k + 1) * w], et, mem))
                .collect::<Result<Vec<Val>, Unmodelled>>()?,
        ));
    }
    if bytes.iter().any(|b| matches!(b, Byte::Poison)) {
        return Ok(Val::Poison);
    }
    match ty {
        Type::Int(bits) if *bits <= 128 => {
            let mut v: u128 = 0;
            for i in 0..bytes.len().min(16) {
                v |= (int_byte(bytes, i)? as u128) << (8 * i);
            }
            Ok(Val::Int {
                bits: *bits,
                v: v & mask(*bits),
            })
        }
        t if crate::ir::float::FloatTy::of(t).is_some() => {
            let f = crate::ir::float::FloatTy::of(t).expect("guarded by the match arm");
            let mut v: u64 = 0;
            for i in 0..bytes.len() {
                v |= (int_byte(bytes, i)? as u64) << (8 * i);
            }
            Ok(Val::Float { ty: f, bits: v })
        }
        Type::Ptr(_) => {
            if bytes
                .iter()
                .all(|b| matches!(b, Byte::Data(0) | Byte::Input(0)))
            {
                return Ok(Val::Ptr { obj: 0, off: 0 });
            }
            match bytes.first() {
                Some(Byte::Ptr { obj, off, .. })
                    if bytes.iter().enumerate().all(|(i, b)| {
                        *b == Byte::Ptr {
                            obj: *obj,
                            off: *off,
                            idx: i as u8,
                        }
                    }) =>
                {
                    Ok(Val::Ptr {
                        obj: *obj,
                        off: *off,
                    })
                }
                _ => {
                    let Type::Ptr(space) = ty else {
                        unreachable!("guarded by the match arm")
                    };
                    let mut addr: u64 = 0;
                    for i in 0..bytes.len().min(8) {
                        addr |= (int_byte(bytes, i)? as u64) << (8 * i);
                    }
                    Ok(mem.pointer_at(addr, *space))
                }
            }
        }
        other => Err(Unmodelled(format!(
            "load of type {}",
            crate::ir::print::type_str(other)
        ))),
    }
}

/// Byte `i` of `bytes` as an integer byte: data, or the matching byte of a
/// stored pointer's address (P-MEM-PTR). A pointer whose address does not
/// fit in the bytes stored for it (a narrow address space) is not modelled.
fn int_byte(bytes: &[Byte], i: usize) -> Result<u8, Unmodelled> {
    match bytes[i] {
        Byte::Data(x) | Byte::Input(x) => Ok(x),
        Byte::Ptr { obj, off, idx } => {
            let a = address(obj, off);
            let width = bytes
                .iter()
                .filter_map(|b| match b {
                    Byte::Ptr {
                        obj: o,
                        off: f,
                        idx,
                    } if (*o, *f) == (obj, off) => Some(*idx as u32 + 1),
                    _ => None,
                })
                .max()
                .unwrap_or(8);
            if width < 8 && a >> (8 * width) != 0 {
                return Err(Unmodelled(format!(
                    "a pointer's bytes read as an integer: its address {a:#x} does not fit in {width} bytes"
                )));
            }
            Ok((a >> (8 * idx as u32)) as u8)
        }
        Byte::Poison | Byte::Unread | Byte::Undef => {
            unreachable!("P-MEM-ACCESS: callers read poison first and fill unread input bytes; undef is only final contents")
        }
    }
}

/// P-MEM-UNDEF: two written bytes hold the same value: both poison, or
/// the same bits and provenance (an input byte is its data; a pointer
/// byte is its object, position and address byte, as the encoding's tag
/// and bits, R-MEM-SMT).
pub fn same_value(a: Byte, b: Byte) -> bool {
    let key = |x: Byte| match x {
        Byte::Data(v) | Byte::Input(v) => Some((u32::MAX, 0u8, v)),
        Byte::Ptr { obj, off, idx } => {
            Some((obj, idx, (address(obj, off) >> (8 * idx as u32)) as u8))
        }
        _ => None,
    };
    match (a, b) {
        (Byte::Poison, Byte::Poison) => true,
        _ => key(a).is_some() && key(a) == key(b),
    }
}

/// R-MEM: what the final contents show of a byte: input bytes that the
/// program did not overwrite are not observed (read as `Unread`).
pub fn observed(b: Byte) -> Byte {
    match b {
        Byte::Input(_) => Byte::Unread,
        other => other,
    }
}

/// How reports show an object's final contents (R-MEM): 32-bit
/// little-endian words when the size is a multiple of 4, else bytes; `?`
/// for input never read, `poison`, `undef` (P-MEM-UNDEF; a word with an
/// undef byte and no poison one), and `ptr` for (part of) a stored pointer.
pub fn words(bytes: &[Byte]) -> Vec<String> {
    let width = if !bytes.is_empty() && bytes.len().is_multiple_of(4) {
        4
    } else {
        1
    };
    bytes
        .chunks(width)
        .map(|c| {
            if c.iter().all(|b| *b == Byte::Unread) {
                "?".to_string()
            } else if c.contains(&Byte::Poison) {
                "poison".to_string()
            } else if c.contains(&Byte::Undef) {
                "undef".to_string()
            } else if c
                .iter()
                .any(|b| matches!(b, Byte::Ptr { .. } | Byte::Unread | Byte::Input(_)))
            {
                "ptr".to_string()
            } else {
                let mut v: u32 = 0;
                for (i, b) in c.iter().enumerate() {
                    if let Byte::Data(x) = b {
                        v |= (*x as u32) << (8 * i);
                    }
                }
                if width == 4 {
                    (v as i32).to_string()
                } else {
                    v.to_string()
                }
            }
        })
        .collect()
}

/// Whether reports show an observed object: module-internal globals
/// (`@llvm.used`, `@llvm.compiler.used`, ...) are not program data.
pub fn shown(name: &str) -> bool {
    !name.starts_with("@llvm.")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mem_with(size: usize) -> Memory {
        let mut m = Memory::default();
        m.add(
            1,
            Object {
                name: "@g".into(),
                kind: ObjKind::Global,
                space: 0,
                bytes: Vector::from(vec![Byte::Poison; size]),
            },
        );
        m.add(
            private_id(0, 0),
            Object {
                name: "alloca in t0".into(),
                kind: ObjKind::Private { tid: 0 },
                space: 5,
                bytes: Vector::from(vec![Byte::Poison; 4]),
            },
        );
        m
    }

    /// P-MEM-ACCESS: in-bounds accesses pass; out of bounds, null, poison,
    /// a dangling object and another thread's private object are UB.
    #[test]
    fn access_checks() {
        let m = mem_with(8);
        let p = |off| Val::Ptr { obj: 1, off };
        assert_eq!(m.check(p(4), 4, 0, false), Ok((1, 4)));
        assert!(matches!(
            m.check(p(5), 4, 0, false),
            Err(UbKind::OutOfBounds { .. })
        ));
        assert!(matches!(
            m.check(p(-1), 1, 0, true),
            Err(UbKind::OutOfBounds { .. })
        ));
        assert_eq!(
            m.check(Val::Ptr { obj: 0, off: 0 }, 1, 0, true),
            Err(UbKind::StoreThroughNull)
        );
        assert_eq!(
            m.check(Val::Poison, 1, 0, false),
            Err(UbKind::LoadThroughPoison)
        );
        assert_eq!(
            m.check(Val::Ptr { obj: 7, off: 0 }, 1, 0, false),
            Err(UbKind::NoObject)
        );
        let priv0 = Val::Ptr {
            obj: private_id(0, 0),
            off: 0,
        };
        assert!(m.check(priv0.clone(), 4, 0, false).is_ok());
        assert!(matches!(
            m.check(priv0.clone(), 4, 1, false),
            Err(UbKind::OtherThreadsPrivate { .. })
        ));
    }

    /// P-MEM-ACCESS: little-endian integers, pointers with provenance, and
    /// poison bytes poisoning the whole value.
    #[test]
    fn encode_decode() {
        let dl = DataLayout::default();
        let md = Module::default();
        let v = Val::Int {
            bits: 32,
            v: 0x0102_0304,
        };
        let b = encode(v.clone(), &Type::Int(32), &dl, &md).unwrap();
        assert_eq!(b[0], Byte::Data(4));
        let mem = Memory::default();
        assert_eq!(decode(&b, &Type::Int(32), &mem).unwrap(), v);
        // The low half of the same bytes, read as i16.
        assert_eq!(
            decode(&b[..2], &Type::Int(16), &mem).unwrap(),
            Val::Int {
                bits: 16,
                v: 0x0304
            }
        );
        let p = Val::Ptr { obj: 3, off: 12 };
        let pb = encode(p.clone(), &Type::Ptr(0), &dl, &md).unwrap();
        assert_eq!(pb.len(), 8);
        assert_eq!(decode(&pb, &Type::Ptr(0), &mem).unwrap(), p);
        // P-MEM-PTR: a pointer's bytes read as an integer are its address.
        assert_eq!(
            decode(&pb, &Type::Int(64), &mem).unwrap(),
            Val::Int {
                bits: 64,
                v: (3 * SLOT + 12) as u128
            }
        );
        let mut mixed = b.clone();
        mixed[3] = Byte::Poison;
        assert_eq!(decode(&mixed, &Type::Int(32), &mem).unwrap(), Val::Poison);
        // i1 occupies one byte.
        let t = encode(Val::Int { bits: 1, v: 1 }, &Type::Int(1), &dl, &md).unwrap();
        assert_eq!(t, vec![Byte::Data(1)]);
    }
}
