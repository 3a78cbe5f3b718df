//! Checks on a complete execution: D-CW and D-ORDER on the converged-with
//! relation the machine produced, and the *literal* reading of maximal
//! convergence (D-MAX, CU "Maximal Convergence": convergence-before closure
//! over complete traces), kept as the oracle for the operational keys of
//! D-MAX-ITER (STYLE 13; MC-02).

use std::collections::{HashMap, HashSet};

use rustc_hash::{FxHashMap, FxHashSet};

use super::launch::{Execution, VisitRef};
use super::program::Program;
use super::state::KeyId;

/// D-CW / D-INST / D-ORDER, checked on the two relations an execution
/// produces: the communicating sets of convergent calls (token rules
/// D-CTRL, D-LOOP, D-ENTRY-*, D-ANCHOR, or D-MAX-ITER for uncontrolled
/// calls), and the converged-with classes of block visits (D-MAX). Each
/// must relate instances of one static instruction in different threads,
/// and its graph of classes with program-order edges must be acyclic.
///
/// The two are checked separately on purpose: the block-visit relation is
/// D-MAX, which ignores tokens, and an anchor may legitimately converge
/// the calls of different loop iterations (D-ANCHOR) while D-MAX converges
/// the visits of the same iteration; combined, the two would form a cycle
/// that neither relation has on its own (found by MC-01 on generated
/// programs).
pub fn check_order(exec: &Execution) -> Result<(), String> {
    let visits: Vec<Vec<(KeyId, Static)>> = exec
        .threads
        .iter()
        .map(|th| {
            th.trace
                .iter()
                .map(|v| (v.key, Static::Block(v.func, v.block.0)))
                .collect()
        })
        .collect();
    check_relation(exec, &visits)?;
    let calls: Vec<Vec<(KeyId, Static)>> = exec
        .threads
        .iter()
        .map(|th| {
            th.events
                .iter()
                .map(|e| (e.key, Static::Call(e.loc)))
                .collect()
        })
        .collect();
    check_relation(exec, &calls)
}

/// The static instance of a dynamic one (D-INST, D-CW, D-ORDER): a block
/// (function, block index) or a call's location. Compared as values and
/// printed only in a contradiction's message (`block F:B`, `call Loc { .. }`), so that a
/// finished execution's check formats nothing (it formatted one string per
/// visit and per call, a tenth of the cost of the check).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Static {
    Block(usize, usize),
    Call(super::state::Loc),
}

impl std::fmt::Display for Static {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Static::Block(func, block) => write!(f, "block {func}:{block}"),
            Static::Call(loc) => write!(f, "call {loc:?}"),
        }
    }
}

fn check_relation(exec: &Execution, seqs: &[Vec<(KeyId, Static)>]) -> Result<(), String> {
    let mut static_of: FxHashMap<KeyId, Static> = FxHashMap::default();
    let mut succ: FxHashMap<KeyId, FxHashSet<KeyId>> = FxHashMap::default();
    let mut mine = FxHashSet::default();
    for (th, seq) in exec.threads.iter().zip(seqs) {
        mine.clear();
        for (k, what) in seq {
            if !mine.insert(*k) {
                return Err(format!(
                    "D-INST: thread {} has two converged instances of {what}",
                    th.tid
                ));
            }
            if let Some(prev) = static_of.insert(*k, *what) {
                if prev != *what {
                    return Err(format!("D-CW: {prev} converged with {what}"));
                }
            }
        }
        for w in seq.windows(2) {
            succ.entry(w[0].0).or_default().insert(w[1].0);
        }
    }
    // Kahn's algorithm: a leftover node lies on a cycle.
    let mut indeg: FxHashMap<KeyId, usize> = static_of.keys().map(|k| (*k, 0)).collect();
    for outs in succ.values() {
        for o in outs {
            *indeg.entry(*o).or_default() += 1;
        }
    }
    let mut ready: Vec<KeyId> = indeg
        .iter()
        .filter(|(_, d)| **d == 0)
        .map(|(k, _)| *k)
        .collect();
    let mut seen = 0;
    while let Some(k) = ready.pop() {
        seen += 1;
        for o in succ.get(&k).into_iter().flatten() {
            let d = indeg.get_mut(o).expect("every successor is a node");
            *d -= 1;
            if *d == 0 {
                ready.push(*o);
            }
        }
    }
    if seen < indeg.len() {
        let on_cycle: Vec<String> = indeg
            .iter()
            .filter(|(_, d)| **d > 0)
            .filter_map(|(k, _)| static_of.get(k))
            .take(4)
            .map(|s| s.to_string())
            .collect();
        return Err(format!(
            "D-ORDER: convergence-before has a cycle through {on_cycle:?}"
        ));
    }
    Ok(())
}

