//! The analysis' per-instruction tables and use lists, each in one array
//! (compressed rows) rather than one vector per block or value: a vector
//! costs an allocation and 24 bytes of header, and a function of
//! 1,000,000 blocks has a million of each (issue 17 item 8).

use std::ops::{Index, IndexMut};

use super::analysis::{for_each_operand, InstRef};
use crate::ir::{BlockId, Function, ValueDef, ValueId};

/// One `T` per non-terminator instruction of a function, indexed like a
/// `Vec<Vec<T>>`: `table[b][i]` for instruction `i` of block `b`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerInst<T> {
    /// Where each block's items start (one more entry than blocks).
    start: Vec<u32>,
    items: Vec<T>,
}

impl<T: Clone> PerInst<T> {
    /// `init` for every instruction of `f`.
    pub fn new(f: &Function, init: T) -> PerInst<T> {
        let mut start = Vec::with_capacity(f.blocks.len() + 1);
        let mut total = 0usize;
        for b in &f.blocks {
            start.push(offset(total));
            total += b.insts.len();
        }
        start.push(offset(total));
        PerInst {
            start,
            items: vec![init; total],
        }
    }

    /// Sets every item to `v`.
    pub fn fill(&mut self, v: T) {
        self.items.iter_mut().for_each(|x| *x = v.clone());
    }

    /// The items as one vector per block.
    pub fn to_vecs(&self) -> Vec<Vec<T>> {
        self.iter().map(<[T]>::to_vec).collect()
    }
}

impl<T> PerInst<T> {
    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.start.len() - 1
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The items of each block, in block order.
    pub fn iter(&self) -> impl Iterator<Item = &[T]> + '_ {
        (0..self.len()).map(move |b| &self[b])
    }
    /// How many instructions come before block `b` (its first item's
    /// position in the flat order).
    pub fn first_of(&self, b: usize) -> usize {
        self.start[b] as usize
    }
    /// The (block, index) at textual position `slot`, where each block's
    /// terminator counts one after its instructions (the inverse of
    /// `first_of(b) + b + i`; `i` is the block's instruction count for its
    /// terminator). O(log blocks).
    pub fn locate(&self, slot: usize) -> (usize, usize) {
        // The last block whose first position is at most `slot`.
        let (mut lo, mut hi) = (0usize, self.len());
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if self.start[mid] as usize + mid <= slot {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        (lo, slot - self.start[lo] as usize - lo)
    }
}

/// No blocks.
impl<T> Default for PerInst<T> {
    fn default() -> PerInst<T> {
        PerInst {
            start: vec![0],
            items: Vec::new(),
        }
    }
}

impl<T> Index<usize> for PerInst<T> {
    type Output = [T];
    fn index(&self, b: usize) -> &[T] {
        &self.items[self.start[b] as usize..self.start[b + 1] as usize]
    }
}

impl<T> IndexMut<usize> for PerInst<T> {
    fn index_mut(&mut self, b: usize) -> &mut [T] {
        &mut self.items[self.start[b] as usize..self.start[b + 1] as usize]
    }
}

fn offset(n: usize) -> u32 {
    u32::try_from(n).expect("U-FIX: a function has fewer than 2^32 instructions")
}

/// Users of every value in one list (compressed rows): the users of
/// value `v` are `list[start[v]..start[v + 1]]`, each as its textual
/// position (4 bytes a use instead of 8 for (block, index); decoded with
/// [`PerInst::locate`]).
pub(super) struct UseLists {
    start: Vec<u32>,
    list: Vec<u32>,
}

impl UseLists {
    /// The positions in the list of `v`'s users.
    pub(super) fn range(&self, v: ValueId) -> std::ops::Range<usize> {
        self.start[v.0] as usize..self.start[v.0 + 1] as usize
    }
    /// The user at position `k`; `layout` is any per-instruction table of
    /// the function (it knows where each block starts).
    pub(super) fn user<T>(&self, k: usize, layout: &PerInst<T>) -> InstRef {
        let (b, i) = layout.locate(self.list[k] as usize);
        InstRef {
            block: BlockId(b),
            index: i,
        }
    }
}

