//! AMDGPU lane operations over a fired communicating set (C-OPS): the lane
//! permutations (`permlane64`, `permlane16`/`permlanex16`, `ds.swizzle`,
//! `ds.permute`, `ds.bpermute`, `update.dpp`/`mov.dpp`) and the compare ballots
//! (`amdgcn.icmp`/`fcmp`), with the meanings of the AMDGPU ISA manuals
//! (GCN3/Vega/RDNA "DPP", `DS_SWIZZLE_B32`, `DS_PERMUTE_B32`,
//! `V_PERMLANE16_B32`, `V_PERMLANE64_B32`) and LLVM's encodings
//! (`SIDefines.h` `DppCtrl`, `Swizzle`; `IntrinsicsAMDGPU.td`).
//!
//! Lanes are positions in the subgroup (`--subgroup-size`; a wave has at
//! most 64 lanes, a wider subgroup is unsupported). A lane of the wave that
//! is not a member of the set is *inactive* (EXEC off). What reading an
//! inactive or out-of-range lane gives, per operation:
//!
//! | operation            | inactive / invalid source lane                  |
//! |----------------------|-------------------------------------------------|
//! | `update.dpp`         | `old` (`bound_ctrl` false), 0 (`bound_ctrl` true) |
//! | `mov.dpp`            | poison (the unwritten register), 0 with `bound_ctrl` |
//! | DPP row/bank masked  | `old` (the lane does not write; `mov.dpp`: poison) |
//! | `permlane16`/`x16`   | as `update.dpp`; with `fi` (fetch inactive) the inactive lane's register, which the model does not hold: poison |
//! | `permlane64`         | the inactive lane's register: poison            |
//! | `ds.swizzle`         | 0 (`thread_valid[j] ? in[j] : 0` in the ISA)    |
//! | `ds.permute`         | a lane no member writes gets 0; of several writers the highest lane wins |
//! | `ds.bpermute`        | 0 (`DS_BPERMUTE_B32`: a disabled source lane reads as zero); `.fi` (fetch inactive): the inactive lane's register, poison |
//!
//! Both `ds` permutes take a byte address: the lane is `addr / 4` modulo
//! the wave width (the ISA reads address bits [7:2] of a 64-lane wave).

use std::collections::HashMap;

use crate::intrinsics::{Geometry, Lanes, Op};
use crate::ir::float::FloatTy;
use crate::ir::ICmpPred;

use super::collective::Member;
use super::value::{icmp, mask, Val};

/// The widest wave the lane operations know (wave64).
pub const MAX_WAVE: u32 = 64;

/// `DppCtrl` (SIDefines.h): the source lane of lane `i` in a wave of `w`
/// lanes for DPP control `ctrl`, `Ok(None)` when the source is out of
/// range (the row or wave edge), `Err` naming a control the model does not
/// cover.
pub fn dpp_source(ctrl: u32, i: u32, w: u32) -> Result<Option<u32>, String> {
    let r = i % 16;
    let base = i - r;
    let row = i / 16;
    let n = ctrl & 0xF;
    Ok(match ctrl {
        // quad_perm:[a,b,c,d]: lane 4q+k reads lane 4q + sel[k].
        0x000..=0x0FF => Some((i & !3) | ((ctrl >> (2 * (i & 3))) & 3)),
        // row_shl:n reads n lanes up within the row.
        0x101..=0x10F => (r + n < 16).then_some(i + n),
        // row_shr:n reads n lanes down within the row.
        0x111..=0x11F => (r >= n).then(|| i - n),
        // row_ror:n rotates the row right by n.
        0x121..=0x12F => Some(base + (r + 16 - n) % 16),
        // wave_shl:1, wave_rol:1, wave_shr:1, wave_ror:1 (GFX8/9).
        0x130 => (i + 1 < w).then_some(i + 1),
        0x134 => Some((i + 1) % w),
        0x138 => i.checked_sub(1),
        0x13C => Some((i + w - 1) % w),
        // row_mirror, row_half_mirror.
        0x140 => Some(base + 15 - r),
        0x141 => Some((i & !7) + 7 - (i & 7)),
        // row_bcast:15: lane 15 of the previous row; row_bcast:31: lane 31
        // for rows 2 and 3 (GFX8/9). Row 0 (rows 0-1) has no source.
        0x142 => (row >= 1).then(|| row * 16 - 1),
        0x143 => (row >= 2).then_some(31),
        // row_share:n (GFX10+; row_newbcast:n on GFX90A, the same lanes):
        // lane n of the row; row_xmask:n: lane r ^ n of the row.
        0x150..=0x15F => Some(base + n),
        0x160..=0x16F => Some(base + (r ^ n)),
        _ => return Err(format!("DPP control {ctrl:#x}")),
    })
}

