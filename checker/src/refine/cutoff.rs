//! Theorem C-PAIR (proofs/CUTOFF.md): when its side conditions (A)-(E)
//! hold on a pair, refinement at one and two threads whose ids range over
//! `0..W` implies refinement at every thread count up to `W`. This module
//! checks the side conditions statically on the prepared (inlined) kernels
//! and describes the outcome; [`super::pipeline`] runs the pair check.

use rustc_hash::FxHashSet as HashSet;

use semantics::cfg::{Cfg, CycleInfo};
use semantics::ir::{BlockId, InstKind, Operand, ValueId};
use semantics::uniformity::analysis::{operands_of, InstRef};

use super::prog::{CallSem, Prepared};
use super::{Cex, Checker, Options, Outcome2, RefineError, Side, Verdict};

/// One side condition of C-PAIR that does not hold, with where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// `'A'` .. `'E'` as in proofs/CUTOFF.md.
    pub condition: char,
    /// `source` or `target`.
    pub role: Side,
    /// What breaks it, naming the instruction (`line L:C`, `@k %block`).
    pub what: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "({}) {}: {} in the {}",
            self.condition,
            name(self.condition),
            self.what,
            self.role
        )
    }
}

/// The short name of each side condition.
pub fn name(c: char) -> &'static str {
    match c {
        'A' => "no anchors",
        'B' => "convergent results unused",
        'C' => "no communication through memory",
        'D' => "one cycle hierarchy in the source",
        'M' => "C-MIRROR's strategy matches on pairs",
        'V' => "C-VAL's pair check with free results refines",
        _ => "thread-count reads are free inputs",
    }
}

/// What `--cutoff W` established (printed with the verdict).
#[derive(Clone, Debug)]
pub enum Cutoff {
    /// (A)-(E) hold and the checks at 1 and 2 threads with ids free in
    /// `0..wave` answered refines: every thread count `1..=wave` refines.
    Holds { wave: usize },
    /// Theorem C-MIRROR (C-PAIR with anchors, [`super::mirror`]): its
    /// conditions hold, the mirror strategy matches every target execution
    /// at 1 and 2 threads with ids free in `0..wave`, and the pair check
    /// answered refines: every thread count `1..=wave` refines.
    Mirror { wave: usize },
    /// Theorem C-VAL (C-PAIR with convergent results used, [`values`]):
    /// (A), (C)-(E) hold, no operation is UB depending on its set, and the
    /// pair check with results as shared inputs and every convergent call
    /// observed with its set answered refines: every count `1..=wave`.
    Values { wave: usize },
    /// A side condition fails: the verdict is the bounded one.
    NotApplicable { wave: usize, failures: Vec<Failure> },
    /// (A)-(E) hold but the pair check did not answer refines (a
    /// difference on some pair of ids, or no answer): the verdict is the
    /// bounded one. `why`: what the pair check answered.
    PairCheck {
        wave: usize,
        why: String,
        /// The pair check's counterexample (its thread ids are inputs), if
        /// it found one.
        cex: Option<Box<Cex>>,
    },
}

/// Checks C-PAIR's side conditions on the pair; empty when all hold.
/// (E) holds by construction: the encoding has no construct that reads the
/// thread count, and an unknown function that returns it is an input
/// (P-INPUT, an uninterpreted function of its arguments and the thread id),
/// which the pair check leaves free.
pub fn side_conditions(src: &Prepared, tgt: &Prepared) -> Vec<Failure> {
    let mut out = Vec::new();
    for (role, p) in [(Side::Source, src), (Side::Target, tgt)] {
        anchors_and_results(role, p, &mut out);
        memory(role, p, &mut out);
    }
    hierarchy(Side::Source, src, &mut out);
    out
}

pub(super) fn at(p: &Prepared, b: usize, i: usize) -> String {
    let f = p.func;
    let blk = &f.blocks[b];
    let span = blk.insts[i].span;
    format!(
        "line {}:{} (@{} %{})",
        span.line, span.col, f.name, blk.name
    )
}

