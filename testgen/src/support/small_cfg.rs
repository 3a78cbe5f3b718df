//! Small CFG generators for the CFG-analysis tests (cycle hierarchies,
//! the dominator oracle), independent of [`crate::cfg`] so that those tests
//! do not share a generator with the code they check. They cover: returns, `unreachable`, unconditional and conditional branches,
//! switches with duplicate successors, self loops, irreducible regions (any
//! block may branch to any other) and unreachable blocks.

use proptest::prelude::{prop, Just, Strategy};
use std::fmt::Write;

/// The terminator shape of one generated block; successors are block indices.
#[derive(Clone, Debug)]
pub enum Term {
    Ret,
    Unreachable,
    Br(usize),
    CondBr(usize, usize),
    /// Default destination, then case destinations.
    Switch(usize, Vec<usize>),
}

impl Term {
    /// Successors in LLVM's order (`br` true then false; `switch` default
    /// then cases).
    pub fn succs(&self) -> Vec<usize> {
        match self {
            Term::Ret | Term::Unreachable => Vec::new(),
            Term::Br(a) => vec![*a],
            Term::CondBr(a, b) => vec![*a, *b],
            Term::Switch(d, cs) => std::iter::once(*d).chain(cs.iter().copied()).collect(),
        }
    }
}

/// A generated CFG: block `i` is named `b{i}`.
#[derive(Clone, Debug)]
pub struct GenCfg {
    pub terms: Vec<Term>,
}

impl GenCfg {
    pub fn succs(&self) -> Vec<Vec<usize>> {
        self.terms.iter().map(Term::succs).collect()
    }

    /// The CFG as an LLVM IR function `fn_name` with blocks `b0..bN` in index
    /// order; conditions are the function's arguments.
    pub fn to_ll(&self, fn_name: &str) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "define void @{fn_name}(i1 %c0, i1 %c1, i1 %c2, i32 %x) {{"
        );
        let mut k = 0usize;
        for (i, t) in self.terms.iter().enumerate() {
            let _ = writeln!(s, "b{i}:");
            match t {
                Term::Ret => s.push_str("  ret void\n"),
                Term::Unreachable => s.push_str("  unreachable\n"),
                Term::Br(a) => {
                    let _ = writeln!(s, "  br label %b{a}");
                }
                Term::CondBr(a, b) => {
                    let _ = writeln!(s, "  br i1 %c{}, label %b{a}, label %b{b}", k % 3);
                    k += 1;
                }
                Term::Switch(d, cs) => {
                    let _ = write!(s, "  switch i32 %x, label %b{d} [");
                    for (v, c) in cs.iter().enumerate() {
                        let _ = write!(s, " i32 {v}, label %b{c}");
                    }
                    s.push_str(" ]\n");
                }
            }
        }
        s.push_str("}\n");
        s
    }
}

/// CFGs of `1..=max_blocks` blocks. With `entry_preds` false, no edge targets
/// block 0 (LLVM IR forbids predecessors of the entry block).
pub fn arb_cfg(max_blocks: usize, entry_preds: bool) -> impl Strategy<Value = GenCfg> {
    arb_cfg_with(max_blocks, entry_preds, 3)
}

/// [`arb_cfg`] with switches of at most `max_cases` cases.
pub fn arb_cfg_with(
    max_blocks: usize,
    entry_preds: bool,
    max_cases: usize,
) -> impl Strategy<Value = GenCfg> {
    (1..=max_blocks).prop_flat_map(move |n| {
        let lo = if entry_preds || n == 1 { 0 } else { 1 };
        let target = lo..n;
        let term = if n == 1 && !entry_preds {
            Just(Term::Ret).boxed()
        } else {
            prop::strategy::Union::new_weighted(vec![
                (2, Just(Term::Ret).boxed()),
                (1, Just(Term::Unreachable).boxed()),
                (5, target.clone().prop_map(Term::Br).boxed()),
                (
                    8,
                    (target.clone(), target.clone())
                        .prop_map(|(a, b)| Term::CondBr(a, b))
                        .boxed(),
                ),
                (
                    2,
                    (
                        target.clone(),
                        prop::collection::vec(target.clone(), 1..=max_cases),
                    )
                        .prop_map(|(d, cs)| Term::Switch(d, cs))
                        .boxed(),
                ),
            ])
            .boxed()
        };
        prop::collection::vec(term, n).prop_map(|terms| GenCfg { terms })
    })
}