/// The `ds.swizzle` offset's source lane for lane `i` (ISA pseudocode of
/// `DS_SWIZZLE_B32`): QDMode (`offset[15]` set) permutes each group of 4
/// lanes by `offset[7:0]`; bitmask mode (`offset[15]` clear) computes
/// `((i & and) | or) ^ xor` within each group of 32 lanes from
/// `offset[4:0]`, `offset[9:5]`, `offset[14:10]`. The rotate (`0xC000`) and
/// FFT (`0xE000`) modes are not modelled (`Err` names them).
pub fn swizzle_source(offset: u32, i: u32) -> Result<u32, String> {
    let offset = offset & 0xFFFF;
    if offset >= 0xE000 {
        return Err(format!("ds.swizzle FFT mode (offset {offset:#x})"));
    }
    if offset >= 0xC000 {
        return Err(format!("ds.swizzle rotate mode (offset {offset:#x})"));
    }
    if offset & 0x8000 != 0 {
        return Ok((i & !3) | ((offset >> (2 * (i & 3))) & 3));
    }
    let (and, or, xor) = (offset & 0x1F, (offset >> 5) & 0x1F, (offset >> 10) & 0x1F);
    Ok((i & 0x20) | ((((i & 0x1F) & and) | or) ^ xor))
}

/// The integer operand `k` of a member (None: poison or not an integer).
fn int(args: &[Val], k: usize) -> Option<u128> {
    match args.get(k) {
        Some(Val::Int { v, .. }) => Some(*v),
        _ => None,
    }
}

/// What the model cannot compute for this call, named (checked when the
/// thread reaches the call, before it waits for its set): a DPP control or
/// swizzle mode outside the modelled ones, or a subgroup wider than a wave.
pub fn unsupported(op: Op, args: &[Val], width: u32) -> Option<String> {
    let Op::Lanes(l) = op else {
        return None;
    };
    if width > MAX_WAVE {
        return Some(format!(
            "AMDGPU lane operation in a subgroup of {width} lanes (a wave has at most {MAX_WAVE}; use --subgroup-size)"
        ));
    }
    match l {
        Lanes::Dpp { old } => {
            let ctrl = int(args, usize::from(old) + 1)?;
            dpp_source(ctrl.min(u32::MAX as u128) as u32, 0, width).err()
        }
        Lanes::Swizzle => {
            let off = int(args, 1)?;
            swizzle_source(off.min(u32::MAX as u128) as u32, 0).err()
        }
        _ => None,
    }
}

/// A zero of the type of `like` (what `bound_ctrl` and the swizzle write).
fn zero_like(like: &[Val], ret_bits: u32) -> Val {
    like.iter()
        .find_map(|v| match *v {
            Val::Int { bits, .. } => Some(Val::Int { bits, v: 0 }),
            Val::Float { ty, .. } => Some(Val::Float { ty, bits: 0 }),
            Val::Ptr { .. } => Some(Val::Ptr { obj: 0, off: 0 }),
            _ => None,
        })
        .unwrap_or(Val::Int {
            bits: ret_bits,
            v: 0,
        })
}