/// (A) and (B).
fn anchors_and_results(role: Side, p: &Prepared, out: &mut Vec<Failure>) {
    let f = p.func;
    let used = used_values(p);
    for (b, row) in p.calls.iter().enumerate() {
        for (i, c) in row.iter().enumerate() {
            let Some(c) = c else { continue };
            match c.sem {
                CallSem::Anchor => out.push(Failure {
                    condition: 'A',
                    role,
                    what: format!("@{} at {}", c.callee, at(p, b, i)),
                }),
                // (B) shuffle under the UB reading: whether the lane read is
                // in the set decides UB, which depends on the other threads
                // even when the result is unused.
                CallSem::Set { oob_ub: true, .. } => out.push(Failure {
                    condition: 'B',
                    role,
                    what: format!(
                        "@{} at {} is undefined behaviour when its lane is outside the \
                         communicating set",
                        c.callee,
                        at(p, b, i)
                    ),
                }),
                CallSem::Set { .. } | CallSem::UnknownConv { .. } => {
                    let r = f.blocks[b].insts[i].result;
                    if let Some(v) = r.filter(|v| used.contains(v)) {
                        out.push(Failure {
                            condition: 'B',
                            role,
                            what: format!(
                                "the result %{} of @{} at {} is used",
                                f.value(v).name,
                                c.callee,
                                at(p, b, i)
                            ),
                        });
                    }
                }
                _ => {}
            }
        }
    }
}

/// Every value some instruction or terminator of the kernel reads.
fn used_values(p: &Prepared) -> HashSet<ValueId> {
    let f = p.func;
    let mut used = HashSet::default();
    for (b, blk) in f.blocks.iter().enumerate() {
        for index in 0..=blk.insts.len() {
            let r = InstRef {
                block: BlockId(b),
                index,
            };
            for op in operands_of(f, r) {
                if let Operand::Local(v) = op {
                    used.insert(*v);
                }
            }
        }
    }
    used
}

/// (C): the encoding has no loads or stores (they are unsupported), so
/// memory communication is through `atomicrmw` only.
pub(super) fn memory(role: Side, p: &Prepared, out: &mut Vec<Failure>) {
    for (b, row) in p.atomics.iter().enumerate() {
        for (i, a) in row.iter().enumerate() {
            if let Some(a) = a {
                out.push(Failure {
                    condition: 'C',
                    role,
                    what: format!("atomicrmw on @{} at {}", a.global, at(p, b, i)),
                });
            }
        }
        for (i, inst) in p.func.blocks[b].insts.iter().enumerate() {
            // P-MEM-ACCESS: a memory intrinsic is loads and stores.
            let mem_call = p
                .call(b, i)
                .is_some_and(|c| matches!(c.sem, super::prog::CallSem::MemIntrinsic(_)));
            if (matches!(inst.kind, InstKind::Store { .. } | InstKind::Load { .. }) || mem_call)
                && row.get(i).is_none_or(|a| a.is_none())
            {
                out.push(Failure {
                    condition: 'C',
                    role,
                    what: format!("memory access at {}", at(p, b, i)),
                });
            }
        }
    }
}

/// (D), checked conservatively: every cycle of the source is reducible
/// (an irreducible cycle may still admit one hierarchy; it is reported).
fn hierarchy(role: Side, p: &Prepared, out: &mut Vec<Failure>) {
    let f = p.func;
    let info = CycleInfo::compute(&Cfg::from_function(f));
    for c in &info.cycles {
        if !c.is_reducible() {
            let names: Vec<String> = c
                .entries
                .iter()
                .map(|b| format!("%{}", f.block(*b).name))
                .collect();
            out.push(Failure {
                condition: 'D',
                role,
                what: format!(
                    "an irreducible cycle with entries {} in @{} (checked conservatively: \
                     every cycle must be reducible)",
                    names.join(", "),
                    f.name
                ),
            });
        }
    }
}

/// Issue 16: asked for more than [`super::scale::SMALL_MAX`] threads
/// without `--cutoff`, C-PAIR is tried by itself with W the largest asked
/// thread count (the thread ids such a launch has); `None` when not.
pub(super) fn automatic(opts: &Options) -> Option<usize> {
    let max = opts.threads.iter().copied().max()?;
    (opts.auto_cutoff && max > super::scale::SMALL_MAX).then_some(max)
}

