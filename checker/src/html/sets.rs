//! Who communicates, as a picture: for each convergent operation (a row),
//! its dynamic instances (D-INST) left to right, each drawn as a box
//! holding the threads of its communicating set (D-CW), as the tables of
//! ConvergenceAndUniformity group converged instances in one column. Each
//! member is a thread (a disc in its colour) with the name the text report
//! gives its instance (`H3`: the block visit as numbered in the table;
//! `#2`: the thread's convergent event 2, as in refine's report).

use std::fmt::Write;

use super::esc;
use super::svg::colour;

/// One dynamic instance of a convergent operation: its communicating set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instance {
    /// The static operation (`@subgroupAdd in %B`): one row per operation.
    pub op: String,
    /// Members: (thread, the instance's name in the text report).
    pub members: Vec<(usize, String)>,
    /// Position in its row (e.g. the column of the table).
    pub order: usize,
    /// Shown on hover (results, ...).
    pub note: String,
}

const R: f64 = 12.0;

/// The width a member takes.
fn slot(label: &str) -> f64 {
    (label.chars().count() as f64 * 6.0 + 10.0).max(2.0 * R + 6.0)
}

fn inst_width(i: &Instance) -> f64 {
    i.members.iter().map(|(_, l)| slot(l)).sum::<f64>() + 14.0
}

/// The picture of `instances` (any order; rows keep the order in which
/// operations first appear, instances within a row go by `order`). `None`
/// when there is nothing to draw.
pub fn sets_svg(instances: &[Instance]) -> Option<String> {
    if instances.is_empty() {
        return None;
    }
    let mut ops: Vec<&str> = Vec::new();
    for i in instances {
        if !ops.contains(&i.op.as_str()) {
            ops.push(&i.op);
        }
    }
    let label_w = ops
        .iter()
        .map(|o| o.chars().count() as f64 * 7.2 + 16.0)
        .fold(80.0, f64::max);
    let row_h = 2.0 * R + 34.0;
    let mut rows = Vec::new();
    let mut width: f64 = 0.0;
    for op in &ops {
        let mut row: Vec<&Instance> = instances.iter().filter(|i| i.op == *op).collect();
        row.sort_by_key(|i| (i.order, i.members.first().map(|m| m.0)));
        let w: f64 = row.iter().map(|i| inst_width(i) + 10.0).sum();
        width = width.max(label_w + w);
        rows.push(row);
    }
    let height = rows.len() as f64 * row_h + 10.0;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg class="sets" xmlns="http://www.w3.org/2000/svg" width="{:.0}" height="{height:.0}" viewBox="0 0 {:.0} {height:.0}" font-family="monospace">"#,
        width + 10.0,
        width + 10.0
    );
    for (r, (op, row)) in ops.iter().zip(&rows).enumerate() {
        let y = 6.0 + r as f64 * row_h;
        let _ = writeln!(
            s,
            r##"<text x="4" y="{:.1}" font-size="12" fill="#222">{}</text>"##,
            y + R + 10.0,
            esc(op)
        );
        let mut x = label_w;
        for inst in row {
            let w = inst_width(inst);
            let names: Vec<String> = inst
                .members
                .iter()
                .map(|(t, k)| format!("t{t} {k}"))
                .collect();
            let _ = write!(
                s,
                r##"<g class="commset"><title>{}: communicating set {{{}}}{}</title><rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{:.1}" rx="{:.1}" fill="#eef3fb" stroke="#4a6fa5"/>"##,
                esc(op),
                esc(&names.join(", ")),
                if inst.note.is_empty() {
                    String::new()
                } else {
                    format!("; {}", esc(&inst.note))
                },
                2.0 * R + 22.0,
                R + 4.0
            );
            let mut mx = x + 7.0;
            for (t, k) in &inst.members {
                let cx = mx + slot(k) / 2.0;
                mx += slot(k);
                let cy = y + R + 5.0;
                let _ = write!(
                    s,
                    r##"<circle class="member t{t}" cx="{cx:.1}" cy="{cy:.1}" r="{R}" fill="{}"/><text x="{cx:.1}" y="{:.1}" text-anchor="middle" font-size="10" fill="#fff">t{t}</text><text x="{cx:.1}" y="{:.1}" text-anchor="middle" font-size="9.5" fill="#333">{}</text>"##,
                    colour(*t),
                    cy + 3.5,
                    cy + R + 11.0,
                    esc(k)
                );
            }
            s += "</g>\n";
            x += w + 10.0;
        }
    }
    s += "</svg>\n";
    Some(s)
}

/// Instances of a refinement counterexample's convergent events: each
/// thread's `conv` list, sets named by (thread, ordinal among that thread's
/// convergent events) as the text report names them (`#2`; R-OBS). Events
/// without an observed set are left out.
pub fn from_cthreads(threads: &[crate::refine::obs::CThread]) -> Vec<Instance> {
    let mut out: Vec<Instance> = Vec::new();
    let mut seen: Vec<Vec<(usize, usize)>> = Vec::new();
    for th in threads {
        for e in &th.conv {
            let Some(set) = &e.set else { continue };
            let mut set = set.clone();
            set.sort();
            if seen.contains(&set) {
                continue;
            }
            out.push(Instance {
                op: format!("@{}", e.callee),
                members: set.iter().map(|(t, o)| (*t, format!("#{o}"))).collect(),
                order: set.iter().map(|m| m.1).min().unwrap_or(0),
                note: String::new(),
            });
            seen.push(set);
        }
    }
    out
}
