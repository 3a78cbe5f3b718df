//! Verification conditions: a small, solver-independent term language.
//!
//! STYLE.md item 8: the checker states its conditions here, and only
//! [`crate::smt`] turns them into solver calls. Keeping the language our own
//! means every query can be printed ([`smtlib`]), evaluated on concrete values
//! ([`eval`], the oracle that model extraction and CEGIS are tested against),
//! and replayed outside the tool.
//!
//! Terms live in one arena, [`Terms`], and are hash-consed: building the same
//! operator over the same arguments twice yields the same [`TermId`], so
//! equal terms are equal ids and a DAG shares its subterms. A child is always
//! created before its parent, so ids are a topological order of every DAG;
//! [`Terms::reachable`] relies on that.
//!
//! The language is quantifier free: Booleans, bit-vectors of any width from 1
//! to 128, mathematical integers, uninterpreted sorts and uninterpreted
//! functions. Exists-forall problems (R-REF) are solved by iteration over
//! quantifier-free queries in [`crate::cegis`], not by quantifiers.
//!
//! A condition that is asserted carries an `origin`: a free-form string naming
//! the IR location(s) it encodes (see [`Condition`]), printed as a comment in
//! dumped SMT-LIB and reported back by unsat cores.

#[cfg(test)]
pub(crate) mod arb;
mod build;
pub mod eval;
pub mod float;
pub mod smtlib;
#[cfg(test)]
mod tests;

use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;

/// The widest bit-vector the language supports: values are held in a `u128`.
pub const MAX_BV_WIDTH: u32 = 128;

/// A term in a [`Terms`] arena. Only meaningful with the arena that made it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct TermId(u32);

/// A declared variable (an SMT-LIB constant) of a [`Terms`] arena.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct VarId(u32);

/// A declared uninterpreted function of a [`Terms`] arena.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct FuncId(u32);

impl TermId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}
impl VarId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}
impl FuncId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The sort (type) of a term.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Sort {
    Bool,
    /// Bit-vector of the given width, `1..=MAX_BV_WIDTH`.
    BitVec(u32),
    /// Unbounded mathematical integers (values held in `i128`).
    Int,
    /// An uninterpreted sort, declared by name with arity 0.
    Uninterpreted(Arc<str>),
}

impl Sort {
    pub fn bv_width(&self) -> Option<u32> {
        match self {
            Sort::BitVec(w) => Some(*w),
            _ => None,
        }
    }
}

/// Operators of applications. The sort rules are in [`Terms::try_app`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Op {
    Not,
    /// n-ary, n >= 2 (the builders fold the smaller cases away).
    And,
    /// n-ary, n >= 2.
    Or,
    Implies,
    Xor,
    /// `ite c a b`: c Bool, a and b of one sort.
    Ite,
    /// Binary equality over any sort.
    Eq,
    /// n-ary pairwise distinctness, n >= 2.
    Distinct,
    BvNot,
    BvNeg,
    BvAnd,
    BvOr,
    BvXor,
    BvAdd,
    BvSub,
    BvMul,
    /// SMT-LIB semantics: `x / 0` is all ones.
    BvUdiv,
    /// SMT-LIB semantics: `x % 0` is `x`.
    BvUrem,
    BvSdiv,
    BvSrem,
    BvShl,
    BvLshr,
    BvAshr,
    BvUlt,
    BvUle,
    BvSlt,
    BvSle,
    /// `concat hi lo`.
    Concat,
    /// Bits `hi..=lo`.
    Extract {
        hi: u32,
        lo: u32,
    },
    ZeroExt(u32),
    SignExt(u32),
    IntAdd,
    IntSub,
    IntMul,
    IntNeg,
    IntLe,
    IntLt,
    /// A floating-point operator on bit patterns (R-FLOAT-SMT, [`float`]).
    Fp(float::FpOp, semantics::ir::float::FloatTy),
    /// Application of a declared uninterpreted function.
    Apply(FuncId),
}

/// One node of the arena.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Node {
    BoolConst(bool),
    /// A bit-vector literal; `bits` is always below `2^width`.
    BvConst {
        width: u32,
        bits: u128,
    },
    IntConst(i128),
    Var(VarId),
    App(Op, Box<[TermId]>),
}

/// A declared variable: name (unique in its arena) and sort.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct VarDecl {
    pub name: String,
    pub sort: Sort,
}

/// A declared uninterpreted function.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct FuncDecl {
    pub name: String,
    pub domain: Vec<Sort>,
    pub range: Sort,
}

/// A sort error: a builder was called with arguments of the wrong sorts. This
/// is always a bug of the encoder that called it, never of the user's input.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("vc sort error: {0}")]
pub struct SortError(pub String);

