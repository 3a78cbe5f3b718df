//! Calls (C-CONV, C-CTRL, C-OPS, P-INPUT, R-OBS): a convergent call is a
//! dynamic instance with a key ([`super::keys`]) whose result its
//! communicating set defines ([`super::sets`]); any other call is computed
//! by the thread alone. The interpreter's counterpart is
//! `semantics::machine::calls::exec_call`.

use semantics::intrinsics::{Index, Op};
use semantics::ir::{Call, Type, ValueId};

use super::thread::ThreadSt;
use super::{uf_name, width, Builder, CEv, Enc, Inst, InstanceId, SetVars, V};
use crate::refine::prog::{CallInfo, CallSem};
use crate::vc::{Sort, TermId};

impl Builder<'_, '_> {
    /// A call of the current visit: its arguments (in order), then a
    /// convergent instance or a per-thread call.
    pub(super) fn call(
        &mut self,
        enc: &mut Enc,
        th: &mut ThreadSt,
        ii: usize,
        call: &Call,
        res: Option<ValueId>,
    ) -> V {
        let info = self
            .p
            .call(th.visit.bi, ii)
            .expect("prepare classified every call")
            .clone();
        // P-INPUT / C-OPS (issue 12 item 6): an indirect call's callee
        // pointer is its first argument (`prog::classify_call`), as in the
        // interpreter's `machine::calls::exec_call`.
        let callee = call
            .callee_name()
            .is_none()
            .then(|| (self.typed(&call.callee, &Type::Ptr(0), th), true));
        let typed: Vec<(V, bool)> = callee
            .into_iter()
            .chain(call.args.iter().map(|a| {
                let v = self.typed(&a.value, &a.ty, th);
                (v, matches!(a.ty, Type::Ptr(_)))
            }))
            .collect();
        // R-CALL-PTR: an unknown function receives a pointer as its
        // address (P-MEM-PTR's `ptrtoint` at 64 bits), as the interpreter's
        // `machine::calls::exec_call` passes it.
        let unknown = info.sem.unknown_function();
        let args: Vec<V> = typed
            .into_iter()
            .map(|(v, is_ptr)| match v {
                V::Int { bits, poison } if is_ptr && unknown => V::Int {
                    bits: self.address(th.t, bits),
                    poison,
                },
                v => v,
            })
            .collect();
        let unset = match &call.ty {
            Type::Void | Type::Token => V::Void,
            ty => self.poison_of(ty),
        };
        if info.convergent {
            let o = self.op_index[&(th.visit.bi, ii)];
            self.convergent_call(enc, th, o, &info, call, res, args)
                .unwrap_or(unset)
        } else {
            self.thread_call(th, &info, call, args).unwrap_or(unset)
        }
    }

