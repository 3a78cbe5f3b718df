//! What the operations of the intrinsic table compute (C-OPS, P-LAUNCH,
//! P-THREAD): per thread (index reads, `mbcnt`, pure intrinsics) or over a
//! fired communicating set (ballots, votes, broadcasts, shuffles,
//! reductions and scans). A set is split by subgroup for subgroup-scope
//! operations (`--subgroup-size`): the threads that execute a dynamic
//! instance together and share a subgroup communicate.

use std::collections::BTreeMap;

use crate::intrinsics::{Dim, Geometry, Op, PureOp, RedOp, Scan, Scope, Shfl, Vote};

use super::value::{mask, signed, UbKind, Val};
use super::ShuffleOob;

/// The integer operand `k`, if it is one.
fn int_arg(args: &[Val], k: u8) -> Option<(u32, u128)> {
    match args.get(k as usize) {
        Some(Val::Int { bits, v }) => Some((*bits, *v)),
        _ => None,
    }
}

fn int_val(bits: u32, v: u128) -> Val {
    Val::Int {
        bits,
        v: v & mask(bits),
    }
}

/// P-LAUNCH, P-THREAD: the result of a per-thread operation in thread
/// `tid`; `Err` names what the subset does not cover.
pub(super) fn per_thread(
    geom: &Geometry,
    tid: u32,
    op: Op,
    args: &[Val],
    ret_bits: Option<u32>,
) -> Result<Val, String> {
    let lane = geom.lane(tid);
    if let Op::PassThrough { arg } = op {
        // Any type: the operand unchanged (pointers included).
        return Ok(args.get(arg as usize).cloned().unwrap_or(Val::Poison));
    }
    // P-VEC-ELEM: a pure integer intrinsic on vectors (`llvm.smax.v4i32`)
    // lane by lane.
    if let Op::Pure(p) = op {
        if let Some(r) = super::vector::lift_call(args, |lane| Some(Ok(pure(p, lane)))) {
            return r;
        }
    }
    let bits = ret_bits.ok_or_else(|| "builtin with a non-integer result".to_string())?;
    Ok(match op {
        Op::Index(what, dim) => {
            let d = match dim {
                Dim::None => 0,
                Dim::Fixed(d) => d as u32,
                Dim::Arg(k) => match int_arg(args, k) {
                    Some((_, v)) => v.min(u32::MAX as u128) as u32,
                    None => return Ok(Val::Poison),
                },
            };
            int_val(bits, geom.index(tid, what, d) as u128)
        }
        Op::Mbcnt { hi } => {
            let (Some((_, m)), Some((_, acc))) = (int_arg(args, 0), int_arg(args, 1)) else {
                return Ok(Val::Poison);
            };
            let below = if hi {
                lane.saturating_sub(32).min(32)
            } else {
                lane.min(32)
            };
            let bits_below = (m & ((1u128 << below) - 1)).count_ones() as u128;
            int_val(bits, acc.wrapping_add(bits_below))
        }
        Op::InverseBallot { arg } => match int_arg(args, arg) {
            Some((_, m)) => int_val(bits, (m >> lane.min(127)) & 1),
            None => Val::Poison,
        },
        Op::WriteLane { val, lane: l, old } => match int_arg(args, l) {
            Some((_, want)) if want == lane as u128 => args[val as usize].clone(),
            Some(_) => args[old as usize].clone(),
            None => Val::Poison,
        },
        Op::PassThrough { arg } => args[arg as usize].clone(),
        Op::Pure(p) => return Ok(pure(p, args)),
        other => return Err(format!("operation {other:?} outside a communicating set")),
    })
}

/// P-THREAD: the pure integer intrinsics (LangRef's meaning; poison in,
/// poison out; a non-integer operand gives poison, as the
/// encoder's type check refuses them).
fn pure(p: PureOp, args: &[Val]) -> Val {
    let mut ops = [0u128; 3];
    let mut bits = 0;
    for k in 0..p.arity() {
        match int_arg(args, k) {
            Some((b, v)) => {
                if k == 0 {
                    bits = b;
                }
                ops[k as usize] = v;
            }
            None => return Val::Poison,
        }
    }
    match pure_bits(p, bits, ops) {
        Some(v) => int_val(bits, v),
        None => Val::Poison,
    }
}

