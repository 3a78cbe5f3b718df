//! The launch (P-LAUNCH, P-INPUT: the inputs shared by the source and the
//! target encodings, thread ids included) and the static reachability of
//! blocks per step that the encoding prunes with.

use super::super::prog::Prepared;
use crate::vc::{Sort, TermId, Terms};

/// Inputs of a launch shared by the source and target encodings.
#[derive(Clone, Debug)]
pub struct Launch {
    pub n: usize,
    /// [param][thread]: the argument's value in each thread.
    pub args: Vec<Vec<TermId>>,
    /// The distinct input variables with a readable name.
    pub vars: Vec<(String, TermId)>,
    /// [thread]: the thread's id (P-LAUNCH), 32 bits: the constant `t`, or
    /// under [`Launch::free_ids`] an input (C-PAIR's two-thread check).
    pub tids: Vec<TermId>,
    /// Constraints on the inputs (free ids: distinct and below the wave
    /// width); every query over this launch asserts them.
    pub side: Vec<TermId>,
    /// P-INPUT / P-MEM-OBJ: each pointer parameter's buffer (parameter
    /// position, name, one `i8` input per byte), shared by source and
    /// target.
    pub buffers: Vec<(usize, String, Vec<TermId>)>,
    /// R-FLOAT-SMT: the input variables of float parameters (their bit
    /// patterns) and their formats, for `--input-domain`-style bounds
    /// (P-INPUT: a float input ranges over the integer domain converted).
    pub floats: Vec<(TermId, semantics::ir::float::FloatTy)>,
    /// R-FREEZE-SMT: the values a `freeze` of poison may take when inputs
    /// are bounded to a domain (as the interpreter's `int_domain`);
    /// `None`: every value.
    pub freeze_domain: Option<Vec<i128>>,
    /// Theorem C-VAL's pair check (proofs/CUTOFF.md): the result of every
    /// convergent operation is an input, a function of (thread id, callee,
    /// the event's ordinal, its arguments) shared by source and target,
    /// instead of its C-OPS value over the communicating set; observed
    /// events' arguments must then match exactly (poison only with poison).
    pub free_results: bool,
    /// P-INPUT / R-STREAM-SMT: `[thread][k]`, the k-th value of the
    /// thread's input stream (at [`Launch::stream_width`] bits), shared by
    /// source and target; empty when neither program reads a stream.
    pub streams: Vec<Vec<TermId>>,
    /// The width of the stream values: the widest stream result of either
    /// program (a read of a narrower result takes the low bits).
    pub stream_width: u32,
}

impl Launch {
    /// P-LAUNCH / P-INPUT: one variable per uniform parameter, one per
    /// thread for the others.
    pub fn new(terms: &mut Terms, p: &Prepared, n: usize) -> Launch {
        let mut args = Vec::new();
        let mut vars = Vec::new();
        let mut buffers = Vec::new();
        let mut floats = Vec::new();
        for (i, param) in p.func.params.iter().enumerate() {
            if let Some(&j) = p.mem.param.get(&i) {
                // The parameter points at its buffer (every thread).
                let x = terms.bv_const(super::PW, (j as u128 + 1) << 64);
                args.push(vec![x; n]);
                let o = &p.mem.objects[j];
                let name = o.name.trim_start_matches('%').to_string();
                let bytes = (0..o.size)
                    .map(|c| terms.var(&format!("in.{name}.b{c}"), Sort::BitVec(8)))
                    .collect();
                buffers.push((i, name, bytes));
                continue;
            }
            let w = super::width(&param.ty);
            let fmt = semantics::ir::float::FloatTy::of(&param.ty);
            let name = match param.value {
                Some(v) => p.func.value(v).name.to_string(),
                None => format!("arg{i}"),
            };
            if p.uniform_param[i] {
                let x = terms.var(&format!("in.{name}"), Sort::BitVec(w));
                vars.push((name.clone(), x));
                floats.extend(fmt.map(|f| (x, f)));
                args.push(vec![x; n]);
            } else {
                let xs: Vec<TermId> = (0..n)
                    .map(|t| {
                        let x = terms.var(&format!("in.{name}.t{t}"), Sort::BitVec(w));
                        vars.push((format!("{name}[t{t}]"), x));
                        floats.extend(fmt.map(|f| (x, f)));
                        x
                    })
                    .collect();
                args.push(xs);
            }
        }
        let tids = (0..n).map(|t| terms.bv_const(32, t as u128)).collect();
        Launch {
            n,
            args,
            vars,
            tids,
            side: Vec::new(),
            buffers,
            floats,
            freeze_domain: None,
            free_results: false,
            streams: Vec::new(),
            stream_width: 0,
        }
    }

