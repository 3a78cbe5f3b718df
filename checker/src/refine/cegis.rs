//! The CEGIS loop of one thread count ([`Checker::check_threads_with`]):
//! propose a launch and a target execution that defeats every source
//! strategy learned so far, check it against the source, learn the
//! source's choices or report the counterexample (R-REF, R-CEX
//! minimization), and the source strategies it learns up front (the
//! mirror strategy, frozen values, F-21).

use std::time::Duration;

use crate::smt::{Incremental, Outcome};
use crate::vc::eval::Model;
use crate::vc::{Condition, TermId, Terms};

use super::encode::{self, encode, encode_with, Enc, Launch, Ranks};
use super::obs::{self, complete, concrete};
use super::{
    conj, fix, fix_functions, launch_inputs, prog, reason, scale, signed_of, twin, Cex, Checker,
    PerN, RefineError, Side, Strategies, UnknownWhy,
};

impl Checker<'_, '_> {
    /// The CEGIS loop for `n` threads (one pass over full-range inputs; a
    /// counterexample found is then minimized: small inputs, shorter
    /// traces).
    pub(super) fn check_threads(&mut self, n: usize) -> Result<(PerN, usize), RefineError> {
        self.check_threads_with(n, &scale::Mode::default())
    }

    /// [`Checker::check_threads`] restricted as `mode` says (issue 16:
    /// launches pinned to a lifted counterexample, or per-thread inputs
    /// distinct); a restricted search's `Refines` only means "none there".
    pub(super) fn check_threads_with(
        &mut self,
        n: usize,
        mode: &scale::Mode,
    ) -> Result<(PerN, usize), RefineError> {
        let k = self.opts.max_steps;
        let obs = self.opts.observe;
        let mut terms = Terms::new();
        let launch = self.launch(&mut terms, n);
        let t = encode(&mut terms, self.tgt, &launch, k, "T", obs).map_err(RefineError::target)?;
        // Restricted searches answer only counterexamples: no cut example.
        let cut = if mode.restricted() {
            None
        } else {
            self.target_cut(&mut terms, &launch, &t, n)?
        };
        let mut prop = Incremental::new(self.opts.timeout);
        for (c, why) in mode.constraints(&mut terms, self.src, &launch, &t) {
            prop.assert(&terms, Condition::new(c, why));
        }
        let minimize = self.opts.minimize && !mode.restricted();
        let max_iterations = match mode.pin {
            Some(_) => self.opts.max_iterations.min(scale::PINNED_ITERATIONS),
            None => self.opts.max_iterations,
        };
        let add = |terms: &mut Terms, prop: &mut Incremental, x: TermId, why: &str| {
            prop.assert(terms, Condition::new(x, why));
        };
        let tdefs = conj(&mut terms, &t.defs);
        add(&mut terms, &mut prop, tdefs, "target C-OPS results");
        let tvalid = conj(&mut terms, &t.valid);
        add(&mut terms, &mut prop, tvalid, "target D-INST/D-ORDER");
        for x in launch.side.clone() {
            add(
                &mut terms,
                &mut prop,
                x,
                "C-PAIR: thread ids distinct, below W",
            );
        }
        // R-PREFIX: a target execution is compared when every thread ends
        // or provably never ends (its prefix is then its observation);
        // others are cut by the bound and set aside (R-BOUND).
        for (c, st) in t.cut.clone().into_iter().zip(t.stuck.clone()) {
            let nc = terms.not(c);
            let final_ = terms.or(&[nc, st]);
            add(
                &mut terms,
                &mut prop,
                final_,
                "target execution complete or stuck",
            );
        }
        for a in domain_constraints(&mut terms, &launch, self.opts.input_domain.as_ref()) {
            add(&mut terms, &mut prop, a, "input domain");
        }
        // Symmetry breaking: when neither program reads thread indices,
        // renumbering the threads of a counterexample gives another one, so
        // only launches whose first per-thread input is sorted (unsigned)
        // across threads are proposed.
        // (Not for a pinned launch: its thread order is the padding's.)
        if mode.pin.is_none() && self.src.thread_symmetric() && self.tgt.thread_symmetric() {
            if let Some(i) = self.src.uniform_param.iter().position(|u| !u) {
                for w in launch.args[i].windows(2) {
                    let le = terms.bv_ule(w[0], w[1]);
                    add(&mut terms, &mut prop, le, "thread symmetry: inputs sorted");
                }
            }
        }
        // Only launches on which some source execution is settled within
        // the bound are compared (R-BOUND): every thread ends, or is stuck
        // (R-PREFIX: it provably never returns, which is then its
        // observation), the latter only when the source does not require
        // progress; the other launches count as cut.
        let b = encode(&mut terms, self.src, &launch, k, "B", obs).map_err(RefineError::source)?;
        let mut bc = b.defs.clone();
        bc.extend(&b.valid);
        bc.extend(settled(&mut terms, &b, !self.src.progress_required));
        let bc = conj(&mut terms, &bc);
        self.memory_model(&mut terms, &launch, &t, &b, n)?;
        add(
            &mut terms,
            &mut prop,
            bc,
            "some source execution ends or is stuck in every thread within the bound",
        );
        if !self.src.has_anchor {
            // No anchors: the source's choices are its hierarchy (D-HIER)
            // and its frozen values (R-FREEZE-SMT), so one copy per
            // hierarchy decides the question when it has no `freeze`; with
            // one, the copy's frozen values follow the target's of the same
            // name, thread and step (else the operand's bits), one strategy
            // among those the check learns.
            for h in 0..self.src.hiers.len() {
                let name = if h == 0 {
                    "S0".to_string()
                } else {
                    format!("S0h{h}")
                };
                let s = encode(&mut terms, self.src, &launch, k, &name, obs)
                    .map_err(RefineError::source)?;
                let pick = s.hierarchy.map(|sel| {
                    let ht = terms.bv_const(encode::CW, h as u128);
                    terms.eq(sel, ht)
                });
                let tie = (!s.freeze.is_empty()).then(|| freeze_tie(&mut terms, &s, &t));
                let choice = match (pick, tie) {
                    (Some(a), Some(b)) => Some(terms.and(&[a, b])),
                    (a, b) => a.or(b),
                };
                self.learn(&mut terms, &mut prop, &s, &t, choice);
            }
        } else {
            // The twin strategy (`twin`): the source makes the choices the
            // target made, when their convergent operations are the same or
            // copies of each other; with `loop` intrinsics, the mirror.
            let plan = match self.opts.strategies {
                Strategies::Plain => None,
                _ => twin::twins(self.src, self.tgt),
            };
            let mirror = self.opts.strategies == Strategies::Mirror
                || matches!(plan, Some(twin::Twins::Names));
            if mirror {
                // The mirror strategy: the source's anchors make the choices
                // the target's anchors of the same name made (F-21).
                let s = encode_with(&mut terms, self.src, &launch, k, "M", obs, Ranks::Canonical)
                    .map_err(RefineError::source)?;
                let tie = mirror_anchors(&mut terms, &s, &t);
                self.learn(&mut terms, &mut prop, &s, &t, Some(tie));
            }
            if let Some(map) = plan.filter(|p| !matches!(p, twin::Twins::Names)) {
                let s = encode::encode_twin(&mut terms, self.src, &launch, k, "W", obs)
                    .map_err(RefineError::source)?;
                if let Some(tie) = twin::tie(&mut terms, &s, &t, &map) {
                    self.learn(&mut terms, &mut prop, &s, &t, Some(tie));
                }
            }
        }
        let mut input_vars: Vec<TermId> = launch.vars.iter().map(|x| x.1).collect();
        input_vars.extend(launch.buffers.iter().flat_map(|b| b.2.iter().copied()));
        // The shortest counterexample found so far (R-CEX minimization):
        // once one is found, the loop goes on asking for a target execution
        // with fewer block visits in total, until there is none or the
        // budget of extra rounds is spent. Any answer other than a shorter
        // counterexample ends the search with the best one.
        let mut best: Option<(Cex, usize)> = None;
        let mut extra = 0usize;
        let mut small_asked = false;
        let total = total_visits(&mut terms, &t);
        macro_rules! end {
            ($other:expr, $it:expr) => {
                return Ok(match best {
                    Some((c, _)) => (PerN::Cex(Box::new(c)), $it),
                    None => ($other, $it),
                })
            };
        }
        for it in 1..=max_iterations {
            let name = format!("{}-n{n}-{}propose-{it}", self.tag, mode.tag());
            let r = self.session.check(&terms, &mut prop, &name);
            self.report_last();
            let m = match r? {
                Outcome::Unsat => end!(PerN::Refines { cut: cut.clone() }, it),
                Outcome::Unknown(r) => end!(PerN::Unknown(reason(r, n)), it),
                Outcome::Sat(m) => m,
            };
            let fu = fix_functions(&mut terms, &m);
            let m = complete(&terms, &m);
            let fx = fix(&mut terms, &input_vars, &m);
            let ft = fix(&mut terms, &t.choices, &m);
            // Check: a source execution on this launch matching this target
            // execution; first with launch-independent ranks (a strategy
            // that generalizes when learned), then exactly.
            let mut pinned = vec![fx, ft, fu];
            pinned.extend(&t.defs);
            pinned.extend(&t.valid);
            // A pinned launch has one proposal: no strategy to generalize.
            let modes: &[Ranks] = if self.src.has_anchor
                && self.opts.strategies != Strategies::Plain
                && mode.pin.is_none()
            {
                &[Ranks::Canonical, Ranks::Free]
            } else {
                &[Ranks::Free]
            };
            let mut unmatched = None;
            for &ranks in modes {
                let (copy, query) = match ranks {
                    Ranks::Canonical => (format!("C{it}c"), format!("check-canonical-{it}")),
                    Ranks::Free => (format!("C{it}"), format!("check-{it}")),
                };
                let s = encode_with(&mut terms, self.src, &launch, k, &copy, obs, ranks)
                    .map_err(RefineError::source)?;
                let mut base = pinned.clone();
                base.extend(&s.defs);
                base.extend(&s.valid);
                let mut c = base.clone();
                let same = obs::matches(&mut terms, &s, &t);
                // A pinned launch (issue 16) asks once for a source
                // execution that matches or is cut: either ends the lift.
                c.push(match mode.pin {
                    Some(_) => {
                        let cut = terms.or(&s.cut);
                        terms.or(&[same, cut])
                    }
                    None => same,
                });
                let conds = c.into_iter().map(|x| Condition::new(x, "check")).collect();
                match self.solve(&terms, &format!("n{n}-full-{query}"), conds)? {
                    Outcome::Sat(_) if mode.pin.is_some() => {
                        end!(PerN::Refines { cut: None }, it)
                    }
                    Outcome::Sat(m2) => {
                        let m2 = complete(&terms, &m2);
                        let fx2 = fix(&mut terms, &s.choices, &m2);
                        self.learn(&mut terms, &mut prop, &s, &t, Some(fx2));
                        unmatched = None;
                        break;
                    }
                    Outcome::Unknown(r) => end!(PerN::Unknown(reason(r, n)), it),
                    Outcome::Unsat => unmatched = Some((s, base)),
                }
            }
            // The exact search found no matching source execution either.
            if let Some((s, base)) = unmatched {
                // No source execution matches: is one cut by the bound?
                let mut c = base.clone();
                let open = open_cut(&mut terms, &s);
                c.push(open);
                let conds = c
                    .into_iter()
                    .map(|x| Condition::new(x, "source cut"))
                    .collect();
                let cut_answer = match mode.pin {
                    Some(_) => Outcome::Unsat, // asked with the check above
                    None => self.solve(&terms, &format!("n{n}-full-source-cut-{it}"), conds)?,
                };
                match cut_answer {
                    Outcome::Unsat => {
                        let show = mode.pin.is_none().then_some(&base[..]);
                        let cex = self.build_cex(&mut terms, &launch, &t, &s, &m, show)?;
                        let len: usize = cex.target.iter().map(|th| th.blocks.len()).sum();
                        let large = cex.inputs.iter().any(|(_, v)| !(-8..=8).contains(v));
                        best = Some((cex, len));
                        extra += 1;
                        // Restricted searches (issue 16) only ask for
                        // small inputs, not for shorter traces.
                        let small_step = self.opts.minimize && !small_asked && large;
                        if !minimize && !small_step {
                            end!(PerN::Refines { cut: None }, it);
                        }
                        // Minimizing is optional: a short time limit.
                        prop.set_timeout(self.opts.timeout.min(MINIMIZE_TIMEOUT));
                        if small_step {
                            // Small inputs first (then shorter traces).
                            small_asked = true;
                            for c in small_inputs(&mut terms, &launch) {
                                prop.assert(&terms, Condition::new(c, "smaller inputs"));
                            }
                            continue;
                        }
                        if !minimize || extra > MINIMIZE_ROUNDS || len <= n {
                            end!(PerN::Refines { cut: None }, it);
                        }
                        let bound = terms.bv_const(16, len as u128);
                        let shorter = terms.bv_ult(total, bound);
                        prop.assert(&terms, Condition::new(shorter, "shorter counterexample"));
                        continue;
                    }
                    Outcome::Unknown(r) => end!(PerN::Unknown(reason(r, n)), it),
                    Outcome::Sat(_) => end!(
                        PerN::Unknown(UnknownWhy::SourceCut {
                            threads: n,
                            max_steps: k
                        }),
                        it
                    ),
                }
            }
        }
        end!(
            PerN::Unknown(UnknownWhy::Iterations {
                threads: n,
                limit: max_iterations
            }),
            max_iterations
        )
    }