    /// C-CONV: the dynamic instance of convergent op `o` at this step: its
    /// key (by rule, [`Builder::instance_key`]), its result (a token, or
    /// fresh variables the set defines), its ordinal among observed events,
    /// and the occurrence counters. None: the call has no value.
    #[allow(clippy::too_many_arguments)]
    fn convergent_call(
        &mut self,
        enc: &mut Enc,
        th: &mut ThreadSt,
        o: usize,
        info: &CallInfo,
        call: &Call,
        res: Option<ValueId>,
        args: Vec<V>,
    ) -> Option<V> {
        let (t, s) = (th.t, th.s);
        let c = enc.op_class[o];
        let cur_c = th.visit.local_c.get(&c).copied().unwrap_or(th.cocc[c]);
        let one = self.cw(1);
        let inc = self.t.bv_add(cur_c, one);
        th.visit.local_c.insert(c, inc);
        let key = self.instance_key(enc, th, info, o, cur_c, res);
        let mut result = None;
        let mut vars = SetVars {
            result: None,
            oob: None,
        };
        if info.sem.is_token_def() {
            let def = self.cw(s);
            result = Some(V::Tok {
                key: key.clone(),
                def,
            });
        } else if info.sem == CallSem::Tid {
            // P-LAUNCH: a thread-id read marked `convergent` at its call
            // site is still the thread's id (the set only makes it an
            // instance); a fresh result would let it take any value.
            let rw = width(&call.ty);
            let bits = self.launch.tid(self.t, th.t, rw);
            result = Some(self.int(bits));
        } else if let CallSem::Geometry { what, dim } = info.sem {
            let rw = width(&call.ty);
            result = Some(self.geometry(th, what, dim, rw));
        } else if let CallSem::Lane(op) = info.sem {
            // R-LANE-SMT: a convergent lane read is still per thread.
            result = Some(self.lane_op(th, op, &args));
        } else if let CallSem::PureIntrinsic(op) = info.sem {
            // P-THREAD: likewise for a pure intrinsic.
            let rw = width(&call.ty);
            result = Some(self.pure_intrinsic(op, rw, &args));
        } else if matches!(info.sem, CallSem::Pure | CallSem::UniformInput) {
            // P-INPUT: a convergent register read still reads the thread's
            // (or the wave's) register; the set only makes it an instance.
            let rw = width(&call.ty);
            let per_thread = info.sem == CallSem::Pure;
            result = Some(self.input_call(th, info, rw, &args, per_thread));
        } else if !matches!(call.ty, Type::Void) {
            let rw = width(&call.ty);
            let r = self.fresh(&format!("res.t{t}.s{s}.o{o}"), Sort::BitVec(rw));
            let poison = self.fresh(&format!("poi.t{t}.s{s}.o{o}"), Sort::Bool);
            vars.result = Some((r, poison));
            result = Some(V::Int { bits: r, poison });
        }
        if let CallSem::Set { oob_ub: true, .. } = info.sem {
            // C-OPS: reading a lane outside the set is UB here.
            let u = self.fresh(&format!("oob.t{t}.s{s}.o{o}"), Sort::Bool);
            vars.oob = Some(u);
            th.visit.ub = self.t.or(&[th.visit.ub, u]);
        }
        if vars.result.is_some() || vars.oob.is_some() {
            self.results.insert(InstanceId { t, s, op: o }, vars);
        }
        let ord = if info.sem.observed(self.observe) {
            let i = self.cw(th.visit.cev_i);
            th.visit.cev_i += 1;
            th.cev.push(CEv { s, op: o });
            Some(self.t.bv_add(th.cev_cnt, i))
        } else {
            None
        };
        if self.sync_ops.get(o).copied().unwrap_or(false) {
            // R-MEM-SYNC-SMT: the thread's epoch ends here.
            self.barrier_memory(th);
        }
        th.step_insts[o] = Some(Inst {
            here: th.visit.at,
            key,
            args,
            ord,
            occ: th.occ_before[o],
        });
        let one = self.cw(1);
        let inc = self.t.bv_add(th.occ[o], one);
        th.occ[o] = self.t.ite(th.visit.at, inc, th.occ[o]);
        result
    }

    /// A call the thread computes alone. None: the call has no value
    /// (void, or ignored).
    fn thread_call(
        &mut self,
        th: &mut ThreadSt,
        info: &CallInfo,
        call: &Call,
        args: Vec<V>,
    ) -> Option<V> {
        let rw = width(&call.ty);
        match info.sem {
            CallSem::Tid => {
                // P-LAUNCH: the thread's id.
                let bits = self.launch.tid(self.t, th.t, rw);
                Some(self.int(bits))
            }
            CallSem::Geometry { what, dim } => Some(self.geometry(th, what, dim, rw)),
            CallSem::Lane(op) => Some(self.lane_op(th, op, &args)),
            // P-VEC-ELEM: on vectors lane by lane.
            CallSem::PureIntrinsic(op) => Some(match semantics::machine::vector::shape(&call.ty) {
                Some((_, et)) => {
                    let ew = width(et);
                    self.lanes(&args, |s, lane| s.pure_intrinsic(op, ew, lane))
                }
                None => self.pure_intrinsic(op, rw, &args),
            }),
            CallSem::FloatIntrinsic(ref base) => {
                Some(match semantics::machine::vector::shape(&call.ty) {
                    Some((_, et)) => self.lanes(&args, |s, lane| {
                        s.float_intrinsic(base, &call.flags, et, lane)
                    }),
                    None => self.float_intrinsic(base, &call.flags, &call.ty, &args),
                })
            }
            CallSem::VectorReduce(r) => Some(self.reduce(r, &call.flags, &call.ty, &args)),
            // P-MEM-ACCESS / R-MEM-SMT: a byte loop of the thread.
            CallSem::MemIntrinsic(op) => {
                let lw = width(&call.args[2].ty);
                self.mem_intrinsic(th, op, &args, lw);
                None
            }
            CallSem::Pure if call.ty != Type::Void => {
                Some(self.input_call(th, info, rw, &args, true))
            }
            CallSem::UniformInput if call.ty != Type::Void => {
                Some(self.input_call(th, info, rw, &args, false))
            }
            CallSem::Stream => {
                self.stream_call(th, info, args);
                match call.ty {
                    Type::Int(_) => {
                        let v = self.stream_read(th, rw);
                        if let Some(e) = th.ext.last_mut() {
                            e.result = Some(v.clone());
                        }
                        Some(v)
                    }
                    _ => None,
                }
            }
            // P-ASSUME: `llvm.assume` of false or poison is UB (the
            // interpreter's `machine::calls::exec_call`).
            CallSem::Ignored if info.callee == "llvm.assume" => {
                if let Some(a) = args.first() {
                    let (b, p) = self.bits_of(a, 1);
                    let zero = self.bv(1, 0);
                    let f = self.t.eq(b, zero);
                    th.visit.ub = self.t.or(&[th.visit.ub, f, p]);
                }
                None
            }
            _ => None,
        }
    }