/// A Boolean condition with the IR location(s) it stands for.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Condition {
    pub term: TermId,
    /// Free-form pointer back to the IR, e.g. `@f:%bb3:call @llvm.foo` or
    /// `launch: thread 2 input`. Empty when nothing meaningful applies.
    pub origin: String,
}

impl Condition {
    pub fn new(term: TermId, origin: impl Into<String>) -> Condition {
        Condition {
            term,
            origin: origin.into(),
        }
    }
}

/// The arena: every term, variable, function and uninterpreted sort of one
/// family of queries.
#[derive(Clone, Default)]
pub struct Terms {
    nodes: Vec<Node>,
    sorts: Vec<Sort>,
    index: HashMap<Node, TermId>,
    vars: Vec<VarDecl>,
    var_terms: Vec<TermId>,
    funcs: Vec<FuncDecl>,
    /// Every name in use, by variables, functions or uninterpreted sorts:
    /// SMT-LIB has one namespace for function symbols and we keep sorts apart
    /// too, so that a dump never redeclares a symbol.
    names: HashMap<String, Symbol>,
    usorts: Vec<Arc<str>>,
    fresh: u32,
}

#[derive(Clone, Copy, Debug)]
enum Symbol {
    Var(VarId),
    Func(FuncId),
    Sort,
}

impl Terms {
    pub fn new() -> Terms {
        Terms::default()
    }

    pub fn node(&self, t: TermId) -> &Node {
        &self.nodes[t.index()]
    }

    pub fn sort(&self, t: TermId) -> &Sort {
        &self.sorts[t.index()]
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn var_decl(&self, v: VarId) -> &VarDecl {
        &self.vars[v.index()]
    }

    /// The term standing for variable `v`.
    pub fn var_term(&self, v: VarId) -> TermId {
        self.var_terms[v.index()]
    }

    pub fn func_decl(&self, f: FuncId) -> &FuncDecl {
        &self.funcs[f.index()]
    }

    /// Every declared variable, in declaration order.
    pub fn vars(&self) -> impl Iterator<Item = VarId> + '_ {
        (0..self.vars.len() as u32).map(VarId)
    }