/// Union-find over visit indices.
struct Classes {
    parent: Vec<usize>,
}

impl Classes {
    fn find(&mut self, x: usize) -> usize {
        let mut r = x;
        while self.parent[r] != r {
            r = self.parent[r];
        }
        let mut y = x;
        while self.parent[y] != r {
            let next = self.parent[y];
            self.parent[y] = r;
            y = next;
        }
        r
    }
    fn union(&mut self, a: usize, b: usize) -> bool {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb {
            return false;
        }
        self.parent[ra.max(rb)] = ra.min(rb);
        true
    }
}

/// D-MAX, literally: the least relation closed under "X1 ~ X2 iff X is in
/// no cycle (same launch group), or for every cycle containing X with
/// header H, every instance of H before X1 in its thread is
/// convergence-before X2 and vice versa", with convergence-before computed
/// from the relation found so far (which never contains the pair being
/// decided: "without assuming X1 ~ X2").
///
/// Returns the classes as [`Execution::visit_classes`] does, or `None` when
/// the execution visits blocks of more than one function (the oracle covers
/// single-function traces).
pub fn literal_classes(prog: &Program, exec: &Execution) -> Option<Vec<Vec<VisitRef>>> {
    let mut visits: Vec<VisitRef> = Vec::new();
    let mut index: HashMap<VisitRef, usize> = HashMap::new();
    for (t, th) in exec.threads.iter().enumerate() {
        for (p, v) in th.trace.iter().enumerate() {
            if v.func != prog.kernel {
                return None;
            }
            index.insert((t, p), visits.len());
            visits.push((t, p));
        }
    }
    let info = prog.info(prog.kernel);
    let h = exec.hierarchy[prog.kernel];
    let block = |r: VisitRef| exec.threads[r.0].trace[r.1].block;
    let group = |r: VisitRef| exec.threads[r.0].group;
    let n = visits.len();
    let mut uf = Classes {
        parent: (0..n).collect(),
    };
    loop {
        // Convergence-before from the current classes: reachability along
        // program-order edges between classes, at least one edge.
        let roots: Vec<usize> = (0..n).map(|i| uf.find(i)).collect();
        let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (t, th) in exec.threads.iter().enumerate() {
            for p in 1..th.trace.len() {
                succ[roots[index[&(t, p - 1)]]].push(roots[index[&(t, p)]]);
            }
        }
        let reach: Vec<Vec<bool>> = (0..n)
            .map(|s| {
                let mut seen = vec![false; n];
                let mut stack = succ[s].clone();
                while let Some(x) = stack.pop() {
                    if !seen[x] {
                        seen[x] = true;
                        stack.extend(succ[x].iter().copied());
                    }
                }
                seen
            })
            .collect();
        let before = |a: usize, b: usize| reach[roots[a]][roots[b]];
        let mut changed = false;
        for i in 0..n {
            for j in (i + 1)..n {
                let (a, b) = (visits[i], visits[j]);
                if a.0 == b.0 || block(a) != block(b) || group(a) != group(b) {
                    continue;
                }
                if roots[i] == roots[j] {
                    continue;
                }
                let headers = &info.headers[h][block(a).0];
                let ok = headers.iter().all(|hb| {
                    let side = |x: VisitRef, y: usize| {
                        (0..x.1)
                            .filter(|q| exec.threads[x.0].trace[*q].block == *hb)
                            .all(|q| before(index[&(x.0, q)], y))
                    };
                    side(a, j) && side(b, i)
                });
                if ok && uf.union(i, j) {
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let mut classes: HashMap<usize, Vec<VisitRef>> = HashMap::new();
    for (i, v) in visits.iter().enumerate() {
        classes.entry(uf.find(i)).or_default().push(*v);
    }
    let mut out: Vec<Vec<VisitRef>> = classes.into_values().collect();
    for c in &mut out {
        c.sort();
    }
    out.sort();
    Some(out)
}

/// Convergence-before (CU "Convergence") between two block visits of an
/// execution, from the converged-with relation the machine produced: a
/// path of at least one program-order edge in the graph of classes.
pub fn convergence_before(exec: &Execution, a: VisitRef, b: VisitRef) -> bool {
    let mut class_of: HashMap<VisitRef, usize> = HashMap::new();
    for (i, c) in exec.visit_classes().iter().enumerate() {
        for v in c {
            class_of.insert(*v, i);
        }
    }
    let mut succ: HashMap<usize, Vec<usize>> = HashMap::new();
    for (t, th) in exec.threads.iter().enumerate() {
        for p in 1..th.trace.len() {
            succ.entry(class_of[&(t, p - 1)])
                .or_default()
                .push(class_of[&(t, p)]);
        }
    }
    let (Some(ca), Some(cb)) = (class_of.get(&a), class_of.get(&b)) else {
        return false;
    };
    let mut seen = HashSet::new();
    let mut stack: Vec<usize> = succ.get(ca).cloned().unwrap_or_default();
    while let Some(x) = stack.pop() {
        if x == *cb {
            return true;
        }
        if seen.insert(x) {
            stack.extend(succ.get(&x).into_iter().flatten().copied());
        }
    }
    false
}

/// D-HIER: the blocks whose converged-with relation differs between cycle
/// hierarchies, comparing executions with the same inputs and paths. A
/// block not listed is m-converged (its relation is the same in every
/// hierarchy) as far as the explored executions show. With one hierarchy
/// per function there is nothing to compare, and none is listed: the
/// relation of executions with the same inputs and paths can still differ
/// by other choices (in cl06-inline-entry.src, the callee's entry block
/// by the caller's anchor grouping), which is no difference between
/// hierarchies (the `--json` field listed it; the text never did). It
/// also spared comparing every behaviour, a fifth of
/// cl19-anchor-sink-all.src's `run --threads 4 --json --summary`.
pub fn not_m_converged(
    ex: &super::launch::Exploration,
) -> std::collections::BTreeSet<(usize, crate::ir::BlockId)> {
    use std::collections::BTreeSet;
    if ex.hierarchies.iter().all(|(_, n)| *n <= 1) {
        return BTreeSet::new();
    }
    type Rel = BTreeSet<(usize, crate::ir::BlockId, VisitRef, VisitRef)>;
    let mut by_paths: HashMap<String, Vec<Rel>> = HashMap::new();
    for b in &ex.behaviours {
        let e = &b.execution;
        let paths: Vec<Vec<(usize, crate::ir::BlockId)>> = e
            .threads
            .iter()
            .map(|t| t.trace.iter().map(|v| (v.func, v.block)).collect())
            .collect();
        let sig = format!("{:?}{paths:?}", e.inputs);
        let mut rel = Rel::new();
        for c in e.visit_classes() {
            for x in &c {
                for y in &c {
                    if x < y {
                        let v = &e.threads[x.0].trace[x.1];
                        rel.insert((v.func, v.block, *x, *y));
                    }
                }
            }
        }
        by_paths.entry(sig).or_default().push(rel);
    }
    let mut out = BTreeSet::new();
    for rels in by_paths.values() {
        for r in rels.iter().skip(1) {
            for d in r.symmetric_difference(&rels[0]) {
                out.insert((d.0, d.1));
            }
        }
    }
    out
}