    /// R-LANE-SMT: a per-thread operation that reads the thread's lane,
    /// the thread index (one subgroup per launch), as the interpreter's
    /// `machine::collective::per_thread`: `mbcnt.lo(mask, acc)` is `acc`
    /// plus the bits of `mask` below the lane (at most 32), `mbcnt.hi` the
    /// bits below `lane - 32`; `inverse.ballot(mask)` is bit `lane` of
    /// `mask` (0 past its width); a pass-through (`llvm.amdgcn.wwm`,
    /// `addrspacecast.nonnull`) its operand. Poison when an operand read
    /// is.
    fn lane_op(&mut self, th: &ThreadSt, op: Op, args: &[V]) -> V {
        if let Op::PassThrough { arg } = op {
            return args[arg as usize].clone();
        }
        let lane = self.launch.tid(self.t, th.t, 64);
        match op {
            Op::Mbcnt { hi } => {
                let (m, mp) = self.bits_of(&args[0], 32);
                let (acc, ap) = self.bits_of(&args[1], 32);
                let c32 = self.bv(64, 32);
                let below = if hi {
                    // min(max(lane - 32, 0), 32)
                    let ge = self.t.bv_uge(lane, c32);
                    let d = self.t.bv_sub(lane, c32);
                    let z = self.bv(64, 0);
                    let d = self.t.ite(ge, d, z);
                    let big = self.t.bv_ugt(d, c32);
                    self.t.ite(big, c32, d)
                } else {
                    let big = self.t.bv_ugt(lane, c32);
                    self.t.ite(big, c32, lane)
                };
                let one = self.bv(64, 1);
                let sh = self.t.bv_shl(one, below);
                let low = self.t.bv_sub(sh, one);
                // below <= 32, so the mask of the lanes below fits 32 bits.
                let low = self.t.extract(31, 0, low);
                let kept = self.t.bv_and(m, low);
                let count = self.ctpop(kept, 32);
                let bits = self.t.bv_add(acc, count);
                let poison = self.t.or(&[mp, ap]);
                V::Int { bits, poison }
            }
            Op::InverseBallot { arg } => {
                let v = &args[arg as usize];
                let w = self.width_of(v).unwrap_or(1);
                let (m, mp) = self.bits_of(v, w);
                let wide = if w < 64 {
                    self.t.zero_ext(64 - w, m)
                } else {
                    m
                };
                let shifted = self.t.bv_lshr(wide, lane);
                let bits = self.t.extract(0, 0, shifted);
                V::Int { bits, poison: mp }
            }
            _ => {
                self.unsupported(format!("lane operation {op:?}"));
                self.poison(1)
            }
        }
    }