/// C-OPS: the result of lane operation `l` in each member of one
/// subgroup's part of a fired set, in order.
pub(super) fn permute(geom: &Geometry, l: Lanes, ret_bits: u32, set: &[&Member]) -> Vec<Val> {
    let w = geom.max_subgroup();
    let lanes: Vec<u32> = set.iter().map(|m| geom.lane(m.tid)).collect();
    let at: HashMap<u32, usize> = lanes.iter().enumerate().map(|(k, &l)| (l, k)).collect();
    // Operand `k` of the member at lane `j`, if that lane is active.
    let read = |j: u32, k: usize| -> Option<Val> {
        at.get(&j)
            .map(|&m| set[m].args.get(k).cloned().unwrap_or(Val::Poison))
    };
    let arg = |m: usize, k: usize| set[m].args.get(k).cloned().unwrap_or(Val::Poison);
    let srcs = |k: usize| -> Vec<Val> { (0..set.len()).map(|m| arg(m, k)).collect() };
    match l {
        Lanes::Permlane64 => lanes
            .iter()
            .map(|&i| read(i ^ 32, 0).unwrap_or(Val::Poison))
            .collect(),
        Lanes::Permlane16 { cross } => {
            let zero = zero_like(&srcs(1), ret_bits);
            (0..set.len())
                .map(|m| {
                    let i = lanes[m];
                    let a = set[m].args;
                    let (Some(lo), Some(hi), Some(fi), Some(bc)) =
                        (int(a, 2), int(a, 3), int(a, 4), int(a, 5))
                    else {
                        return Val::Poison;
                    };
                    let r = i % 16;
                    let sel = if r < 8 {
                        lo >> (4 * r)
                    } else {
                        hi >> (4 * (r - 8))
                    } & 0xF;
                    let base = if cross { (i - r) ^ 16 } else { i - r };
                    match read(base + sel as u32, 1) {
                        Some(v) => v,
                        None if fi & 1 == 1 => Val::Poison,
                        None if bc & 1 == 1 => zero.clone(),
                        None => arg(m, 0),
                    }
                })
                .collect()
        }
        Lanes::Swizzle => {
            let zero = zero_like(&srcs(0), ret_bits);
            (0..set.len())
                .map(|m| {
                    let Some(off) = int(set[m].args, 1) else {
                        return Val::Poison;
                    };
                    match swizzle_source(off as u32, lanes[m]) {
                        Ok(j) => read(j, 0).unwrap_or_else(|| zero.clone()),
                        Err(_) => Val::Poison,
                    }
                })
                .collect()
        }
        Lanes::Permute => {
            // Every member pushes its data to lane (addr / 4) mod the wave
            // width; the highest source lane wins.
            let mut order: Vec<usize> = (0..set.len()).collect();
            order.sort_by_key(|&m| lanes[m]);
            let mut got: HashMap<u32, Val> = HashMap::new();
            for m in order {
                let Some(addr) = int(set[m].args, 0) else {
                    return vec![Val::Poison; set.len()];
                };
                got.insert(((addr / 4) % w as u128) as u32, arg(m, 1));
            }
            let zero = zero_like(&srcs(1), ret_bits);
            lanes
                .iter()
                .map(|i| got.get(i).cloned().unwrap_or_else(|| zero.clone()))
                .collect()
        }
        Lanes::Bpermute { fi } => {
            // Every member reads the data of lane (addr / 4) mod the wave
            // width: zero when that lane is inactive (poison with `fi`).
            let zero = zero_like(&srcs(1), ret_bits);
            (0..set.len())
                .map(|m| {
                    let Some(addr) = int(set[m].args, 0) else {
                        return Val::Poison;
                    };
                    match read(((addr / 4) % w as u128) as u32, 1) {
                        Some(v) => v,
                        None if fi => Val::Poison,
                        None => zero.clone(),
                    }
                })
                .collect()
        }
        Lanes::Dpp { old } => {
            let o = usize::from(old);
            let src = o;
            let zero = zero_like(&srcs(src), ret_bits);
            (0..set.len())
                .map(|m| {
                    let i = lanes[m];
                    let a = set[m].args;
                    let keep = if old { arg(m, 0) } else { Val::Poison };
                    let (Some(ctrl), Some(rm), Some(bm), Some(bc)) =
                        (int(a, o + 1), int(a, o + 2), int(a, o + 3), int(a, o + 4))
                    else {
                        return Val::Poison;
                    };
                    let (row, bank) = (i / 16, (i % 16) / 4);
                    if (rm >> row) & 1 == 0 || (bm >> bank) & 1 == 0 {
                        return keep;
                    }
                    let Ok(j) = dpp_source(ctrl.min(u32::MAX as u128) as u32, i, w) else {
                        return Val::Poison;
                    };
                    match j.and_then(|j| read(j, src)) {
                        Some(v) => v,
                        None if bc & 1 == 1 => zero.clone(),
                        None => keep,
                    }
                })
                .collect()
        }
    }
}

/// `CmpInst::Predicate` numbers: `FCMP_FALSE` = 0 .. `FCMP_TRUE` = 15,
/// `ICMP_EQ` = 32 .. `ICMP_SLE` = 41.
fn icmp_pred(p: u128) -> Option<ICmpPred> {
    use ICmpPred::{Eq, Ne, Sge, Sgt, Sle, Slt, Uge, Ugt, Ule, Ult};
    Some(match p {
        32 => Eq,
        33 => Ne,
        34 => Ugt,
        35 => Uge,
        36 => Ult,
        37 => Ule,
        38 => Sgt,
        39 => Sge,
        40 => Slt,
        41 => Sle,
        _ => return None,
    })
}

const FCMP: [&str; 16] = [
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "uno", "ueq", "ugt", "uge", "ult",
    "ule", "une", "true",
];