    /// Every declared uninterpreted function, in declaration order.
    pub fn funcs(&self) -> impl Iterator<Item = FuncId> + '_ {
        (0..self.funcs.len() as u32).map(FuncId)
    }

    /// Every declared uninterpreted sort, in declaration order.
    pub fn uninterpreted_sorts(&self) -> &[Arc<str>] {
        &self.usorts
    }

    /// The variable of term `t`, if `t` is one.
    pub fn as_var(&self, t: TermId) -> Option<VarId> {
        match self.node(t) {
            Node::Var(v) => Some(*v),
            _ => None,
        }
    }

    /// Declares (or finds) the uninterpreted sort `name`.
    ///
    /// Panics if `name` is already used by a variable or function, or is not
    /// a printable SMT-LIB symbol: names are chosen by the encoder, not the user.
    pub fn uninterpreted_sort(&mut self, name: &str) -> Sort {
        check_symbol(name);
        match self.names.get(name) {
            Some(Symbol::Sort) => {}
            Some(other) => panic!("vc: sort name {name:?} already names {other:?}"),
            None => {
                self.names.insert(name.to_string(), Symbol::Sort);
                self.usorts.push(Arc::from(name));
            }
        }
        Sort::Uninterpreted(Arc::from(name))
    }

    /// Declares variable `name` of sort `sort`, or returns the existing one of
    /// that name and sort.
    ///
    /// Panics if the name is taken with another sort or by a function, or is
    /// not printable as an SMT-LIB symbol (an encoder bug).
    pub fn var(&mut self, name: &str, sort: Sort) -> TermId {
        check_symbol(name);
        self.check_sort_declared(&sort);
        match self.names.get(name) {
            Some(Symbol::Var(v)) => {
                let decl = &self.vars[v.index()];
                assert!(
                    decl.sort == sort,
                    "vc: variable {name:?} redeclared with sort {sort:?}, was {:?}",
                    decl.sort
                );
                self.var_terms[v.index()]
            }
            Some(other) => panic!("vc: variable name {name:?} already names {other:?}"),
            None => {
                let v = VarId(self.vars.len() as u32);
                self.vars.push(VarDecl {
                    name: name.to_string(),
                    sort: sort.clone(),
                });
                self.names.insert(name.to_string(), Symbol::Var(v));
                let t = self.intern(Node::Var(v), sort);
                self.var_terms.push(t);
                t
            }
        }
    }

    /// A new variable whose name starts with `prefix` and is used nowhere else.
    pub fn fresh_var(&mut self, prefix: &str, sort: Sort) -> TermId {
        loop {
            let name = format!("{prefix}!{}", self.fresh);
            self.fresh += 1;
            if !self.names.contains_key(&name) {
                return self.var(&name, sort);
            }
        }
    }

    /// Declares (or finds, with the same signature) uninterpreted function
    /// `name`. Panics on a clash, like [`Terms::var`].
    pub fn func(&mut self, name: &str, domain: &[Sort], range: Sort) -> FuncId {
        check_symbol(name);
        for s in domain.iter().chain(std::iter::once(&range)) {
            self.check_sort_declared(s);
        }
        match self.names.get(name) {
            Some(Symbol::Func(f)) => {
                let decl = &self.funcs[f.index()];
                assert!(
                    decl.domain == domain && decl.range == range,
                    "vc: function {name:?} redeclared with another signature"
                );
                *f
            }
            Some(other) => panic!("vc: function name {name:?} already names {other:?}"),
            None => {
                let f = FuncId(self.funcs.len() as u32);
                self.funcs.push(FuncDecl {
                    name: name.to_string(),
                    domain: domain.to_vec(),
                    range,
                });
                self.names.insert(name.to_string(), Symbol::Func(f));
                f
            }
        }
    }

    fn check_sort_declared(&self, sort: &Sort) {
        match sort {
            Sort::BitVec(w) => assert!(
                (1..=MAX_BV_WIDTH).contains(w),
                "vc: bit-vector width {w} outside 1..={MAX_BV_WIDTH}"
            ),
            Sort::Uninterpreted(name) => assert!(
                matches!(self.names.get(&**name), Some(Symbol::Sort)),
                "vc: uninterpreted sort {name:?} used before Terms::uninterpreted_sort"
            ),
            Sort::Bool | Sort::Int => {}
        }
    }

    /// Hash-consing: the one place nodes enter the arena.
    fn intern(&mut self, node: Node, sort: Sort) -> TermId {
        if let Some(&t) = self.index.get(&node) {
            return t;
        }
        let t =
            TermId(u32::try_from(self.nodes.len()).expect("vc: fewer than 2^32 terms per arena"));
        self.nodes.push(node.clone());
        self.sorts.push(sort);
        self.index.insert(node, t);
        t
    }

    /// Every term reachable from `roots`, in increasing id order (children
    /// before parents, since ids are allocated bottom-up).
    pub fn reachable(&self, roots: &[TermId]) -> Vec<TermId> {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<TermId> = roots.to_vec();
        while let Some(t) = stack.pop() {
            if seen.insert(t) {
                if let Node::App(_, args) = self.node(t) {
                    stack.extend(args.iter().copied());
                }
            }
        }
        seen.into_iter().collect()
    }

    /// Variables and functions occurring in `roots`, each in id order.
    pub fn symbols_of(&self, roots: &[TermId]) -> (Vec<VarId>, Vec<FuncId>) {
        let mut vars = BTreeSet::new();
        let mut funcs = BTreeSet::new();
        for t in self.reachable(roots) {
            match self.node(t) {
                Node::Var(v) => {
                    vars.insert(*v);
                }
                Node::App(Op::Apply(f), _) => {
                    funcs.insert(*f);
                }
                _ => {}
            }
        }
        (vars.into_iter().collect(), funcs.into_iter().collect())
    }

    /// Replaces variables by terms of the same sort, everywhere in `t`.
    pub fn substitute(&mut self, t: TermId, map: &HashMap<VarId, TermId>) -> TermId {
        let order = self.reachable(&[t]);
        let mut done: HashMap<TermId, TermId> = HashMap::default();
        for u in order {
            let new = match self.node(u).clone() {
                Node::Var(v) => match map.get(&v) {
                    Some(&r) => {
                        assert!(
                            self.sort(r) == self.sort(u),
                            "vc: substitution of {:?} changes its sort",
                            self.vars[v.index()].name
                        );
                        r
                    }
                    None => u,
                },
                Node::App(op, args) => {
                    let args: Vec<TermId> = args.iter().map(|a| done[a]).collect();
                    self.app(op, &args)
                }
                _ => u,
            };
            done.insert(u, new);
        }
        done[&t]
    }
}

/// Variable, function and sort names are printed as SMT-LIB symbols, quoted
/// with `|...|` when needed; `|` and `\` cannot be quoted, and a name must
/// not be empty.
fn check_symbol(name: &str) {
    assert!(
        !name.is_empty() && !name.contains(['|', '\\']) && !name.starts_with(smtlib::SHARED_PREFIX),
        "vc: {name:?} cannot be an SMT-LIB symbol"
    );
}

impl fmt::Debug for Terms {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Terms")
            .field("terms", &self.nodes.len())
            .field("vars", &self.vars.len())
            .field("funcs", &self.funcs.len())
            .finish()
    }
}
