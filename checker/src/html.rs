//! Self-contained HTML reports (`convcheck run --report`, `convcheck
//! refine --report`): the CFG of each program as SVG in a simple layered
//! layout (layer = breadth-first distance from the entry block), each
//! thread's path drawn over it in its own colour, the per-thread traces as
//! text, and the communicating sets of the first difference. No scripts, no
//! external resources: the page is one file that any browser shows.

use std::collections::VecDeque;
use std::fmt::Write;

use semantics::cfg::Cfg;
use semantics::ir::Function;

/// One program drawn in the report.
pub struct Side<'a> {
    pub title: String,
    pub func: &'a Function,
    /// Per thread, the block indices visited in order.
    pub paths: Vec<Vec<usize>>,
}

const COLOURS: [&str; 8] = [
    "#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf",
];

/// Escapes text for HTML and SVG.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Node positions: (x, y) centre per block.
fn layout(cfg: &Cfg) -> (Vec<(f64, f64)>, f64, f64) {
    let n = cfg.len();
    let mut layer = vec![usize::MAX; n];
    let mut q = VecDeque::new();
    if n > 0 {
        layer[0] = 0;
        q.push_back(0);
    }
    while let Some(b) = q.pop_front() {
        for s in &cfg.succs[b] {
            if layer[s.0] == usize::MAX {
                layer[s.0] = layer[b] + 1;
                q.push_back(s.0);
            }
        }
    }
    let reach_max = layer
        .iter()
        .filter(|l| **l != usize::MAX)
        .max()
        .copied()
        .unwrap_or(0);
    for l in layer.iter_mut() {
        if *l == usize::MAX {
            *l = reach_max + 1;
        }
    }
    let layers = layer.iter().max().map_or(1, |m| m + 1);
    let mut col = vec![0usize; n];
    let mut width = vec![0usize; layers];
    for b in 0..n {
        col[b] = width[layer[b]];
        width[layer[b]] += 1;
    }
    let wmax = width.iter().max().copied().unwrap_or(1).max(1);
    let (dx, dy) = (150.0, 90.0);
    let total_w = wmax as f64 * dx + 80.0;
    let pos = (0..n)
        .map(|b| {
            let row_w = width[layer[b]] as f64 * dx;
            let x0 = (total_w - row_w) / 2.0;
            (
                x0 + col[b] as f64 * dx + dx / 2.0,
                40.0 + layer[b] as f64 * dy,
            )
        })
        .collect();
    (pos, total_w, 40.0 + layers as f64 * dy)
}

/// The SVG of one program's CFG with the threads' paths.
pub fn cfg_svg(side: &Side) -> String {
    let cfg = Cfg::from_function(side.func);
    let (pos, w, h) = layout(&cfg);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.0} {h:.0}">"#
    );
    s += r##"<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#555"/></marker></defs>"##;
    s.push('\n');
    for (b, succs) in cfg.succs.iter().enumerate() {
        for t in succs {
            let (x1, y1) = pos[b];
            let (x2, y2) = pos[t.0];
            if y2 > y1 {
                let _ = writeln!(
                    s,
                    r##"<line class="edge" x1="{x1:.0}" y1="{:.0}" x2="{x2:.0}" y2="{:.0}" stroke="#555" marker-end="url(#arrow)"/>"##,
                    y1 + 14.0,
                    y2 - 14.0
                );
            } else {
                // Back or cross edge: a curve to the right.
                let _ = writeln!(
                    s,
                    r##"<path class="edge back" d="M {:.0} {y1:.0} C {:.0} {y1:.0}, {:.0} {y2:.0}, {:.0} {y2:.0}" fill="none" stroke="#555" stroke-dasharray="4 3" marker-end="url(#arrow)"/>"##,
                    x1 + 40.0,
                    x1.max(x2) + 90.0,
                    x1.max(x2) + 90.0,
                    x2 + 40.0
                );
            }
        }
    }
    let k = side.paths.len().max(1) as f64;
    for (t, path) in side.paths.iter().enumerate() {
        let off = (t as f64 - (k - 1.0) / 2.0) * 6.0;
        let pts: Vec<String> = path
            .iter()
            .filter(|b| **b < pos.len())
            .map(|b| format!("{:.0},{:.0}", pos[*b].0 + off, pos[*b].1 + off))
            .collect();
        let c = COLOURS[t % COLOURS.len()];
        let _ = writeln!(
            s,
            r#"<polyline class="thread t{t}" points="{}" fill="none" stroke="{c}" stroke-width="3" stroke-opacity="0.6"><title>thread {t}</title></polyline>"#,
            pts.join(" ")
        );
    }
    for (b, (x, y)) in pos.iter().enumerate() {
        let name = side.func.block_name(semantics::ir::BlockId(b));
        let visitors: Vec<String> = side
            .paths
            .iter()
            .enumerate()
            .filter_map(|(t, p)| {
                let n = p.iter().filter(|v| **v == b).count();
                (n > 0).then(|| format!("t{t}×{n}"))
            })
            .collect();
        let fill = if visitors.is_empty() {
            "#fff"
        } else {
            "#ffe9a8"
        };
        let _ = writeln!(
            s,
            r##"<g class="block"><rect x="{:.0}" y="{:.0}" width="100" height="28" rx="6" fill="{fill}" stroke="#333"/><text x="{x:.0}" y="{:.0}" text-anchor="middle" font-family="monospace" font-size="13">{}</text><text x="{x:.0}" y="{:.0}" text-anchor="middle" font-family="monospace" font-size="10" fill="#444">{}</text></g>"##,
            x - 50.0,
            y - 14.0,
            y + 4.0,
            esc(&name),
            y + 26.0,
            esc(&visitors.join(" "))
        );
    }
    s += "</svg>\n";
    s
}