/// `--cutoff W` (theorem C-PAIR, proofs/CUTOFF.md): when the side
/// conditions hold, checks launches of 1 and 2 threads whose ids are free in
/// `0..W`; if they refine, every thread count up to W refines, and only the
/// asked thread counts above W are checked as usual. Otherwise (a condition
/// fails, or the pair check answers anything but refines) the verdict is the
/// bounded one over the asked thread counts, with the reason attached; a
/// pair counterexample is first lifted to the asked counts ([`super::scale`]).
pub(super) fn with_cutoff<'a>(
    checker: &mut Checker<'a, '_>,
    wave: usize,
    pair_opts: &'a Options,
    rest_opts: &'a Options,
) -> Result<Outcome2, RefineError> {
    let mut failures = side_conditions(checker.src, checker.tgt);
    // Anchors (A), or several source hierarchies (D): theorem C-MIRROR
    // when its own conditions hold and its strategy matches on pairs.
    if !failures.is_empty() && failures.iter().all(|f| matches!(f.condition, 'A' | 'D')) {
        let more = super::mirror::conditions(checker.src, checker.tgt);
        if more.is_empty() {
            if let Some(o) = mirror(checker, wave, pair_opts, rest_opts, &mut failures)? {
                return Ok(o);
            }
        } else {
            failures.extend(more);
        }
    }
    // Convergent results used (B): theorem C-VAL when no operation is UB
    // depending on its set.
    if !failures.is_empty()
        && failures.iter().all(|f| f.condition == 'B')
        && !set_ub(checker.src)
        && !set_ub(checker.tgt)
    {
        if let Some(o) = values(checker, wave, pair_opts, rest_opts, &mut failures)? {
            return Ok(o);
        }
    }
    if !failures.is_empty() {
        let mut o = checker.run()?;
        o.cutoff = Some(Cutoff::NotApplicable { wave, failures });
        return Ok(o);
    }
    let pair = pair_check(checker, wave, pair_opts, "cutoff", false)?;
    if !matches!(pair.verdict, Verdict::Refines { .. }) {
        let why = pair_answer(&pair.verdict);
        let cex = match pair.verdict {
            Verdict::Counterexample(c) => Some(c),
            _ => None,
        };
        // The pair's difference, placed at its thread ids, is the first
        // candidate at the asked thread counts (confirmed there or not used).
        checker.lift.hint.clone_from(&cex);
        let mut o = checker.run()?;
        o.cutoff = Some(Cutoff::PairCheck { wave, why, cex });
        return Ok(o);
    }
    let mut out = with_rest(checker, pair, rest_opts)?;
    out.cutoff = Some(Cutoff::Holds { wave });
    Ok(out)
}

/// The pair check of C-PAIR, C-MIRROR and C-VAL: the asked options at 1 and
/// 2 threads (`pair_opts`) with thread ids free in `0..wave`, and for C-VAL
/// convergent results free ([`super::encode::Launch::free_results`]).
fn pair_check<'a>(
    checker: &mut Checker<'a, '_>,
    wave: usize,
    pair_opts: &'a Options,
    tag: &str,
    free_results: bool,
) -> Result<Outcome2, RefineError> {
    let asked = checker.opts;
    checker.opts = pair_opts;
    checker.free_ids = Some(wave);
    checker.free_results = free_results;
    let tag = std::mem::replace(&mut checker.tag, tag.into());
    let pair = checker.run();
    checker.opts = asked;
    checker.free_ids = None;
    checker.free_results = false;
    checker.tag = tag;
    pair
}

/// A theorem's `refines` (every count up to W) joined with the asked
/// thread counts above W (`rest_opts`), checked as usual.
fn with_rest<'a>(
    checker: &mut Checker<'a, '_>,
    mut out: Outcome2,
    rest_opts: &'a Options,
) -> Result<Outcome2, RefineError> {
    if rest_opts.threads.is_empty() {
        return Ok(out);
    }
    let asked = checker.opts;
    checker.opts = rest_opts;
    let rest = checker.run();
    checker.opts = asked;
    let rest = rest?;
    out.iterations.extend(rest.iterations);
    match (&mut out.verdict, rest.verdict) {
        (Verdict::Refines { cut }, Verdict::Refines { cut: more }) => cut.extend(more),
        (v, other) => *v = other,
    }
    Ok(out)
}

/// What a pair check answered, other than refines, for the report.
fn pair_answer(v: &Verdict) -> String {
    match v {
        Verdict::Counterexample(c) => {
            let inputs: Vec<String> = c.inputs.iter().map(|(k, v)| format!("{k} = {v}")).collect();
            format!(
                "a difference at {} thread{} ({})",
                c.threads,
                if c.threads == 1 { "" } else { "s" },
                inputs.join(", ")
            )
        }
        Verdict::Unknown(why) => format!("unknown ({why})"),
        Verdict::Vacuous(why) => format!("vacuous ({why})"),
        Verdict::Refines { .. } => "refines".into(),
    }
}

