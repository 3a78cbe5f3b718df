//! The CFG of one function as SVG: blocks laid out by [`super::layout`]
//! (Graphviz `dot` when installed), every edge with its arrow, back edges
//! (edges into an entry of a cycle from inside it; self-loops included)
//! drawn in orange and labelled, cycles of LLVM's cycle hierarchy as
//! nested dashed boxes naming their header (D-HIER: the hierarchy LLVM
//! computes), headers with a double border; each thread's path drawn along
//! the edges it took, one colour per thread, offset so that threads sharing
//! an edge stay apart.

use std::collections::BTreeMap;
use std::fmt::Write;

use semantics::cfg::cycles::CycleInfo;
use semantics::cfg::Cfg;
use semantics::ir::{BlockId, Function};

use super::esc;
use super::layout::{layout, Cluster, Geometry, Graph, Spline};

/// One colour per thread (cycled beyond eight threads).
pub const COLOURS: [&str; 8] = [
    "#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf",
];

/// A thread's colour.
pub fn colour(t: usize) -> &'static str {
    COLOURS[t % COLOURS.len()]
}

/// What the drawing needs to know of a function, computed once and reused
/// for every behaviour drawn over it.
pub struct Shape {
    pub names: Vec<String>,
    pub edges: Vec<(usize, usize)>,
    /// Per edge: whether it is a back edge (into an entry of a cycle that
    /// contains its source).
    pub back: Vec<bool>,
    /// Per block: whether it is the header (first entry) of some cycle.
    pub header: Vec<bool>,
    /// Sizes, edges and cycle clusters: the layout's input.
    pub graph: Graph,
}

const BLOCK_H: f64 = 38.0;
/// Display size over layout size.
const SCALE: f64 = 1.3;

/// Room for the name and for `threads` visit counts (`t1×2`).
fn block_width(name: &str, threads: usize) -> f64 {
    (name.chars().count() as f64 * 8.5 + 28.0)
        .max(76.0)
        .max(threads as f64 * VISIT_W + 12.0)
}

/// The width of one thread's visit count in a block.
const VISIT_W: f64 = 30.0;

/// The blocks, edges, back edges, headers and cycles (LLVM's hierarchy, as
/// clusters) of `func`'s CFG, blocks wide enough for `threads` visit
/// counts.
pub fn shape(func: &Function, threads: usize) -> Shape {
    let cfg = Cfg::from_function(func);
    let ci = CycleInfo::compute(&cfg);
    let n = cfg.len();
    let names: Vec<String> = (0..n).map(|b| func.block_name(BlockId(b))).collect();
    let mut edges = Vec::new();
    for (a, succs) in cfg.succs.iter().enumerate() {
        for b in succs {
            // A `br i1 %c, label %X, label %X` is one edge in the picture.
            if !edges.contains(&(a, b.0)) {
                edges.push((a, b.0));
            }
        }
    }
    let back = edges
        .iter()
        .map(|&(a, b)| {
            ci.cycles
                .iter()
                .any(|c| c.entries.contains(&BlockId(b)) && c.contains(BlockId(a)))
        })
        .collect();
    let mut header = vec![false; n];
    for c in &ci.cycles {
        header[c.header().0] = true;
    }
    // Clusters in preorder (parents first), each owning the blocks whose
    // innermost cycle it is.
    let order = ci.preorder();
    let index: BTreeMap<usize, usize> = order.iter().enumerate().map(|(i, c)| (c.0, i)).collect();
    let clusters = order
        .iter()
        .map(|c| {
            let cy = ci.cycle(*c);
            let entries: Vec<String> = cy.entries.iter().map(|e| names[e.0].clone()).collect();
            Cluster {
                label: if cy.is_reducible() {
                    format!("cycle, header {}", entries[0])
                } else {
                    format!("irreducible cycle, entries {}", entries.join(", "))
                },
                own: (0..n)
                    .filter(|b| ci.innermost(BlockId(*b)) == Some(*c))
                    .collect(),
                parent: cy.parent.map(|p| index[&p.0]),
            }
        })
        .collect();
    let graph = Graph {
        sizes: names
            .iter()
            .map(|s| (block_width(s, threads), BLOCK_H))
            .collect(),
        edges: edges.clone(),
        clusters,
    };
    Shape {
        graph,
        names,
        edges,
        back,
        header,
    }
}

/// The SVG path of a spline, ending at its tip.
fn path_d(sp: &Spline, dx: f64, dy: f64) -> String {
    let mut d = String::new();
    for (i, (x, y)) in sp.points.iter().enumerate() {
        let cmd = match i {
            0 => "M",
            i if i % 3 == 1 => "C",
            _ => "",
        };
        let _ = write!(d, "{cmd}{:.1},{:.1} ", x + dx, y + dy);
    }
    let _ = write!(d, "L{:.1},{:.1}", sp.tip.0 + dx, sp.tip.1 + dy);
    d
}

/// Where everything of `shape` goes (Graphviz or the fallback).
pub fn place(shape: &Shape) -> Geometry {
    layout(&shape.graph)
}

