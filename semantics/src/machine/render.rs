//! Output of the interpreter, as pure functions returning `String`:
//! the per-thread tables of ConvergenceAndUniformity (R-CEX layout), the
//! exploration counts (R-BOUND), and JSON.
//!
//! Table layout: one row per thread; the visits of one converged-with
//! class (D-CW) share a column and no other visit is in it; columns follow
//! a linear extension of convergence-before (D-ORDER), see [`columns`]. Instance numbering
//! follows the document's habit: the visits of a block are numbered 1, 2,
//! ... in column order, threads top to bottom within a column; blocks
//! visited once, the entry block and returning blocks are written without
//! a number (as `P`, `T`, `Entry` and `Exit` are in the document's tables).

use std::collections::HashMap;
use std::fmt::Write;

use serde_json::{json, Value};

use crate::ir::{Module, TermKind};

use super::launch::{Behaviour, Execution, Exploration, VisitRef};
use super::state::{Observation, ThreadEnd};
use super::value::Val;
use super::Outcome;

/// The column of every visit: `columns[t][p]`. Each converged-with class
/// gets its own column, so that a column never holds visits that are not
/// converged; classes are ordered by the length of the longest
/// program-order path of classes leading to them (a linear extension of
/// convergence-before), ties broken by their first member.
pub fn columns(exec: &Execution) -> Vec<Vec<usize>> {
    let classes = exec.visit_classes();
    let mut class_of: HashMap<VisitRef, usize> = HashMap::new();
    for (i, c) in classes.iter().enumerate() {
        for v in c {
            class_of.insert(*v, i);
        }
    }
    let n = classes.len();
    let mut level = vec![0usize; n];
    let positions = || -> Vec<Vec<usize>> {
        exec.threads
            .iter()
            .map(|th| (0..th.trace.len()).collect())
            .collect()
    };
    // Longest path by relaxation; at most n rounds on an acyclic graph.
    let mut settled = false;
    for _ in 0..=n {
        let mut changed = false;
        for (t, th) in exec.threads.iter().enumerate() {
            for p in 1..th.trace.len() {
                let (a, b) = (class_of[&(t, p - 1)], class_of[&(t, p)]);
                if level[b] < level[a] + 1 {
                    level[b] = level[a] + 1;
                    changed = true;
                }
            }
        }
        if !changed {
            settled = true;
            break;
        }
    }
    if !settled {
        // A cycle (D-ORDER violated, reported separately): positions.
        return positions();
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|c| (level[*c], classes[*c][0]));
    let mut col = vec![0usize; n];
    for (rank, c) in order.into_iter().enumerate() {
        col[c] = rank;
    }
    exec.threads
        .iter()
        .enumerate()
        .map(|(t, th)| {
            (0..th.trace.len())
                .map(|p| col[class_of[&(t, p)]])
                .collect()
        })
        .collect()
}

fn block_label(module: &Module, kernel: &str, func: usize, block: crate::ir::BlockId) -> String {
    let f = &module.functions[func];
    let name = f.block_name(block);
    if f.name == kernel {
        name
    } else {
        format!("{}.{name}", f.name)
    }
}

/// The printed name of every visit: `labels[t][p]` (see module doc).
pub fn labels(module: &Module, kernel: &str, exec: &Execution) -> Vec<Vec<String>> {
    labels_in(module, kernel, exec, &columns(exec))
}

/// [`labels`] given the execution's [`columns`].
fn labels_in(
    module: &Module,
    kernel: &str,
    exec: &Execution,
    cols: &[Vec<usize>],
) -> Vec<Vec<String>> {
    let mut order: Vec<(usize, usize, usize)> = Vec::new();
    for (t, th) in exec.threads.iter().enumerate() {
        for (p, &c) in cols[t].iter().enumerate().take(th.trace.len()) {
            order.push((c, t, p));
        }
    }
    order.sort();
    let mut counter: HashMap<(usize, crate::ir::BlockId), usize> = HashMap::new();
    let mut total: HashMap<(usize, crate::ir::BlockId), usize> = HashMap::new();
    for th in &exec.threads {
        for v in th.trace.iter() {
            *total.entry((v.func, v.block)).or_insert(0) += 1;
        }
    }
    let mut out: Vec<Vec<String>> = exec
        .threads
        .iter()
        .map(|th| vec![String::new(); th.trace.len()])
        .collect();
    for (_, t, p) in order {
        let v = &exec.threads[t].trace[p];
        let f = &module.functions[v.func];
        let base = block_label(module, kernel, v.func, v.block);
        let plain = v.block.0 == 0
            || matches!(f.block(v.block).term.kind, TermKind::Ret(_))
            || total[&(v.func, v.block)] == 1;
        out[t][p] = if plain {
            base
        } else {
            let c = counter.entry((v.func, v.block)).or_insert(0);
            *c += 1;
            format!("{base}{c}")
        };
    }
    out
}