    /// R-STREAM-SMT: one input per thread and stream position that the
    /// programs `progs` can read within `k` steps (each visit reads at
    /// most [`Prepared::stream_reads`] values), named `stream[tT][K]`;
    /// like the other launch inputs they are listed in [`Launch::vars`],
    /// so the domain, the CEGIS fixing and the counterexample's inputs
    /// cover them.
    pub fn add_streams(&mut self, terms: &mut Terms, progs: &[&Prepared], k: usize) {
        let reads = progs.iter().filter_map(|p| p.stream_reads());
        let (most, widest) = reads.fold((0, 0), |(m, w), (m2, w2)| (m.max(m2), w.max(w2)));
        if most == 0 {
            return;
        }
        let len = most * k.max(1);
        self.stream_width = widest;
        self.streams = (0..self.n)
            .map(|t| {
                (0..len)
                    .map(|j| {
                        let x = terms.var(&format!("in.stream.t{t}.k{j}"), Sort::BitVec(widest));
                        self.vars.push((format!("stream[t{t}][{j}]"), x));
                        x
                    })
                    .collect()
            })
            .collect();
    }

    /// Theorem C-PAIR (proofs/CUTOFF.md, side 6): a launch of `n` threads
    /// whose ids are distinct inputs in `0..wave` rather than `0..n`, so that
    /// a check over it covers every pair (or single thread) of a launch of
    /// up to `wave` threads.
    pub fn free_ids(terms: &mut Terms, p: &Prepared, n: usize, wave: usize) -> Launch {
        let mut l = Launch::new(terms, p, n);
        let w = terms.bv_const(32, wave as u128);
        l.tids = (0..n)
            .map(|t| {
                let x = terms.var(&format!("in.tid.t{t}"), Sort::BitVec(32));
                l.vars.push((format!("tid[t{t}]"), x));
                let below = terms.bv_ult(x, w);
                l.side.push(below);
                x
            })
            .collect();
        if n > 1 {
            let d = terms.distinct(&l.tids);
            l.side.push(d);
        }
        l
    }

    /// Thread `t`'s id at width `w` (truncated or zero-extended).
    pub(super) fn tid(&self, terms: &mut Terms, t: usize, w: u32) -> TermId {
        let x = self.tids[t];
        match w.cmp(&32) {
            std::cmp::Ordering::Equal => x,
            std::cmp::Ordering::Less => terms.extract(w - 1, 0, x),
            std::cmp::Ordering::Greater => terms.zero_ext(w - 32, x),
        }
    }
}

/// `[s][b]`: whether some CFG path from the entry block reaches block `b`
/// in exactly `s` steps (`s < k`). Step `s`'s current block is one of these
/// or none (the thread ended), so the encoding may treat the others as
/// absent: an exact pruning of impossible (step, block) pairs.
pub(super) fn possible_blocks(f: &semantics::ir::Function, k: usize) -> Vec<Vec<bool>> {
    let cfg = semantics::cfg::Cfg::from_function(f);
    let nb = f.blocks.len();
    let mut out = vec![vec![false; nb]; k.max(1)];
    if nb > 0 {
        out[0][0] = true;
    }
    for s in 1..k {
        for b in 0..nb {
            if out[s - 1][b] {
                for x in &cfg.succs[b] {
                    out[s][x.0] = true;
                }
            }
        }
    }
    out
}