    /// R-MEM-SMT: the encoding's per-thread memory views are the memory
    /// model's values only if no execution within the bounds has a byte
    /// of a shared object written by one thread and accessed by another;
    /// both programs are asked, and the pair is unsupported if either has
    /// one (threads communicating through memory are not encoded). Both
    /// must also observe the same objects (R-MEM).
    fn memory_model(
        &mut self,
        terms: &mut Terms,
        launch: &Launch,
        t: &Enc,
        s: &Enc,
        n: usize,
    ) -> Result<(), RefineError> {
        let names = |e: &Enc| {
            e.memory
                .iter()
                .map(|(n, b)| (n.clone(), b.len()))
                .collect::<Vec<_>>()
        };
        let (sn, tn) = (names(s), names(t));
        if sn.iter().any(|x| !tn.contains(x)) || tn.iter().any(|x| !sn.contains(x)) {
            return Err(RefineError::target(prog::Unsupported {
                construct: format!(
                    "observed memory objects that differ from the source's ({:?} vs {:?})",
                    tn.iter().map(|x| &x.0).collect::<Vec<_>>(),
                    sn.iter().map(|x| &x.0).collect::<Vec<_>>()
                ),
                at: format!("@{}", self.tgt.func.name),
                span: None,
            }));
        }
        for (e, side) in [(t, Side::Target), (s, Side::Source)] {
            if terms.is_false(e.conflict) {
                continue;
            }
            let mut c = e.defs.clone();
            c.extend(&e.valid);
            c.extend(&launch.side);
            // Over the launches the check covers (`Options::input_domain`,
            // the agreement tests' bound), as the refinement query.
            c.extend(domain_constraints(
                terms,
                launch,
                self.opts.input_domain.as_ref(),
            ));
            c.push(e.conflict);
            let conds = c
                .into_iter()
                .map(|x| Condition::new(x, "R-MEM-SMT conflict"))
                .collect();
            let name = format!("n{n}-{}-memory-conflict", side.as_str());
            match self.solve(terms, &name, conds)? {
                Outcome::Unsat => {}
                other => {
                    let why = match other {
                        Outcome::Sat(_) => {
                            "threads communicate through memory: an execution \
                             within the bounds has a byte of a shared object written by one thread \
                             and accessed by another, which the encoding does not express \
                             (R-MEM-SMT)"
                        }
                        _ => {
                            "the solver could not decide whether threads communicate through \
                              memory (R-MEM-SMT)"
                        }
                    };
                    let p = side.pick(self.src, self.tgt);
                    let u = prog::Unsupported {
                        construct: why.to_string(),
                        at: format!("@{} ({n} threads)", p.func.name),
                        span: None,
                    };
                    return Err(match side {
                        Side::Source => RefineError::source(u),
                        Side::Target => RefineError::target(u),
                    });
                }
            }
        }
        Ok(())
    }

