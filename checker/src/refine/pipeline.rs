//! The whole refinement pipeline on two parsed modules (R-REF): token
//! inference when asked, the static rules, inlining of defined functions
//! (F-20), the encoding's subset, the CEGIS check ([`super::Checker`]) and the
//! replay of a counterexample on the interpreter (R-CEX).

use rustc_hash::FxHashMap as HashMap;

use semantics::inline::Inlined;
use semantics::ir::Module;

use super::cutoff;
use super::hier::{self, HierarchyMode};
use super::prog::{self, Prepared};
use super::{
    replay, Cex, Checker, Options, Outcome2, Progress, RefineError, Side, Uncontrolled, UnknownWhy,
    Verdict,
};
use crate::smt::Session;

/// Convenience for callers: the map from parameter name to per-thread values.
pub fn args_by_name(p: &Prepared, cex: &Cex) -> HashMap<String, Vec<i128>> {
    let mut out = HashMap::default();
    for (i, param) in p.func.params.iter().enumerate() {
        if let Some(v) = param.value {
            out.insert(p.func.value(v).name.to_string(), cex.args[i].clone());
        }
    }
    out
}

/// The whole pipeline on two parsed modules: static rules, the encoding's
/// subset, the check, and the replay of a counterexample (R-CEX).
#[derive(Debug)]
#[allow(clippy::large_enum_variant)] // one value per checked pair
pub enum PairResult {
    /// A static rule is broken (invalid input).
    Invalid {
        role: Side,
        rules: Vec<String>,
        message: String,
    },
    /// A construct outside what the encoding covers (invalid input).
    Unsupported {
        role: Side,
        message: String,
        /// Line and column of the construct in the role's file.
        span: Option<semantics::ir::Span>,
    },
    Checked {
        outcome: Outcome2,
        /// `Some` for a counterexample when replay was asked for.
        replay: Option<Result<replay::Replayed, String>>,
        /// The source and target after inlining (`semantics::inline`), when
        /// either kernel called a defined function: the encoding's traces
        /// (block indices) refer to these modules.
        inlined: Option<Box<(Module, Module)>>,
    },
}

/// [`check_pair`] in a solver session of its own, as the subcommands
/// (`refine`, `validate`, `prove`) run it: queries are written to
/// `opts.dump_smt` when set. Returns the result and the number of solver
/// queries asked.
#[allow(clippy::result_large_err)] // as check_pair
pub fn check<'a>(
    src: &Module,
    tgt: &Module,
    kernel: &str,
    opts: &Options,
    do_replay: bool,
    progress: Option<Progress<'a>>,
) -> Result<(PairResult, usize), RefineError> {
    let mut session = Session::new(opts.dump_smt.clone());
    let r = check_pair(src, tgt, kernel, opts, &mut session, do_replay, progress)?;
    Ok((r, session.log.len()))
}