/// One member's compare of `llvm.amdgcn.icmp`/`fcmp(a, b, pred)`; None is
/// poison (a poison operand, or a predicate that is not one of the
/// operation's: LLVM folds such calls to poison).
fn compare(float: bool, args: &[Val]) -> Option<bool> {
    let pred = int(args, 2)?;
    match (args.first()?, args.get(1)?) {
        (Val::Int { bits, v: a }, Val::Int { v: b, .. }) if !float => {
            Some(icmp(icmp_pred(pred)?, *bits, *a, *b))
        }
        (Val::Float { ty, bits: a }, Val::Float { bits: b, .. }) if float => {
            let p = FCMP.get(pred as usize)?;
            let ty: FloatTy = *ty;
            match super::float::fcmp(p, &[], ty, *a, *b)? {
                Val::Int { v, .. } => Some(v == 1),
                _ => None,
            }
        }
        _ => None,
    }
}

/// C-OPS: `amdgcn.icmp`/`fcmp`: bit `lane` set iff the member of that lane
/// compares true (a ballot of the compare); poison if any member's compare
/// is.
pub(super) fn cmp_ballot(geom: &Geometry, float: bool, ret_bits: u32, set: &[&Member]) -> Val {
    let mut bits = 0u128;
    for m in set {
        match compare(float, m.args) {
            Some(true) => bits |= 1u128.checked_shl(geom.lane(m.tid)).unwrap_or(0),
            Some(false) => {}
            None => return Val::Poison,
        }
    }
    Val::Int {
        bits: ret_bits,
        v: bits & mask(ret_bits),
    }
}

/// C-OPS: the AMDGPU control-flow intrinsics that si-annotate-control-flow
/// writes, per member of one subgroup's part of a fired set. A mask is a
/// set of lanes (bit `lane`); the set's members are the lanes of EXEC.
/// Read per thread: a thread takes `if`'s branch iff its `cond`, `else`'s
/// iff its lane is in `saved` (it did not take the `if`), and `loop`
/// answers true in a thread whose lane is in the broken mask: it has left
/// the loop (the wave branches back while some lane has not, with this
/// lane masked off). `end.cf` restores EXEC: no value, the set is its
/// only effect. A poison operand makes every member's result poison.
pub(super) fn control_flow(
    geom: &Geometry,
    cf: crate::intrinsics::Cf,
    ret_bits: u32,
    set: &[&Member],
) -> Vec<Val> {
    use crate::intrinsics::Cf;
    let n = set.len();
    let lanes: Vec<u32> = set.iter().map(|m| geom.lane(m.tid)).collect();
    let bit = |l: u32| 1u128.checked_shl(l).unwrap_or(0);
    let ints = |k: usize| -> Option<Vec<u128>> { set.iter().map(|m| int(m.args, k)).collect() };
    let m = mask(ret_bits);
    let lanes_where = |pick: &dyn Fn(usize) -> bool| -> u128 {
        (0..n)
            .filter(|&i| pick(i))
            .fold(0, |acc, i| acc | bit(lanes[i]))
            & m
    };
    let poison = || vec![Val::Poison; n];
    match cf {
        Cf::If => {
            let Some(cond) = ints(0) else { return poison() };
            let rest = lanes_where(&|i| cond[i] & 1 == 0);
            cond.iter()
                .map(|c| Val::CfMask {
                    take: c & 1 == 1,
                    bits: ret_bits,
                    mask: rest,
                })
                .collect()
        }
        Cf::Else => {
            let Some(saved) = ints(0) else {
                return poison();
            };
            let took = lanes_where(&|i| saved[i] & bit(lanes[i]) == 0);
            (0..n)
                .map(|i| Val::CfMask {
                    take: saved[i] & bit(lanes[i]) != 0,
                    bits: ret_bits,
                    mask: took,
                })
                .collect()
        }
        Cf::IfBreak => {
            let (Some(cond), Some(broken)) = (ints(0), ints(1)) else {
                return poison();
            };
            let now = lanes_where(&|i| cond[i] & 1 == 1);
            broken
                .iter()
                .map(|b| Val::Int {
                    bits: ret_bits,
                    v: (b | now) & m,
                })
                .collect()
        }
        Cf::Loop => {
            let Some(broken) = ints(0) else {
                return poison();
            };
            (0..n)
                .map(|i| Val::Int {
                    bits: 1,
                    v: u128::from(broken[i] & bit(lanes[i]) != 0),
                })
                .collect()
        }
        Cf::EndCf => vec![Val::Void; n],
    }
}
