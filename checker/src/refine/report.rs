//! Printing a refinement verdict (R-BOUND: bounds and modes always shown;
//! R-CEX: counterexamples as per-thread block traces with converged
//! instances aligned in columns, the first observable difference marked).

use std::fmt::Write;

use semantics::ir::Module;
use semantics::machine::render::table;
use serde_json::{json, Value};

use super::cutoff::Cutoff;
use super::encode::Observe;
use super::obs::{CEnd, CEvent, CThread};
use super::replay::Replayed;
use super::{Cex, CutLaunch, Options, Outcome2, UnknownWhy, Verdict};

/// Everything printed about one check.
pub struct Report<'a> {
    pub src: String,
    pub tgt: String,
    pub kernel: String,
    pub opts: &'a Options,
    pub outcome: &'a Outcome2,
    pub replay: Option<&'a Result<Replayed, String>>,
    pub queries: usize,
    pub src_module: &'a Module,
    pub tgt_module: &'a Module,
    /// Calls of defined functions were inlined (the modules above are the
    /// inlined ones).
    pub inlined: bool,
}

impl<'a> Report<'a> {
    /// The report of a checked pair, the source and target named `names`:
    /// traces refer to the kernels the encoding checked (the inlined ones
    /// when calls were inlined).
    pub fn new(
        names: (String, String),
        kernel: &str,
        opts: &'a Options,
        checked: (&'a Outcome2, Option<&'a Result<Replayed, String>>),
        queries: usize,
        modules: (&'a Module, &'a Module),
        inlined: Option<&'a (Module, Module)>,
    ) -> Report<'a> {
        Report {
            src: names.0,
            tgt: names.1,
            kernel: kernel.to_string(),
            opts,
            outcome: checked.0,
            replay: checked.1,
            queries,
            src_module: inlined.map_or(modules.0, |b| &b.0),
            tgt_module: inlined.map_or(modules.1, |b| &b.1),
            inlined: inlined.is_some(),
        }
    }
}

/// Modelling notes printed with the bounds (R-BOUND: the verdict names
/// what it abstracts): inlining and the `atomicrmw` memory abstraction.
pub fn model_notes(r: &Report) -> Vec<String> {
    let mut out = Vec::new();
    if r.inlined {
        out.push(
            "calls of defined functions inlined (D-ENTRY-CALL: a call's token replaces the \
             callee's entry; copies of one anchor keep one identity)"
                .to_string(),
        );
        // The inliner's cut blocks (semantics::inline::cut): a block that
        // only branches to itself, named `recursion.cut`.
        let cut = [r.src_module, r.tgt_module].iter().any(|m| {
            m.function(&r.kernel).is_some_and(|f| {
                f.blocks.iter().enumerate().any(|(b, blk)| {
                    blk.name.to_string().starts_with("recursion.cut")
                        && blk.term.successors() == [semantics::ir::BlockId(b)]
                })
            })
        });
        // The inliner's inserted token (semantics::inline): an `entry`
        // call named `entry.token` for the kernel's uncontrolled calls
        // outside every cycle.
        let added = [r.src_module, r.tgt_module].iter().any(|m| {
            m.function(&r.kernel).is_some_and(|f| {
                f.blocks
                    .first()
                    .and_then(|b| b.insts.first())
                    .is_some_and(|i| {
                        i.result
                            .is_some_and(|v| f.value(v).name.to_string().starts_with("entry.token"))
                    })
            })
        });
        if added {
            out.push(
                "uncontrolled calls of callees using `entry`, outside every cycle of the \
                 kernel, get the token of an `entry` inserted at the kernel's start \
                 (D-ENTRY-CALL with D-MAX: outside every cycle the launch group's calls are \
                 converged, as the launch's entry)"
                    .to_string(),
            );
        }
        if cut {
            out.push(format!(
                "recursion inlined to {} nested copies of a function; executions that recurse \
                 deeper are cut like executions past the step bound, unless the recursion \
                 provably repeats itself (R-PREFIX-REC: stuck)",
                semantics::inline::RECURSION_DEPTH
            ));
        }
    }
    let atomics = [r.src_module, r.tgt_module].iter().any(|m| {
        m.function(&r.kernel).is_some_and(|f| {
            f.blocks
                .iter()
                .flat_map(|b| &b.insts)
                .any(|i| matches!(i.kind, semantics::ir::InstKind::AtomicRmw { .. }))
        })
    });
    if atomics {
        out.push(
            "memory abstraction: atomicrmw on a global is an observed event (global, operation, \
             value) whose result is an input of (thread, event ordinal) shared by source and \
             target; memory contents are not modelled"
                .to_string(),
        );
    }
    out
}