    /// Adds to the proposal: with the source choices of `s` determined by
    /// `choice` (fixed values, or a function of the target's choices; none
    /// when the source has no choices), the source does not match the
    /// target.
    fn learn(
        &mut self,
        terms: &mut Terms,
        prop: &mut Incremental,
        s: &Enc,
        t: &Enc,
        choice: Option<TermId>,
    ) {
        // `s` is a copy of the source encoding of its own (fresh result
        // variables) over the shared launch inputs, so the constraint
        // speaks about every launch.
        let mut pos = s.defs.clone();
        pos.extend(choice);
        let mut neg = s.valid.clone();
        neg.push(obs::matches(terms, s, t));
        let negc = terms.and(&neg);
        let not = terms.not(negc);
        pos.push(not);
        let all = terms.and(&pos);
        prop.assert(
            terms,
            Condition::new(all, format!("learned source {}", s.name)),
        );
    }

    fn build_cex(
        &mut self,
        terms: &mut Terms,
        launch: &Launch,
        t: &Enc,
        s: &Enc,
        m: &Model,
        // The source side's constraints on the launch, to show a source
        // execution; `None`: none shown.
        base: Option<&[TermId]>,
    ) -> Result<Cex, RefineError> {
        let target = concrete(terms, t, m);
        let args: Vec<Vec<i128>> = launch
            .args
            .iter()
            .map(|row| {
                row.iter()
                    .map(|x| {
                        let w = terms.sort(*x).bv_width().unwrap_or(32);
                        signed_of(w, obs::ev_bits(terms, m, *x))
                    })
                    .collect()
            })
            .collect();
        // R-STREAM-SMT: the stream values the target read are shown (and
        // kept for replay); positions past them are left out of the list.
        let mut unread = std::collections::HashSet::new();
        for (th, row) in launch.streams.iter().enumerate() {
            let read = t
                .str_count
                .get(th)
                .map_or(0, |c| obs::ev_bits(terms, m, *c) as usize);
            unread.extend(row.iter().skip(read).copied());
        }
        let inputs = launch_inputs(terms, launch, m)
            .into_iter()
            .zip(&launch.vars)
            .filter(|(_, (_, v))| !unread.contains(v))
            .map(|(i, _)| i)
            .collect();
        // One source execution on the same launch, for the side-by-side view
        // (not for a lifted launch of many threads, where finding one costs
        // more than the check; the replay shows the interpreter's).
        let (source, source_memory) = match base {
            None => (None, None),
            Some(base) => {
                let conds = base
                    .iter()
                    .map(|x| Condition::new(*x, "source on cex launch"))
                    .collect();
                match self.solve(terms, &format!("n{}-cex-source", t.n), conds)? {
                    Outcome::Sat(m2) => {
                        let m2 = complete(terms, &m2);
                        (
                            Some(concrete(terms, s, &m2)),
                            Some(obs::concrete_memory(terms, s, &m2)),
                        )
                    }
                    _ => (None, None),
                }
            }
        };
        let buffers = launch
            .buffers
            .iter()
            .map(|(_, name, bytes)| {
                let bs = bytes
                    .iter()
                    .map(|b| obs::ev_bits(terms, m, *b) as u8)
                    .collect();
                (name.clone(), bs)
            })
            .collect();
        Ok(Cex {
            threads: t.n,
            inputs,
            args,
            target,
            source,
            buffers,
            memory: obs::concrete_memory(terms, t, m),
            source_memory,
            lifted: None,
            target_choices: scale::choice_values(terms, t, m),
            replay_note: None,
            frozen: t
                .freeze
                .iter()
                .map(|f| {
                    let w = terms.sort(f.var).bv_width().unwrap_or(32);
                    signed_of(w, obs::ev_bits(terms, m, f.var))
                })
                .collect(),
            sub: None,
            streams: launch
                .streams
                .iter()
                .map(|row| {
                    row.iter()
                        .map(|x| signed_of(launch.stream_width, obs::ev_bits(terms, m, *x)))
                        .collect()
                })
                .collect(),
        })
    }
}

