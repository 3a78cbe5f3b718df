//! Where the blocks, edges and cycles of a CFG picture go.
//!
//! Graphviz `dot` (layered layout with spline routing, the layout of
//! `opt -passes=dot-cfg` viewers) places the blocks when it is installed
//! (`scripts/setup.sh` installs it; `CONVCHECK_DOT=/path/to/dot` names
//! another binary, `CONVCHECK_DOT=none` forces the fallback). Without it, a
//! simple layered layout (layer = breadth-first distance from the entry)
//! with hand-routed curves is used, and the picture says so. Either way
//! the result is the same [`Geometry`]: every edge is a cubic Bézier path
//! ending at the border of its target, so that edges and the threads'
//! paths drawn along them (see `svg.rs`) look the same with both engines.
//! Cycles (the cycle hierarchy's nesting) are clusters: nested boxes.

use rustc_hash::FxHashSet as HashSet;
use std::io::Write;
use std::process::{Command, Stdio};

/// What to lay out: node sizes (points = SVG pixels), edges, clusters.
pub struct Graph {
    /// Per node: width and height.
    pub sizes: Vec<(f64, f64)>,
    pub edges: Vec<(usize, usize)>,
    /// Nested clusters: `parent` comes before its children.
    pub clusters: Vec<Cluster>,
}

/// A cluster: a cycle of the hierarchy, drawn as a box around its blocks.
pub struct Cluster {
    pub label: String,
    /// The nodes whose innermost cluster this is.
    pub own: Vec<usize>,
    pub parent: Option<usize>,
}

/// A laid-out edge: `points[0]` then groups of three (two control points
/// and an end point) of cubic Bézier segments; the arrow runs from the last
/// point to `tip`, on the target's border.
#[derive(Clone, Debug)]
pub struct Spline {
    pub points: Vec<(f64, f64)>,
    pub tip: (f64, f64),
}

/// Positions in SVG coordinates (y grows downwards).
pub struct Geometry {
    /// Per node: centre.
    pub centres: Vec<(f64, f64)>,
    pub edges: Vec<Spline>,
    /// Per cluster: x, y, width, height.
    pub clusters: Vec<(f64, f64, f64, f64)>,
    /// Per cluster: its label (as given in the [`Graph`]).
    pub cluster_labels: Vec<String>,
    pub width: f64,
    pub height: f64,
    /// Which engine placed the blocks, for the page.
    pub engine: String,
}

/// Lays `g` out with Graphviz when available, else with [`simple`].
pub fn layout(g: &Graph) -> Geometry {
    let dot = std::env::var("CONVCHECK_DOT").unwrap_or_else(|_| "dot".to_string());
    if dot == "none" {
        return simple(g, "simple layered layout (CONVCHECK_DOT=none)");
    }
    match graphviz(g, &dot) {
        Ok(geo) => geo,
        Err(why) => simple(
            g,
            &format!(
                "simple layered layout: Graphviz `dot` unavailable ({why}); \
                 install graphviz (scripts/setup.sh) for a better picture"
            ),
        ),
    }
}

fn inches(points: f64) -> f64 {
    points / 72.0
}

/// The input given to `dot`: nodes `n0..`, clusters `cluster_0..` nested
/// as the hierarchy nests, edges with ids `e0..` (to find them again).
pub fn dot_input(g: &Graph) -> String {
    let mut s = String::from(
        "digraph cfg {\n  graph [nodesep=0.55 ranksep=0.6 fontname=\"monospace\" fontsize=10 labeljust=l];\n  \
         node [shape=box fixedsize=true label=\"\"];\n",
    );
    fn cluster(g: &Graph, c: usize, depth: usize, s: &mut String) {
        let pad = "  ".repeat(depth + 1);
        s.push_str(&format!(
            "{pad}subgraph cluster_{c} {{\n{pad}  label={};\n",
            quote(&g.clusters[c].label)
        ));
        for n in &g.clusters[c].own {
            s.push_str(&format!("{pad}  n{n};\n"));
        }
        for (k, child) in g.clusters.iter().enumerate() {
            if child.parent == Some(c) {
                cluster(g, k, depth + 1, s);
            }
        }
        s.push_str(&format!("{pad}}}\n"));
    }
    for (c, cl) in g.clusters.iter().enumerate() {
        if cl.parent.is_none() {
            cluster(g, c, 0, &mut s);
        }
    }
    for (n, (w, h)) in g.sizes.iter().enumerate() {
        s.push_str(&format!(
            "  n{n} [width={:.3} height={:.3}];\n",
            inches(*w),
            inches(*h)
        ));
    }
    for (i, (a, b)) in g.edges.iter().enumerate() {
        s.push_str(&format!("  n{a} -> n{b} [id=e{i}];\n"));
    }
    s.push_str("}\n");
    s
}