/// The whole page: one CFG per side, the traces, the first difference's
/// communicating sets, and the text report.
pub fn page(title: &str, sides: &[Side], sets: &[String], text: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{}</title>\n<style>body{{font-family:sans-serif;margin:1.5em}} .sides{{display:flex;gap:2em;flex-wrap:wrap}} pre{{background:#f6f6f6;padding:.8em}} li.trace{{font-family:monospace}}</style></head><body>",
        esc(title)
    );
    let _ = writeln!(s, "<h1>{}</h1>\n<div class=\"sides\">", esc(title));
    for side in sides {
        let _ = writeln!(
            s,
            "<section class=\"side\"><h2>{}</h2>\n{}<ul class=\"traces\">",
            esc(&side.title),
            cfg_svg(side)
        );
        for (t, p) in side.paths.iter().enumerate() {
            let names: Vec<String> = p
                .iter()
                .map(|b| side.func.block_name(semantics::ir::BlockId(*b)))
                .collect();
            let c = COLOURS[t % COLOURS.len()];
            let _ = writeln!(
                s,
                "<li class=\"trace\" style=\"color:{c}\">thread {t}: {}</li>",
                esc(&names.join(" "))
            );
        }
        s += "</ul></section>\n";
    }
    s += "</div>\n<h2>Communicating sets of the first difference</h2>\n<ul class=\"sets\">\n";
    if sets.is_empty() {
        s += "<li>(no difference)</li>\n";
    }
    for line in sets {
        let _ = writeln!(s, "<li>{}</li>", esc(line));
    }
    let _ = writeln!(
        s,
        "</ul>\n<h2>Report</h2>\n<pre>{}</pre>\n</body></html>",
        esc(text)
    );
    s
}

fn fmt_set(set: &[(usize, usize)]) -> String {
    let v: Vec<String> = set.iter().map(|(t, k)| format!("t{t}#{k}")).collect();
    format!("{{{}}}", v.join(", "))
}

/// The first convergent event (by ordinal, then thread) whose callee or
/// communicating set differs between the target and the source traces of
/// a refinement counterexample (R-CEX), as two lines.
pub fn first_difference(
    src: &[crate::refine::obs::CThread],
    tgt: &[crate::refine::obs::CThread],
) -> Vec<String> {
    let most = tgt
        .iter()
        .chain(src)
        .map(|t| t.conv.len())
        .max()
        .unwrap_or(0);
    let show = |side: &str, t: usize, i: usize, th: Option<&crate::refine::obs::CThread>| match th
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
                return vec![
                    show("target", t, i, tgt.get(t)),
                    show("source", t, i, src.get(t)),
                ];
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
    let call = |side: &str, t: usize, i: usize, th: Option<&crate::refine::obs::CThread>| match th
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
                return vec![
                    call("target", t, i, tgt.get(t)),
                    call("source", t, i, src.get(t)),
                ];
            }
        }
    }
    Vec::new()
}