fn observe_name(o: Observe) -> &'static str {
    match o {
        Observe::Auto => "auto",
        Observe::Sets => "sets",
        Observe::Values => "values",
    }
}

fn unc_name(u: super::Uncontrolled) -> &'static str {
    match u {
        super::Uncontrolled::Maximal => "maximal",
        super::Uncontrolled::Inferred => "inferred",
    }
}

fn threads_text(ts: &[usize]) -> String {
    let contiguous = ts.windows(2).all(|w| w[1] == w[0] + 1);
    match ts {
        [one] => one.to_string(),
        [first, .., last] if contiguous => format!("{first}..{last}"),
        _ => ts
            .iter()
            .map(|t| t.to_string())
            .collect::<Vec<_>>()
            .join(","),
    }
}

/// R-BOUND: the bounds and modes of checks run with `o`, one line
/// (with `--grow-steps`, the policy: doubled where too small, up to the
/// cap).
pub fn bounds_text(o: &Options) -> String {
    let visits = match o.grow_steps {
        Some(cap) => format!(
            "at most {} block visits per thread (doubled up to {cap} where too small, \
             --grow-steps)",
            o.max_steps
        ),
        None => format!("at most {} block visits per thread", o.max_steps),
    };
    let mut s = modes_text(o, &visits);
    if let Some(cap) = o.grow_buffers {
        s.push_str(&format!(
            "; input buffers without dereferenceable(N) of {} bytes, doubled up to {cap} where \
             the source has undefined behaviour on every launch (--grow-buffers)",
            o.buffer_bytes
        ));
    } else if let Some(b) = buffers_text(o, o.buffer_bytes) {
        s.push_str(&format!("; {b}"));
    }
    s
}

/// R-BOUND: the bounds and modes a verdict holds for, one line: `used`
/// block visits per thread (more than `o.max_steps` when `--grow-steps`
/// raised it, which the line says).
pub fn bounds_used_text(o: &Options, used: usize) -> String {
    let visits = if used > o.max_steps {
        format!(
            "at most {used} block visits per thread (--max-steps {} was too small; grown by \
             --grow-steps)",
            o.max_steps
        )
    } else {
        format!("at most {used} block visits per thread")
    };
    modes_text(o, &visits)
}

/// R-BOUND, P-MEM-OBJ: the input buffers' size, when it is not the
/// default one (`--buffer-bytes`, or grown by `--grow-buffers`).
pub fn buffers_text(o: &Options, used: u64) -> Option<String> {
    if used > o.buffer_bytes {
        Some(format!(
            "input buffers without dereferenceable(N) of {used} bytes (--buffer-bytes {} was \
             too small; grown by --grow-buffers)",
            o.buffer_bytes
        ))
    } else if used != semantics::machine::DEFAULT_BUFFER_BYTES {
        Some(format!(
            "input buffers without dereferenceable(N) of {used} bytes"
        ))
    } else {
        None
    }
}

fn modes_text(o: &Options, visits: &str) -> String {
    format!(
        "threads {}, {visits}, integer inputs over their full range (one launch group); \
         --observe {}, --uncontrolled {}, --hierarchy {}",
        threads_text(&o.threads),
        observe_name(o.observe),
        unc_name(o.uncontrolled),
        o.hierarchy.as_str()
    )
}