/// D-ANCHOR: the source's anchor keys equal to the target's for the anchor
/// of the same token name, thread and occurrence; a source anchor with no
/// namesake gets keys that never converge (thread-specific constants).
/// Every such assignment is one source strategy; it is learned up front so
/// that CEGIS need not discover, one partition of the threads at a time,
/// that the source can group its threads as the target did (F-21).
pub(super) fn mirror_anchors(terms: &mut Terms, s: &Enc, t: &Enc) -> TermId {
    let mut cs = Vec::new();
    for (name, th, vars) in &s.anchor_keys {
        let twin = t
            .anchor_keys
            .iter()
            .find(|(n2, t2, _)| n2 == name && t2 == th)
            .map(|x| &x.2);
        for (j, v) in vars.iter().enumerate() {
            let rhs = match twin {
                Some(tv) if j < tv.len() => tv[j],
                _ => {
                    let w = terms.sort(*v).bv_width().unwrap_or(encode::CW);
                    let x = (th * s.k + j) as u128 & ((1u128 << w) - 1);
                    terms.bv_const(w, x)
                }
            };
            cs.push(terms.eq(*v, rhs));
        }
    }
    terms.and(&cs)
}

/// `--input-domain` (the M-AGREE test): every input of the launch within
/// the domain (a 1-bit input 0 or 1; P-INPUT: a float input ranges over
/// the domain converted). None without a domain.
pub(super) fn domain_constraints(
    terms: &mut Terms,
    launch: &Launch,
    dom: Option<&Vec<i128>>,
) -> Vec<TermId> {
    let Some(dom) = dom else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (_, v) in &launch.vars {
        let w = terms.sort(*v).bv_width().unwrap_or(32);
        let vals: Vec<i128> = if w == 1 { vec![0, 1] } else { dom.clone() };
        let fmt = launch.floats.iter().find(|(x, _)| x == v).map(|(_, f)| *f);
        let alts: Vec<TermId> = vals
            .iter()
            .map(|x| {
                let bits = match fmt {
                    Some(f) => f.from_int(*x < 0, x.unsigned_abs()) as u128,
                    None => *x as u128,
                };
                let c = terms.bv_const(w, bits & ((1u128 << w) - 1));
                terms.eq(*v, c)
            })
            .collect();
        out.push(terms.or(&alts));
    }
    out
}

