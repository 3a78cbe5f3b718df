//! Counterexamples at warp scale (issue 16, item 4: a heuristic, sound
//! because the solver decides). Asked for N threads (N above
//! [`SMALL_MAX`]), the checker first searches launches of 2, 3 and 4
//! threads (per-thread inputs pairwise distinct first: different trip
//! counts), then *lifts* a small counterexample to N threads: the small
//! launch's threads keep their inputs, the other N - m threads are padding
//! (copies of one of them, copies in turn, or inputs left to the solver),
//! and a copy's anchor keys are tied to its original's, so that it runs
//! along. The N-thread launch is then checked with its inputs pinned
//! (R-REF at N threads: a target execution on this launch that no source
//! execution matches, none with UB, none cut), which is a small search;
//! only its answer is printed, and the pipeline replays it on the
//! interpreter at N threads as every counterexample (R-CEX). When no
//! padding is confirmed, the full N-thread search runs as before. A
//! `refines` verdict is never obtained this way: the full search decides
//! it.

use super::encode::{Enc, Launch};
use super::prog::Prepared;
use super::{Cex, Checker, PerN, RefineError};
use crate::vc::eval::Model;
use crate::vc::{TermId, Terms};

/// Thread counts up to this are searched directly; above it, small
/// launches are searched first and lifted.
pub(super) const SMALL_MAX: usize = 4;

/// CEGIS iterations of a pinned check (the launch is fixed; with anchors
/// the source may still need a few strategies).
pub(super) const PINNED_ITERATIONS: usize = 8;

/// How [`Checker::check_threads_with`] restricts its search.
#[derive(Default)]
pub(super) struct Mode<'c> {
    /// The launch is the lifted counterexample's.
    pub pin: Option<&'c Pin>,
    /// Per-thread integer inputs (wider than one bit) are pairwise
    /// distinct across threads.
    pub distinct: bool,
    /// A search for a counterexample only (a small launch): no example of
    /// a cut launch, no minimization beyond small inputs.
    pub only_cex: bool,
}

/// A padding of a small counterexample to N threads.
pub(super) struct Pin {
    pub small: Box<Cex>,
    /// Per thread of the N-thread launch: the small launch's thread whose
    /// inputs it takes (and whose anchor keys a copy shares), or `None`:
    /// inputs free.
    pub template: Vec<Option<usize>>,
    /// How the padding was made, for the report.
    pub how: String,
}

/// What the lifting remembers across the asked thread counts.
#[derive(Default)]
pub struct Lift {
    /// A small counterexample: found by the small searches, or given (the
    /// C-PAIR pair check's, whose thread ids are inputs).
    pub hint: Option<Box<Cex>>,
    /// The small searches ran (and found [`Lift::hint`] or nothing).
    searched: bool,
}

impl Mode<'_> {
    /// Whether the search is restricted (its `Refines` is no verdict).
    pub fn restricted(&self) -> bool {
        self.pin.is_some() || self.distinct || self.only_cex
    }

    /// The query-name tag.
    pub fn tag(&self) -> &'static str {
        match (self.pin, self.distinct, self.only_cex) {
            (Some(_), _, _) => "lifted-",
            (None, true, _) => "distinct-",
            (None, false, true) => "small-",
            (None, false, false) => "full-",
        }
    }

    /// The restriction's constraints over `launch` (shared by source and
    /// target) and the target encoding `t`, with their origins.
    pub fn constraints(
        &self,
        terms: &mut Terms,
        p: &Prepared,
        launch: &Launch,
        t: &Enc,
    ) -> Vec<(TermId, &'static str)> {
        let mut out = Vec::new();
        if self.distinct && launch.n > 1 {
            for i in per_thread_ints(terms, p, launch) {
                let d = terms.distinct(&launch.args[i]);
                out.push((
                    d,
                    "issue 16: per-thread inputs distinct (different trip counts first)",
                ));
            }
        }
        if let Some(pin) = self.pin {
            for c in pin.inputs(terms, p, launch) {
                out.push((c, "issue 16: the lifted launch's inputs"));
            }
            for c in pin.choice_ties(terms, t) {
                out.push((c, "issue 16: a lifted thread makes its original's choices"));
            }
        }
        out
    }
}