/// [`pure`] on the operands' bits (`bits` wide, at most 128); `None` is
/// poison.
pub fn pure_bits(p: PureOp, bits: u32, [a, b, c]: [u128; 3]) -> Option<u128> {
    let m = mask(bits);
    let (sa, sb) = (signed(bits, a), signed(bits, b));
    let smin = 1u128 << (bits - 1);
    let smax = smin - 1;
    let flag = b & 1 == 1;
    Some(
        match p {
            PureOp::Ctpop => a.count_ones() as u128,
            PureOp::UMin => a.min(b),
            PureOp::UMax => a.max(b),
            PureOp::SMin => sa.min(sb) as u128,
            PureOp::SMax => sa.max(sb) as u128,
            PureOp::Cttz | PureOp::Ctlz if a == 0 => {
                if flag {
                    return None;
                }
                bits as u128
            }
            PureOp::Cttz => a.trailing_zeros() as u128,
            PureOp::Ctlz => (a.leading_zeros() - (128 - bits)) as u128,
            PureOp::Abs if a == smin && flag => return None,
            PureOp::Abs => {
                if sa < 0 {
                    a.wrapping_neg()
                } else {
                    a
                }
            }
            PureOp::BitReverse => a.reverse_bits() >> (128 - bits),
            PureOp::Bswap if !bits.is_multiple_of(16) => return None,
            PureOp::Bswap => a.swap_bytes() >> (128 - bits),
            PureOp::Fshl | PureOp::Fshr => {
                let s = (c % bits as u128) as u32;
                if s == 0 {
                    return Some(if p == PureOp::Fshl { a } else { b });
                }
                if p == PureOp::Fshl {
                    (a << s) | (b >> (bits - s))
                } else {
                    (a << (bits - s)) | (b >> s)
                }
            }
            PureOp::UAddSat => a.checked_add(b).filter(|x| *x <= m).unwrap_or(m),
            PureOp::USubSat => a.saturating_sub(b),
            PureOp::SAddSat | PureOp::SSubSat => {
                let r = if p == PureOp::SAddSat {
                    sa.checked_add(sb)
                } else {
                    sa.checked_sub(sb)
                };
                // Only 128-bit operands overflow i128; the sign of `a` says
                // which way.
                let r = r.unwrap_or(if sa < 0 { i128::MIN } else { i128::MAX });
                if r > smax as i128 {
                    smax
                } else if r < signed(bits, smin) {
                    smin
                } else {
                    r as u128
                }
            }
        } & m,
    )
}

/// C-OPS: one reduction step.
pub fn reduce(op: RedOp, bits: u32, a: u128, b: u128) -> u128 {
    let (sa, sb) = (signed(bits, a), signed(bits, b));
    let r = match op {
        RedOp::Add => a.wrapping_add(b),
        RedOp::Min => sa.min(sb) as u128,
        RedOp::Max => sa.max(sb) as u128,
        RedOp::UMin => a.min(b),
        RedOp::UMax => a.max(b),
        RedOp::And => a & b,
        RedOp::Or => a | b,
        RedOp::Xor => a ^ b,
    };
    r & mask(bits)
}

/// The identity of a reduction (what an exclusive scan gives the first).
fn identity(op: RedOp, bits: u32) -> u128 {
    let m = mask(bits);
    match op {
        RedOp::Add | RedOp::Or | RedOp::Xor | RedOp::UMax => 0,
        RedOp::And | RedOp::UMin => m,
        RedOp::Min => m >> 1,
        RedOp::Max => (m >> 1) + 1,
    }
}

/// One member of a fired set: its thread id and its operands.
pub(super) struct Member<'a> {
    pub tid: u32,
    pub args: &'a [Val],
}