/// Runs [`PairResult`]'s pipeline in `session` (tests that look at the
/// queries pass their own). `progress` sees every solver query.
#[allow(clippy::result_large_err)] // early returns of a PairResult, once per pair
pub fn check_pair<'a>(
    src: &Module,
    tgt: &Module,
    kernel: &str,
    opts: &Options,
    session: &mut Session,
    do_replay: bool,
    progress: Option<Progress<'a>>,
) -> Result<PairResult, RefineError> {
    // D-UNCTRL `inferred`: insert tokens by the spec's procedure first, then
    // every convergent operation is controlled (D-CTRL, D-LOOP).
    let inferred;
    let (src, tgt) = if opts.uncontrolled == Uncontrolled::Inferred {
        let inf = |role: Side, m: &Module| {
            semantics::infer::infer_tokens(m).map_err(|e| PairResult::Unsupported {
                role,
                message: format!("token inference: {e}"),
                span: None,
            })
        };
        match (inf(Side::Source, src), inf(Side::Target, tgt)) {
            (Ok(a), Ok(b)) => {
                inferred = (a, b);
                (&inferred.0, &inferred.1)
            }
            (Err(e), _) | (_, Err(e)) => return Ok(e),
        }
    } else {
        (src, tgt)
    };
    super::signature::same_kernel(src, tgt, kernel)?;
    for (role, m) in [(Side::Source, src), (Side::Target, tgt)] {
        let report = semantics::rules::verify_module(m, &semantics::rules::Options::default());
        if let Some(v) = report.violations.first() {
            return Ok(PairResult::Invalid {
                role,
                rules: report
                    .rules()
                    .iter()
                    .map(|r| r.as_str().to_string())
                    .collect(),
                message: format!("@{} %{}: {}", v.function, v.block, v.message),
            });
        }
    }
    let (isrc, itgt) = match inline_pair(src, tgt, kernel) {
        Ok(p) => p,
        Err(e) => return Ok(*e),
    };
    let any_inlined =
        isrc.calls_inlined + itgt.calls_inlined + isrc.recursion_cuts + itgt.recursion_cuts > 0;
    let (ps, pt) = match prepare_pair(&isrc, &itgt, kernel, opts) {
        Ok(p) => p,
        Err(e) => return Ok(*e),
    };
    // The thread counts of `--cutoff`'s runs (C-PAIR): 1 and 2 threads with
    // free ids, then the asked counts above W (W from `--cutoff`, or the
    // largest asked count when C-PAIR is tried by itself).
    let wave = opts.cutoff.or_else(|| cutoff::automatic(opts));
    // With anchors (theorem C-MIRROR) the pair check learns the mirror
    // strategy first; without, strategies do not matter (no source choices).
    let pair_opts = Options {
        threads: vec![1, 2],
        strategies: super::Strategies::Mirror,
        ..opts.clone()
    };
    let rest_opts = Options {
        threads: (opts.threads.iter().copied())
            .filter(|n| wave.is_some_and(|w| *n > w))
            .collect(),
        ..opts.clone()
    };
    let mut checker = Checker {
        src: &ps,
        tgt: &pt,
        opts,
        session,
        tag: "refine".into(),
        progress,
        free_ids: None,
        free_results: false,
        lift: Default::default(),
    };
    let run = match wave {
        Some(wave) => cutoff::with_cutoff(&mut checker, wave, &pair_opts, &rest_opts),
        None => checker.run(),
    };
    let mut outcome = match run {
        Ok(o) => o,
        Err(RefineError::Unsupported { role, what }) => {
            return Ok(PairResult::Unsupported {
                role,
                message: what.to_string(),
                span: what.span,
            })
        }
        Err(e) => return Err(e),
    };
    let memory = ps
        .atomics
        .iter()
        .chain(&pt.atomics)
        .flatten()
        .any(|a| a.is_some());
    let replay = match (&outcome.verdict, do_replay) {
        (Verdict::Counterexample(c), true) => {
            let originals = any_inlined.then_some((src, tgt));
            let rp = |c: &Cex| {
                replay::replay_with(&isrc.module, &itgt.module, originals, kernel, opts, c)
            };
            // Lemma C-SUB: a counterexample built from a small one by copies
            // is replayed at the small launch when the interpreter would
            // enumerate every anchor grouping of the large one (or gives up
            // on it); the note says so.
            let anchors = ps.has_anchor || pt.has_anchor;
            let r = match &c.sub {
                Some(_) if anchors => Err(replay::INCOMPLETE.to_string()),
                _ => rp(c),
            };
            let r = match (r, &c.sub) {
                (Err(e), Some(sub)) if e.contains(replay::INCOMPLETE) => rp(sub).map(|mut r| {
                    r.notes.push(format!(
                        "replayed at {} threads, the launch this counterexample was lifted \
                         from (the interpreter would enumerate every anchor grouping of {} \
                         threads); the {}-thread launch is a counterexample by lemma C-SUB, \
                         its threads being copies of these",
                        sub.threads, c.threads, c.threads
                    ));
                    r
                }),
                (r, _) => r,
            };
            match r {
                Ok(r) => Some(Ok(r)),
                Err(e) if memory => {
                    // The memory abstraction (prog::AtomicInfo) admits
                    // atomic results real memory cannot return: such a
                    // counterexample is not a verdict.
                    outcome.verdict = Verdict::Unknown(UnknownWhy::MemoryAbstraction { detail: e });
                    None
                }
                Err(e) if e.contains(replay::INCOMPLETE) => {
                    // The interpreter could not enumerate the launch (many
                    // threads with anchors): no confirmation either way.
                    if let Verdict::Counterexample(c) = &mut outcome.verdict {
                        c.replay_note = Some(format!("not replayed: {e}"));
                    }
                    None
                }
                Err(e) => Some(Err(e)),
            }
        }
        _ => None,
    };
    let inlined = any_inlined.then(|| Box::new((isrc.module.clone(), itgt.module.clone())));
    Ok(PairResult::Checked {
        outcome,
        replay,
        inlined,
    })
}