/// What `--cutoff` established, one line (R-BOUND: the theorem, its
/// conditions and W are named).
pub fn cutoff_text(c: &Cutoff) -> String {
    match c {
        Cutoff::Holds { wave } => format!(
            "theorem C-PAIR (proofs/CUTOFF.md) applies: side conditions (A) no anchors, (B) \
             convergent results unused, (C) no communication through memory, (D) one cycle \
             hierarchy in the source, (E) thread-count reads free, all hold; refinement at 1 and \
             2 threads with thread ids free in 0..{} decides every thread count up to W = {wave}",
            wave - 1
        ),
        Cutoff::Mirror { wave } => format!(
            "theorem C-MIRROR (proofs/CUTOFF.md) applies: C-PAIR's side conditions hold except \
             (A) no anchors (and (D)), convergent calls have no values, no launch size is read, \
             and the mirror strategy (source anchors converge as the target's of the same name, \
             canonical D-ORDER ranks) matches every target execution at 1 and 2 threads with \
             thread ids free in 0..{}; refinement there decides every thread count up to W = \
             {wave}",
            wave - 1
        ),
        Cutoff::Values { wave } => format!(
            "theorem C-VAL (proofs/CUTOFF.md) applies: C-PAIR's side conditions hold except (B) \
             convergent results unused, no convergent call is undefined behaviour depending on \
             its set, and at 1 and 2 threads with thread ids free in 0..{}, with the result of \
             every convergent call a free input shared by source and target (keyed by thread, \
             callee, event and arguments) and every convergent call observed with its set, the \
             target refines; that decides every thread count up to W = {wave}",
            wave - 1
        ),
        Cutoff::NotApplicable { wave, failures } => {
            let f: Vec<String> = failures.iter().map(|f| f.to_string()).collect();
            format!(
                "theorem C-PAIR (W = {wave}) does not apply, the verdict is the bounded one: {}",
                f.join("; ")
            )
        }
        Cutoff::PairCheck { wave, why, .. } => format!(
            "theorem C-PAIR's side conditions hold, but the check at 1 and 2 threads with thread \
             ids free in 0..{} found {why}; the verdict is the bounded one",
            wave - 1
        ),
    }
}

/// The asked thread counts above W (checked as usual), for the verdict.
fn above_text(o: &Options, wave: usize) -> String {
    let above: Vec<usize> = o.threads.iter().copied().filter(|n| *n > wave).collect();
    if above.is_empty() {
        String::new()
    } else {
        format!("; and within bounds at threads {}", threads_text(&above))
    }
}

/// The verdict's short name.
pub fn verdict_name(v: &Verdict) -> &'static str {
    match v {
        Verdict::Refines { .. } => "refines",
        Verdict::Counterexample(_) => "counterexample",
        Verdict::Unknown(_) => "unknown",
        Verdict::Vacuous(_) => "vacuous",
    }
}

fn event_text(e: &CEvent) -> String {
    let args: Vec<String> = e.args.iter().map(|a| a.to_string()).collect();
    let mut s = format!("@{}({})", e.callee, args.join(", "));
    if let Some(r) = &e.result {
        let _ = write!(s, " = {r}");
    }
    if let Some(set) = &e.set {
        let m: Vec<String> = set.iter().map(|(t, k)| format!("t{t}#{k}")).collect();
        let _ = write!(s, " with {{{}}}", m.join(", "));
    }
    s
}

fn end_text(e: &CEnd) -> String {
    match e {
        CEnd::Returned(None) => "returns".into(),
        CEnd::Returned(Some(v)) => format!("returns {v}"),
        CEnd::Ub => "undefined behaviour".into(),
        CEnd::Cut => "runs past the step bound".into(),
    }
}

/// The first observable difference between a source and a target
/// observation: (thread, description).
pub fn first_difference(src: &[CThread], tgt: &[CThread]) -> Option<(usize, String)> {
    for (t, (s, g)) in src.iter().zip(tgt).enumerate() {
        for (kind, a, b) in [
            ("convergent call", &s.conv, &g.conv),
            ("call", &s.calls, &g.calls),
        ] {
            for i in 0..a.len().max(b.len()) {
                let (x, y) = (a.get(i), b.get(i));
                if x != y {
                    let show = |e: Option<&CEvent>| e.map_or("nothing".to_string(), event_text);
                    return Some((
                        t,
                        format!(
                            "{kind} #{i} of t{t}: source {}, target {}",
                            show(x),
                            show(y)
                        ),
                    ));
                }
            }
        }
        if s.end != g.end {
            return Some((
                t,
                format!(
                    "t{t}: source {}, target {}",
                    end_text(&s.end),
                    end_text(&g.end)
                ),
            ));
        }
    }
    None
}