/// Parameters with one integer input per thread, wider than one bit.
fn per_thread_ints(terms: &Terms, p: &Prepared, launch: &Launch) -> Vec<usize> {
    (0..launch.args.len())
        .filter(|&i| !p.uniform_param[i] && !p.mem.param.contains_key(&i))
        .filter(|&i| {
            launch.args[i]
                .first()
                .and_then(|x| terms.sort(*x).bv_width())
                .is_some_and(|w| w > 1)
        })
        .collect()
}

/// `v` as a bit-vector constant of `x`'s width.
fn constant(terms: &mut Terms, x: TermId, v: i128) -> Option<TermId> {
    let w = terms.sort(x).bv_width()?;
    let mask = if w >= 128 {
        u128::MAX
    } else {
        (1u128 << w) - 1
    };
    Some(terms.bv_const(w, (v as u128) & mask))
}

impl Pin {
    /// Each pinned thread's inputs equal its template's in the small
    /// launch; uniform inputs and buffers equal the small launch's.
    fn inputs(&self, terms: &mut Terms, p: &Prepared, launch: &Launch) -> Vec<TermId> {
        let mut out = Vec::new();
        for (i, row) in launch.args.iter().enumerate() {
            if p.mem.param.contains_key(&i) {
                continue;
            }
            let small = &self.small.args[i];
            for (t, x) in row.iter().enumerate() {
                let j = if p.uniform_param[i] {
                    if t > 0 {
                        break;
                    }
                    Some(0)
                } else {
                    self.template[t]
                };
                let Some(v) = j.and_then(|j| small.get(j)) else {
                    continue;
                };
                if let Some(c) = constant(terms, *x, *v) {
                    out.push(terms.eq(*x, c));
                }
            }
        }
        for (_, name, bytes) in &launch.buffers {
            if let Some(vals) = self.small.buffers.get(name) {
                for (b, v) in bytes.iter().zip(vals) {
                    let c = terms.bv_const(8, u128::from(*v));
                    out.push(terms.eq(*b, c));
                }
            }
        }
        out
    }

    /// The target's D-ANCHOR / D-ORDER choices: a lifted thread (one of
    /// the small launch's threads or a copy) makes the choices its original
    /// made in the small counterexample, so that copies converge with their
    /// original at every anchor and the target execution is determined.
    fn choice_ties(&self, terms: &mut Terms, t: &Enc) -> Vec<TermId> {
        let mut out = Vec::new();
        for &c in &t.choices {
            let Some((th, key)) = choice_key(terms, c) else {
                continue;
            };
            let Some(j) = self.template.get(th).copied().flatten() else {
                continue;
            };
            let small = &self.small.target_choices;
            if let Some((_, _, v)) = small.iter().find(|(t2, k2, _)| *t2 == j && *k2 == key) {
                if let Some(w) = terms.sort(c).bv_width() {
                    let k = terms.bv_const(w, *v);
                    out.push(terms.eq(c, k));
                }
            }
        }
        out
    }
}

/// A choice variable's thread and name without the thread and the
/// encoding's prefix (`T.anchor.t3.o1.j0!17` is thread 3, `anchor.o1.j0`).
fn choice_key(terms: &Terms, c: TermId) -> Option<(usize, String)> {
    let v = terms.as_var(c)?;
    let name = &terms.var_decl(v).name;
    let name = name.split('!').next()?;
    let mut parts = name.split('.').skip(1);
    let kind = parts.next()?;
    let th: usize = parts.next()?.strip_prefix('t')?.parse().ok()?;
    let rest: Vec<&str> = parts.collect();
    Some((th, format!("{kind}.{}", rest.join("."))))
}

/// The values of `t`'s choices in `m`, by [`choice_key`].
pub(super) fn choice_values(terms: &Terms, t: &Enc, m: &Model) -> Vec<(usize, String, u128)> {
    t.choices
        .iter()
        .filter_map(|&c| {
            let (th, key) = choice_key(terms, c)?;
            Some((th, key, super::obs::ev_bits(terms, m, c)))
        })
        .collect()
}

/// The small launch's thread ids when they were inputs (C-PAIR's pair
/// check), in thread order.
fn small_ids(small: &Cex) -> Option<Vec<usize>> {
    let ids: Vec<usize> = (0..small.threads)
        .map(|t| {
            let key = format!("tid[t{t}]");
            small
                .inputs
                .iter()
                .find(|(k, _)| *k == key)
                .and_then(|(_, v)| usize::try_from(*v).ok())
        })
        .collect::<Option<_>>()?;
    Some(ids)
}