/// A DOT string literal.
pub fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

fn point(s: &str) -> Option<(f64, f64)> {
    let (x, y) = s.split_once(',')?;
    Some((x.parse().ok()?, y.parse().ok()?))
}

/// Runs `dot -Tjson` and reads positions back (Graphviz's y axis points
/// up; ours points down).
fn graphviz(g: &Graph, dot: &str) -> Result<Geometry, String> {
    let mut child = Command::new(dot)
        .arg("-Tjson")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("`{dot}`: {e}"))?;
    let input = dot_input(g);
    {
        let mut stdin = child.stdin.take().ok_or("no stdin")?;
        stdin
            .write_all(input.as_bytes())
            .map_err(|e| format!("`{dot}`: {e}"))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("`{dot}`: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "`{dot}` failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("`{dot}` output: {e}"))?;
    let bad = |what: &str| format!("`{dot}` output lacks {what}");
    let bb: Vec<f64> = v["bb"]
        .as_str()
        .ok_or_else(|| bad("bb"))?
        .split(',')
        .filter_map(|x| x.parse().ok())
        .collect();
    let [_, _, bw, bh] = bb[..] else {
        return Err(bad("a bounding box"));
    };
    let flip = |(x, y): (f64, f64)| (x, bh - y);
    let mut centres = vec![(0.0, 0.0); g.sizes.len()];
    let mut clusters = vec![(0.0, 0.0, 0.0, 0.0); g.clusters.len()];
    for o in v["objects"].as_array().ok_or_else(|| bad("objects"))? {
        let name = o["name"].as_str().unwrap_or("");
        if let Some(c) = name.strip_prefix("cluster_") {
            let c: usize = c.parse().map_err(|_| bad("cluster names"))?;
            let r: Vec<f64> = o["bb"]
                .as_str()
                .unwrap_or("")
                .split(',')
                .filter_map(|x| x.parse().ok())
                .collect();
            if let ([x0, y0, x1, y1], Some(slot)) = (&r[..], clusters.get_mut(c)) {
                *slot = (*x0, bh - y1, x1 - x0, y1 - y0);
            }
        } else if let Some(n) = name.strip_prefix('n') {
            let n: usize = n.parse().map_err(|_| bad("node names"))?;
            let p = o["pos"]
                .as_str()
                .and_then(point)
                .ok_or_else(|| bad("pos"))?;
            if let Some(slot) = centres.get_mut(n) {
                *slot = flip(p);
            }
        }
    }
    let mut edges: Vec<Option<Spline>> = vec![None; g.edges.len()];
    for e in v["edges"].as_array().ok_or_else(|| bad("edges"))? {
        let id: usize = e["id"]
            .as_str()
            .and_then(|s| s.strip_prefix('e'))
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| bad("edge ids"))?;
        let pos = e["pos"].as_str().ok_or_else(|| bad("edge pos"))?;
        let mut tip = None;
        let mut points = Vec::new();
        for tok in pos.split_whitespace() {
            if let Some(t) = tok.strip_prefix("e,") {
                tip = point(t).map(flip);
            } else if tok.starts_with("s,") {
                continue;
            } else if let Some(p) = point(tok) {
                points.push(flip(p));
            }
        }
        let last = *points.last().ok_or_else(|| bad("edge points"))?;
        if let Some(slot) = edges.get_mut(id) {
            *slot = Some(Spline {
                points,
                tip: tip.unwrap_or(last),
            });
        }
    }
    let edges = edges
        .into_iter()
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| bad("some edges"))?;
    let version = Command::new(dot)
        .arg("-V")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stderr).trim().to_string())
        .unwrap_or_default();
    Ok(Geometry {
        centres,
        edges,
        clusters,
        cluster_labels: g.clusters.iter().map(|c| c.label.clone()).collect(),
        width: bw,
        height: bh,
        engine: if version.is_empty() {
            "Graphviz dot".into()
        } else {
            version
        },
    })
}

