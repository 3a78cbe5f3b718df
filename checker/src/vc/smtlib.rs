//! SMT-LIB 2 text for terms and whole queries.
//!
//! [`script`] produces a standalone file: declarations, one `assert` per
//! condition preceded by its origin as a comment, and `(check-sat)`. Shared
//! subterms are named once with `define-fun` so the text stays linear in the
//! size of the DAG. The printed script is what `--dump-smt` writes and what
//! the tests replay through Z3's own parser and through the `z3` binary.

use rustc_hash::FxHashMap as HashMap;
use std::borrow::Cow;
use std::fmt::{self, Write};

use super::{Condition, Node, Op, Sort, TermId, Terms};

/// Prefix of the names given to shared subterms in [`script`]; no declared
/// name can start with it (see `check_symbol`).
pub const SHARED_PREFIX: &str = "$t";

/// SMT-LIB symbols reserved by the standard: quoted when used as names.
const RESERVED: &[&str] = &[
    "_",
    "!",
    "as",
    "let",
    "exists",
    "forall",
    "match",
    "par",
    "BINARY",
    "DECIMAL",
    "HEXADECIMAL",
    "NUMERAL",
    "STRING",
];

/// `name` as an SMT-LIB symbol: bare when it is a simple symbol, else
/// `|quoted|` (names never contain `|` or `\`, see `check_symbol`).
pub fn symbol(name: &str) -> Cow<'_, str> {
    let simple_char = |c: char| c.is_ascii_alphanumeric() || "~!@$%^&*_-+=<>.?/".contains(c);
    let simple = !name.is_empty()
        && name.chars().all(simple_char)
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && !RESERVED.contains(&name);
    if simple {
        Cow::Borrowed(name)
    } else {
        Cow::Owned(format!("|{name}|"))
    }
}

/// A sort in SMT-LIB syntax.
pub fn sort(s: &Sort) -> String {
    match s {
        Sort::Bool => "Bool".to_string(),
        Sort::BitVec(w) => format!("(_ BitVec {w})"),
        Sort::Int => "Int".to_string(),
        Sort::Uninterpreted(name) => symbol(name).into_owned(),
    }
}

/// A bit-vector literal: hexadecimal when the width is a multiple of 4.
pub fn bv_literal(width: u32, bits: u128) -> String {
    if width.is_multiple_of(4) {
        format!("#x{:0w$x}", bits, w = (width / 4) as usize)
    } else {
        format!("#b{:0w$b}", bits, w = width as usize)
    }
}

/// The head of an application: a builtin name, an indexed identifier, or a
/// function symbol.
fn head<'a>(terms: &'a Terms, op: Op, args: &[TermId]) -> Cow<'a, str> {
    Cow::Borrowed(match op {
        Op::Not => "not",
        Op::And => "and",
        Op::Or => "or",
        Op::Implies => "=>",
        Op::Xor => "xor",
        Op::Ite => "ite",
        Op::Eq => "=",
        Op::Distinct => "distinct",
        Op::BvNot => "bvnot",
        Op::BvNeg => "bvneg",
        Op::BvAnd => "bvand",
        Op::BvOr => "bvor",
        Op::BvXor => "bvxor",
        Op::BvAdd => "bvadd",
        Op::BvSub => "bvsub",
        Op::BvMul => "bvmul",
        Op::BvUdiv => "bvudiv",
        Op::BvUrem => "bvurem",
        Op::BvSdiv => "bvsdiv",
        Op::BvSrem => "bvsrem",
        Op::BvShl => "bvshl",
        Op::BvLshr => "bvlshr",
        Op::BvAshr => "bvashr",
        Op::BvUlt => "bvult",
        Op::BvUle => "bvule",
        Op::BvSlt => "bvslt",
        Op::BvSle => "bvsle",
        Op::Concat => "concat",
        Op::Extract { hi, lo } => return Cow::Owned(format!("(_ extract {hi} {lo})")),
        Op::ZeroExt(k) => return Cow::Owned(format!("(_ zero_extend {k})")),
        Op::SignExt(k) => return Cow::Owned(format!("(_ sign_extend {k})")),
        Op::IntAdd => "+",
        Op::IntSub | Op::IntNeg => "-",
        Op::IntMul => "*",
        Op::IntLe => "<=",
        Op::IntLt => "<",
        Op::Fp(fop, f) => return Cow::Owned(fp_helper(terms, fop, f, args).0),
        Op::Apply(f) => return symbol(&terms.func_decl(f).name),
    })
}

/// The helper function of a floating-point application (name, definition).
fn fp_helper(
    terms: &Terms,
    op: super::float::FpOp,
    f: semantics::ir::float::FloatTy,
    args: &[TermId],
) -> (String, String) {
    let sorts: Vec<Sort> = args.iter().map(|a| terms.sort(*a).clone()).collect();
    super::float::smtlib_helper(op, f, &sorts)
}