/// The picture of `shape`, placed by `g`, with `paths` (per thread, the
/// blocks visited in order). `id` makes marker ids unique within the page.
pub fn cfg_svg(shape: &Shape, g: &Geometry, paths: &[Vec<usize>], id: &str) -> String {
    // Room around the layout's box for labels of back edges and
    // self-loops, which the layout does not know about.
    let (w, h) = (g.width + 70.0, g.height + 20.0);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg class="cfg" xmlns="http://www.w3.org/2000/svg" width="{:.0}" height="{:.0}" viewBox="-10 -10 {w:.0} {h:.0}" font-family="monospace">"#,
        w * SCALE,
        h * SCALE
    );
    let _ = writeln!(
        s,
        r##"<defs><marker id="{id}-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#444"/></marker><marker id="{id}-back" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#c25e00"/></marker></defs>"##
    );
    // Cycles: nested dashed boxes, labelled.
    for (c, (x, y, cw, ch)) in g.clusters.iter().enumerate() {
        let _ = writeln!(
            s,
            r##"<g class="cycle"><rect x="{x:.1}" y="{y:.1}" width="{cw:.1}" height="{ch:.1}" rx="8" fill="#c25e00" fill-opacity="0.04" stroke="#c25e00" stroke-dasharray="5 3"/><text x="{:.1}" y="{:.1}" font-size="10" fill="#c25e00" stroke="#fff" stroke-width="3" paint-order="stroke">{}</text></g>"##,
            x + 6.0,
            y + 11.0,
            esc(&shape.graph.clusters[c].label)
        );
    }
    for (i, &(a, b)) in shape.edges.iter().enumerate() {
        let sp = &g.edges[i];
        let back = shape.back[i];
        let class = match (back, a == b) {
            (true, true) => "edge back self",
            (true, false) => "edge back",
            _ => "edge",
        };
        let (stroke, marker) = if back {
            ("#c25e00", "back")
        } else {
            ("#444", "arrow")
        };
        let what = if a == b {
            format!("self-loop {}", shape.names[a])
        } else {
            format!(
                "{}{} -> {}",
                if back { "back edge " } else { "" },
                shape.names[a],
                shape.names[b]
            )
        };
        let _ = writeln!(
            s,
            r##"<path class="{class}" d="{}" fill="none" stroke="{stroke}" stroke-width="1.4" marker-end="url(#{id}-{marker})"><title>{}</title></path>"##,
            path_d(sp, 0.0, 0.0),
            esc(&what)
        );
        if back {
            let mid = sp.midpoint();
            let _ = writeln!(
                s,
                r##"<text class="back-label" x="{:.1}" y="{:.1}" font-size="9" fill="#c25e00" stroke="#fff" stroke-width="3" paint-order="stroke">{}</text>"##,
                mid.0 + 4.0,
                mid.1 - 3.0,
                if a == b { "self-loop" } else { "back" }
            );
        }
    }
    // Threads' paths along the edges they took.
    let k = paths.len().max(1) as f64;
    for (t, path) in paths.iter().enumerate() {
        let mut used: BTreeMap<usize, usize> = BTreeMap::new();
        for w in path.windows(2) {
            if let Some(e) = shape.edges.iter().position(|e| *e == (w[0], w[1])) {
                *used.entry(e).or_default() += 1;
            }
        }
        let off = (t as f64 - (k - 1.0) / 2.0) * 4.0;
        let _ = writeln!(s, r#"<g class="thread t{t}">"#);
        for (e, times) in used {
            let (a, b) = shape.edges[e];
            let _ = writeln!(
                s,
                r#"<path d="{}" fill="none" stroke="{}" stroke-width="2.6" stroke-opacity="0.75" stroke-linecap="round"><title>thread {t}: {} -> {} ({times}×)</title></path>"#,
                path_d(&g.edges[e], off, off),
                colour(t),
                esc(&shape.names[a]),
                esc(&shape.names[b])
            );
        }
        s += "</g>\n";
    }
    for (b, (x, y)) in g.centres.iter().enumerate() {
        let name = &shape.names[b];
        let bw = shape.graph.sizes[b].0;
        let visitors: Vec<(usize, usize)> = paths
            .iter()
            .enumerate()
            .filter_map(|(t, p)| {
                let n = p.iter().filter(|v| **v == b).count();
                (n > 0).then_some((t, n))
            })
            .collect();
        let fill = if visitors.is_empty() {
            "#fff"
        } else {
            "#fff6d6"
        };
        let class = if shape.header[b] {
            "block header"
        } else {
            "block"
        };
        let _ = write!(
            s,
            r##"<g class="{class}"><rect x="{:.1}" y="{:.1}" width="{bw:.1}" height="{BLOCK_H}" rx="5" fill="{fill}" stroke="#222" stroke-width="{}"/>"##,
            x - bw / 2.0,
            y - BLOCK_H / 2.0,
            if shape.header[b] { 2.6 } else { 1.0 }
        );
        let _ = write!(
            s,
            r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle" font-size="13" font-weight="{}">{}</text>"#,
            if visitors.is_empty() {
                y + 4.5
            } else {
                y - 3.0
            },
            if shape.header[b] { "bold" } else { "normal" },
            esc(name)
        );
        // Visit counts per thread, in the thread's colour.
        let total: f64 = visitors.len() as f64 * VISIT_W;
        for (i, (t, n)) in visitors.iter().enumerate() {
            let _ = write!(
                s,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="9.5" fill="{}">t{t}×{n}</text>"#,
                x - total / 2.0 + VISIT_W / 2.0 + i as f64 * VISIT_W,
                y + 12.0,
                colour(*t)
            );
        }
        s += "</g>\n";
    }
    s += "</svg>\n";
    s
}
