//! Random control-flow graphs rendered as LLVM IR functions.
//!
//! A [`GenCfg`] is a list of blocks `b0..bN` (block 0 the entry) that hold
//! nothing but a terminator. Branch conditions are function arguments
//! (`i1 %cK` for `br`, `i32 %sK` for `switch`), so a thread's path is fixed by
//! its inputs, which is what the interpreter tests need.
//!
//! Strategies, all deterministic functions of proptest's RNG, and built from
//! [`proptest::sample::Index`] choices so that shrinking drops blocks and
//! moves targets towards lower blocks without ever producing an invalid
//! graph:
//! - [`arb_cfg`]: anything (self loops, irreducible regions, unreachable
//!   blocks, duplicate successors, switches);
//! - [`arb_reducible_cfg`]: reducible by construction (see there);
//! - [`arb_irreducible_cfg`]: at least one irreducible cycle, by construction.
//!
//! The promises are checked by property tests against
//! [`crate::graph::is_reducible`], which shares no code with the generators.

use std::fmt::Write;

use proptest::collection::vec;
use proptest::prelude::{any, prop_oneof, Just, Strategy};
use proptest::sample::Index;

use crate::graph::{reachable, DomSets};

/// The terminator of one generated block. Block indices refer to
/// [`GenCfg::blocks`]; `cond` indexes the function's `i1` arguments for
/// `CondBr` and its `i32` arguments for `Switch`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum GenTerm {
    Ret,
    Unreachable,
    Br(usize),
    CondBr {
        cond: usize,
        t: usize,
        f: usize,
    },
    /// Case `k` compares against the value `k` (distinct by construction).
    Switch {
        cond: usize,
        default: usize,
        cases: Vec<usize>,
    },
}

impl GenTerm {
    /// Successors in LLVM's order (`br`: true then false; `switch`: default
    /// then cases), duplicates kept.
    pub fn succs(&self) -> Vec<usize> {
        match self {
            GenTerm::Ret | GenTerm::Unreachable => Vec::new(),
            GenTerm::Br(t) => vec![*t],
            GenTerm::CondBr { t, f, .. } => vec![*t, *f],
            GenTerm::Switch { default, cases, .. } => {
                let mut v = vec![*default];
                v.extend(cases.iter().copied());
                v
            }
        }
    }

    /// The terminator as one line of LLVM IR (no indentation).
    pub fn to_ll(&self) -> String {
        self.to_ll_cond(None)
    }

    /// As [`GenTerm::to_ll`], with the branch condition taken from the
    /// local value `%{cond_value}` instead of an argument when given.
    pub fn to_ll_cond(&self, cond_value: Option<&str>) -> String {
        match self {
            GenTerm::Ret => "ret void".to_string(),
            GenTerm::Unreachable => "unreachable".to_string(),
            GenTerm::Br(t) => format!("br label %b{t}"),
            GenTerm::CondBr { cond, t, f } => {
                let c = cond_value.map_or(format!("c{cond}"), str::to_string);
                format!("br i1 %{c}, label %b{t}, label %b{f}")
            }
            GenTerm::Switch {
                cond,
                default,
                cases,
            } => {
                let c = cond_value.map_or(format!("s{cond}"), str::to_string);
                let mut s = format!("switch i32 %{c}, label %b{default} [");
                for (k, c) in cases.iter().enumerate() {
                    let _ = write!(s, " i32 {k}, label %b{c}");
                }
                s.push_str(" ]");
                s
            }
        }
    }
}

/// Where branch conditions come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CondSource {
    /// The function's arguments `%cK` / `%sK`: fixed per thread, so a loop
    /// either exits on its first test or never does.
    Args,
    /// A fresh value per executed branch, `%bN.cond = call i1 @input.i1()`
    /// (or `i32 @input.i32()` for switches): calls of unknown functions read
    /// the thread's input stream (P-INPUT), so loops run for any number of
    /// iterations the chooser picks. Needs [`CondSource::DECLARATIONS`].
    Stream,
}

