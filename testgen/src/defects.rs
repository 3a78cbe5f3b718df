//! Token programs with one planted defect, labelled with the static rule it
//! breaks and the message LLVM's verifier prints for it (rule S-LLVM), so
//! that verifier tests know what to expect and where.
//!
//! Each program starts as a likely-valid program
//! ([`crate::tokens::arb_valid_token_module`]) and receives one mutation. A
//! mutation that does not apply to the program (e.g. "two hearts" without a
//! loop heart) falls through to another kind; kinds that often do not apply
//! are drawn more often, so every kind is well represented.

use proptest::prelude::{any, Strategy};
use proptest::sample::Index;

use crate::graph::{cycle_through_avoiding, natural_loops, DomSets};
use crate::tokens::{
    arb_valid_token_module, region_stacks, Intrinsic, Site, TokInst, TokenProgram,
};

/// The planted defect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Defect {
    /// An op inside a cycle uses a token defined outside it.
    UseInCycleWithoutDef,
    /// A convergent op precedes a `loop` intrinsic in its block.
    LoopNotFirst,
    /// Two `loop` intrinsics in one header use tokens from outside the cycle.
    TwoHearts,
    /// A `loop` with a token from outside the cycle sits in a block that is
    /// not the cycle's header.
    HeartNotHeader,
    /// `entry` in a block other than the entry block.
    EntryOutsideEntryBlock,
    /// A convergent operation precedes `entry` in the entry block.
    EntryNotFirst,
    /// `entry` in a function without the `convergent` attribute.
    EntryInNonConvergent,
    /// Controlled and uncontrolled convergent operations in one function.
    MixedControl,
    /// A token use that its definition does not dominate.
    NonDominatedUse,
    /// `loop` without a `"convergencectrl"` bundle.
    LoopWithoutBundle,
    /// `anchor` with a `"convergencectrl"` bundle.
    AnchorWithBundle,
    /// Regions of two tokens overlap without nesting.
    RegionNotNested,
}

impl Defect {
    pub const ALL: [Defect; 12] = [
        Defect::UseInCycleWithoutDef,
        Defect::LoopNotFirst,
        Defect::TwoHearts,
        Defect::HeartNotHeader,
        Defect::EntryOutsideEntryBlock,
        Defect::EntryNotFirst,
        Defect::EntryInNonConvergent,
        Defect::MixedControl,
        Defect::NonDominatedUse,
        Defect::LoopWithoutBundle,
        Defect::AnchorWithBundle,
        Defect::RegionNotNested,
    ];

    /// The rule ID of `SEMANTICS.md` that the defect breaks.
    pub fn rule(self) -> &'static str {
        match self {
            Defect::UseInCycleWithoutDef => "S-CYCLE-1",
            Defect::LoopNotFirst => "S-LOOP-PLACE",
            Defect::TwoHearts => "S-CYCLE-2",
            Defect::HeartNotHeader => "S-CYCLE-4",
            Defect::EntryOutsideEntryBlock | Defect::EntryNotFirst => "S-ENTRY-PLACE",
            Defect::EntryInNonConvergent => "S-ENTRY-FUNC",
            Defect::MixedControl => "S-MIX",
            Defect::NonDominatedUse => "P-PROG",
            Defect::LoopWithoutBundle => "S-LOOP-BUNDLE",
            Defect::AnchorWithBundle => "S-ANCHOR-BUNDLE",
            Defect::RegionNotNested => "S-REGION",
        }
    }

    /// A line LLVM 22's verifier prints for this defect (among possibly
    /// others that the same mutation triggers).
    pub fn llvm_message(self) -> &'static str {
        match self {
            Defect::UseInCycleWithoutDef => {
                "Convergence token used by an instruction other than llvm.experimental.convergence.loop in a cycle that does not contain the token's definition."
            }
            Defect::LoopNotFirst => {
                "Loop intrinsic cannot be preceded by a convergent operation in the same basic block."
            }
            Defect::TwoHearts => {
                "Two static convergence token uses in a cycle that does not contain either token's definition."
            }
            Defect::HeartNotHeader => "Cycle heart must dominate all blocks in the cycle.",
            Defect::EntryOutsideEntryBlock => "Entry intrinsic can occur only in the entry block.",
            Defect::EntryNotFirst => {
                "Entry intrinsic cannot be preceded by a convergent operation in the same basic block."
            }
            Defect::EntryInNonConvergent => {
                "Entry intrinsic can occur only in a convergent function."
            }
            Defect::MixedControl => {
                "Cannot mix controlled and uncontrolled convergence in the same function."
            }
            Defect::NonDominatedUse => "Instruction does not dominate all uses!",
            Defect::LoopWithoutBundle => {
                "Loop intrinsic must have a convergencectrl token operand."
            }
            Defect::AnchorWithBundle => {
                "Entry or anchor intrinsic cannot have a convergencectrl token operand."
            }
            Defect::RegionNotNested => "Convergence region is not well-nested.",
        }
    }
}