/// The paddings of `small` to `n` threads, most promising first: copies
/// of each thread, copies in turn, and padding inputs left to the solver.
pub(super) fn paddings(small: &Cex, n: usize) -> Vec<Pin> {
    let m = small.threads;
    let home: Vec<usize> = match small_ids(small) {
        Some(ids) => ids,
        None => (0..m).collect(),
    };
    let mut seen = home.clone();
    seen.sort_unstable();
    seen.dedup();
    if m == 0 || n < m || seen.len() != m || home.iter().any(|h| *h >= n) {
        return Vec::new();
    }
    let mut base: Vec<Option<usize>> = vec![None; n];
    for (j, h) in home.iter().enumerate() {
        base[*h] = Some(j);
    }
    let pads: Vec<usize> = (0..n).filter(|t| base[*t].is_none()).collect();
    let placed = if home.iter().enumerate().all(|(j, h)| j == *h) {
        String::new()
    } else {
        let ids: Vec<String> = home
            .iter()
            .enumerate()
            .map(|(j, h)| format!("t{j} as t{h}"))
            .collect();
        format!("{}, ", ids.join(", "))
    };
    let with = |f: &dyn Fn(usize) -> Option<usize>, how: String| {
        let mut template = base.clone();
        for (k, t) in pads.iter().enumerate() {
            template[*t] = f(k);
        }
        Pin {
            small: Box::new(small.clone()),
            template,
            how: format!("{placed}{how}"),
        }
    };
    let mut out = Vec::new();
    for j in 0..m {
        out.push(with(
            &|_| Some(j),
            format!("the other threads copies of t{j}"),
        ));
    }
    if m > 1 {
        out.push(with(
            &|k| Some(k % m),
            "the other threads copies of each in turn".into(),
        ));
    }
    out.push(with(
        &|_| None,
        "the other threads' inputs chosen by the solver".into(),
    ));
    out
}

impl Checker<'_, '_> {
    /// The check at `n` threads, through small launches when `n` is large
    /// (see the module documentation); otherwise [`Checker::check_threads`].
    pub(super) fn check_scaled(&mut self, n: usize) -> Result<(PerN, usize), RefineError> {
        if !self.opts.lift || n <= SMALL_MAX || self.free_ids.is_some() {
            return self.check_threads(n);
        }
        if self.lift.hint.is_none() && !self.lift.searched {
            self.lift.searched = true;
            self.lift.hint = self.small_search(n)?;
        }
        if let Some(small) = self.lift.hint.clone() {
            let pins = paddings(&small, n);
            // Lemma C-SUB: with nothing that lets a thread see the others,
            // a padding by copies is a counterexample by itself.
            if super::sublaunch::conditions(self.src, self.tgt).is_empty() {
                let built = pins.iter().find_map(|pin| {
                    super::sublaunch::inflate(&small, &pin.template, self.src, &pin.how)
                });
                if let Some(c) = built {
                    return Ok((PerN::Cex(Box::new(c)), 0));
                }
            }
            for pin in pins {
                if self.session.budget.spent().is_some() {
                    break;
                }
                let mode = Mode {
                    pin: Some(&pin),
                    ..Mode::default()
                };
                if let (PerN::Cex(mut c), it) = self.check_threads_with(n, &mode)? {
                    c.lifted = Some(format!(
                        "a {}-thread counterexample lifted to {n} threads ({}), confirmed at {n} \
                         threads by the solver with the inputs fixed",
                        small.threads, pin.how
                    ));
                    return Ok((PerN::Cex(c), it));
                }
            }
        }
        self.check_threads(n)
    }

    /// Counterexamples at 2, 3, 4 threads (below `n`): per-thread inputs
    /// distinct first, then any. Only a counterexample counts.
    fn small_search(&mut self, n: usize) -> Result<Option<Box<Cex>>, RefineError> {
        let any_ints = {
            let mut terms = Terms::new();
            let launch = Launch::new(&mut terms, self.src, 2);
            !per_thread_ints(&terms, self.src, &launch).is_empty()
        };
        let modes: &[bool] = if any_ints { &[true, false] } else { &[false] };
        for &distinct in modes {
            for m in (2..=SMALL_MAX).filter(|m| *m < n) {
                if self.session.budget.spent().is_some() {
                    return Ok(None);
                }
                let mode = Mode {
                    pin: None,
                    distinct,
                    only_cex: true,
                };
                if let (PerN::Cex(c), _) = self.check_threads_with(m, &mode)? {
                    return Ok(Some(c));
                }
            }
        }
        Ok(None)
    }
}