fn traces(m: &Module, kernel: &str, ts: &[CThread]) -> String {
    let f = m.function(kernel);
    let name = |b: usize| f.map_or(b.to_string(), |f| f.blocks[b].name.to_string());
    let mut s = String::new();
    for (t, th) in ts.iter().enumerate() {
        let path: Vec<String> = th.blocks.iter().map(|b| name(*b)).collect();
        let _ = writeln!(s, "  t{t}: {}  ({})", path.join(" "), end_text(&th.end));
        for e in th.conv.iter().chain(&th.calls) {
            let _ = writeln!(s, "      {}", event_text(e));
        }
    }
    s
}

fn cex_text(r: &Report, c: &Cex, s: &mut String) {
    let _ = writeln!(s, "launch: {} threads", c.threads);
    if let Some(how) = &c.lifted {
        let _ = writeln!(s, "  found as {how}");
    }
    for (name, v) in &c.inputs {
        // R-STREAM-SMT: a stream value is no IR value.
        let sigil = if name.starts_with("stream[") { "" } else { "%" };
        let _ = writeln!(s, "  {sigil}{name} = {v}");
    }
    let _ = writeln!(
        s,
        "target execution (the behaviour the source cannot show):"
    );
    s.push_str(&traces(r.tgt_module, &r.kernel, &c.target));
    if c.target.iter().any(|t| t.end == CEnd::Cut) {
        let _ = writeln!(
            s,
            "  (R-PREFIX: a target thread that runs past the bound is stuck: from some step on \
             it repeats blocks without convergent operations or events, with the same values, \
             so it never ends and its prefix is its whole observation)"
        );
    }
    if let Some(src) = &c.source {
        let _ = writeln!(s, "a source execution on the same launch:");
        s.push_str(&traces(r.src_module, &r.kernel, src));
        if let Some((_, d)) = first_difference(src, &c.target) {
            let _ = writeln!(s, "first observable difference: {d}");
        }
    }
    match r.replay {
        Some(Ok(rp)) => {
            let _ = writeln!(
                s,
                "target, converged instances in columns (interpreter replay):"
            );
            s.push_str(&table(r.tgt_module, &r.kernel, &shorten(&rp.target)));
            if let Some(se) = &rp.source {
                let _ = writeln!(s, "source, converged instances in columns (interpreter):");
                s.push_str(&table(r.src_module, &r.kernel, se));
            }
            if rp.source_checked {
                let _ = writeln!(
                    s,
                    "replay (R-CEX): confirmed by the interpreter: target behaviour reproduced; \
                     none of the {} source behaviours on this launch shows it, none has UB",
                    rp.source_behaviours
                );
            } else {
                let _ = writeln!(
                    s,
                    "replay (R-CEX): target behaviour reproduced by the interpreter"
                );
            }
            for n in &rp.notes {
                let _ = writeln!(s, "  note: {n}");
            }
        }
        Some(Err(e)) => {
            let _ = writeln!(s, "replay (R-CEX) FAILED: {e}");
        }
        None => {
            let why = c
                .replay_note
                .as_deref()
                .unwrap_or("not replayed (--no-replay)");
            let _ = writeln!(s, "replay (R-CEX): {why}");
        }
    }
}

/// For the table: the traces of threads the interpreter cut (stuck ones,
/// R-PREFIX, which it runs to its much larger bound) shortened to a few
/// visits past the longest thread that ended.
fn shorten(e: &semantics::machine::launch::Execution) -> semantics::machine::launch::Execution {
    use semantics::machine::state::ThreadEnd;
    let cut =
        |t: &semantics::machine::launch::ThreadRecord| matches!(t.end, Some(ThreadEnd::Cut) | None);
    let keep = e
        .threads
        .iter()
        .filter(|t| !cut(t))
        .map(|t| t.trace.len())
        .max()
        .unwrap_or(0)
        .max(8)
        + 2;
    let mut e = e.clone();
    for t in e.threads.iter_mut().filter(|t| cut(t)) {
        let last_event = t.events.iter().map(|ev| ev.pos + 1).max().unwrap_or(0);
        std::sync::Arc::make_mut(&mut t.trace).truncate(keep.max(last_event));
    }
    e
}