/// Calls of defined functions inlined in both kernels (D-ENTRY-CALL, CO
/// "Function inlining"; F-20): the encoding covers one body. When anything
/// was inlined, both results are checked against the static rules again.
/// The originals are kept by the caller for the interpreter, which executes
/// calls natively (replay cross-check).
#[allow(clippy::result_large_err)] // once per pair
pub(super) fn inline_pair(
    src: &Module,
    tgt: &Module,
    kernel: &str,
) -> Result<(Inlined, Inlined), Box<PairResult>> {
    let inline = |role: Side, m: &Module| {
        semantics::inline::inline_kernel(m, kernel).map_err(|e| PairResult::Unsupported {
            role,
            message: format!("inlining: {e}"),
            span: None,
        })
    };
    let (isrc, itgt) = match (inline(Side::Source, src), inline(Side::Target, tgt)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => return Err(Box::new(e)),
    };
    let any_inlined =
        isrc.calls_inlined + itgt.calls_inlined + isrc.recursion_cuts + itgt.recursion_cuts > 0;
    if any_inlined {
        for (role, m) in [(Side::Source, &isrc.module), (Side::Target, &itgt.module)] {
            let report = semantics::rules::verify_module(m, &semantics::rules::Options::default());
            if let Some(v) = report.violations.first() {
                return Err(Box::new(PairResult::Unsupported {
                    role,
                    message: format!(
                        "the kernel after inlining breaks {}: {} (calls whose inlining \
                         is not a valid program are not supported)",
                        v.rule.as_str(),
                        v.message
                    ),
                    span: None,
                }));
            }
        }
    }
    Ok((isrc, itgt))
}

/// Both inlined kernels prepared for the encoding (the subset it covers),
/// with every cycle hierarchy of each program (D-HIER; LLVM's alone under
/// `--hierarchy llvm`).
#[allow(clippy::result_large_err)] // once per pair
pub(super) fn prepare_pair<'m>(
    isrc: &'m Inlined,
    itgt: &'m Inlined,
    kernel: &str,
    opts: &Options,
) -> Result<(Prepared<'m>, Prepared<'m>), Box<PairResult>> {
    let prepare = |role: Side, i: &'m Inlined| {
        prog::prepare_inlined(&i.module, kernel, opts.shuffle_oob_ub, Some(&i.origins)).map_err(
            |u| {
                Box::new(PairResult::Unsupported {
                    role,
                    message: u.to_string(),
                    span: u.span,
                })
            },
        )
    };
    let mut ps = prepare(Side::Source, isrc)?;
    let mut pt = prepare(Side::Target, itgt)?;
    if opts.hierarchy == HierarchyMode::All {
        for (role, p) in [("source", &mut ps), ("target", &mut pt)] {
            match hier::hierarchies(p.func, HierarchyMode::All) {
                Ok(hs) => p.hiers = hs,
                Err(too_many) => {
                    let why = UnknownWhy::Hierarchies {
                        role,
                        found: too_many.found,
                        complete: too_many.complete,
                        limit: hier::HIERARCHY_LIMIT,
                    };
                    return Err(Box::new(PairResult::Checked {
                        outcome: Outcome2 {
                            verdict: Verdict::Unknown(why),
                            iterations: Vec::new(),
                            cutoff: None,
                        },
                        replay: None,
                        inlined: None,
                    }));
                }
            }
        }
    }
    Ok((ps, pt))
}