/// The per-thread table of one execution (CU layout).
pub fn table(module: &Module, kernel: &str, exec: &Execution) -> String {
    let cols = columns(exec);
    let labels = labels_in(module, kernel, exec, &cols);
    table_in(exec, &cols, &labels)
}

/// [`table`] given the execution's [`columns`] and [`labels`].
fn table_in(exec: &Execution, cols: &[Vec<usize>], labels: &[Vec<String>]) -> String {
    let ncols = cols.iter().flatten().copied().max().map_or(0, |m| m + 1);
    let mut grid: Vec<Vec<String>> = vec![vec![String::new(); ncols]; exec.threads.len()];
    for (t, row) in cols.iter().enumerate() {
        for (p, c) in row.iter().enumerate() {
            grid[t][*c] = labels[t][p].clone();
        }
    }
    let head: Vec<String> = (0..ncols).map(|c| c.to_string()).collect();
    let mut width: Vec<usize> = head.iter().map(|h| h.len()).collect();
    for row in &grid {
        for (c, cell) in row.iter().enumerate() {
            width[c] = width[c].max(cell.len());
        }
    }
    let tw = exec
        .threads
        .iter()
        .map(|t| format!("t{}", t.tid).len())
        .max()
        .unwrap_or(2);
    let mut s = String::new();
    let line = |first: &str, cells: &[String]| {
        let mut l = format!("{first:tw$} |");
        for (c, cell) in cells.iter().enumerate() {
            let _ = write!(l, " {cell:w$} |", w = width[c]);
        }
        l.trim_end().to_string() + "\n"
    };
    s += &line("", &head);
    for (t, row) in grid.iter().enumerate() {
        s += &line(&format!("t{}", exec.threads[t].tid), row);
    }
    s
}

/// Communicating sets larger than this are printed once, by name, instead
/// of on every member's line (which would make the text quadratic in the
/// number of threads).
pub const INLINE_SET: usize = 8;

/// The convergent calls of an execution, one line each. A communicating
/// set of at most [`INLINE_SET`] members is written on each member's line;
/// a larger one is named `S1`, `S2`, ... on the members' lines and its
/// members are listed once, after the calls, so that the text stays
/// linear in threads × calls.
pub fn events(module: &Module, kernel: &str, exec: &Execution) -> String {
    events_in(exec, &labels(module, kernel, exec))
}

/// [`events`] given the execution's [`labels`].
fn events_in(exec: &Execution, labels: &[Vec<String>]) -> String {
    let mut by_key: HashMap<super::KeyId, Vec<VisitRef>> = HashMap::new();
    for (t, th) in exec.threads.iter().enumerate() {
        for e in th.events.iter() {
            by_key.entry(e.key).or_default().push((t, e.pos));
        }
    }
    let member_list = |set: &[VisitRef]| -> String {
        let members: Vec<String> = set
            .iter()
            .map(|(u, p)| format!("t{}@{}", exec.threads[*u].tid, labels[*u][*p]))
            .collect();
        members.join(", ")
    };
    let mut named: HashMap<super::KeyId, usize> = HashMap::new();
    let mut big: Vec<super::KeyId> = Vec::new();
    let mut s = String::new();
    for (t, th) in exec.threads.iter().enumerate() {
        for e in th.events.iter() {
            let set = &by_key[&e.key];
            let args: Vec<String> = e.args.iter().map(|a| a.to_string()).collect();
            let result = e.result.as_ref().map_or("-".to_string(), |r| r.to_string());
            let with = if set.len() <= INLINE_SET {
                format!("{{{}}}", member_list(set))
            } else {
                let i = *named.entry(e.key).or_insert_with(|| {
                    big.push(e.key);
                    big.len()
                });
                format!("S{i} ({} threads)", set.len())
            };
            let _ = writeln!(
                s,
                "  t{} at {}: @{}({}) = {} with {with}",
                th.tid,
                labels[t][e.pos],
                e.callee,
                args.join(", "),
                result,
            );
        }
    }
    for (i, k) in big.iter().enumerate() {
        let _ = writeln!(s, "  S{} = {{{}}}", i + 1, member_list(&by_key[k]));
    }
    s
}