/// `[s][b]`: the least and greatest number of observed convergent events
/// (R-OBS, the thread's `cev` count) a thread can have made before step
/// `s` when it is in block `b` at step `s` (`None`: it cannot be), over the
/// CFG paths of [`possible_blocks`]; `events[b]` is the number of observed
/// convergent calls in block `b` (every visit makes all of them: the count
/// grows by the block's events whatever happens in it). An observed event
/// at step `s` in block `b` has an ordinal in this range plus its position
/// among the block's observed calls, so two events whose ranges are
/// disjoint never have equal ordinals.
pub(super) fn event_ranges(
    f: &semantics::ir::Function,
    events: &[usize],
    k: usize,
) -> Vec<Vec<Option<(usize, usize)>>> {
    let cfg = semantics::cfg::Cfg::from_function(f);
    let nb = f.blocks.len();
    let mut out: Vec<Vec<Option<(usize, usize)>>> = vec![vec![None; nb]; k.max(1)];
    if nb > 0 {
        out[0][0] = Some((0, 0));
    }
    for s in 1..k {
        for b in 0..nb {
            let Some((lo, hi)) = out[s - 1][b] else {
                continue;
            };
            let (lo, hi) = (lo + events[b], hi + events[b]);
            for x in &cfg.succs[b] {
                let slot = &mut out[s][x.0];
                *slot = Some(match *slot {
                    Some((a, c)) => (a.min(lo), c.max(hi)),
                    None => (lo, hi),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    //! R-STREAM-SMT and D-CALL-NC in the encoder, on small kernels.

    use super::Launch;
    use crate::refine::encode::{encode, Observe, V};
    use crate::refine::prog::{classify_call, prepare, CallSem};
    use crate::vc::eval::{Model, Value};
    use crate::vc::{Sort, Terms};
    use semantics::ir::{InstKind, Module};

    fn parse(text: &str) -> Module {
        semantics::parse_module("t.ll", text).expect("test module parses")
    }

    /// Two stream reads of different widths, their difference observed.
    const READS: &str = "define void @k(i32 %x) {\nentry:\n  %a = call i32 @in()\n  \
        %b = call i8 @in8()\n  %w = zext i8 %b to i32\n  %d = sub i32 %a, %w\n  \
        call void @use(i32 %d)\n  ret void\n}\ndeclare i32 @in()\ndeclare i8 @in8()\n\
        declare void @use(i32)\n";

    /// R-STREAM-SMT: one input per thread and position a run can read
    /// (reads per visit times steps), at the widest result's width, listed
    /// with the launch's inputs; none without stream reads.
    #[test]
    fn stream_inputs_per_thread_and_position() {
        let m = parse(READS);
        let p = prepare(&m, "k", false).expect("prepared");
        assert_eq!(p.stream_reads(), Some((2, 32)));
        let mut terms = Terms::new();
        let mut l = Launch::new(&mut terms, &p, 2);
        let before = l.vars.len();
        l.add_streams(&mut terms, &[&p], 3);
        assert_eq!(l.stream_width, 32);
        assert_eq!(l.streams.iter().map(Vec::len).collect::<Vec<_>>(), [6, 6]);
        assert_eq!(l.vars.len(), before + 12);
        assert!(l.vars.iter().any(|(n, _)| n == "stream[t1][5]"));
        let none = parse(
            "define void @k(i32 %x) {\nentry:\n  call void @use(i32 %x)\n  ret void\n}\n\
             declare void @use(i32)\n",
        );
        let q = prepare(&none, "k", false).expect("prepared");
        assert_eq!(q.stream_reads(), None);
        let mut l2 = Launch::new(&mut terms, &q, 2);
        l2.add_streams(&mut terms, &[&q], 8);
        assert!(l2.streams.is_empty());
    }

    /// R-STREAM-SMT: thread t's k-th read returns the low bits of
    /// `stream[t][k]`: evaluated on an assignment of the inputs, the
    /// observed value is `S[t][0] - (S[t][1] mod 256)` in each thread.
    #[test]
    fn reads_take_positions_in_call_order() {
        let m = parse(READS);
        let p = prepare(&m, "k", false).expect("prepared");
        let mut terms = Terms::new();
        let mut l = Launch::new(&mut terms, &p, 2);
        l.add_streams(&mut terms, &[&p], 2);
        let e = encode(&mut terms, &p, &l, 2, "T", Observe::Auto).expect("encoded");
        let value = |t: usize, k: usize| (100 * t + 7 * k + 300) as u128;
        let mut model = Model::new();
        for v in terms.vars().collect::<Vec<_>>() {
            let w = match terms.var_decl(v).sort {
                Sort::BitVec(w) => w,
                _ => {
                    model.vars.insert(v, Value::Bool(false));
                    continue;
                }
            };
            model.vars.insert(v, Value::bv(w, 0));
        }
        for (t, row) in l.streams.iter().enumerate() {
            for (k, x) in row.iter().enumerate() {
                let v = terms.as_var(*x).expect("a variable");
                model.vars.insert(v, Value::bv(32, value(t, k)));
            }
        }
        for t in 0..2 {
            let ev = e.ext[t].iter().find(|ev| ev.callee == "use").expect("use");
            let V::Int { bits, .. } = &ev.args[0] else {
                panic!("integer argument")
            };
            let got = model.eval(&terms, *bits).expect("evaluates").as_bits();
            let want = (value(t, 0).wrapping_sub(value(t, 1) & 0xff)) & 0xffff_ffff;
            assert_eq!(got, Some(want), "thread {t}");
        }
    }

    /// D-CALL-NC: a call site's `convergent` or bundle on a call of a
    /// declared non-convergent function is no convergent call (here an
    /// input-stream read); a convergent declaration keeps it one, and an
    /// indirect call keeps its call site's attribute (R-CALL-IND).
    #[test]
    fn convergent_call_site_of_a_non_convergent_declaration() {
        let m = parse(
            "define void @k(ptr %f) convergent {\nentry:\n  \
             %e = call token @llvm.experimental.convergence.entry()\n  \
             %a = call i32 @f() convergent\n  \
             %b = call i32 @f() [ \"convergencectrl\"(token %e) ]\n  \
             %c = call i32 @g() convergent\n  \
             %d = call i32 %f() convergent\n  ret void\n}\n\
             declare token @llvm.experimental.convergence.entry()\n\
             declare i32 @f()\ndeclare i32 @g() convergent\n",
        );
        let f = m.function("k").expect("kernel");
        let calls: Vec<_> = f.blocks[0]
            .insts
            .iter()
            .filter_map(|i| match &i.kind {
                InstKind::Call(c) => Some(classify_call(&m, c, false).expect("classified")),
                _ => None,
            })
            .collect();
        let got: Vec<(bool, bool)> = calls[1..]
            .iter()
            .map(|c| (c.convergent, c.sem == CallSem::Stream))
            .collect();
        assert_eq!(
            got,
            [(false, true), (false, true), (true, false), (true, false)]
        );
    }
}
