//! Self-contained HTML reports (`convcheck run --report`, `convcheck
//! refine --report`) and annotated DOT (`--dot`). Each program's CFG is
//! laid out by Graphviz `dot` when installed (a simple layered layout
//! otherwise, and the page says which), with every edge's direction, back
//! edges and self-loops, cycles and their headers, and each thread's path
//! drawn along the edges ([`svg`]). Who communicates is a picture of its
//! own ([`sets`]): per convergent operation, its dynamic instances with the
//! threads of each communicating set grouped. `run` shows every behaviour
//! (one section each); `refine` shows source and target side by side and,
//! for a counterexample, the sets of the first difference side by side.
//! No scripts, no external resources: the page is one file.

pub mod dot;
pub mod layout;
pub mod sets;
pub mod svg;

use rustc_hash::FxHashMap as HashMap;
use std::fmt::Write;

use semantics::ir::{BlockId, Function, Module};
use semantics::machine::launch::{Execution, Exploration};

use crate::refine::obs::CThread;
use crate::refine::Side;
use layout::Geometry;
use sets::{from_cthreads, sets_svg, Instance};
use svg::{cfg_svg, colour, place, shape, Shape};

/// Behaviours drawn in a `run` report; the others are counted.
pub const MAX_BEHAVIOURS_DRAWN: usize = 64;

