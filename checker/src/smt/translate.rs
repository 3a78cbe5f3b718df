//! vc terms to Z3 terms (in the thread's Z3 context), one node at a time
//! in id order so each child is translated before its parents.

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

use z3::ast::{Ast, Bool, Dynamic, Int, BV};
use z3::{FuncDecl, Sort as ZSort, Symbol};

use crate::vc::{FuncId, Node, Op, Sort, TermId, Terms};

/// Memo of translated terms, sorts and declarations for one arena. The
/// arena may grow between calls (it is append-only, so memoised ids stay
/// valid) but must always be the same one.
#[derive(Default)]
pub(crate) struct Translator {
    done: HashMap<TermId, Dynamic>,
    usorts: HashMap<Arc<str>, ZSort>,
    funcs: HashMap<FuncId, FuncDecl>,
    /// Some translated term is a floating-point operation (R-FLOAT-SMT):
    /// the query is then solved with equations eliminated first
    /// ([`super::solver_for`]).
    pub(crate) float: bool,
    /// Some translated term applies an uninterpreted function: a query
    /// with floats is then solved by Z3's default solver
    /// ([`super::solver_for`]).
    pub(crate) uf: bool,
}

const WELL_SORTED: &str = "vc terms are sort-checked when built";

fn bv(d: &Dynamic) -> BV {
    d.as_bv().expect(WELL_SORTED)
}

fn boolean(d: &Dynamic) -> Bool {
    d.as_bool().expect(WELL_SORTED)
}

fn int(d: &Dynamic) -> Int {
    d.as_int().expect(WELL_SORTED)
}

impl Translator {
    pub(crate) fn new() -> Translator {
        Translator::default()
    }

    pub(crate) fn sort(&mut self, s: &Sort) -> ZSort {
        match s {
            Sort::Bool => ZSort::bool(),
            Sort::BitVec(w) => ZSort::bitvector(*w),
            Sort::Int => ZSort::int(),
            Sort::Uninterpreted(name) => self
                .usorts
                .entry(name.clone())
                .or_insert_with(|| ZSort::uninterpreted(Symbol::String(name.to_string())))
                .clone(),
        }
    }

    /// Declares `f` in Z3 on first use.
    fn declare_func(&mut self, terms: &Terms, f: FuncId) {
        if self.funcs.contains_key(&f) {
            return;
        }
        let decl = terms.func_decl(f);
        let domain: Vec<ZSort> = decl.domain.iter().map(|s| self.sort(s)).collect();
        let refs: Vec<&ZSort> = domain.iter().collect();
        let range = self.sort(&decl.range);
        let d = FuncDecl::new(decl.name.as_str(), &refs, &range);
        self.funcs.insert(f, d);
    }

    /// The Z3 term for `t`. Only the part of its DAG not translated before is
    /// visited, so asserting many instances that share structure (CEGIS
    /// witnesses) costs only their new nodes.
    pub(crate) fn term(&mut self, terms: &Terms, t: TermId) -> Dynamic {
        let mut stack = vec![(t, false)];
        while let Some((u, children_done)) = stack.pop() {
            if self.done.contains_key(&u) {
                continue;
            }
            if children_done {
                let d = self.node(terms, u);
                self.done.insert(u, d);
                continue;
            }
            stack.push((u, true));
            if let Node::App(_, args) = terms.node(u) {
                stack.extend(
                    args.iter()
                        .filter(|a| !self.done.contains_key(a))
                        .map(|&a| (a, false)),
                );
            }
        }
        self.done[&t].clone()
    }

    pub(crate) fn boolean(&mut self, terms: &Terms, t: TermId) -> Bool {
        boolean(&self.term(terms, t))
    }

    /// Translates one node whose children are all translated already.
    fn node(&mut self, terms: &Terms, t: TermId) -> Dynamic {
        match terms.node(t) {
            Node::BoolConst(b) => Dynamic::from_ast(&Bool::from_bool(*b)),
            Node::BvConst { width, bits } => {
                let v = if *bits <= u64::MAX as u128 {
                    BV::from_u64(*bits as u64, *width)
                } else {
                    BV::from_str(*width, &bits.to_string()).expect("decimal numerals parse")
                };
                Dynamic::from_ast(&v)
            }
            Node::IntConst(i) => Dynamic::from_ast(&Int::from_i128(*i)),
            Node::Var(v) => {
                let decl = terms.var_decl(*v);
                let sort = self.sort(&decl.sort);
                Dynamic::new_const(decl.name.as_str(), &sort)
            }
            Node::App(op, args) => {
                let a: Vec<Dynamic> = args.iter().map(|x| self.done[x].clone()).collect();
                self.app(terms, *op, &a)
            }
        }
    }