/// What each thread did that the environment sees, in its order (part of
/// the behaviour, as in `--json`'s "observations"): calls of unknown
/// functions with their arguments and results, stores to globals and input
/// buffers.
fn observations_in(exec: &Execution) -> String {
    let mut s = String::new();
    for th in &exec.threads {
        for o in &th.observations {
            let _ = writeln!(s, "  t{}: {}", th.tid, observation_text(o));
        }
    }
    s
}

/// One observation, as `run` prints it (text and JSON alike).
fn observation_text(o: &Observation) -> String {
    match o {
        Observation::Store { obj, off, value } => format!("store obj{obj}+{off} = {value}"),
        Observation::Call {
            callee,
            args,
            result,
        } => {
            let a: Vec<String> = args.iter().map(|x| x.to_string()).collect();
            match result {
                Val::Void => format!("call @{callee}({})", a.join(", ")),
                r => format!("call @{callee}({}) = {r}", a.join(", ")),
            }
        }
    }
}

pub fn outcome_text(module: &Module, outcome: &Outcome) -> String {
    match outcome {
        Outcome::Finished => "finished".into(),
        Outcome::Ub { thread, loc, why } => {
            let f = &module.functions[loc.func];
            format!(
                "undefined behaviour in t{thread} at @{}:%{} instruction {}: {why}",
                f.name,
                f.block_name(loc.block),
                loc.index
            )
        }
        Outcome::Cut { threads } => format!("cut by the step bound in threads {threads:?}"),
        Outcome::Contradiction { rule, detail } => format!("contradiction ({rule}): {detail}"),
    }
}