    /// P-LAUNCH: a thread-geometry read other than the thread id, as the
    /// interpreter's `intrinsics::Geometry::index` for the encoding's
    /// launch (one group and one subgroup of N threads, 1-D): ids of
    /// dimensions 1 and 2 and group/subgroup ids are 0, sizes of dimension
    /// 0 (local, global, subgroup, wave) are N, other counts 1. Under
    /// free thread ids (C-PAIR, standing for larger launches) N is not
    /// the launch size: unsupported there.
    fn geometry(&mut self, th: &ThreadSt, what: Index, dim: u32, rw: u32) -> V {
        let n = self.launch.n as u128;
        let free_ids = self.t.literal(self.launch.tids[th.t]).is_none();
        let size = |d: u32| if d == 0 { n } else { 1 };
        let v = match what {
            Index::LocalId | Index::GlobalId | Index::Lane if dim == 0 => {
                let bits = self.launch.tid(self.t, th.t, rw);
                return self.int(bits);
            }
            Index::LocalId | Index::GlobalId | Index::Lane => 0,
            Index::GroupId | Index::SubgroupId => 0,
            Index::NumGroups | Index::NumSubgroups => 1,
            Index::LocalSize | Index::GlobalSize if free_ids => {
                self.unsupported("a thread-geometry size under free thread ids (C-PAIR)".into());
                0
            }
            Index::SubgroupSize | Index::MaxSubgroupSize if free_ids => {
                self.unsupported("a thread-geometry size under free thread ids (C-PAIR)".into());
                0
            }
            Index::LocalSize | Index::GlobalSize => size(dim),
            Index::SubgroupSize | Index::MaxSubgroupSize => n,
        };
        let bits = self.bv(rw, v);
        self.int(bits)
    }

    /// P-INPUT: an unknown `readnone` function (or a vector-register read)
    /// is a deterministic function of (arguments, thread id), the same
    /// uninterpreted function in the source and the target; without
    /// `per_thread` (a scalar-register read) of the arguments alone.
    fn input_call(
        &mut self,
        th: &ThreadSt,
        info: &CallInfo,
        rw: u32,
        args: &[V],
        per_thread: bool,
    ) -> V {
        let mut dom: Vec<Sort> = args
            .iter()
            .map(|a| match a {
                V::Int { bits, .. } => self.t.sort(*bits).clone(),
                _ => Sort::BitVec(1),
            })
            .collect();
        if per_thread {
            dom.push(Sort::BitVec(32));
        }
        let prefix = if per_thread { "uf" } else { "ufu" };
        let fid = self.t.func(
            &uf_name(prefix, &info.callee, &dom, rw),
            &dom,
            Sort::BitVec(rw),
        );
        let mut xs: Vec<TermId> = Vec::new();
        for a in args {
            let b = match a {
                V::Int { bits, .. } => *bits,
                _ => self.bv(1, 0),
            };
            xs.push(b);
        }
        if per_thread {
            let tid = self.launch.tid(self.t, th.t, 32);
            xs.push(tid);
        }
        let bits = self.t.apply(fid, &xs);
        self.int(bits)
    }

    /// R-OBS / P-INPUT: any other unknown function is an observable event
    /// of the thread (its result, if any, is [`Builder::stream_read`]).
    fn stream_call(&mut self, th: &mut ThreadSt, info: &CallInfo, args: Vec<V>) {
        self.event(th, info.callee.clone(), args);
    }

    /// R-STREAM-SMT: the result of an input-stream call with an integer
    /// result of width `rw`: the thread's stream value at position k, k
    /// the number of stream values the thread read before (earlier visits,
    /// [`ThreadSt::str_cnt`], and earlier calls of this visit), the low
    /// `rw` bits of the launch input `stream[t][k]`; never poison. The
    /// interpreter's counterpart pins the same position
    /// (`machine::calls`, `Options::streams`).
    fn stream_read(&mut self, th: &mut ThreadSt, rw: u32) -> V {
        let j = self.cw(th.visit.str_i);
        th.visit.str_i += 1;
        let pos = self.t.bv_add(th.str_cnt, j);
        let Some(row) = self.launch.streams.get(th.t).filter(|r| !r.is_empty()) else {
            self.unsupported("an input-stream read on a launch without streams".into());
            let zero = self.bv(rw, 0);
            return self.int(zero);
        };
        let row = row.clone();
        if row.len() >= 1 << super::CW {
            self.unsupported(format!(
                "{} input-stream reads per thread (the counters have {} bits)",
                row.len(),
                super::CW
            ));
        }
        let sw = self.launch.stream_width;
        // The positions a run of `k` steps can reach are all in the row
        // ([`Launch::add_streams`]); past them the last value stands.
        let mut acc = *row.last().expect("non-empty");
        for (k, x) in row.iter().enumerate().rev().skip(1) {
            let kc = self.cw(k);
            let here = self.t.eq(pos, kc);
            acc = self.t.ite(here, *x, acc);
        }
        let bits = if rw < sw {
            self.t.extract(rw - 1, 0, acc)
        } else {
            acc
        };
        self.int(bits)
    }
}