/// C-OPS: the result of a set operation in each member, in order. The
/// members are split into subgroups first when the operation's scope is a
/// subgroup; lanes are the threads' lanes in their subgroup.
pub(super) fn set_results(
    geom: &Geometry,
    oob: ShuffleOob,
    op: Op,
    ret_bits: u32,
    members: &[Member],
) -> Vec<Result<Val, UbKind>> {
    let scope = match op {
        Op::Reduce { scope, .. } | Op::Barrier(scope) => scope,
        _ => Scope::Subgroup,
    };
    let mut parts: BTreeMap<(u32, u32), Vec<usize>> = BTreeMap::new();
    for (i, m) in members.iter().enumerate() {
        let key = match scope {
            Scope::Subgroup => geom.subgroup_key(m.tid),
            Scope::Workgroup => (geom.group_of(m.tid), 0),
        };
        parts.entry(key).or_default().push(i);
    }
    let mut out: Vec<Result<Val, UbKind>> = vec![Ok(Val::Poison); members.len()];
    for part in parts.values() {
        let set: Vec<&Member> = part.iter().map(|&i| &members[i]).collect();
        for (j, r) in part.iter().zip(in_set(geom, oob, op, ret_bits, &set)) {
            out[*j] = r;
        }
    }
    out
}

/// The lane a member occupies for `op`: its position in the workgroup for
/// workgroup-scope operations, in its subgroup otherwise.
fn lane_of(geom: &Geometry, op: Op, tid: u32) -> u32 {
    match op {
        Op::Reduce {
            scope: Scope::Workgroup,
            ..
        } => geom.local_id(tid),
        _ => geom.lane(tid),
    }
}