impl CondSource {
    /// Declarations the `Stream` form needs (harmless for `Args`).
    pub const DECLARATIONS: &'static str = "declare i1 @input.i1()\ndeclare i32 @input.i32()\n";
}

/// A generated CFG: block `i` is named `b{i}`, block 0 is the entry.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GenCfg {
    pub blocks: Vec<GenTerm>,
    /// Number of `i1` arguments `%c0..`; every `CondBr::cond` is below it.
    pub num_i1: usize,
    /// Number of `i32` arguments `%s0..`; every `Switch::cond` is below it.
    pub num_i32: usize,
}

impl GenCfg {
    /// Successor lists in LLVM order, duplicates kept.
    pub fn succs(&self) -> Vec<Vec<usize>> {
        self.blocks.iter().map(GenTerm::succs).collect()
    }

    /// Checks the structural invariants every strategy promises: at least
    /// one block, targets in range, no edge into the entry block (LLVM
    /// rejects predecessors of the entry), conditions in range.
    pub fn validate(&self) -> Result<(), String> {
        let n = self.blocks.len();
        if n == 0 {
            return Err("no blocks".into());
        }
        for (b, t) in self.blocks.iter().enumerate() {
            for s in t.succs() {
                if s == 0 || s >= n {
                    return Err(format!("b{b}: bad successor {s}"));
                }
            }
            match t {
                GenTerm::CondBr { cond, .. } if *cond >= self.num_i1 => {
                    return Err(format!("b{b}: i1 argument {cond} out of range"));
                }
                GenTerm::Switch { cond, .. } if *cond >= self.num_i32 => {
                    return Err(format!("b{b}: i32 argument {cond} out of range"));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The parameter list `i1 %c0, ..., i32 %s0, ...` (without parentheses).
    pub fn params_ll(&self) -> String {
        let mut ps: Vec<String> = (0..self.num_i1).map(|k| format!("i1 %c{k}")).collect();
        ps.extend((0..self.num_i32).map(|k| format!("i32 %s{k}")));
        ps.join(", ")
    }

    /// `define void @fn_name(params) {fn_attrs} { ... }` with `body(b)`'s
    /// lines placed before block `b`'s terminator. The hook that token
    /// programs use to put instructions into the blocks.
    pub fn to_ll_with(
        &self,
        fn_name: &str,
        fn_attrs: &str,
        body: &dyn Fn(usize) -> Vec<String>,
    ) -> String {
        self.to_ll_full(fn_name, fn_attrs, CondSource::Args, body)
    }

    /// [`GenCfg::to_ll_with`] with a choice of where conditions come from.
    pub fn to_ll_full(
        &self,
        fn_name: &str,
        fn_attrs: &str,
        conds: CondSource,
        body: &dyn Fn(usize) -> Vec<String>,
    ) -> String {
        let mut s = String::new();
        let attrs = if fn_attrs.is_empty() {
            String::new()
        } else {
            format!(" {fn_attrs}")
        };
        let _ = writeln!(s, "define void @{fn_name}({}){attrs} {{", self.params_ll());
        for (b, t) in self.blocks.iter().enumerate() {
            let _ = writeln!(s, "b{b}:");
            for line in body(b) {
                let _ = writeln!(s, "  {line}");
            }
            let cond = match (conds, t) {
                (CondSource::Stream, GenTerm::CondBr { .. }) => {
                    let _ = writeln!(s, "  %b{b}.cond = call i1 @input.i1()");
                    Some(format!("b{b}.cond"))
                }
                (CondSource::Stream, GenTerm::Switch { .. }) => {
                    let _ = writeln!(s, "  %b{b}.cond = call i32 @input.i32()");
                    Some(format!("b{b}.cond"))
                }
                _ => None,
            };
            let _ = writeln!(s, "  {}", t.to_ll_cond(cond.as_deref()));
        }
        s.push_str("}\n");
        s
    }

    /// The function alone, blocks `b0..bN` in index order.
    pub fn to_ll(&self, fn_name: &str) -> String {
        self.to_ll_with(fn_name, "", &|_| Vec::new())
    }

    /// One module with the CFGs as functions `@f0, @f1, ...` (batching many
    /// functions per `opt` run keeps the oracle tests fast).
    pub fn to_module_ll(cfgs: &[GenCfg]) -> String {
        cfgs.iter()
            .enumerate()
            .map(|(i, c)| c.to_ll(&format!("f{i}")))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// A whole module with this one function, conditions from `conds`.
    pub fn to_module_ll_with_conds(&self, fn_name: &str, conds: CondSource) -> String {
        format!(
            "{}\n{}",
            CondSource::DECLARATIONS,
            self.to_ll_full(fn_name, "", conds, &|_| Vec::new())
        )
    }
}

/// Terminator choice before the number of blocks is known: targets are
/// [`Index`]es resolved against the final block count, which keeps every
/// shrunk value valid.
#[derive(Clone, Debug)]
enum RawTerm {
    Ret,
    Unreachable,
    Br(Index),
    CondBr(Index, Index, Index),
    Switch(Index, Index, Vec<Index>),
}

fn raw_term() -> impl Strategy<Value = RawTerm> {
    prop_oneof![
        2 => Just(RawTerm::Ret),
        1 => Just(RawTerm::Unreachable),
        3 => any::<Index>().prop_map(RawTerm::Br),
        5 => (any::<Index>(), any::<Index>(), any::<Index>())
            .prop_map(|(c, t, f)| RawTerm::CondBr(c, t, f)),
        2 => (any::<Index>(), any::<Index>(), vec(any::<Index>(), 0..=3))
            .prop_map(|(c, d, cs)| RawTerm::Switch(c, d, cs)),
    ]
}

fn arg_counts() -> impl Strategy<Value = (usize, usize)> {
    (1usize..=3, 1usize..=2)
}

/// Any CFG with `1..=max_blocks` blocks: every non-entry block is a possible
/// target of every edge, so self loops, irreducible regions, unreachable
/// blocks and duplicate successors all occur (measured by the `cfg_mix`
/// test). The entry block never has predecessors (LLVM requires it).
pub fn arb_cfg(max_blocks: usize) -> impl Strategy<Value = GenCfg> {
    assert!(max_blocks >= 1, "arb_cfg needs max_blocks >= 1");
    (vec(raw_term(), 1..=max_blocks), arg_counts()).prop_map(|(raw, (num_i1, num_i32))| {
        let n = raw.len();
        // Targets are blocks 1..n; with one block there is nowhere to go.
        let tgt = |i: &Index| 1 + i.index(n - 1);
        let blocks = raw
            .iter()
            .map(|r| match r {
                _ if n == 1 => GenTerm::Ret,
                RawTerm::Ret => GenTerm::Ret,
                RawTerm::Unreachable => GenTerm::Unreachable,
                RawTerm::Br(t) => GenTerm::Br(tgt(t)),
                RawTerm::CondBr(c, t, f) => GenTerm::CondBr {
                    cond: c.index(num_i1),
                    t: tgt(t),
                    f: tgt(f),
                },
                RawTerm::Switch(c, d, cs) => GenTerm::Switch {
                    cond: c.index(num_i32),
                    default: tgt(d),
                    cases: cs.iter().map(tgt).collect(),
                },
            })
            .collect();
        GenCfg {
            blocks,
            num_i1,
            num_i32,
        }
    })
}

/// One successor slot of a block in the reducible construction: a forward
/// edge to a later block, a back edge to a strict dominator of the block, or
/// a self loop.
#[derive(Clone, Debug)]
struct RawEdge {
    kind: EdgeKind,
    target: Index,
}

#[derive(Clone, Copy, Debug)]
enum EdgeKind {
    Forward,
    Back,
    SelfLoop,
}

fn raw_edge() -> impl Strategy<Value = RawEdge> {
    // Forward first so that shrinking heads for loop-free graphs; about a
    // quarter of the slots are back edges, so loops (nested, multi-latch,
    // multi-exit) are common.
    let kind = prop_oneof![
        12 => Just(EdgeKind::Forward),
        7 => Just(EdgeKind::Back),
        1 => Just(EdgeKind::SelfLoop),
    ];
    (kind, any::<Index>()).prop_map(|(kind, target)| RawEdge { kind, target })
}

/// Picks a forward target after block `i` for a first successor slot: about
/// three times in four the first later block that no reachable block
/// targets yet (so most blocks end up reachable and chains form: sequences,
/// loop bodies), else uniformly among the later blocks.
fn pick_forward(idx: &Index, i: usize, n: usize, has_pred: &[bool]) -> usize {
    let fwd = n - i - 1;
    let r = idx.index(4 * fwd);
    match (i + 1..n).find(|&b| !has_pred[b]) {
        Some(b) if r < 3 * fwd => b,
        _ => i + 1 + r % fwd,
    }
}

#[derive(Clone, Debug)]
enum RawShape {
    Ret,
    Unreachable,
    Br(RawEdge),
    CondBr(Index, RawEdge, RawEdge),
    Switch(Index, RawEdge, Vec<RawEdge>),
}

fn raw_shape() -> impl Strategy<Value = RawShape> {
    prop_oneof![
        1 => Just(RawShape::Ret),
        1 => Just(RawShape::Unreachable),
        4 => raw_edge().prop_map(RawShape::Br),
        6 => (any::<Index>(), raw_edge(), raw_edge()).prop_map(|(c, t, f)| RawShape::CondBr(c, t, f)),
        2 => (any::<Index>(), raw_edge(), vec(raw_edge(), 0..=3))
            .prop_map(|(c, d, cs)| RawShape::Switch(c, d, cs)),
    ]
}

/// Reducible CFGs, built in reverse postorder: every edge either goes
/// forward to a later block or back to a dominator of its source (a self
/// loop included). Dominators are computed from the forward edges chosen so
/// far; a back edge to a dominator never changes dominance (every path that
/// uses it has already passed its head), so removing the back edges leaves
/// the forward DAG and the graph is reducible. Conversely every reducible
/// CFG arises this way (number it in reverse postorder), so sequences,
/// if/else diamonds, switches, loops with several exits and latches and
/// nested loops are all in range. Unreachable blocks get forward edges and
/// self loops only (they have no dominators).
pub fn arb_reducible_cfg(max_blocks: usize) -> impl Strategy<Value = GenCfg> {
    assert!(max_blocks >= 1, "arb_reducible_cfg needs max_blocks >= 1");
    // The sum of two uniform lengths: mid-sized graphs (loops need room) are
    // more likely than with one uniform length, and shrinking still removes
    // blocks one by one down to a single block.
    let half = max_blocks.div_ceil(2);
    let rest = max_blocks - half;
    (
        vec(raw_shape(), 1..=half),
        vec(raw_shape(), 0..=rest),
        arg_counts(),
    )
        .prop_map(|(mut raw, more, (num_i1, num_i32))| {
            raw.extend(more);
            build_reducible(&raw, num_i1, num_i32)
        })
}

fn build_reducible(raw: &[RawShape], num_i1: usize, num_i32: usize) -> GenCfg {
    let n = raw.len();
    let mut blocks: Vec<GenTerm> = vec![GenTerm::Ret; n];
    for (i, shape) in raw.iter().enumerate() {
        // Dominance of block i depends only on the forward edges of blocks
        // before it, all of which are final by now.
        let partial: Vec<Vec<usize>> = blocks[..i]
            .iter()
            .map(GenTerm::succs)
            .chain((i..n).map(|_| Vec::new()))
            .collect();
        let dom = DomSets::new(&partial);
        let mut has_pred = vec![false; n];
        for (j, ss) in partial.iter().enumerate() {
            if dom.is_reachable(j) {
                for &t in ss {
                    has_pred[t] = true;
                }
            }
        }
        let back_targets: Vec<usize> = if dom.is_reachable(i) {
            dom.dominators_of(i)
                .into_iter()
                .filter(|&d| d != 0 && d != i)
                .collect()
        } else {
            Vec::new()
        };
        let fwd = n - i - 1;
        // Fallbacks keep the block's out-degree: no later block -> a back edge
        // (a latch) or a self loop; the entry never gets a self loop.
        // The first slot prefers an untargeted block (see `pick_forward`); the
        // others spread uniformly, so two-way branches usually differ.
        let resolve = |slot: usize, e: &RawEdge| -> Option<usize> {
            let back = || back_targets[e.target.index(back_targets.len())];
            match e.kind {
                EdgeKind::Back if !back_targets.is_empty() => Some(back()),
                EdgeKind::SelfLoop if i != 0 => Some(i),
                _ if fwd > 0 && slot == 0 => Some(pick_forward(&e.target, i, n, &has_pred)),
                _ if fwd > 0 => Some(i + 1 + e.target.index(fwd)),
                _ if !back_targets.is_empty() => Some(back()),
                _ if i != 0 => Some(i),
                _ => None,
            }
        };
        blocks[i] = match shape {
            // An entry that returns would leave every other block dead.
            RawShape::Ret | RawShape::Unreachable if i == 0 && n > 1 => GenTerm::Br(1),
            RawShape::Ret => GenTerm::Ret,
            RawShape::Unreachable => GenTerm::Unreachable,
            RawShape::Br(e) => resolve(0, e).map_or(GenTerm::Ret, GenTerm::Br),
            RawShape::CondBr(c, t, f) => match (resolve(0, t), resolve(1, f)) {
                (Some(t), Some(f)) => GenTerm::CondBr {
                    cond: c.index(num_i1),
                    t,
                    f,
                },
                (Some(x), None) | (None, Some(x)) => GenTerm::Br(x),
                (None, None) => GenTerm::Ret,
            },
            RawShape::Switch(c, d, cs) => match resolve(0, d) {
                Some(default) => GenTerm::Switch {
                    cond: c.index(num_i32),
                    default,
                    cases: cs
                        .iter()
                        .enumerate()
                        .filter_map(|(k, e)| resolve(k + 1, e))
                        .collect(),
                },
                None => GenTerm::Ret,
            },
        };
    }
    GenCfg {
        blocks,
        num_i1,
        num_i32,
    }
}

/// Where to plant the two-entry cycle of [`arb_irreducible_cfg`].
#[derive(Clone, Debug)]
struct Plant {
    at: Index,
    x: Index,
    y: Index,
}

/// CFGs with at least one irreducible cycle. A base graph (reducible or
/// arbitrary, 3 or more blocks) gets a planted two-entry cycle: a reachable
/// block `a` branches to `x` and `y`, and `x` and `y` branch to each other.
/// If neither of `x`, `y` dominates the other, the cycle `x -> y -> x` holds a
/// retreating edge (every cycle does, for any DFS) whose head does not
/// dominate its tail, so the graph is irreducible. The planting is checked
/// after the fact; when it fails (a path to `a` went through `x` or `y`) it
/// is redone at the entry block, where it always succeeds because the entry
/// has no predecessors.
pub fn arb_irreducible_cfg(max_blocks: usize) -> impl Strategy<Value = GenCfg> {
    assert!(max_blocks >= 3, "arb_irreducible_cfg needs max_blocks >= 3");
    let base = prop_oneof![arb_reducible_cfg(max_blocks), arb_cfg(max_blocks),]
        .prop_filter("need 3 blocks for a two-entry cycle", |c| {
            c.blocks.len() >= 3
        });
    let plant =
        (any::<Index>(), any::<Index>(), any::<Index>()).prop_map(|(at, x, y)| Plant { at, x, y });
    (base, plant).prop_map(|(base, p)| plant_irreducible(&base, &p))
}

fn plant_irreducible(base: &GenCfg, p: &Plant) -> GenCfg {
    let reach = reachable(&base.succs());
    let live: Vec<usize> = (0..base.blocks.len()).filter(|&b| reach[b]).collect();
    let a = live[p.at.index(live.len())];
    if let Some(g) = plant_at(base, a, p) {
        return g;
    }
    plant_at(base, 0, p).expect("planting at the entry always yields two entries")
}

/// Plants `a -> {x, y}`, `x -> y`, `y -> x`; returns `None` unless the result
/// is irreducible by the dominance argument of [`arb_irreducible_cfg`].
fn plant_at(base: &GenCfg, a: usize, p: &Plant) -> Option<GenCfg> {
    let n = base.blocks.len();
    let pool: Vec<usize> = (1..n).filter(|&b| b != a).collect();
    if pool.len() < 2 {
        return None;
    }
    let xi = p.x.index(pool.len());
    let x = pool[xi];
    let rest: Vec<usize> = pool.iter().copied().filter(|&b| b != x).collect();
    let y = rest[p.y.index(rest.len())];
    let mut g = base.clone();
    g.blocks[a] = match &g.blocks[a] {
        GenTerm::Switch { cond, cases, .. } => {
            let mut cases = cases.clone();
            cases.push(y);
            GenTerm::Switch {
                cond: *cond,
                default: x,
                cases,
            }
        }
        _ => GenTerm::CondBr {
            cond: 0,
            t: x,
            f: y,
        },
    };
    add_edge(&mut g.blocks[x], y);
    add_edge(&mut g.blocks[y], x);
    let dom = DomSets::new(&g.succs());
    if dom.is_reachable(x) && !dom.dominates(x, y) && !dom.dominates(y, x) {
        Some(g)
    } else {
        None
    }
}

/// Makes `to` a successor of a block while keeping one old successor.
fn add_edge(t: &mut GenTerm, to: usize) {
    *t = match t.clone() {
        GenTerm::Ret | GenTerm::Unreachable => GenTerm::Br(to),
        GenTerm::Br(old) => GenTerm::CondBr {
            cond: 0,
            t: to,
            f: old,
        },
        GenTerm::CondBr { cond, f, .. } => GenTerm::CondBr { cond, t: to, f },
        GenTerm::Switch {
            cond,
            default,
            mut cases,
        } => {
            cases.push(to);
            GenTerm::Switch {
                cond,
                default,
                cases,
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::{GenCfg, GenTerm};

    #[test]
    fn renders_every_terminator() {
        let g = GenCfg {
            blocks: vec![
                GenTerm::CondBr {
                    cond: 1,
                    t: 1,
                    f: 2,
                },
                GenTerm::Switch {
                    cond: 0,
                    default: 2,
                    cases: vec![1, 2],
                },
                GenTerm::Br(3),
                GenTerm::Unreachable,
            ],
            num_i1: 2,
            num_i32: 1,
        };
        assert_eq!(g.validate(), Ok(()));
        assert_eq!(g.succs(), vec![vec![1, 2], vec![2, 1, 2], vec![3], vec![]]);
        let ll = g.to_ll("k");
        assert!(ll.starts_with("define void @k(i1 %c0, i1 %c1, i32 %s0) {\nb0:\n"));
        assert!(ll.contains("  br i1 %c1, label %b1, label %b2\n"));
        assert!(ll.contains("  switch i32 %s0, label %b2 [ i32 0, label %b1 i32 1, label %b2 ]\n"));
        assert!(ll.ends_with("b3:\n  unreachable\n}\n"));
    }

    #[test]
    fn validate_rejects_entry_predecessors() {
        let g = GenCfg {
            blocks: vec![GenTerm::Br(0)],
            num_i1: 1,
            num_i32: 1,
        };
        assert!(g.validate().is_err());
    }
}