    fn app(&mut self, terms: &Terms, op: Op, a: &[Dynamic]) -> Dynamic {
        let bools = || -> Vec<Bool> { a.iter().map(boolean).collect() };
        let ints = || -> Vec<Int> { a.iter().map(int).collect() };
        let bv2 = |f: fn(&BV, &BV) -> BV| Dynamic::from_ast(&f(&bv(&a[0]), &bv(&a[1])));
        let cmp = |f: fn(&BV, &BV) -> Bool| Dynamic::from_ast(&f(&bv(&a[0]), &bv(&a[1])));
        let d = |x: &dyn Ast| Dynamic::from_ast(x);
        match op {
            Op::Not => d(&boolean(&a[0]).not()),
            Op::And => d(&Bool::and(&bools())),
            Op::Or => d(&Bool::or(&bools())),
            Op::Implies => d(&boolean(&a[0]).implies(boolean(&a[1]))),
            Op::Xor => d(&boolean(&a[0]).xor(boolean(&a[1]))),
            Op::Ite => boolean(&a[0]).ite(&a[1], &a[2]),
            Op::Eq => d(&a[0].eq(&a[1])),
            Op::Distinct => d(&Dynamic::distinct(a)),
            Op::BvNot => d(&bv(&a[0]).bvnot()),
            Op::BvNeg => d(&bv(&a[0]).bvneg()),
            Op::BvAnd => bv2(|x, y| x.bvand(y)),
            Op::BvOr => bv2(|x, y| x.bvor(y)),
            Op::BvXor => bv2(|x, y| x.bvxor(y)),
            Op::BvAdd => bv2(|x, y| x.bvadd(y)),
            Op::BvSub => bv2(|x, y| x.bvsub(y)),
            Op::BvMul => bv2(|x, y| x.bvmul(y)),
            Op::BvUdiv => bv2(|x, y| x.bvudiv(y)),
            Op::BvUrem => bv2(|x, y| x.bvurem(y)),
            Op::BvSdiv => bv2(|x, y| x.bvsdiv(y)),
            Op::BvSrem => bv2(|x, y| x.bvsrem(y)),
            Op::BvShl => bv2(|x, y| x.bvshl(y)),
            Op::BvLshr => bv2(|x, y| x.bvlshr(y)),
            Op::BvAshr => bv2(|x, y| x.bvashr(y)),
            Op::BvUlt => cmp(|x, y| x.bvult(y)),
            Op::BvUle => cmp(|x, y| x.bvule(y)),
            Op::BvSlt => cmp(|x, y| x.bvslt(y)),
            Op::BvSle => cmp(|x, y| x.bvsle(y)),
            Op::Concat => bv2(|x, y| x.concat(y)),
            Op::Extract { hi, lo } => d(&bv(&a[0]).extract(hi, lo)),
            Op::ZeroExt(k) => d(&bv(&a[0]).zero_ext(k)),
            Op::SignExt(k) => d(&bv(&a[0]).sign_ext(k)),
            Op::IntAdd => d(&Int::add(&ints())),
            Op::IntMul => d(&Int::mul(&ints())),
            Op::IntSub => d(&Int::sub(&ints())),
            Op::IntNeg => d(&int(&a[0]).unary_minus()),
            Op::IntLe => d(&int(&a[0]).le(int(&a[1]))),
            Op::IntLt => d(&int(&a[0]).lt(int(&a[1]))),
            Op::Fp(fop, f) => {
                self.float = true;
                super::float::apply(fop, f, a)
            }
            Op::Apply(f) => {
                self.uf = true;
                self.declare_func(terms, f);
                let refs: Vec<&dyn Ast> = a.iter().map(|x| x as &dyn Ast).collect();
                self.funcs[&f].apply(&refs)
            }
        }
    }
}
