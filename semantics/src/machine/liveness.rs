//! Liveness-aware memoization (M-LIVE, issue 18): which SSA values of a
//! thread's frames the rest of the execution can still read, so that the
//! fingerprint memoization takes ([`super::reduce`], [`super::digest`])
//! leaves the others out.
//!
//! # The argument (exactness)
//!
//! A frame value is *dead* at a frame's current point when no path of the
//! function from that point reads it before the step rules write it again
//! (or the function returns). Let s and s' be two states of the search
//! that are equal except for the values of dead frame entries (a dead
//! entry may hold different values, or be present in one and absent in
//! the other). Then from s and s' the same choices give executions that
//! stay in that relation at every step, and their finished executions show
//! the same behaviour:
//!
//! - a step of a thread reads, of its frames, only the operands of the
//!   instruction it executes (step.rs `eval`; phis on block entry read the
//!   incoming values of the edge taken; a call re-executed after its set
//!   fired re-reads its arguments; a return reads its operand and writes
//!   the caller's `ret_to`), and those are live at the point by
//!   construction (`live_in(p) ⊇ uses(p)`); what it writes is computed
//!   from live values and the rest of the state, which is equal;
//! - what is live after the step was live before it or was written by it
//!   (`live_in(p) ⊇ live_out(p) − defs(p)`, and `live_out` of a
//!   terminator covers the phis and the entry of every successor), so the
//!   relation holds again;
//! - the scheduler reads statuses, pending arguments (kept in the state,
//!   not in the frame), keys, and frame positions (`sched::is_safe`), all
//!   still in the fingerprint; choices offered (inputs, results, anchor
//!   subsets) depend only on those and on machine-wide parts;
//! - a behaviour (R-BEHAV, `launch::Execution::behaviour_key`) is built
//!   from the outcome, traces, convergent-call events, observations, how
//!   each thread ended and memory: never from frame values. Those
//!   histories stay in the fingerprint whole, dead or not; only the
//!   memoization key ignores dead frame values, nothing recorded in an
//!   execution is dropped.
//!
//! So B(s) = B(s'): the search may cut s' when s was explored (the
//! argument of [`super::reduce`] for equal states, applied to the
//! projection of the state on its live part). Under state and value
//! symmetry the fingerprint is that of the renamed projection; liveness
//! depends only on frame positions and statuses, which renamings keep, so
//! the projection of τ(s) is τ of the projection of s.
//!
//! A thread that ended (returned, UB, cut) or was killed never steps again:
//! every value of its frames is dead. An outer frame (a caller) resumes at
//! the instruction after its call (calls.rs increments its index before
//! pushing the callee), and the return writes `ret_to` before the caller
//! reads anything: its live set is `live_in` at that index without
//! `ret_to`.
//!
//! What the analysis assumes of the step rules (and the differential test
//! `semantics/tests/interp_reduce.rs` checks against the plain search):
//! every instruction with a result that completes normally writes it
//! (`step::set`), except the memory intrinsics (`access::is_mem_intrinsic`,
//! which complete without writing) and a phi that is not at the head of its
//! block (a no-op in the interpreter); those are not treated as writes.
//! Leading phis write their results on block entry, all at once, from the
//! values of the edge taken. An operand absent from the frame reads as
//! poison: liveness is about which entries are read, so an absent dead
//! entry and a present one are alike.
//!
//! Liveness is the classic backward data-flow fixpoint over the function's
//! CFG, one bit set per instruction point, computed once per launch for
//! every defined function whose table fits [`CAP_BITS`] (the others keep
//! every value: no liveness, no loss of exactness).

use crate::ir::{Function, InstKind, Module, Operand, ValueId};
use crate::uniformity::analysis::{for_each_operand, InstRef};

use super::state::{Status, ThreadState};

/// Largest table kept, in bits, over all functions (16 MiB).
const CAP_BITS: usize = 1 << 27;

/// The live values of every instruction point of every defined function
/// (M-LIVE).
#[derive(Clone, Debug, Default)]
pub struct Liveness {
    funcs: Vec<Option<FuncLive>>,
}

#[derive(Clone, Debug)]
struct FuncLive {
    /// Words per point.
    words: usize,
    /// Per block, the index of its point 0 (points 0..=insts.len(), the
    /// last one the terminator); then the number of points.
    start: Vec<usize>,
    bits: Vec<u64>,
}

/// Which values of one frame are live.
#[derive(Clone, Copy, Debug)]
pub enum Live<'a> {
    /// Every value (no table for the function).
    All,
    /// None (the thread ended).
    Nothing,
    /// The values whose bit is set, except `except` (an outer frame's
    /// `ret_to`).
    Set {
        bits: &'a [u64],
        except: Option<ValueId>,
    },
}

impl Live<'_> {
    pub fn contains(&self, v: ValueId) -> bool {
        match self {
            Live::All => true,
            Live::Nothing => false,
            Live::Set { bits, except } => {
                if *except == Some(v) {
                    return false;
                }
                // Out of the table: kept (never happens for a value of the
                // function).
                bits.get(v.0 / 64)
                    .is_none_or(|w| w & (1 << (v.0 % 64)) != 0)
            }
        }
    }
}