/// Theorem C-MIRROR ([`super::mirror`]): the strategy check, then the pair
/// check (1 and 2 threads, ids free in `0..wave`, the mirror strategy
/// learned first) for the verdict's cut launches and vacuity. `None` when
/// the strategy does not match somewhere (its reason is added to
/// `failures` and the bounded check runs).
fn mirror<'a>(
    checker: &mut Checker<'a, '_>,
    wave: usize,
    pair_opts: &'a Options,
    rest_opts: &'a Options,
    failures: &mut Vec<Failure>,
) -> Result<Option<Outcome2>, RefineError> {
    // One stop mechanism (smt::Budget): the strategy check runs before any
    // `Checker::run`, which sets the budget, so it sets it itself: Ctrl-C
    // and `--time-limit` stop it like any query.
    checker.session.budget =
        crate::smt::Budget::new(checker.opts.time_limit, checker.opts.interrupt.clone());
    let tag = std::mem::replace(&mut checker.tag, "mirror".into());
    let strategy = checker.mirror_strategy(wave);
    checker.tag = tag;
    let strategy = strategy?;
    if let Some(stop) = checker.session.budget.spent() {
        return Ok(Some(Outcome2 {
            verdict: Verdict::Unknown(super::UnknownWhy::Stopped {
                stop,
                finished: Vec::new(),
            }),
            iterations: Vec::new(),
            cutoff: None,
            max_steps: checker.opts.max_steps,
            buffer_bytes: checker.opts.buffer_bytes,
        }));
    }
    if let super::mirror::Strategy::Fails(why) | super::mirror::Strategy::Unknown(why) = strategy {
        failures.push(Failure {
            condition: 'M',
            role: Side::Source,
            what: why,
        });
        return Ok(None);
    }
    // `pair_opts` learns the mirror strategy first (pipeline): the first
    // proposal then has nothing left to propose.
    let out = pair_check(checker, wave, pair_opts, "cutoff", false)?;
    if !matches!(out.verdict, Verdict::Refines { .. }) {
        // The strategy matches every complete target execution, so the
        // pair check can only fail to answer (time), or be vacuous.
        return Ok(None);
    }
    let mut out = with_rest(checker, out, rest_opts)?;
    out.cutoff = Some(Cutoff::Mirror { wave });
    Ok(Some(out))
}

/// Whether a convergent call of `p` is undefined behaviour depending on its
/// communicating set (a shuffle under the UB reading, C-OPS): C-VAL needs
/// none (UB would then not be thread-local given the results).
fn set_ub(p: &Prepared) -> bool {
    p.calls
        .iter()
        .flatten()
        .flatten()
        .any(|c| matches!(c.sem, CallSem::Set { oob_ub: true, .. }))
}

/// Theorem C-VAL (proofs/CUTOFF.md): C-PAIR with condition (B) replaced by
/// "no operation is UB depending on its set". The pair check (1 and 2
/// threads, ids free in `0..wave`) treats the result of every convergent
/// operation as an input shared by source and target, keyed by (thread id,
/// callee, event ordinal, arguments) ([`super::encode::Launch::free_results`]),
/// observes every convergent call with its set, and compares their
/// arguments exactly. If it refines, every thread count up to `wave`
/// refines; otherwise (`None`) condition (V) is added to `failures` with
/// what the pair check answered, and the bounded check runs (the pair
/// check's difference is not lifted: with free results it need not be a
/// real execution).
fn values<'a>(
    checker: &mut Checker<'a, '_>,
    wave: usize,
    pair_opts: &'a Options,
    rest_opts: &'a Options,
    failures: &mut Vec<Failure>,
) -> Result<Option<Outcome2>, RefineError> {
    let mut out = pair_check(checker, wave, pair_opts, "cval", true)?;
    if let Some(stop) = checker.session.budget.spent() {
        out.verdict = Verdict::Unknown(super::UnknownWhy::Stopped {
            stop,
            finished: Vec::new(),
        });
        return Ok(Some(out));
    }
    if !matches!(out.verdict, Verdict::Refines { .. }) {
        let what = format!(
            "with results as free inputs, the pair check found {}",
            pair_answer(&out.verdict)
        );
        failures.push(Failure {
            condition: 'V',
            role: Side::Target,
            what,
        });
        return Ok(None);
    }
    let mut out = with_rest(checker, out, rest_opts)?;
    out.cutoff = Some(Cutoff::Values { wave });
    Ok(Some(out))
}