/// The default text output: each distinct behaviour's table, then counts.
pub fn text(module: &Module, ex: &Exploration) -> String {
    let mut out = Vec::new();
    // Writing to a vector cannot fail.
    let _ = write_text(module, ex, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// [`text`] written behaviour by behaviour, so that a long listing (cut
/// executions of a loop at `--max-steps`: megabytes per behaviour) is never
/// held whole in memory.
pub fn write_text(
    module: &Module,
    ex: &Exploration,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    for (i, b) in ex.behaviours.iter().enumerate() {
        w.write_all(behaviour_text(module, ex, i, b).as_bytes())?;
    }
    w.write_all(summary(module, ex).as_bytes())
}

/// The end of [`text`] after the behaviours: the counts and the cycle
/// hierarchies (what `run --summary` prints).
pub fn summary(module: &Module, ex: &Exploration) -> String {
    counts(ex) + &hierarchies(module, ex)
}

/// One behaviour of [`text`] (its number is `i + 1`).
fn behaviour_text(module: &Module, ex: &Exploration, i: usize, b: &Behaviour) -> String {
    let mut s = String::new();
    let e = &b.execution;
    let _ = writeln!(
        s,
        "behaviour {} ({} execution{}): {}",
        i + 1,
        b.count,
        if b.count == 1 { "" } else { "s" },
        outcome_text(module, &e.outcome)
    );
    for (name, vals) in &e.inputs {
        let vs: Vec<String> = vals.iter().map(|v| v.to_string()).collect();
        let _ = writeln!(s, "  %{name} = [{}]", vs.join(", "));
    }
    // The columns and labels once, for the table and the calls.
    let cols = columns(e);
    let labels = labels_in(module, &ex.kernel, e, &cols);
    s += &table_in(e, &cols, &labels);
    s += &events_in(e, &labels);
    s += &observations_in(e);
    // R-MEM: the final contents of the observed objects.
    for (name, bytes) in e.memory.iter().filter(|(n, _)| super::memory::shown(n)) {
        let _ = writeln!(
            s,
            "  memory {name} = [{}]",
            super::memory::words(bytes).join(", ")
        );
    }
    s += "\n";
    s
}

/// D-HIER: the number of cycle hierarchies per function with cycles, and
/// the blocks whose converged-with relation differs between hierarchies in
/// the explored executions (not m-converged).
pub fn hierarchies(module: &Module, ex: &Exploration) -> String {
    if ex.hierarchies.iter().all(|(_, n)| *n <= 1) {
        return String::new();
    }
    let counts: Vec<String> = ex
        .hierarchies
        .iter()
        .map(|(f, n)| format!("@{f}: {n}"))
        .collect();
    let blocks: Vec<String> = super::dmax::not_m_converged(ex)
        .into_iter()
        .map(|(f, b)| {
            format!(
                "@{}:%{}",
                module.functions[f].name,
                module.functions[f].block_name(b)
            )
        })
        .collect();
    format!(
        "cycle hierarchies (D-HIER, behaviours are their union): {}\nnot m-converged (relation differs between hierarchies): {}\n",
        counts.join(", "),
        if blocks.is_empty() { "none".to_string() } else { blocks.join(", ") }
    )
}

/// The counts line(s) (R-BOUND).
pub fn counts(ex: &Exploration) -> String {
    format!(
        "executions explored: {}, distinct behaviours: {}, cut: {}, undefined behaviour: {}, contradictions: {}, pruned schedules: {}{}{}\ninput domain: {}\n{}",
        ex.explored,
        match ex.counted {
            Some(n) => format!(
                "{n} ({} listed, the others renamings of listed ones, counted)",
                ex.behaviours.len()
            ),
            None => ex.behaviours.len().to_string(),
        },
        ex.cut,
        ex.ub,
        ex.contradictions,
        ex.pruned,
        if ex.reduced { format!(", merged (state already explored): {}", ex.merged) } else { String::new() },
        match (ex.complete, ex.limit) {
            (true, _) => String::new(),
            (false, Some(l)) => format!(" (INCOMPLETE: {l})"),
            (false, None) if ex.counted.is_some() => {
                " (every behaviour found and counted; the listing is INCOMPLETE)".into()
            }
            (false, None) if ex.closure_capped.is_some() => {
                " (INCOMPLETE: the closure under renaming reached its limits)".into()
            }
            (false, None) => " (INCOMPLETE)".into(),
        },
        ex.domain,
        if ex.reduced {
            format!(
                "reductions: memoized states, {}{} (counts are of representative executions; --no-reduce: every execution)\n",
                if ex.data_inputs.is_empty() {
                    String::new()
                } else {
                    format!("run once as symbols: {}; ", ex.data_inputs)
                },
                match &ex.symmetry {
                    Ok(0) => format!("launch symmetry ({})", ex.renaming),
                    Ok(n) => format!(
                        "launch symmetry ({}; {n} behaviours by renaming{})",
                        ex.renaming,
                        match (ex.closure_capped, ex.counted) {
                            // Memory linear in threads x behaviours.
                            (Some(c), Some(n)) => format!(
                                "; the closure under renaming listed {c} behaviours, its limit of {} thread records, and counted the other {} (by orbit size, or by digest)",
                                super::symmetry::CLOSURE_RECORDS,
                                n - c
                            ),
                            (Some(c), None) => format!(
                                "; the closure under renaming stopped at {c} behaviours listed, its limit of {} thread records, and its limit of {} thread records counted: INCOMPLETE",
                                super::symmetry::CLOSURE_RECORDS,
                                super::symmetry::CLOSURE_DIGESTS
                            ),
                            (None, _) => String::new(),
                        }
                    ),
                    Err(why) => format!("no launch symmetry: {why}"),
                }
            )
        } else {
            String::new()
        }
    )
}

/// JSON: `{"executions": [{"traces", "converged", "events", ...}], ...}`.
pub fn json(module: &Module, ex: &Exploration) -> Value {
    let mut j = json_summary(module, ex);
    let execs = ex
        .behaviours
        .iter()
        .map(|b| json_behaviour(module, ex, b))
        .collect();
    j.insert("executions".into(), Value::Array(execs));
    Value::Object(j)
}

/// [`json`] with the `extra` fields added, pretty-printed to `w` one
/// behaviour at a time: the same text as `to_string_pretty` of the whole
/// value (keys in order, "executions" among them), without ever holding the
/// JSON value of every behaviour (before, the tree of 2,401 cut loop
/// executions at 2 threads took 9.8 GB and 38 s after `--time-limit`).
pub fn write_json(
    module: &Module,
    ex: &Exploration,
    extra: serde_json::Map<String, Value>,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    write_json_as(module, ex, extra, true, w)
}

/// [`write_json`], with "executions" only when `behaviours` (`run
/// --summary --json`: the other fields alone).
pub fn write_json_as(
    module: &Module,
    ex: &Exploration,
    extra: serde_json::Map<String, Value>,
    behaviours: bool,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let mut fields = json_summary(module, ex);
    fields.extend(extra);
    let streamed = Streamed {
        module,
        ex,
        fields,
        behaviours,
    };
    serde_json::to_writer_pretty(&mut *w, &streamed).map_err(std::io::Error::from)?;
    w.write_all(b"\n")
}

/// The top-level object of [`write_json`]: the summary's fields in key
/// order, with "executions" serialized behaviour by behaviour in its place.
struct Streamed<'a> {
    module: &'a Module,
    ex: &'a Exploration,
    fields: serde_json::Map<String, Value>,
    /// Whether "executions" is written at all.
    behaviours: bool,
}

impl serde::Serialize for Streamed<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        struct Execs<'a>(&'a Module, &'a Exploration);
        impl serde::Serialize for Execs<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut seq = s.serialize_seq(Some(self.1.behaviours.len()))?;
                for b in &self.1.behaviours {
                    seq.serialize_element(&json_behaviour(self.0, self.1, b))?;
                }
                seq.end()
            }
        }
        const EXECS: &str = "executions";
        let mut map = s.serialize_map(Some(self.fields.len() + usize::from(self.behaviours)))?;
        let mut placed = !self.behaviours;
        for (k, v) in &self.fields {
            if !placed && k.as_str() > EXECS {
                map.serialize_entry(EXECS, &Execs(self.module, self.ex))?;
                placed = true;
            }
            map.serialize_entry(k, v)?;
        }
        if !placed {
            map.serialize_entry(EXECS, &Execs(self.module, self.ex))?;
        }
        map.end()
    }
}