/// Writes `t`, naming any subterm found in `named` by that name.
fn write_term(
    out: &mut impl Write,
    terms: &Terms,
    t: TermId,
    named: &HashMap<TermId, String>,
    top: bool,
) -> fmt::Result {
    if !top {
        if let Some(name) = named.get(&t) {
            return out.write_str(name);
        }
    }
    match terms.node(t) {
        Node::BoolConst(b) => write!(out, "{b}"),
        Node::BvConst { width, bits } => out.write_str(&bv_literal(*width, *bits)),
        Node::IntConst(i) if *i < 0 => write!(out, "(- {})", i.unsigned_abs()),
        Node::IntConst(i) => write!(out, "{i}"),
        Node::Var(v) => out.write_str(&symbol(&terms.var_decl(*v).name)),
        Node::App(op, args) => {
            write!(out, "({}", head(terms, *op, args))?;
            for &a in args.iter() {
                out.write_char(' ')?;
                write_term(out, terms, a, named, false)?;
            }
            out.write_char(')')
        }
    }
}

/// [`Terms::display`]: a term printed as a tree.
pub struct Display<'a> {
    terms: &'a Terms,
    t: TermId,
}

impl fmt::Display for Display<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_term(f, self.terms, self.t, &HashMap::default(), true)
    }
}

impl Terms {
    /// `t` in SMT-LIB syntax, as a tree (shared subterms repeated).
    pub fn display(&self, t: TermId) -> Display<'_> {
        Display { terms: self, t }
    }
}

/// A comment line: newlines in `text` would end the comment, so they become
/// spaces.
fn comment(out: &mut String, text: &str) {
    out.push_str("; ");
    out.push_str(&text.replace(['\n', '\r'], " "));
    out.push('\n');
}

/// A standalone SMT-LIB script checking the conjunction of `conditions`.
///
/// `timeout_ms`, when given, becomes `(set-option :timeout ..)` (understood
/// by Z3; other solvers may ignore it).
pub fn script(
    terms: &Terms,
    name: &str,
    timeout_ms: Option<u64>,
    conditions: &[Condition],
) -> String {
    let roots: Vec<TermId> = conditions.iter().map(|c| c.term).collect();
    let order = terms.reachable(&roots);
    let (vars, funcs) = terms.symbols_of(&roots);
    let mut out = String::new();
    comment(&mut out, &format!("query: {name}"));
    if let Some(ms) = timeout_ms {
        out.push_str(&format!("(set-option :timeout {ms})\n"));
    }
    out.push_str("(set-option :produce-models true)\n");
    for s in terms.uninterpreted_sorts() {
        out.push_str(&format!("(declare-sort {} 0)\n", symbol(s)));
    }
    for v in vars {
        let d = terms.var_decl(v);
        out.push_str(&format!(
            "(declare-const {} {})\n",
            symbol(&d.name),
            sort(&d.sort)
        ));
    }
    for f in funcs {
        let d = terms.func_decl(f);
        let dom: Vec<String> = d.domain.iter().map(sort).collect();
        out.push_str(&format!(
            "(declare-fun {} ({}) {})\n",
            symbol(&d.name),
            dom.join(" "),
            sort(&d.range)
        ));
    }
    // R-FLOAT-SMT: one helper function per floating-point operator used.
    let mut helpers: Vec<String> = Vec::new();
    for &t in &order {
        if let Node::App(Op::Fp(fop, f), args) = terms.node(t) {
            let (_, def) = fp_helper(terms, *fop, *f, args);
            if !helpers.contains(&def) {
                out.push_str(&def);
                helpers.push(def);
            }
        }
    }
    // Name every application used more than once (by a parent or as a root).
    let mut uses: HashMap<TermId, usize> = HashMap::default();
    for &t in &order {
        if let Node::App(_, args) = terms.node(t) {
            for &a in args.iter() {
                *uses.entry(a).or_default() += 1;
            }
        }
    }
    for &r in &roots {
        *uses.entry(r).or_default() += 1;
    }
    let mut named: HashMap<TermId, String> = HashMap::default();
    for &t in &order {
        if matches!(terms.node(t), Node::App(..)) && uses.get(&t).copied().unwrap_or(0) > 1 {
            let name = format!("{SHARED_PREFIX}{}", t.index());
            let mut body = String::new();
            write_term(&mut body, terms, t, &named, true).expect("writing to a String");
            out.push_str(&format!(
                "(define-fun {name} () {} {body})\n",
                sort(terms.sort(t))
            ));
            named.insert(t, name);
        }
    }
    for c in conditions {
        if !c.origin.is_empty() {
            comment(&mut out, &format!("origin: {}", c.origin));
        }
        let mut body = String::new();
        write_term(&mut body, terms, c.term, &named, false).expect("writing to a String");
        out.push_str(&format!("(assert {body})\n"));
    }
    out.push_str("(check-sat)\n");
    out
}