/// The page of `convcheck run --report`: the first behaviour's paths, and
/// every convergent call of it with its communicating set (a single
/// program has no "difference"; when there are several behaviours, the
/// sets of the first call whose set differs between behaviours 1 and 2).
pub fn run_page(
    m: &semantics::ir::Module,
    ex: &semantics::machine::launch::Exploration,
    text: &str,
) -> String {
    let kernel = m.functions.iter().position(|f| f.name == ex.kernel);
    let Some(k) = kernel else {
        return page("convcheck run", &[], &[], text);
    };
    let func = &m.functions[k];
    let sets_of = |e: &semantics::machine::launch::Execution| -> Vec<(String, String)> {
        let sets = e.event_sets();
        let mut out = Vec::new();
        for (t, th) in e.threads.iter().enumerate() {
            for (i, (ev, set)) in th.events.iter().zip(&sets[t]).enumerate() {
                let members: Vec<String> =
                    set.iter()
                        .map(|(u, p)| {
                            let name = e.threads[*u].trace.get(*p).map_or("?".to_string(), |v| {
                                m.functions[v.func].block_name(v.block)
                            });
                            format!("t{u}:{name}")
                        })
                        .collect();
                out.push((
                    format!("thread {t}, convergent call #{i} @{}", ev.callee),
                    format!("{{{}}}", members.join(", ")),
                ));
            }
        }
        out
    };
    let mut sides = Vec::new();
    let mut lines = Vec::new();
    if let Some(b0) = ex.behaviours.first() {
        let e = &b0.execution;
        let paths = e
            .threads
            .iter()
            .map(|th| {
                th.trace
                    .iter()
                    .filter(|v| v.func == k)
                    .map(|v| v.block.0)
                    .collect()
            })
            .collect();
        sides.push(Side {
            title: format!("@{} (behaviour 1 of {})", func.name, ex.behaviours.len()),
            func,
            paths,
        });
        let first = sets_of(e);
        let second = ex.behaviours.get(1).map(|b| sets_of(&b.execution));
        match second {
            Some(second) => {
                for (a, b) in first.iter().zip(&second) {
                    if a != b {
                        lines.push(format!("behaviour 1: {} with {}", a.0, a.1));
                        lines.push(format!("behaviour 2: {} with {}", b.0, b.1));
                        break;
                    }
                }
            }
            None => lines.extend(first.iter().map(|(a, b)| format!("{a} with {b}"))),
        }
    }
    page(
        &format!("convcheck run @{}", func.name),
        &sides,
        &lines,
        text,
    )
}

/// The page of `convcheck refine --report`: source and target CFGs with
/// the counterexample's paths (when there is one) and the first
/// difference of communicating sets.
pub fn refine_page(
    src: &semantics::ir::Module,
    tgt: &semantics::ir::Module,
    kernel: &str,
    verdict: &crate::refine::Verdict,
    text: &str,
) -> String {
    let (sp, tp, lines) = match verdict {
        crate::refine::Verdict::Counterexample(c) => {
            let blocks = |ts: &[crate::refine::obs::CThread]| -> Vec<Vec<usize>> {
                ts.iter().map(|t| t.blocks.clone()).collect()
            };
            let s = c.source.as_deref().unwrap_or(&[]);
            (blocks(s), blocks(&c.target), first_difference(s, &c.target))
        }
        _ => (Vec::new(), Vec::new(), Vec::new()),
    };
    let mut sides = Vec::new();
    if let Some(f) = src.functions.iter().find(|f| f.name == kernel) {
        sides.push(Side {
            title: format!("source @{kernel}"),
            func: f,
            paths: sp,
        });
    }
    if let Some(f) = tgt.functions.iter().find(|f| f.name == kernel) {
        sides.push(Side {
            title: format!("target @{kernel}"),
            func: f,
            paths: tp,
        });
    }
    page(&format!("convcheck refine @{kernel}"), &sides, &lines, text)
}