/// One element of [`json`]'s "executions": a distinct behaviour.
pub fn json_behaviour(module: &Module, ex: &Exploration, b: &Behaviour) -> Value {
    let e = &b.execution;
    let traces: Vec<Vec<String>> = e
        .threads
        .iter()
        .map(|th| {
            th.trace
                .iter()
                .map(|v| block_label(module, &ex.kernel, v.func, v.block))
                .collect()
        })
        .collect();
    let sets = e.event_sets();
    let mut events = Vec::new();
    for (t, th) in e.threads.iter().enumerate() {
        for (ev, set) in th.events.iter().zip(&sets[t]) {
            events.push(json!({
                "thread": t,
                "position": ev.pos,
                "callee": ev.callee,
                "args": ev.args.iter().map(|a| a.to_string()).collect::<Vec<_>>(),
                "set": set.iter().map(|(u, p)| [*u, *p]).collect::<Vec<_>>(),
                "result": ev.result.as_ref().map(|r| r.to_string()),
            }));
        }
    }
    let ends: Vec<Value> = e
        .threads
        .iter()
        .map(|th| match &th.end {
            Some(ThreadEnd::Returned(v)) => json!({"returned": v.to_string()}),
            Some(ThreadEnd::Ub { why, .. }) => json!({"ub": why}),
            Some(ThreadEnd::Cut) => json!("cut"),
            None => Value::Null,
        })
        .collect();
    let observations: Vec<Vec<String>> = e
        .threads
        .iter()
        .map(|th| th.observations.iter().map(observation_text).collect())
        .collect();
    json!({
        "count": b.count,
        "outcome": outcome_text(module, &e.outcome),
        "inputs": e.inputs.iter().map(|(n, v)| (n.clone(), v.iter().map(|x| x.to_string()).collect::<Vec<_>>())).collect::<std::collections::BTreeMap<_, _>>(),
        "traces": traces,
        "converged": e.visit_classes().iter().map(|c| c.iter().map(|(t, p)| [*t, *p]).collect::<Vec<_>>()).collect::<Vec<_>>(),
        "events": events,
        "ends": ends,
        "observations": observations,
        "memory": e.memory.iter().filter(|(n, _)| super::memory::shown(n)).map(|(n, b)| (n.clone(), super::memory::words(b))).collect::<std::collections::BTreeMap<_, _>>(),
    })
}

/// The fields of [`json`] other than "executions".
pub fn json_summary(module: &Module, ex: &Exploration) -> serde_json::Map<String, Value> {
    let Value::Object(m) = json!({
        "kernel": ex.kernel,
        "explored": ex.explored,
        "distinct": ex.distinct(),
        "listed": ex.behaviours.len(),
        "cut": ex.cut,
        "ub": ex.ub,
        "contradictions": ex.contradictions,
        "pruned": ex.pruned,
        "merged": ex.merged,
        "reduced": ex.reduced,
        "data_inputs": (!ex.data_inputs.is_empty()).then(|| ex.data_inputs.clone()),
        "launch_symmetry": match &ex.symmetry {
            Ok(n) => json!({"used": true, "renamed_behaviours": n, "group": ex.renaming, "closure_capped_at": ex.closure_capped}),
            Err(why) => json!({"used": false, "why": why}),
        },
        "complete": ex.complete,
        "counted": ex.counted,
        "counted_complete": ex.counted_complete(),
        "incomplete_because": ex.limit.map(|l| l.to_string()),
        "domain": ex.domain,
        "hierarchies": ex.hierarchies.iter().map(|(f, n)| json!({"function": f, "count": n})).collect::<Vec<_>>(),
    "not_m_converged": super::dmax::not_m_converged(ex).into_iter().map(|(f, b)| json!({"function": module.functions[f].name, "block": module.functions[f].block_name(b)})).collect::<Vec<_>>(),
    }) else {
        unreachable!("json! of an object literal is an object")
    };
    m
}