/// R-PREFIX: per thread of `e`, the thread ends within the bound, or
/// (with `stuck_too`) is stuck: it provably never returns.
pub(super) fn settled(terms: &mut Terms, e: &Enc, stuck_too: bool) -> Vec<TermId> {
    e.cut
        .iter()
        .zip(&e.stuck)
        .map(|(c, st)| {
            let ended = terms.not(*c);
            if stuck_too {
                terms.or(&[ended, *st])
            } else {
                ended
            }
        })
        .collect()
}

/// R-PREFIX: some thread of `e` is cut by the bound without being stuck
/// (it might still end, or do more, with more steps).
pub(super) fn open_cut(terms: &mut Terms, e: &Enc) -> TermId {
    let xs: Vec<TermId> = e
        .cut
        .iter()
        .zip(&e.stuck)
        .map(|(c, st)| {
            let ns = terms.not(*st);
            terms.and(&[*c, ns])
        })
        .collect();
    terms.or(&xs)
}

/// Every input of more than 4 bits within [-8, 8] (signed).
fn small_inputs(terms: &mut Terms, launch: &Launch) -> Vec<TermId> {
    let mut out = Vec::new();
    for (_, v) in &launch.vars {
        let w = terms.sort(*v).bv_width().unwrap_or(32);
        if w > 4 {
            let lo = terms.bv_const(w, (1u128 << w) - 8);
            let hi = terms.bv_const(w, 8);
            out.push(terms.bv_sge(*v, lo));
            out.push(terms.bv_sle(*v, hi));
        }
    }
    out
}