/// Escapes text for HTML and SVG.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const STYLE: &str = "body{font-family:sans-serif;margin:1.5em;color:#222} \
.sides{display:flex;gap:2.5em;flex-wrap:wrap;align-items:flex-start} \
pre{background:#f6f6f6;padding:.8em;overflow-x:auto} li.trace{font-family:monospace} \
details{margin:.6em 0;border:1px solid #ddd;border-radius:6px;padding:.4em .8em} \
summary{cursor:pointer;font-weight:bold} .engine{font-size:80%;color:#777} \
.legend{font-size:85%;color:#555} h3{margin:.8em 0 .3em}";

fn head(title: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{t}</title>\n<style>{STYLE}</style></head><body>\n<h1>{t}</h1>\n\
         <p class=\"legend\">Blocks in layout order; arrows are CFG edges, orange ones back edges \
         (self-loops included) into an entry of a cycle; dashed boxes are cycles of LLVM's cycle \
         hierarchy, headers have a thick border; each thread's path follows the edges in its colour, \
         and <code>t1×2</code> in a block means thread 1 visited it twice. Under \"who \
         communicates\", each row is a convergent operation and each box one dynamic instance \
         with its communicating set: one disc per thread, under it the instance's name in the \
         text report (<code>C2</code>: the block visit as numbered in the table; <code>#2</code>: \
         the thread's convergent event 2). Rule and claim IDs: docs/RULES.md.</p>\n",
        t = esc(title)
    )
}

fn tail(text: &str) -> String {
    format!(
        "<h2>Report</h2>\n<pre>{}</pre>\n</body></html>\n",
        esc(text)
    )
}

/// The CFG of `func` with `paths`, the engine line, and the traces.
fn cfg_block(
    shape: &Shape,
    geo: &Geometry,
    func: &Function,
    paths: &[Vec<usize>],
    id: &str,
) -> String {
    let mut s = cfg_svg(shape, geo, paths, id);
    let _ = writeln!(
        s,
        "<div class=\"engine\">layout: {}</div>\n<ul class=\"traces\">",
        esc(&geo.engine)
    );
    for (t, p) in paths.iter().enumerate() {
        let names: Vec<String> = p.iter().map(|b| func.block_name(BlockId(*b))).collect();
        let _ = writeln!(
            s,
            "<li class=\"trace\" style=\"color:{}\">thread {t}: {}</li>",
            colour(t),
            esc(&names.join(" "))
        );
    }
    s += "</ul>\n";
    s
}

/// The "who communicates" picture, or `none` (why there is nothing).
fn sets_block(instances: &[Instance], none: &str) -> String {
    match sets_svg(instances) {
        Some(svg) => format!("<h3>Who communicates</h3>\n{svg}"),
        None => format!("<h3>Who communicates</h3>\n<p>({})</p>\n", esc(none)),
    }
}

/// The communicating sets of one interpreter execution's convergent
/// calls (one instance per dynamic instance, D-INST; members named by their
/// block visit as in the table, `t1@C2` in the text), and the converged-with
/// classes of block visits (D-MAX; the table's columns, as CU's tables
/// group them).
pub fn run_instances(m: &Module, e: &Execution, kernel: &str) -> (Vec<Instance>, Vec<Instance>) {
    let labels = semantics::machine::render::labels(m, kernel, e);
    let cols = semantics::machine::render::columns(e);
    let col = |t: usize, p: usize| cols.get(t).and_then(|c| c.get(p)).copied().unwrap_or(0);
    let label = |t: usize, p: usize| {
        labels
            .get(t)
            .and_then(|l| l.get(p))
            .cloned()
            .unwrap_or_default()
    };
    let mut order: Vec<semantics::machine::KeyId> = Vec::new();
    let mut by_key: HashMap<semantics::machine::KeyId, Instance> = HashMap::default();
    for (t, th) in e.threads.iter().enumerate() {
        for ev in th.events.iter() {
            let f = &m.functions[ev.loc.func];
            let place = if f.name == kernel {
                format!("%{}", f.block_name(ev.loc.block))
            } else {
                format!("@{} %{}", f.name, f.block_name(ev.loc.block))
            };
            let inst = by_key.entry(ev.key).or_insert_with(|| {
                order.push(ev.key);
                Instance {
                    op: format!("@{} in {place}", ev.callee),
                    members: Vec::new(),
                    order: col(t, ev.pos),
                    note: String::new(),
                }
            });
            inst.members.push((t, label(t, ev.pos)));
            if let Some(r) = &ev.result {
                if !inst.note.is_empty() {
                    inst.note += ", ";
                }
                let _ = write!(inst.note, "t{t} gets {r}");
            }
        }
    }
    let calls = order
        .into_iter()
        .filter_map(|k| by_key.remove(&k))
        .collect();
    let visits = e
        .visit_classes()
        .into_iter()
        .filter_map(|class| {
            let &(t, p) = class.first()?;
            let v = &e.threads[t].trace[p];
            let f = &m.functions[v.func];
            Some(Instance {
                op: if f.name == kernel {
                    format!("%{}", f.block_name(v.block))
                } else {
                    format!("@{} %{}", f.name, f.block_name(v.block))
                },
                members: class.iter().map(|&(u, q)| (u, label(u, q))).collect(),
                order: col(t, p),
                note: String::new(),
            })
        })
        .collect();
    (calls, visits)
}

/// Per thread, the blocks of function `k` it visited, in order.
fn kernel_paths(e: &Execution, k: usize) -> Vec<Vec<usize>> {
    e.threads
        .iter()
        .map(|th| {
            th.trace
                .iter()
                .filter(|v| v.func == k)
                .map(|v| v.block.0)
                .collect()
        })
        .collect()
}

/// The page of `convcheck run --report`: every behaviour (up to
/// [`MAX_BEHAVIOURS_DRAWN`]) in a section of its own with the CFG, each
/// thread's path and who communicates.
pub fn run_page(m: &Module, ex: &Exploration, text: &str) -> String {
    let Some(k) = m.functions.iter().position(|f| f.name == ex.kernel) else {
        return head("convcheck run") + &tail(text);
    };
    let func = &m.functions[k];
    let title = format!("convcheck run @{}", func.name);
    let mut s = head(&title);
    let threads = ex
        .behaviours
        .iter()
        .map(|b| b.execution.threads.len())
        .max()
        .unwrap_or(0);
    let shape = shape(func, threads);
    let geo = place(&shape);
    let n = ex.behaviours.len();
    let _ = writeln!(
        s,
        "<p>{n} distinct behaviour{} of {} execution{} explored{}.</p>",
        if n == 1 { "" } else { "s" },
        ex.explored,
        if ex.explored == 1 { "" } else { "s" },
        if ex.complete {
            ""
        } else {
            " (INCOMPLETE: not every execution was explored)"
        }
    );
    for (i, b) in ex.behaviours.iter().enumerate().take(MAX_BEHAVIOURS_DRAWN) {
        let e = &b.execution;
        let inputs: Vec<String> = e
            .inputs
            .iter()
            .map(|(name, vs)| {
                let v: Vec<String> = vs.iter().map(|v| v.to_string()).collect();
                format!("%{name} = {}", v.join(","))
            })
            .collect();
        let _ = writeln!(
            s,
            "<details class=\"behaviour\"{}><summary>Behaviour {} of {n}: {} ({} execution{}{}{})</summary>",
            if i == 0 { " open" } else { "" },
            i + 1,
            esc(&semantics::machine::render::outcome_text(m, &e.outcome)),
            b.count,
            if b.count == 1 { "" } else { "s" },
            if inputs.is_empty() { "" } else { "; " },
            esc(&inputs.join("; "))
        );
        s += &cfg_block(&shape, &geo, func, &kernel_paths(e, k), &format!("b{i}"));
        let (calls, visits) = run_instances(m, e, &ex.kernel);
        s += &sets_block(&calls, "no convergent operation executed");
        if let Some(svg) = sets_svg(&visits) {
            let _ = writeln!(
                s,
                "<h3>Converged block visits (D-MAX: the table's columns)</h3>\n{svg}"
            );
        }
        s += "</details>\n";
    }
    if n > MAX_BEHAVIOURS_DRAWN {
        let _ = writeln!(
            s,
            "<p>{} more behaviours are not drawn (see the report below).</p>",
            n - MAX_BEHAVIOURS_DRAWN
        );
    }
    s + &tail(text)
}

/// The page of `convcheck refine --report`: source and target side by
/// side with the counterexample's paths and who communicates (when there is
/// a counterexample), and the sets of the first difference side by side.
pub fn refine_page(
    src: &Module,
    tgt: &Module,
    kernel: &str,
    verdict: &crate::refine::Verdict,
    text: &str,
) -> String {
    let empty: &[CThread] = &[];
    let (sp, tp) = match verdict {
        crate::refine::Verdict::Counterexample(c) => {
            (c.source.as_deref().unwrap_or(empty), &c.target[..])
        }
        _ => (empty, empty),
    };
    let title = format!("convcheck refine @{kernel}");
    let mut s = head(&title);
    if !matches!(verdict, crate::refine::Verdict::Counterexample(_)) {
        s += "<p>No counterexample: no execution to draw (the verdict and its bounds are in the report below).</p>\n";
    }
    s += "<div class=\"sides\">\n";
    for (side, m, threads) in [(Side::Source, src, sp), (Side::Target, tgt, tp)] {
        let Some(f) = m.functions.iter().find(|f| f.name == kernel) else {
            continue;
        };
        let paths: Vec<Vec<usize>> = threads.iter().map(|t| t.blocks.clone()).collect();
        let _ = writeln!(
            s,
            "<section class=\"side\"><h2>{side} @{}</h2>",
            esc(kernel)
        );
        let sh = shape(f, threads.len());
        s += &cfg_block(&sh, &place(&sh), f, &paths, side.as_str());
        if !threads.is_empty() {
            s += &sets_block(
                &from_cthreads(threads),
                "no convergent call observed with its communicating set: R-OBS observes \
                 operations with modelled results (C-OPS) through their values",
            );
        }
        s += "</section>\n";
    }
    s += "</div>\n";
    if let crate::refine::Verdict::Counterexample(_) = verdict {
        let d = first_difference(sp, tp);
        if !d.lines.is_empty() {
            s += "<h2>First difference</h2>\n<ul class=\"difference\">\n";
            for l in &d.lines {
                let _ = writeln!(s, "<li>{}</li>", esc(l));
            }
            s += "</ul>\n";
            if let Some((t, i)) = d.conv {
                s += "<div class=\"sides difference\">\n";
                for (side, threads) in [(Side::Target, tp), (Side::Source, sp)] {
                    let me = (t, format!("#{i}"));
                    let one: Vec<Instance> = from_cthreads(threads)
                        .into_iter()
                        .filter(|inst| inst.members.contains(&me))
                        .collect();
                    let _ = writeln!(
                        s,
                        "<section><h3>{side}: thread {t}'s convergent call #{i}</h3>{}</section>",
                        sets_svg(&one).unwrap_or_else(|| "<p>(no such call)</p>".into())
                    );
                }
                s += "</div>\n";
            }
        }
    }
    s + &tail(text)
}

/// The first observable difference between a counterexample's target and
/// source traces (R-CEX), as text lines; `conv` names (thread, event) when
/// it is a convergent event's callee or communicating set.
pub struct Difference {
    pub lines: Vec<String>,
    pub conv: Option<(usize, usize)>,
}

fn fmt_set(set: &[(usize, usize)]) -> String {
    let v: Vec<String> = set.iter().map(|(t, k)| format!("t{t}#{k}")).collect();
    format!("{{{}}}", v.join(", "))
}

/// The first convergent event (by ordinal, then thread) whose callee or
/// communicating set differs between the target and the source traces of
/// a refinement counterexample (R-CEX), as two lines.
pub fn first_difference(src: &[CThread], tgt: &[CThread]) -> Difference {
    let most = tgt
        .iter()
        .chain(src)
        .map(|t| t.conv.len())
        .max()
        .unwrap_or(0);
    let show = |side: Side, t: usize, i: usize, th: Option<&CThread>| match th
        .and_then(|th| th.conv.get(i))
    {
        Some(e) => format!(
            "{side}: thread {t}, convergent call #{i} @{} with {}",
            e.callee,
            e.set.as_deref().map_or("(not observed)".into(), fmt_set)
        ),
        None => format!("{side}: thread {t} makes no convergent call #{i}"),
    };
    for i in 0..most {
        for t in 0..tgt.len().max(src.len()) {
            let a = tgt.get(t).and_then(|th| th.conv.get(i));
            let b = src.get(t).and_then(|th| th.conv.get(i));
            let same = match (a, b) {
                (Some(a), Some(b)) => a.callee == b.callee && a.set == b.set,
                (None, None) => true,
                _ => false,
            };
            if !same {
                return Difference {
                    lines: vec![
                        show(Side::Target, t, i, tgt.get(t)),
                        show(Side::Source, t, i, src.get(t)),
                    ],
                    conv: Some((t, i)),
                };
            }
        }
    }
    // The same communicating sets: the first other observable call differs.
    let most = tgt
        .iter()
        .chain(src)
        .map(|t| t.calls.len())
        .max()
        .unwrap_or(0);
    let call = |side: Side, t: usize, i: usize, th: Option<&CThread>| match th
        .and_then(|th| th.calls.get(i))
    {
        Some(e) => {
            let args: Vec<String> = e.args.iter().map(|a| a.to_string()).collect();
            format!(
                "{side}: thread {t}, call #{i} @{}({})",
                e.callee,
                args.join(", ")
            )
        }
        None => format!("{side}: thread {t} makes no call #{i}"),
    };
    for i in 0..most {
        for t in 0..tgt.len().max(src.len()) {
            let a = tgt.get(t).and_then(|th| th.calls.get(i));
            let b = src.get(t).and_then(|th| th.calls.get(i));
            if a != b {
                return Difference {
                    lines: vec![
                        call(Side::Target, t, i, tgt.get(t)),
                        call(Side::Source, t, i, src.get(t)),
                    ],
                    conv: None,
                };
            }
        }
    }
    Difference {
        lines: Vec::new(),
        conv: None,
    }
}

/// `run --dot`: one annotated `digraph` per behaviour (up to
/// [`MAX_BEHAVIOURS_DRAWN`]), each with its threads' visits and edges.
pub fn run_dot(m: &Module, ex: &Exploration) -> String {
    let Some(k) = m.functions.iter().position(|f| f.name == ex.kernel) else {
        return String::new();
    };
    let n = ex.behaviours.len();
    let mut s = String::new();
    for (i, b) in ex.behaviours.iter().enumerate().take(MAX_BEHAVIOURS_DRAWN) {
        s += &dot::annotated(
            &m.functions[k],
            &kernel_paths(&b.execution, k),
            &format!("@{}: behaviour {} of {n}", ex.kernel, i + 1),
        );
    }
    if n == 0 {
        s += &dot::annotated(&m.functions[k], &[], &format!("@{}", ex.kernel));
    }
    s
}

/// `refine --dot`: the source's and the target's annotated `digraph`, with
/// the counterexample's paths when there is one.
pub fn refine_dot(
    src: &Module,
    tgt: &Module,
    kernel: &str,
    verdict: &crate::refine::Verdict,
) -> String {
    let (sp, tp): (&[CThread], &[CThread]) = match verdict {
        crate::refine::Verdict::Counterexample(c) => {
            (c.source.as_deref().unwrap_or(&[]), &c.target[..])
        }
        _ => (&[], &[]),
    };
    let mut s = String::new();
    for (side, m, threads) in [(Side::Source, src, sp), (Side::Target, tgt, tp)] {
        if let Some(f) = m.functions.iter().find(|f| f.name == kernel) {
            let paths: Vec<Vec<usize>> = threads.iter().map(|t| t.blocks.clone()).collect();
            s += &dot::annotated(f, &paths, &format!("{side} @{kernel}"));
        }
    }
    s
}