/// The text report.
pub fn render_text(r: &Report) -> String {
    let mut s = String::new();
    let v = &r.outcome.verdict;
    let _ = writeln!(s, "refine {} -> {} (kernel @{})", r.src, r.tgt, r.kernel);
    let _ = writeln!(
        s,
        "bounds: {}",
        bounds_used_text(r.opts, r.outcome.max_steps)
    );
    if let Some(b) = buffers_text(r.opts, r.outcome.buffer_bytes) {
        let _ = writeln!(s, "bounds: {b}");
    }
    for n in model_notes(r) {
        let _ = writeln!(s, "model: {n}");
    }
    if let Some(c) = &r.outcome.cutoff {
        let _ = writeln!(s, "cutoff: {}", cutoff_text(c));
    }
    match v {
        Verdict::Refines { cut } => {
            let by = match &r.outcome.cutoff {
                Some(Cutoff::Holds { wave }) => Some((*wave, "C-PAIR")),
                Some(Cutoff::Mirror { wave }) => Some((*wave, "C-MIRROR")),
                Some(Cutoff::Values { wave }) => Some((*wave, "C-VAL")),
                _ => None,
            };
            if let Some((wave, theorem)) = by {
                let _ = writeln!(
                    s,
                    "verdict: refines for every thread count N <= {wave} (cutoff 2, theorem \
                     {theorem}), at most {} block visits per thread, one launch group{}",
                    r.opts.max_steps,
                    above_text(r.opts, wave)
                );
            } else {
                let _ = writeln!(
                    s,
                    "verdict: refines within bounds (not a proof for other thread counts or longer runs)"
                );
            }
            let open: Vec<&CutLaunch> = cut.iter().filter(|c| !c.stuck).collect();
            if cut.is_empty() {
                let _ = writeln!(s, "executions cut by the step bound: none");
            } else if open.is_empty() {
                let _ = writeln!(
                    s,
                    "executions cut by the step bound: only where threads are stuck (R-PREFIX: \
                     they provably never return), compared as such, e.g."
                );
            } else {
                let _ = writeln!(
                    s,
                    "executions cut by the step bound: some, not compared (a thread is cut without \
                     being stuck, R-PREFIX; a larger --max-steps covers them), e.g."
                );
            }
            {
                for c in cut.iter().filter(|c| open.is_empty() || !c.stuck) {
                    let inputs: Vec<String> = c
                        .inputs
                        .iter()
                        .map(|(k, v)| format!("%{k} = {v}"))
                        .collect();
                    let plural = if c.threads == 1 { "" } else { "s" };
                    let inputs = if inputs.is_empty() {
                        "(no inputs)".to_string()
                    } else {
                        inputs.join(", ")
                    };
                    let _ = writeln!(s, "  {} thread{plural}: {inputs}", c.threads);
                }
            }
        }
        Verdict::Counterexample(c) => {
            let _ = writeln!(s, "verdict: counterexample");
            cex_text(r, c, &mut s);
        }
        Verdict::Unknown(why) => {
            let _ = writeln!(s, "verdict: unknown ({why})");
        }
        Verdict::Vacuous(why) => {
            let _ = writeln!(s, "verdict: vacuous ({why})");
        }
    }
    if r.opts.observe == Observe::Sets {
        let _ = writeln!(
            s,
            "note: --observe sets is the strict reading of R-OBS: every convergent call is \
             observed with its communicating set, which forbids transforms (such as hoisting a \
             shuffle, CL-14) that only preserve values"
        );
    }
    let it: Vec<String> = r
        .outcome
        .iterations
        .iter()
        .map(|(n, i)| format!("{n}:{i}"))
        .collect();
    let _ = writeln!(
        s,
        "solver queries: {}; CEGIS iterations per thread count: {}",
        r.queries,
        it.join(" ")
    );
    s
}