impl Liveness {
    /// The tables of every defined function of `module` that fit.
    pub fn new(module: &Module) -> Liveness {
        let mut budget = CAP_BITS;
        let funcs = module
            .functions
            .iter()
            .map(|f| {
                if !f.has_body() {
                    return None;
                }
                let words = f.values.len().div_ceil(64);
                let points: usize = f.blocks.iter().map(|b| b.insts.len() + 1).sum();
                let need = points.saturating_mul(words).saturating_mul(64);
                if need > budget {
                    return None;
                }
                budget -= need;
                Some(func_live(f, words))
            })
            .collect();
        Liveness { funcs }
    }

    /// The live values of frame `i` of `th` (module documentation).
    pub fn frame<'a>(&'a self, th: &ThreadState, i: usize) -> Live<'a> {
        if !matches!(th.status, Status::Running | Status::Waiting(_)) {
            return Live::Nothing;
        }
        let Some(fr) = th.frames.iter().nth(i) else {
            return Live::All;
        };
        let Some(Some(fl)) = self.funcs.get(fr.func) else {
            return Live::All;
        };
        let (Some(&start), Some(&end)) = (fl.start.get(fr.block.0), fl.start.get(fr.block.0 + 1))
        else {
            return Live::All;
        };
        // `index` is at most the terminator's.
        let p = (start + fr.index).min(end - 1);
        let except = (i + 1 < th.frames.len()).then_some(fr.ret_to).flatten();
        Live::Set {
            bits: &fl.bits[p * fl.words..(p + 1) * fl.words],
            except,
        }
    }
}

/// Whether executing `k` to completion writes its result (module
/// documentation: not the memory intrinsics, not a phi inside a block).
fn writes(k: &InstKind) -> bool {
    match k {
        InstKind::Phi { .. } => false,
        InstKind::Call(c) => !c.callee_name().is_some_and(super::access::is_mem_intrinsic),
        _ => true,
    }
}

fn set_bit(bits: &mut [u64], v: ValueId) {
    if let Some(w) = bits.get_mut(v.0 / 64) {
        *w |= 1 << (v.0 % 64);
    }
}

fn clear_bit(bits: &mut [u64], v: ValueId) {
    if let Some(w) = bits.get_mut(v.0 / 64) {
        *w &= !(1 << (v.0 % 64));
    }
}

fn func_live(f: &Function, words: usize) -> FuncLive {
    let mut start = Vec::with_capacity(f.blocks.len());
    let mut n = 0;
    for b in &f.blocks {
        start.push(n);
        n += b.insts.len() + 1;
    }
    start.push(n);
    let mut bits = vec![0u64; n * words];
    // Leading phis of each block (evaluated on entry).
    let first: Vec<usize> = f
        .blocks
        .iter()
        .map(|b| {
            b.insts
                .iter()
                .take_while(|i| matches!(i.kind, InstKind::Phi { .. }))
                .count()
        })
        .collect();
    let mut out = vec![0u64; words];
    let mut cur = vec![0u64; words];
    let mut old_entry = vec![0u64; words];
    loop {
        let mut changed = false;
        for bi in (0..f.blocks.len()).rev() {
            let b = &f.blocks[bi];
            let p0 = start[bi] + first[bi];
            old_entry.copy_from_slice(&bits[p0 * words..(p0 + 1) * words]);
            // The terminator: its operands, and per successor the incoming
            // values of the edge from `bi` and what is live at the
            // successor's first non-phi instruction, minus its phis.
            out.iter_mut().for_each(|w| *w = 0);
            for s in b.term.successors() {
                let sb = &f.blocks[s.0];
                let sp = start[s.0] + first[s.0];
                cur.copy_from_slice(&bits[sp * words..(sp + 1) * words]);
                for inst in &sb.insts[..first[s.0]] {
                    if let Some(r) = inst.result {
                        clear_bit(&mut cur, r);
                    }
                }
                for inst in &sb.insts[..first[s.0]] {
                    if let InstKind::Phi { incoming, .. } = &inst.kind {
                        for (op, p) in incoming {
                            if p.0 == bi {
                                if let Operand::Local(v) = op {
                                    set_bit(&mut cur, *v);
                                }
                            }
                        }
                    }
                }
                for (o, c) in out.iter_mut().zip(&cur) {
                    *o |= c;
                }
            }
            let term = InstRef {
                block: crate::ir::BlockId(bi),
                index: b.insts.len(),
            };
            for_each_operand(f, term, |op| {
                if let Operand::Local(v) = op {
                    set_bit(&mut out, *v);
                }
            });
            let p = start[bi] + b.insts.len();
            bits[p * words..(p + 1) * words].copy_from_slice(&out);
            // The instructions after the phis, backwards.
            for i in (first[bi]..b.insts.len()).rev() {
                let inst = &b.insts[i];
                if writes(&inst.kind) {
                    if let Some(r) = inst.result {
                        clear_bit(&mut out, r);
                    }
                }
                let at = InstRef {
                    block: crate::ir::BlockId(bi),
                    index: i,
                };
                for_each_operand(f, at, |op| {
                    if let Operand::Local(v) = op {
                        set_bit(&mut out, *v);
                    }
                });
                let p = start[bi] + i;
                bits[p * words..(p + 1) * words].copy_from_slice(&out);
            }
            // A frame never rests at a leading phi (entering a block moves
            // past them); should it, the phi is a no-op there.
            for i in 0..first[bi] {
                let p = start[bi] + i;
                bits[p * words..(p + 1) * words].copy_from_slice(&out);
            }
            changed |= old_entry != out;
        }
        if !changed {
            break;
        }
    }
    FuncLive { words, start, bits }
}