impl Spline {
    /// A point halfway along the middle cubic segment (for labels).
    pub fn midpoint(&self) -> (f64, f64) {
        let segs = (self.points.len().saturating_sub(1)) / 3;
        if segs == 0 {
            return self.tip;
        }
        let k = 3 * (segs / 2);
        let p = &self.points[k..k + 4];
        // Cubic Bézier at t = 1/2.
        (
            (p[0].0 + 3.0 * p[1].0 + 3.0 * p[2].0 + p[3].0) / 8.0,
            (p[0].1 + 3.0 * p[1].1 + 3.0 * p[2].1 + p[3].1) / 8.0,
        )
    }
}

/// A straight cubic segment from `a` to `b`.
fn straight(a: (f64, f64), b: (f64, f64)) -> Vec<(f64, f64)> {
    let lerp = |t: f64| (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t);
    vec![a, lerp(1.0 / 3.0), lerp(2.0 / 3.0), b]
}

/// Layers for the fallback: the edges a depth-first search from node 0
/// (then from every node not yet reached) finds closing a cycle are set
/// aside, and every other edge goes at least one layer down (longest path
/// over what remains, which is acyclic). So an ordinary edge never joins two
/// blocks of one row.
fn layers_of(g: &Graph) -> Vec<usize> {
    let n = g.sizes.len();
    let mut succs = vec![Vec::new(); n];
    for (a, b) in &g.edges {
        succs[*a].push(*b);
    }
    // 0 unseen, 1 on the stack, 2 done.
    let mut state = vec![0u8; n];
    let mut back = HashSet::default();
    let mut post = Vec::with_capacity(n);
    for root in 0..n {
        if state[root] != 0 {
            continue;
        }
        state[root] = 1;
        let mut stack = vec![(root, 0usize)];
        while let Some((b, i)) = stack.pop() {
            if let Some(&s) = succs[b].get(i) {
                stack.push((b, i + 1));
                match state[s] {
                    0 => {
                        state[s] = 1;
                        stack.push((s, 0));
                    }
                    1 => {
                        back.insert((b, s));
                    }
                    _ => {}
                }
            } else {
                state[b] = 2;
                post.push(b);
            }
        }
    }
    let mut layer = vec![0usize; n];
    // Reverse postorder is a topological order of the remaining edges.
    for &b in post.iter().rev() {
        for &s in &succs[b] {
            if !back.contains(&(b, s)) {
                layer[s] = layer[s].max(layer[b] + 1);
            }
        }
    }
    layer
}