/// A program with one planted defect: `site` is the inserted or changed
/// instruction that the defect is about.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DefectiveProgram {
    pub program: TokenProgram,
    pub defect: Defect,
    pub site: Site,
}

/// Likely-valid programs with exactly one planted defect.
pub fn arb_defective_token_module(max_blocks: usize) -> impl Strategy<Value = DefectiveProgram> {
    (
        arb_valid_token_module(max_blocks),
        any::<Index>(),
        any::<Index>(),
        any::<Index>(),
    )
        .prop_map(|(p, kind, a, b)| {
            // Kinds that need loops or cycles often do not apply; weight them
            // up so that every kind is well represented.
            let weighted: Vec<Defect> = Defect::ALL
                .iter()
                .flat_map(|&d| {
                    let w = match d {
                        Defect::HeartNotHeader => 5,
                        Defect::UseInCycleWithoutDef | Defect::TwoHearts => 3,
                        Defect::LoopNotFirst => 2,
                        _ => 1,
                    };
                    std::iter::repeat_n(d, w)
                })
                .collect();
            let first = weighted[kind.index(weighted.len())];
            // If it does not apply, go round the kinds from a second choice,
            // so no single kind collects the fall-through.
            let start = b.index(Defect::ALL.len());
            plant(&p, first, &a, &b)
                .or_else(|| {
                    (0..Defect::ALL.len()).find_map(|k| {
                        plant(&p, Defect::ALL[(start + k) % Defect::ALL.len()], &a, &b)
                    })
                })
                .expect("MixedControl applies to every program (block 0 is reachable)")
        })
}

/// Fresh token and op numbers for a program.
fn fresh(p: &TokenProgram) -> (usize, usize) {
    let mut t = 0;
    let mut o = 0;
    for (_, i) in p.sites() {
        match i {
            TokInst::Intr { def, .. } => t = t.max(def + 1),
            TokInst::Op { id, .. } => o = o.max(id + 1),
        }
    }
    (t, o)
}

fn pick<T: Copy>(i: &Index, v: &[T]) -> Option<T> {
    (!v.is_empty()).then(|| v[i.index(v.len())])
}