fn thread_json(ts: &[CThread]) -> Value {
    serde_json::to_value(ts).unwrap_or(Value::Null)
}

/// The JSON report (same data as the text).
pub fn render_json(r: &Report) -> Value {
    let v = &r.outcome.verdict;
    let mut out = json!({
        "source": r.src,
        "target": r.tgt,
        "kernel": r.kernel,
        "verdict": verdict_name(v),
        "bounds": {
            "threads": r.opts.threads,
            "max_block_visits": r.outcome.max_steps,
            "buffer_bytes": r.outcome.buffer_bytes,
            "max_steps_asked": r.opts.max_steps,
            "inputs": "full range",
            "observe": observe_name(r.opts.observe),
            "uncontrolled": unc_name(r.opts.uncontrolled),
            "model": model_notes(r),
        },
        "queries": r.queries,
        "iterations": r.outcome.iterations,
    });
    if let Some(c) = &r.outcome.cutoff {
        let (wave, holds) = match c {
            Cutoff::Holds { wave } | Cutoff::Mirror { wave } | Cutoff::Values { wave } => {
                (*wave, true)
            }
            Cutoff::NotApplicable { wave, .. } | Cutoff::PairCheck { wave, .. } => (*wave, false),
        };
        out["cutoff"] = json!({
            "theorem": match c {
                Cutoff::Mirror { .. } => "C-MIRROR",
                Cutoff::Values { .. } => "C-VAL",
                _ => "C-PAIR",
            },
            "wave": wave,
            "applies": holds,
            "every_thread_count_up_to": if holds && matches!(v, Verdict::Refines { .. }) { json!(wave) } else { json!(null) },
            "failures": match c {
                Cutoff::NotApplicable { failures, .. } => failures.iter().map(|f| json!({
                    "condition": f.condition.to_string(), "role": f.role.as_str(), "what": f.what,
                })).collect::<Vec<_>>(),
                _ => Vec::new(),
            },
            "pair_check": match c { Cutoff::PairCheck { why, .. } => json!(why), _ => json!(null) },
            "text": cutoff_text(c),
        });
    }
    match v {
        Verdict::Refines { cut } => {
            out["cut"] = json!(cut.iter().any(|c| !c.stuck));
            out["cut_launches"] = json!(cut
                .iter()
                .filter(|c| !c.stuck)
                .map(|c| json!({
                    "threads": c.threads,
                    "inputs": c.inputs.iter().map(|(k, v)| json!({"name": k, "value": v})).collect::<Vec<_>>(),
                }))
                .collect::<Vec<_>>());
            out["stuck_launches"] = json!(cut
                .iter()
                .filter(|c| c.stuck)
                .map(|c| json!({
                    "threads": c.threads,
                    "inputs": c.inputs.iter().map(|(k, v)| json!({"name": k, "value": v})).collect::<Vec<_>>(),
                }))
                .collect::<Vec<_>>());
        }
        Verdict::Unknown(why) => {
            out["reason"] = json!(why.to_string());
            if let UnknownWhy::Stopped { stop, finished } = why {
                out["stopped"] = json!(stop.to_string());
                out["interrupted"] = json!(why.is_interrupted());
                out["finished_threads"] = json!(finished);
            }
        }
        Verdict::Vacuous(why) => out["reason"] = json!(why.to_string()),
        Verdict::Counterexample(c) => {
            let diff = c
                .source
                .as_ref()
                .and_then(|s| first_difference(s, &c.target))
                .map(|d| d.1);
            out["counterexample"] = json!({
                "threads": c.threads,
                "lifted": c.lifted,
                "inputs": c.inputs.iter().map(|(n, v)| json!({"name": n, "value": v})).collect::<Vec<_>>(),
                "target": thread_json(&c.target),
                "source": c.source.as_ref().map(|s| thread_json(s)),
                "first_difference": diff,
                "replay": match r.replay {
                    Some(Ok(rp)) => json!({"confirmed": true, "source_checked": rp.source_checked,
                        "source_behaviours": rp.source_behaviours, "notes": rp.notes}),
                    Some(Err(e)) => json!({"confirmed": false, "error": e}),
                    None => json!(c.replay_note),
                },
            });
        }
    }
    out
}
