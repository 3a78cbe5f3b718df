//! `--dot FILE`: the CFG as Graphviz DOT, annotated, for people who read
//! `opt -passes=dot-cfg` output: one node per block (its name and each
//! thread's visits), back edges in orange and labelled, cycles of LLVM's
//! cycle hierarchy as clusters naming their header (headers drawn with a
//! double border), and each edge labelled with the threads that took it and
//! how often.

use std::collections::BTreeMap;
use std::fmt::Write;

use semantics::ir::Function;

use super::layout::{quote, Cluster};
use super::svg::{colour, shape};

/// One `digraph` for `func` with `paths` (per thread, blocks in visit
/// order), titled `title`.
pub fn annotated(func: &Function, paths: &[Vec<usize>], title: &str) -> String {
    let sh = shape(func, paths.len());
    let mut s = String::new();
    let _ = writeln!(
        s,
        "digraph {} {{\n  label={};\n  labelloc=t;\n  node [shape=box fontname=\"monospace\"];\n  edge [fontname=\"monospace\" fontsize=10];",
        quote(&format!("CFG for '{}' function", func.name)),
        quote(title)
    );
    // Clusters, nested as the hierarchy nests.
    let cl = &sh.graph.clusters;
    fn emit(c: usize, depth: usize, cl: &[Cluster], s: &mut String) {
        let pad = "  ".repeat(depth + 1);
        let _ = writeln!(
            s,
            "{pad}subgraph cluster_{c} {{\n{pad}  label={};\n{pad}  style=dashed; color=\"#c25e00\";",
            quote(&cl[c].label)
        );
        for b in &cl[c].own {
            let _ = writeln!(s, "{pad}  b{b};");
        }
        for (k, child) in cl.iter().enumerate() {
            if child.parent == Some(c) {
                emit(k, depth + 1, cl, s);
            }
        }
        let _ = writeln!(s, "{pad}}}");
    }
    for (c, x) in cl.iter().enumerate() {
        if x.parent.is_none() {
            emit(c, 0, cl, &mut s);
        }
    }
    for (b, name) in sh.names.iter().enumerate() {
        let visits: Vec<String> = paths
            .iter()
            .enumerate()
            .filter_map(|(t, p)| {
                let n = p.iter().filter(|v| **v == b).count();
                (n > 0).then(|| format!("t{t}x{n}"))
            })
            .collect();
        let label = if visits.is_empty() {
            name.clone()
        } else {
            format!("{name}\n{}", visits.join(" "))
        };
        let _ = writeln!(
            s,
            "  b{b} [label={}{}];",
            quote(&label),
            if sh.header[b] { " peripheries=2" } else { "" }
        );
    }
    for (i, &(a, b)) in sh.edges.iter().enumerate() {
        let mut by: BTreeMap<usize, usize> = BTreeMap::new();
        for (t, p) in paths.iter().enumerate() {
            let n = p.windows(2).filter(|w| (w[0], w[1]) == (a, b)).count();
            if n > 0 {
                by.insert(t, n);
            }
        }
        let mut attrs = Vec::new();
        let mut label: Vec<String> = by.iter().map(|(t, n)| format!("t{t}x{n}")).collect();
        if sh.back[i] {
            label.insert(
                0,
                if a == b {
                    "self-loop".into()
                } else {
                    "back".into()
                },
            );
            attrs.push("color=\"#c25e00\" fontcolor=\"#c25e00\"".to_string());
        } else if let Some((t, _)) = by.iter().next() {
            attrs.push(format!("color={}", quote(colour(*t))));
        }
        if !label.is_empty() {
            attrs.push(format!("label={}", quote(&label.join(" "))));
        }
        let _ = writeln!(s, "  b{a} -> b{b} [{}];", attrs.join(" "));
    }
    s += "}\n";
    s
}