/// Time limit of each query that looks for a smaller counterexample.
const MINIMIZE_TIMEOUT: Duration = Duration::from_secs(10);

/// Extra CEGIS rounds spent looking for a shorter counterexample.
const MINIMIZE_ROUNDS: usize = 4;

/// The number of block visits of the whole target execution (16 bits).
fn total_visits(terms: &mut Terms, t: &Enc) -> TermId {
    let none = terms.bv_const(t.bw, t.nb as u128);
    let one = terms.bv_const(16, 1);
    let zero = terms.bv_const(16, 0);
    let mut acc = zero;
    for row in &t.blk {
        for b in row.iter().take(t.k) {
            let running = terms.eq(*b, none);
            let inc = terms.ite(running, zero, one);
            acc = terms.bv_add(acc, inc);
        }
    }
    acc
}

/// R-FREEZE-SMT: a strategy for the source copy `s`'s frozen values: the
/// target's frozen value of the same name, thread and step, else the bits
/// the poison operand computed (a transform that drops `nsw` and the
/// `freeze` keeps the wrapped value).
pub(super) fn freeze_tie(terms: &mut Terms, s: &Enc, t: &Enc) -> TermId {
    let eqs: Vec<TermId> = s
        .freeze
        .iter()
        .map(|f| {
            let w = terms.sort(f.var).bv_width();
            let other = t
                .freeze
                .iter()
                .find(|g| {
                    g.name == f.name
                        && g.t == f.t
                        && g.s == f.s
                        && terms.sort(g.var).bv_width() == w
                })
                .map(|g| g.var);
            terms.eq(f.var, other.unwrap_or(f.bits))
        })
        .collect();
    terms.and(&eqs)
}