fn in_set(
    geom: &Geometry,
    oob: ShuffleOob,
    op: Op,
    ret_bits: u32,
    set: &[&Member],
) -> Vec<Result<Val, UbKind>> {
    let n = set.len();
    let same = |v: Val| vec![Ok(v); n];
    let arg = |i: usize, k: u8| set[i].args.get(k as usize).cloned().unwrap_or(Val::Poison);
    let lanes: Vec<u32> = set.iter().map(|m| lane_of(geom, op, m.tid)).collect();
    // Booleans of argument k in every member (nonzero is true), or None if
    // one is poison.
    let truth = |k: u8| -> Option<Vec<bool>> {
        (0..n)
            .map(|i| match arg(i, k) {
                Val::Int { v, .. } => Some(v != 0),
                _ => None,
            })
            .collect()
    };
    let lane_mask = |pick: &dyn Fn(usize) -> bool| -> u128 {
        (0..n)
            .filter(|&i| pick(i))
            .fold(0u128, |m, i| m | 1u128.checked_shl(lanes[i]).unwrap_or(0))
    };
    match op {
        Op::Ballot { arg: a } => match truth(a) {
            Some(t) => same(int_val(ret_bits, lane_mask(&|i| t[i]))),
            None => same(Val::Poison),
        },
        Op::ActiveMask => same(int_val(ret_bits, lane_mask(&|_| true))),
        Op::Vote { vote, arg: a } => {
            let r = match vote {
                Vote::All => truth(a).map(|t| t.iter().all(|x| *x)),
                Vote::Any => truth(a).map(|t| t.iter().any(|x| *x)),
                Vote::Uni => {
                    let vals: Vec<Val> = (0..n).map(|i| arg(i, a)).collect();
                    (!vals.contains(&Val::Poison)).then(|| vals.windows(2).all(|w| w[0] == w[1]))
                }
            };
            same(r.map_or(Val::Poison, |b| int_val(ret_bits, b as u128)))
        }
        Op::CountBits { arg: a } => match truth(a) {
            Some(t) => same(int_val(ret_bits, t.iter().filter(|x| **x).count() as u128)),
            None => same(Val::Poison),
        },
        Op::First { arg: a } => {
            let first = (0..n).min_by_key(|&i| lanes[i]).unwrap_or(0);
            same(arg(first, a))
        }
        Op::IsFirst => {
            let low = lanes.iter().copied().min().unwrap_or(0);
            lanes
                .iter()
                .map(|&l| Ok(int_val(ret_bits, (l == low) as u128)))
                .collect()
        }
        Op::MatchAny { arg: a } => (0..n)
            .map(|i| match arg(i, a) {
                Val::Poison => Ok(Val::Poison),
                mine => Ok(int_val(ret_bits, lane_mask(&|j| arg(j, a) == mine))),
            })
            .collect(),
        Op::Broadcast { val, lane } => (0..n)
            .map(|i| match arg(i, lane) {
                Val::Int { v, .. } => read_lane(geom, oob, set, &lanes, i, v, val),
                _ => Ok(Val::Poison),
            })
            .collect(),
        Op::Shuffle {
            val,
            idx,
            mode,
            scale,
        } => {
            let width = geom.max_subgroup() as u128;
            (0..n)
                .map(|i| {
                    let Val::Int { v, .. } = arg(i, idx) else {
                        return Ok(Val::Poison);
                    };
                    let me = lanes[i] as u128;
                    let want = match mode {
                        Shfl::Idx => Some(v / scale.max(1) as u128),
                        Shfl::Up => me.checked_sub(v),
                        Shfl::Down => Some(me.wrapping_add(v)).filter(|j| *j < width),
                        Shfl::Bfly => Some(me ^ v).filter(|j| *j < width),
                    };
                    match want {
                        Some(j) => read_lane(geom, oob, set, &lanes, i, j, val),
                        // Up/down/butterfly past the subgroup: the thread's
                        // own value (PTX `shfl.sync` with the full clamp).
                        None => Ok(arg(i, val)),
                    }
                })
                .collect()
        }
        Op::Reduce {
            op: r,
            arg: a,
            scan,
            ..
        } => {
            let mut vals = Vec::with_capacity(n);
            for (i, lane) in lanes.iter().enumerate() {
                let Val::Int { bits, v } = arg(i, a) else {
                    return same(Val::Poison);
                };
                vals.push((*lane, bits, v));
            }
            let Some(&(_, bits, _)) = vals.first() else {
                return same(Val::Poison);
            };
            let fold = |pick: &dyn Fn(u32) -> bool| -> u128 {
                vals.iter()
                    .filter(|(l, _, _)| pick(*l))
                    .fold(identity(r, bits), |acc, (_, _, v)| reduce(r, bits, acc, *v))
            };
            (0..n)
                .map(|i| {
                    let me = lanes[i];
                    let v = match scan {
                        Scan::None => fold(&|_| true),
                        Scan::Inclusive => fold(&|l| l <= me),
                        Scan::Exclusive => fold(&|l| l < me),
                    };
                    Ok(int_val(bits, v))
                })
                .collect()
        }
        Op::Lanes(l) => super::lanes::permute(geom, l, ret_bits, set)
            .into_iter()
            .map(Ok)
            .collect(),
        Op::CmpBallot { float } => same(super::lanes::cmp_ballot(geom, float, ret_bits, set)),
        Op::Cf(cf) => super::lanes::control_flow(geom, cf, ret_bits, set)
            .into_iter()
            .map(Ok)
            .collect(),
        _ => same(Val::Poison),
    }
}

/// The value of operand `val` in the member whose lane is `want`, or the
/// out-of-set answer (C-OPS: poison, or UB under `--shuffle-oob ub`).
fn read_lane(
    geom: &Geometry,
    oob: ShuffleOob,
    set: &[&Member],
    lanes: &[u32],
    me: usize,
    want: u128,
    val: u8,
) -> Result<Val, UbKind> {
    match lanes.iter().position(|&l| l as u128 == want) {
        Some(j) => Ok(set[j]
            .args
            .get(val as usize)
            .cloned()
            .unwrap_or(Val::Poison)),
        None => match oob {
            ShuffleOob::Poison => Ok(Val::Poison),
            ShuffleOob::Ub => {
                // Name the thread the lane belongs to.
                let base = set[me].tid - geom.lane(set[me].tid);
                Err(UbKind::ShuffleOutOfSet {
                    thread: base as u128 + want,
                })
            }
        },
    }
}
