//! The name table of one function body: an open-addressing hash table of
//! 8-byte slots (the name's hash and a packed entry), whose keys are the
//! names the function builder stores anyway (in its values, block names and
//! forward references), so that a name is stored once.
//!
//! Issue 17 item 8: a `HashMap<Name, _>` per namespace took 40 bytes a slot
//! plus a copy of every name (over 200 MB at 1,000,000 blocks, twice that
//! while it grew); this table takes 8 bytes a slot at most 3/4 full.

use crate::ir::Name;

/// What a name is bound to, packed in 32 bits: a kind in the top two bits
/// and an index below them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Entry(u32);

/// The kinds of [`Entry`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// A defined value: index into the builder's values.
    Value,
    /// A defined block: index into the builder's block names.
    Block,
    /// A name used before its definition, first as a value: index into the
    /// forward value references.
    FwdValue,
    /// A name used before its definition, first as a block: index into the
    /// forward block references.
    FwdBlock,
}

/// Indices must stay below this (the top two bits hold the kind, and the
/// largest index marks an empty slot).
pub(super) const MAX_INDEX: usize = (1 << 30) - 2;

const EMPTY: u32 = u32::MAX;

impl Entry {
    pub(super) fn new(kind: Kind, index: usize) -> Entry {
        debug_assert!(index <= MAX_INDEX, "callers check MAX_INDEX");
        let k = match kind {
            Kind::Value => 0,
            Kind::Block => 1,
            Kind::FwdValue => 2,
            Kind::FwdBlock => 3,
        };
        Entry((k << 30) | index as u32)
    }
    pub(super) fn kind(self) -> Kind {
        match self.0 >> 30 {
            0 => Kind::Value,
            1 => Kind::Block,
            2 => Kind::FwdValue,
            _ => Kind::FwdBlock,
        }
    }
    pub(super) fn index(self) -> usize {
        (self.0 & ((1 << 30) - 1)) as usize
    }
    /// The entry as 32 bits, for tables that store `u32::MAX` as "none".
    pub(super) fn packed(self) -> u32 {
        self.0
    }
    /// The entry packed by [`Entry::packed`], `None` for `u32::MAX`.
    pub(super) fn unpack(x: u32) -> Option<Entry> {
        (x != EMPTY).then_some(Entry(x))
    }
}

/// The hash of a name: numbered and written names hash differently, so
/// `%5` and `%"5"` (different names) rarely collide.
pub(super) fn hash_name(n: &Name) -> u32 {
    let h = match n {
        Name::Numbered(k) => mix(u64::from(*k) ^ 0x9e37_79b9_7f4a_7c15),
        Name::Named(s) => {
            let mut h = s.len() as u64;
            for chunk in s.as_bytes().chunks(8) {
                let mut w = [0u8; 8];
                w[..chunk.len()].copy_from_slice(chunk);
                h = mix(h ^ u64::from_le_bytes(w));
            }
            h
        }
    };
    (h >> 32) as u32 ^ h as u32
}

/// A 64-bit finaliser (murmur3's `fmix64`): every input bit reaches the
/// low bits the table indexes by.
fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// The table: linear probing over a power-of-two number of slots.
pub(super) struct NameTable {
    /// (hash, entry); entry `EMPTY` marks a free slot.
    slots: Vec<(u32, u32)>,
    len: usize,
}

/// Where a name is, or where it would go.
#[derive(Clone, Copy)]
pub(super) enum Probe {
    Found { slot: usize, entry: Entry },
    Vacant { slot: usize },
}

impl NameTable {
    pub(super) fn new() -> NameTable {
        NameTable {
            slots: vec![(0, EMPTY); 16],
            len: 0,
        }
    }

    /// The slot of the name hashing to `hash` for which `is_key` holds.
    pub(super) fn probe(&self, hash: u32, is_key: impl Fn(Entry) -> bool) -> Probe {
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        loop {
            let (h, e) = self.slots[i];
            if e == EMPTY {
                return Probe::Vacant { slot: i };
            }
            if h == hash && is_key(Entry(e)) {
                return Probe::Found {
                    slot: i,
                    entry: Entry(e),
                };
            }
            i = (i + 1) & mask;
        }
    }

    /// Rebinds the name found at `slot`.
    pub(super) fn set(&mut self, slot: usize, entry: Entry) {
        self.slots[slot].1 = entry.0;
    }

    /// Binds a new name at the vacant `slot` that [`NameTable::probe`]
    /// returned (no insertion in between).
    pub(super) fn insert(&mut self, slot: usize, hash: u32, entry: Entry) {
        self.slots[slot] = (hash, entry.0);
        self.len += 1;
        if self.len * 4 > self.slots.len() * 3 {
            self.grow();
        }
    }

    fn grow(&mut self) {
        let twice = self.slots.len() * 2;
        let old = std::mem::replace(&mut self.slots, vec![(0, EMPTY); twice]);
        let mask = self.slots.len() - 1;
        for (h, e) in old {
            if e == EMPTY {
                continue;
            }
            let mut i = h as usize & mask;
            while self.slots[i].1 != EMPTY {
                i = (i + 1) & mask;
            }
            self.slots[i] = (h, e);
        }
    }
}