/// The fallback layout: layers from [`layers_of`], blocks centred in their
/// layer; forward edges are straight lines from
/// the bottom of one box to the top of the other, edges within a layer arc
/// above it, back edges curve around the right-hand side, self-loops are a
/// loop on the right of their block.
pub fn simple(g: &Graph, engine: &str) -> Geometry {
    let n = g.sizes.len();
    let layer = layers_of(g);
    let layers = layer.iter().max().map_or(1, |m| m + 1);
    let (gap_x, gap_y, margin) = (40.0, 60.0, 20.0);
    let mut row_w = vec![0.0f64; layers];
    let mut row_h = vec![0.0f64; layers];
    for b in 0..n {
        row_w[layer[b]] += g.sizes[b].0 + gap_x;
        row_h[layer[b]] = row_h[layer[b]].max(g.sizes[b].1);
    }
    let wmax = row_w.iter().copied().fold(0.0, f64::max);
    // Room on the right for back edges and self-loops.
    let width = wmax + 2.0 * margin + 120.0;
    let mut y_of = vec![0.0; layers];
    // Room above the first row for the labels of nested cycles.
    let mut y = margin + 16.0 * (g.clusters.len().min(3) as f64);
    for l in 0..layers {
        y_of[l] = y + row_h[l] / 2.0;
        y += row_h[l] + gap_y;
    }
    // Room on the left for edges that skip rows.
    let mut x_next: Vec<f64> = row_w
        .iter()
        .map(|w| margin + 40.0 + (wmax - w) / 2.0)
        .collect();
    let mut centres = vec![(0.0, 0.0); n];
    for b in 0..n {
        let l = layer[b];
        centres[b] = (x_next[l] + g.sizes[b].0 / 2.0, y_of[l]);
        x_next[l] += g.sizes[b].0 + gap_x;
    }
    let right = margin + 40.0 + wmax + 20.0;
    let edges = g
        .edges
        .iter()
        .enumerate()
        .map(|(i, &(a, b))| {
            let (ca, cb) = (centres[a], centres[b]);
            let (ha, hb) = (g.sizes[a].1 / 2.0, g.sizes[b].1 / 2.0);
            let (wa, wb) = (g.sizes[a].0 / 2.0, g.sizes[b].0 / 2.0);
            let spread = (i % 4) as f64 * 6.0;
            if a == b {
                let (x, y) = (ca.0 + wa, ca.1);
                let r = 22.0 + spread;
                Spline {
                    points: vec![
                        (x, y - 6.0),
                        (x + r, y - 18.0),
                        (x + r, y + 18.0),
                        (x + 8.0, y + 7.0),
                    ],
                    tip: (x, y + 6.0),
                }
            } else if layer[b] > layer[a] + 1 {
                // Around the blocks of the rows in between, on the left.
                let between = (0..n).filter(|&x| layer[x] > layer[a] && layer[x] < layer[b]);
                let left = between
                    .map(|x| centres[x].0 - g.sizes[x].0 / 2.0)
                    .fold(ca.0.min(cb.0) - wa.max(wb), f64::min)
                    - 16.0
                    - spread;
                let (y0, y1) = (ca.1 + ha, cb.1 - hb - 8.0);
                let mid = (y0 + y1) / 2.0;
                Spline {
                    points: vec![
                        (ca.0, y0),
                        (ca.0, y0 + 30.0),
                        (left, y0 + 20.0),
                        (left, mid),
                        (left, y1 - 20.0),
                        (cb.0, y1 - 30.0),
                        (cb.0, y1),
                    ],
                    tip: (cb.0, cb.1 - hb),
                }
            } else if layer[b] > layer[a] {
                let p = straight((ca.0, ca.1 + ha), (cb.0, cb.1 - hb - 8.0));
                Spline {
                    points: p,
                    tip: (cb.0, cb.1 - hb),
                }
            } else if layer[b] == layer[a] {
                let top = ca.1 - ha - 30.0 - spread;
                Spline {
                    points: vec![
                        (ca.0, ca.1 - ha),
                        (ca.0, top),
                        (cb.0, top),
                        (cb.0, cb.1 - hb - 8.0),
                    ],
                    tip: (cb.0, cb.1 - hb),
                }
            } else {
                let x = right + 20.0 + spread;
                Spline {
                    points: vec![
                        (ca.0 + wa, ca.1),
                        (x, ca.1),
                        (x, cb.1),
                        (cb.0 + wb + 8.0, cb.1),
                    ],
                    tip: (cb.0 + wb, cb.1),
                }
            }
        })
        .collect();
    // Clusters: the bounding boxes of their blocks (children included).
    let mut members: Vec<Vec<usize>> = g.clusters.iter().map(|c| c.own.clone()).collect();
    for c in (0..g.clusters.len()).rev() {
        if let Some(p) = g.clusters[c].parent {
            let inner = members[c].clone();
            members[p].extend(inner);
        }
    }
    // Levels of cycles nested inside each cluster: outer boxes get more
    // room, so that nested boxes and their labels do not touch.
    let mut inner = vec![0usize; g.clusters.len()];
    for c in (0..g.clusters.len()).rev() {
        if let Some(p) = g.clusters[c].parent {
            inner[p] = inner[p].max(inner[c] + 1);
        }
    }
    let clusters = members
        .iter()
        .enumerate()
        .map(|(c, m)| {
            let pad = 10.0 + 10.0 * inner[c] as f64;
            let top = 16.0 * (inner[c] + 1) as f64 + 4.0;
            let x0 = m
                .iter()
                .map(|b| centres[*b].0 - g.sizes[*b].0 / 2.0)
                .fold(f64::MAX, f64::min);
            let x1 = m
                .iter()
                .map(|b| centres[*b].0 + g.sizes[*b].0 / 2.0)
                .fold(f64::MIN, f64::max);
            let y0 = m
                .iter()
                .map(|b| centres[*b].1 - g.sizes[*b].1 / 2.0)
                .fold(f64::MAX, f64::min);
            let y1 = m
                .iter()
                .map(|b| centres[*b].1 + g.sizes[*b].1 / 2.0)
                .fold(f64::MIN, f64::max);
            (x0 - pad, y0 - top, x1 - x0 + 2.0 * pad, y1 - y0 + top + pad)
        })
        .collect();
    Geometry {
        centres,
        edges,
        clusters,
        cluster_labels: g.clusters.iter().map(|c| c.label.clone()).collect(),
        width: width + 40.0,
        height: y - gap_y + margin + 20.0,
        engine: engine.to_string(),
    }
}