/// No definition position (an argument).
const NONE: u32 = u32::MAX;

/// LLVM's use lists after parsing textual IR: a use is prepended to its
/// value's list when created, so uses written after the definition come in
/// reverse textual order; uses written before it (forward references,
/// patched when the definition is parsed) come after them, in textual
/// order. Arguments are defined before every use.
pub(super) fn use_lists(f: &Function) -> UseLists {
    // Textual position of each block's first instruction (terminators
    // count one each).
    let mut block_start = Vec::with_capacity(f.blocks.len());
    let mut total = 0usize;
    for b in &f.blocks {
        block_start.push(offset(total));
        total += b.insts.len() + 1;
    }
    offset(total);
    let def_pos: Vec<u32> = f
        .values
        .iter()
        .map(|v| match v.def {
            ValueDef::Arg(_) => NONE,
            ValueDef::Inst { block, index } => block_start[block.0] + index,
        })
        .collect();
    drop(block_start);
    // Each use of `v` at position `p`: written before the definition or not.
    let for_each_use = |visit: &mut dyn FnMut(usize, u32, bool)| {
        let mut p = 0u32;
        for b in f.block_ids() {
            for i in 0..=f.block(b).insts.len() {
                let r = InstRef { block: b, index: i };
                for_each_operand(f, r, |op| {
                    if let Some(v) = op.as_local() {
                        let d = def_pos[v.0];
                        visit(v.0, p, d != NONE && p <= d);
                    }
                });
                p += 1;
            }
        }
    };
    let n = f.values.len();
    let (mut after, mut before) = (vec![0u32; n], vec![0u32; n]);
    for_each_use(&mut |v, _, is_before| {
        if is_before {
            before[v] += 1;
        } else {
            after[v] += 1;
        }
    });
    let mut start = Vec::with_capacity(n + 1);
    let mut total = 0u32;
    for v in 0..n {
        start.push(total);
        total = total
            .checked_add(after[v] + before[v])
            .expect("U-FIX: a function has fewer than 2^32 uses");
    }
    start.push(total);
    drop(before);
    // Uses after the definition fill each row from the end of its first
    // part backwards (reverse textual order), uses before it fill the rest
    // forwards.
    let mut next_after: Vec<u32> = (0..n).map(|v| start[v] + after[v]).collect();
    drop(after);
    let mut next_before = next_after.clone();
    let mut list = vec![0u32; total as usize];
    for_each_use(&mut |v, u, is_before| {
        if is_before {
            list[next_before[v] as usize] = u;
            next_before[v] += 1;
        } else {
            next_after[v] -= 1;
            list[next_after[v] as usize] = u;
        }
    });
    UseLists { start, list }
}

/// A set of indices below `n` that is cleared in time proportional to its
/// size: a bit an index and the list of those in it (a search stamp took
/// 4 bytes an index: issue 17, a function of 1,000,000 blocks).
pub(super) struct MarkSet {
    bits: Vec<u64>,
    members: Vec<u32>,
}

impl MarkSet {
    pub(super) fn new(n: usize) -> MarkSet {
        MarkSet {
            bits: vec![0; n.div_ceil(64)],
            members: Vec::new(),
        }
    }

    /// Adds `p`; false when it was in the set already.
    pub(super) fn insert(&mut self, p: u32) -> bool {
        let (w, bit) = (p as usize / 64, 1u64 << (p % 64));
        if self.bits[w] & bit != 0 {
            return false;
        }
        self.bits[w] |= bit;
        self.members.push(p);
        true
    }

    pub(super) fn clear(&mut self) {
        for p in self.members.drain(..) {
            self.bits[p as usize / 64] &= !(1u64 << (p % 64));
        }
    }
}