/// Applies `defect` using choices `a`, `b`; `None` if it does not apply.
pub fn plant(p: &TokenProgram, defect: Defect, a: &Index, b: &Index) -> Option<DefectiveProgram> {
    let succs = p.cfg.succs();
    let dom = DomSets::new(&succs);
    let n = succs.len();
    let reach: Vec<usize> = (0..n).filter(|&x| dom.is_reachable(x)).collect();
    let (t_new, o_new) = fresh(p);
    let mut q = p.clone();
    let arg = 0;
    let op = |token| TokInst::Op {
        id: o_new,
        arg,
        token,
    };
    let defs = p.defs();
    // Controlled mode: the program has tokens (else all ops are uncontrolled).
    let controlled = !defs.is_empty();
    let (live_in, live_out) = region_stacks(p);
    let live = |v: &Vec<Option<Vec<usize>>>, b: usize, t: usize| {
        v[b].as_ref().is_some_and(|l| l.contains(&t))
    };
    let site = match defect {
        Defect::UseInCycleWithoutDef => {
            let cands: Vec<(usize, usize)> = defs
                .iter()
                .flat_map(|&(t, d, _)| reach.iter().map(move |&u| (t, d, u)))
                .filter(|&(_, d, u)| d.block != u && dom.dominates(d.block, u))
                .filter(|&(_, d, u)| cycle_through_avoiding(&succs, u, Some(d.block))[u])
                .map(|(t, _, u)| (t, u))
                // LLVM checks cycles only for uses whose region is open.
                .filter(|&(t, u)| live(&live_out, u, t))
                .collect();
            let (t, u) = pick(a, &cands)?;
            q.insts[u].push(op(Some(t)));
            Site {
                block: u,
                pos: q.insts[u].len() - 1,
            }
        }
        Defect::LoopNotFirst | Defect::TwoHearts => {
            let hearts: Vec<(usize, usize)> = p
                .sites()
                .filter_map(|(s, i)| match i {
                    TokInst::Intr {
                        kind: Intrinsic::Loop,
                        bundle: Some(par),
                        ..
                    } if s.pos == 0 => Some((s.block, *par)),
                    _ => None,
                })
                .collect();
            let (h, par) = pick(a, &hearts)?;
            if defect == Defect::LoopNotFirst {
                q.insts[h].insert(0, op(Some(par)));
                Site { block: h, pos: 1 }
            } else {
                let second = TokInst::Intr {
                    def: t_new,
                    kind: Intrinsic::Loop,
                    bundle: Some(par),
                };
                q.insts[h].insert(1, second);
                Site { block: h, pos: 1 }
            }
        }
        Defect::HeartNotHeader => {
            let loops = natural_loops(&succs);
            let mut cands = Vec::new();
            for l in &loops {
                let Some(TokInst::Intr {
                    kind: Intrinsic::Loop,
                    bundle: Some(par),
                    ..
                }) = p.insts[l.header].first()
                else {
                    continue;
                };
                for x in (0..n).filter(|&x| l.body[x] && x != l.header) {
                    let first_is_loop = matches!(
                        p.insts[x].first(),
                        Some(TokInst::Intr {
                            kind: Intrinsic::Loop,
                            ..
                        })
                    );
                    if !first_is_loop && live(&live_in, x, *par) {
                        cands.push((x, *par));
                    }
                }
            }
            let (x, par) = pick(a, &cands)?;
            q.insts[x].insert(
                0,
                TokInst::Intr {
                    def: t_new,
                    kind: Intrinsic::Loop,
                    bundle: Some(par),
                },
            );
            Site { block: x, pos: 0 }
        }
        Defect::EntryOutsideEntryBlock => {
            let others: Vec<usize> = reach.iter().copied().filter(|&x| x != 0).collect();
            let x = pick(a, &others)?;
            q.convergent = true;
            q.insts[x].insert(0, entry(t_new));
            Site { block: x, pos: 0 }
        }
        Defect::EntryNotFirst => {
            // An anchor, then (the existing or a new) entry.
            let has_entry = matches!(
                p.insts[0].first(),
                Some(TokInst::Intr {
                    kind: Intrinsic::Entry,
                    ..
                })
            );
            q.convergent = true;
            if !has_entry {
                q.insts[0].insert(0, entry(t_new + 1));
            }
            q.insts[0].insert(0, anchor(t_new, None));
            Site { block: 0, pos: 1 }
        }
        Defect::EntryInNonConvergent => {
            let has_entry = matches!(
                p.insts[0].first(),
                Some(TokInst::Intr {
                    kind: Intrinsic::Entry,
                    ..
                })
            );
            if !has_entry {
                q.insts[0].insert(0, entry(t_new));
            }
            q.convergent = false;
            Site { block: 0, pos: 0 }
        }
        Defect::MixedControl => {
            let x = pick(a, &reach)?;
            if controlled {
                q.insts[x].push(op(None));
                Site {
                    block: x,
                    pos: q.insts[x].len() - 1,
                }
            } else {
                // A controlled op (with its anchor) next to an uncontrolled one.
                let pos = q.insts[x].len();
                q.insts[x].push(anchor(t_new, None));
                q.insts[x].push(op(Some(t_new)));
                q.insts[x].push(TokInst::Op {
                    id: o_new + 1,
                    arg,
                    token: None,
                });
                Site {
                    block: x,
                    pos: pos + 2,
                }
            }
        }
        Defect::NonDominatedUse => {
            let cands: Vec<(usize, usize)> = defs
                .iter()
                .flat_map(|&(t, d, _)| reach.iter().map(move |&u| (t, d, u)))
                .filter(|&(_, d, u)| !dom.dominates(d.block, u))
                .map(|(t, _, u)| (t, u))
                .collect();
            match pick(a, &cands) {
                Some((t, u)) => {
                    q.insts[u].push(op(Some(t)));
                    Site {
                        block: u,
                        pos: q.insts[u].len() - 1,
                    }
                }
                None => {
                    // A use right before the definition (anchors only, so the
                    // placement rules of entry and loop stay intact).
                    let anchors: Vec<Site> = defs
                        .iter()
                        .filter(|d| d.2 == Intrinsic::Anchor)
                        .map(|d| d.1)
                        .collect();
                    let s = pick(b, &anchors)?;
                    let t = defs.iter().find(|d| d.1 == s)?.0;
                    q.insts[s.block].insert(s.pos, op(Some(t)));
                    s
                }
            }
        }
        Defect::LoopWithoutBundle => {
            let x = pick(a, &reach)?;
            if let Some(TokInst::Intr {
                kind: Intrinsic::Loop,
                bundle,
                ..
            }) = q.insts[x].first_mut()
            {
                *bundle = None;
            } else {
                q.insts[x].insert(
                    0,
                    TokInst::Intr {
                        def: t_new,
                        kind: Intrinsic::Loop,
                        bundle: None,
                    },
                );
            }
            Site { block: x, pos: 0 }
        }
        Defect::AnchorWithBundle => {
            // An anchor right after a token definition, bundled with it.
            let (t, s, _) = pick(a, &defs)?;
            q.insts[s.block].insert(s.pos + 1, anchor(t_new, Some(t)));
            Site {
                block: s.block,
                pos: s.pos + 1,
            }
        }
        Defect::RegionNotNested => {
            // LLVM only checks regions when no placement rule failed.
            if p.op_counts().1 > 0 {
                return None;
            }
            let x = pick(a, &reach)?;
            let pos = q.insts[x].len();
            q.insts[x].push(anchor(t_new, None));
            q.insts[x].push(anchor(t_new + 1, None));
            q.insts[x].push(op(Some(t_new)));
            q.insts[x].push(TokInst::Op {
                id: o_new + 1,
                arg,
                token: Some(t_new + 1),
            });
            Site {
                block: x,
                pos: pos + 3,
            }
        }
    };
    Some(DefectiveProgram {
        program: q,
        defect,
        site,
    })
}

fn entry(def: usize) -> TokInst {
    TokInst::Intr {
        def,
        kind: Intrinsic::Entry,
        bundle: None,
    }
}

fn anchor(def: usize, bundle: Option<usize>) -> TokInst {
    TokInst::Intr {
        def,
        kind: Intrinsic::Anchor,
        bundle,
    }
}
