//! `--exists CONDITION`: a small language of conditions on one execution's
//! results and communicating sets, answered Always / Sometimes / Never over
//! every explored execution.

use std::fmt;

use super::dmax::convergence_before;
use super::launch::{Execution, Exploration, VisitRef};
use super::value::{int, Val};
use super::Outcome;

/// The syntax, as printed by `--help`.
pub const HELP: &str = "\
CONDITION syntax (--exists):
  COND  := COND || COND | COND && COND | !COND | (COND) | ATOM
  ATOM  := finished | ub | cut | contradiction
         | REF ~ REF        the two are converged (same communicating set / column)
         | REF !~ REF       both exist and are not converged
         | REF < REF        the first is convergence-before the second (D-ORDER:
                            transitive closure of program order and converged-with)
         | REF == VALUE     the call returned VALUE (REF != VALUE: returned something else)
         | size(REF) OP N   size of REF's communicating set; OP one of == != < <= > >=
         | exists(REF)      the thread made that call / visit
  REF   := tT@NAME[K]       the K-th (from 0, default 0) convergent call to @NAME by thread T
         | tT%NAME[K]       the K-th visit of block %NAME by thread T
  VALUE := integer | true | false | poison
A REF that does not exist makes its atom false.
Example: --exists 't0@subgroupAdd[0] == 3 && t0@subgroupAdd ~ t1@subgroupAdd'
Example: --exists 't2%P < t1%Q && !(t0%T < t2%P)'  (P in thread 2 is
  convergence-before Q in thread 1; T in thread 0 is not before P)";

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ref {
    Call {
        thread: usize,
        name: String,
        k: usize,
    },
    Visit {
        thread: usize,
        name: String,
        k: usize,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cond {
    Or(Box<Cond>, Box<Cond>),
    And(Box<Cond>, Box<Cond>),
    Not(Box<Cond>),
    Outcome(&'static str),
    Conv(Ref, Ref, bool),
    /// `a < b`: `a` is convergence-before `b` (D-ORDER).
    Before(Ref, Ref),
    Value(Ref, Option<i128>, bool),
    Size(Ref, Cmp, usize),
    Exists(Ref),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    Always,
    Sometimes,
    Never,
}

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Answer::Always => "Always",
            Answer::Sometimes => "Sometimes",
            Answer::Never => "Never",
        })
    }
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn eat(&mut self, tok: &str) -> bool {
        self.ws();
        if self.s[self.i..].starts_with(tok.as_bytes()) {
            self.i += tok.len();
            true
        } else {
            false
        }
    }
    fn err<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("expected {what} at column {}", self.i + 1))
    }
    fn word(&mut self) -> String {
        self.ws();
        let start = self.i;
        while self.i < self.s.len()
            && (self.s[self.i].is_ascii_alphanumeric() || b"_.$-".contains(&self.s[self.i]))
        {
            self.i += 1;
        }
        String::from_utf8_lossy(&self.s[start..self.i]).into_owned()
    }
    fn number(&mut self) -> Result<i128, String> {
        let at = self.i;
        let w = self.word();
        match w.parse() {
            Ok(v) => Ok(v),
            Err(_)
                if !w.is_empty()
                    && w.trim_start_matches('-')
                        .bytes()
                        .all(|b| b.is_ascii_digit()) =>
            {
                Err(format!(
                    "`{w}` at column {} is too large (at most 128 bits)",
                    at + 1
                ))
            }
            Err(_) => self.err("a number"),
        }
    }
    /// A thread number, call/visit index or set size: a non-negative
    /// integer that fits `usize` (never wrapped).
    fn count(&mut self, what: &str) -> Result<usize, String> {
        self.ws();
        let at = self.i;
        let w = self.word();
        if w.is_empty() || !w.bytes().all(|b| b.is_ascii_digit()) {
            self.i = at;
            return self.err(what);
        }
        w.parse().map_err(|_| {
            format!(
                "{what} `{w}` at column {} is too large (at most {})",
                at + 1,
                usize::MAX
            )
        })
    }
    fn or(&mut self) -> Result<Cond, String> {
        let mut l = self.and()?;
        while self.eat("||") {
            l = Cond::Or(Box::new(l), Box::new(self.and()?));
        }
        Ok(l)
    }
    fn and(&mut self) -> Result<Cond, String> {
        let mut l = self.unary()?;
        while self.eat("&&") {
            l = Cond::And(Box::new(l), Box::new(self.unary()?));
        }
        Ok(l)
    }
    fn unary(&mut self) -> Result<Cond, String> {
        if self.eat("!") {
            return Ok(Cond::Not(Box::new(self.unary()?)));
        }
        if self.eat("(") {
            let c = self.or()?;
            if !self.eat(")") {
                return self.err("`)`");
            }
            return Ok(c);
        }
        self.atom()
    }
    fn reference(&mut self) -> Result<Ref, String> {
        if !self.eat("t") {
            return self.err("a reference tT@NAME or tT%NAME");
        }
        let thread = self.count("a thread number")?;
        let call = if self.eat("@") {
            true
        } else if self.eat("%") {
            false
        } else {
            return self.err("`@` or `%`");
        };
        let name = self.word();
        if name.is_empty() {
            return self.err("a name");
        }
        let k = if self.eat("[") {
            let k = self.count("an index")?;
            if !self.eat("]") {
                return self.err("`]`");
            }
            k
        } else {
            0
        };
        Ok(if call {
            Ref::Call { thread, name, k }
        } else {
            Ref::Visit { thread, name, k }
        })
    }
    fn atom(&mut self) -> Result<Cond, String> {
        for w in ["finished", "ub", "cut", "contradiction"] {
            let save = self.i;
            if self.word() == w {
                return Ok(Cond::Outcome(w));
            }
            self.i = save;
        }
        if self.eat("exists(") {
            let r = self.reference()?;
            return if self.eat(")") {
                Ok(Cond::Exists(r))
            } else {
                self.err("`)`")
            };
        }
        if self.eat("size(") {
            let r = self.reference()?;
            if !self.eat(")") {
                return self.err("`)`");
            }
            let cmp = [
                ("==", Cmp::Eq),
                ("!=", Cmp::Ne),
                ("<=", Cmp::Le),
                (">=", Cmp::Ge),
                ("<", Cmp::Lt),
                (">", Cmp::Gt),
            ]
            .into_iter()
            .find(|(t, _)| self.eat(t))
            .map(|(_, c)| c);
            let Some(cmp) = cmp else {
                return self.err("a comparison");
            };
            return Ok(Cond::Size(r, cmp, self.count("a set size")?));
        }
        let l = self.reference()?;
        if self.eat("!~") {
            return Ok(Cond::Conv(l, self.reference()?, false));
        }
        if self.eat("~") {
            return Ok(Cond::Conv(l, self.reference()?, true));
        }
        if self.eat("<") {
            return Ok(Cond::Before(l, self.reference()?));
        }
        let eq = if self.eat("==") {
            true
        } else if self.eat("!=") {
            false
        } else {
            return self.err("`~`, `!~`, `<`, `==` or `!=`");
        };
        let save = self.i;
        let v = match self.word().as_str() {
            "true" => Some(1),
            "false" => Some(0),
            "poison" => None,
            _ => {
                self.i = save;
                Some(self.number()?)
            }
        };
        Ok(Cond::Value(l, v, eq))
    }
}

/// Parses a condition (syntax in [`HELP`]).
pub fn parse(text: &str) -> Result<Cond, String> {
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
    };
    let c = p.or()?;
    p.ws();
    if p.i != p.s.len() {
        return p.err("end of condition");
    }
    Ok(c)
}

/// Whether `v` is a value of `iN` (N = `bits`) in its signed or unsigned
/// reading, as LLVM accepts integer literals: `-2^(N-1) <= v < 2^N`.
pub fn fits(bits: u32, v: i128) -> bool {
    let (lo, hi) = int_range(bits);
    (lo..=hi).contains(&v)
}

/// The literals [`fits`] accepts for `iN`, clamped to `i128`.
pub fn int_range(bits: u32) -> (i128, i128) {
    let bits = bits.max(1);
    let lo = if bits >= 128 {
        i128::MIN
    } else {
        -(1i128 << (bits - 1))
    };
    let hi = if bits >= 127 {
        i128::MAX
    } else {
        (1i128 << bits) - 1
    };
    (lo, hi)
}

/// The references of a condition.
fn refs(c: &Cond, out: &mut Vec<(Ref, Option<Option<i128>>)>) {
    match c {
        Cond::Or(a, b) | Cond::And(a, b) => {
            refs(a, out);
            refs(b, out);
        }
        Cond::Not(a) => refs(a, out),
        Cond::Outcome(_) => {}
        Cond::Conv(a, b, _) | Cond::Before(a, b) => {
            out.push((a.clone(), None));
            out.push((b.clone(), None));
        }
        Cond::Value(r, v, _) => out.push((r.clone(), Some(*v))),
        Cond::Size(r, _, _) | Cond::Exists(r) => out.push((r.clone(), None)),
    }
}

/// Checks a parsed condition against the launch before anything runs, so
/// that a typo is an error rather than a silent `Never`: every thread
/// number is below `threads`, every `@NAME` is a function of the module,
/// every `%NAME` a block of one of its definitions, and every compared
/// VALUE fits the callee's return type (signed or unsigned reading, see
/// [`fits`]); comparing the result of a `void` function is an error.
pub fn check(module: &crate::ir::Module, threads: u32, c: &Cond) -> Result<(), String> {
    let mut all = Vec::new();
    refs(c, &mut all);
    for (r, value) in all {
        let (Ref::Call { thread, name, k } | Ref::Visit { thread, name, k }) = &r;
        let sigil = if matches!(r, Ref::Call { .. }) {
            '@'
        } else {
            '%'
        };
        let shown = format!("t{thread}{sigil}{name}[{k}]");
        if *thread >= threads as usize {
            return Err(format!(
                "{shown}: thread {thread} does not exist; the launch has {threads} thread{} (t0..t{})",
                if threads == 1 { "" } else { "s" },
                threads.saturating_sub(1)
            ));
        }
        match &r {
            Ref::Call { name, .. } => {
                let Some(f) = module.functions.iter().find(|f| &f.name == name) else {
                    return Err(format!("{shown}: the module has no function @{name}"));
                };
                if let Some(Some(v)) = value {
                    match f.ret_ty.int_bits() {
                        Some(bits) if fits(bits, v) => {}
                        Some(bits) => {
                            let (lo, hi) = int_range(bits);
                            return Err(format!(
                                "{shown} == {v}: {v} does not fit @{name}'s return type i{bits} \
                                 (signed or unsigned reading: {lo}..={hi})"
                            ));
                        }
                        None => {
                            return Err(format!(
                                "{shown} == {v}: @{name} does not return an integer"
                            ))
                        }
                    }
                }
            }
            Ref::Visit { name, .. } => {
                if value.is_some() {
                    return Err(format!(
                        "{shown}: a block visit has no value; compare a call (tT@NAME)"
                    ));
                }
                let known = module
                    .functions
                    .iter()
                    .filter(|f| f.has_body())
                    .any(|f| f.blocks.iter().any(|b| b.name.to_string() == *name));
                if !known {
                    return Err(format!(
                        "{shown}: no function of the module has a block %{name}"
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The visit a reference names, and for calls the event index.
fn resolve(
    exec: &Execution,
    module_names: &dyn Fn(usize, crate::ir::BlockId) -> String,
    r: &Ref,
) -> Option<(VisitRef, Option<usize>)> {
    match r {
        Ref::Call { thread, name, k } => {
            let th = exec.threads.get(*thread)?;
            let (i, e) = th
                .events
                .iter()
                .enumerate()
                .filter(|(_, e)| &e.callee == name)
                .nth(*k)?;
            Some(((*thread, e.pos), Some(i)))
        }
        Ref::Visit { thread, name, k } => {
            let th = exec.threads.get(*thread)?;
            let p = th
                .trace
                .iter()
                .enumerate()
                .filter(|(_, v)| module_names(v.func, v.block) == *name)
                .nth(*k)?
                .0;
            Some(((*thread, p), None))
        }
    }
}

/// D-ORDER (CU "Convergence"): whether the instance `a` names is
/// convergence-before the instance `b` names, the transitive closure of
/// program order and converged-with. Between block visits this is
/// [`convergence_before`] on the graph of converged-with classes (at least
/// one program-order edge, so the order is strict). Two calls in converged
/// visits of the same block are also ordered by their position in the
/// block: `a`'s thread executes, in the same visit, the instance of `b`'s
/// instruction after `a` (program order), and that instance is converged
/// with `b` (D-CW: same instruction in converged visits).
fn before(exec: &Execution, a: (VisitRef, Option<usize>), b: (VisitRef, Option<usize>)) -> bool {
    if convergence_before(exec, a.0, b.0) {
        return true;
    }
    let (Some(ia), Some(ib)) = (a.1, b.1) else {
        return false;
    };
    let ea = &exec.threads[a.0 .0].events[ia];
    let eb = &exec.threads[b.0 .0].events[ib];
    let same_class = exec
        .visit_classes()
        .iter()
        .any(|c| c.contains(&a.0) && c.contains(&b.0));
    same_class
        && ea.loc.index < eb.loc.index
        && exec.threads[a.0 .0]
            .events
            .iter()
            .any(|e| e.pos == a.0 .1 && e.loc == eb.loc)
}

/// Evaluates a condition on one execution.
pub fn eval(module: &crate::ir::Module, exec: &Execution, c: &Cond) -> bool {
    let names = |f: usize, b: crate::ir::BlockId| module.functions[f].block_name(b);
    let sets = exec.event_sets();
    let classes = exec.visit_classes();
    let set_of = |r: &Ref| -> Option<Vec<VisitRef>> {
        let (v, e) = resolve(exec, &names, r)?;
        Some(match e {
            Some(i) => sets[v.0][i].clone(),
            None => classes.iter().find(|c| c.contains(&v))?.clone(),
        })
    };
    match c {
        Cond::Or(a, b) => eval(module, exec, a) || eval(module, exec, b),
        Cond::And(a, b) => eval(module, exec, a) && eval(module, exec, b),
        Cond::Not(a) => !eval(module, exec, a),
        Cond::Outcome(w) => matches!(
            (*w, &exec.outcome),
            ("finished", Outcome::Finished)
                | ("ub", Outcome::Ub { .. })
                | ("cut", Outcome::Cut { .. })
                | ("contradiction", Outcome::Contradiction { .. })
        ),
        Cond::Exists(r) => resolve(exec, &names, r).is_some(),
        Cond::Before(a, b) => match (resolve(exec, &names, a), resolve(exec, &names, b)) {
            (Some(x), Some(y)) => before(exec, x, y),
            _ => false,
        },
        Cond::Conv(a, b, want) => match (resolve(exec, &names, a), set_of(a)) {
            (Some(_), Some(sa)) => match resolve(exec, &names, b) {
                Some((vb, _)) => sa.contains(&vb) == *want,
                None => false,
            },
            _ => false,
        },
        Cond::Size(r, cmp, n) => set_of(r).is_some_and(|s| {
            let l = s.len();
            match cmp {
                Cmp::Eq => l == *n,
                Cmp::Ne => l != *n,
                Cmp::Lt => l < *n,
                Cmp::Le => l <= *n,
                Cmp::Gt => l > *n,
                Cmp::Ge => l >= *n,
            }
        }),
        Cond::Value(r, v, eq) => {
            let Some((vr, Some(i))) = resolve(exec, &names, r) else {
                return false;
            };
            let Some(got) = &exec.threads[vr.0].events[i].result else {
                return false;
            };
            let same = match (got, v) {
                (Val::Poison, None) => true,
                (&Val::Int { bits, v: x }, Some(want)) => {
                    int(bits, *want) == Val::Int { bits, v: x }
                }
                _ => false,
            };
            same == *eq
        }
    }
}

/// Always / Sometimes / Never over the explored behaviours, with the index
/// of a behaviour where the condition holds (if any).
pub fn answer(module: &crate::ir::Module, c: &Cond, ex: &Exploration) -> (Answer, Option<usize>) {
    let results: Vec<bool> = ex
        .behaviours
        .iter()
        .map(|b| eval(module, &b.execution, c))
        .collect();
    let witness = results.iter().position(|r| *r);
    let a = if results.iter().all(|r| *r) && !results.is_empty() {
        Answer::Always
    } else if witness.is_some() {
        Answer::Sometimes
    } else {
        Answer::Never
    };
    (a, witness)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_forms() {
        let c = parse("t0@subgroupAdd[0] == 3 && t0@subgroupAdd ~ t1@subgroupAdd").expect("parses");
        assert!(matches!(c, Cond::And(..)));
        assert!(matches!(parse("!(ub || cut)"), Ok(Cond::Not(_))));
        assert!(matches!(
            parse("size(t1%B[2]) >= 2"),
            Ok(Cond::Size(_, Cmp::Ge, 2))
        ));
        assert!(matches!(
            parse("t0%H[1] !~ t1%H[2]"),
            Ok(Cond::Conv(_, _, false))
        ));
        assert!(matches!(
            parse("t0@f == poison"),
            Ok(Cond::Value(_, None, true))
        ));
        assert!(matches!(
            parse("t2%P < t1%Q[1]"),
            Ok(Cond::Before(
                Ref::Visit { thread: 2, .. },
                Ref::Visit { k: 1, .. }
            ))
        ));
        assert!(parse("t0%P <").is_err());
        assert!(parse("t0@f ==").is_err());
        assert!(parse("t0 f").is_err());
        assert!(parse("ub extra").is_err());
    }

    /// Issue 17 item 4: literals that do not fit are errors, never wrapped.
    #[test]
    fn fits_accepts_signed_and_unsigned_readings() {
        assert!(fits(8, 255) && fits(8, -128) && !fits(8, 256) && !fits(8, -129));
        assert!(fits(1, 1) && fits(1, -1) && fits(1, 0) && !fits(1, 2));
        assert!(fits(32, 4_294_967_295) && !fits(32, 99_999_999_999_999_999_999_999));
        assert!(fits(128, i128::MIN) && fits(127, i128::MAX) && !fits(127, i128::MIN));
    }

    #[test]
    fn too_large_numbers_are_errors_not_wrapped() {
        let e = parse("t0@f[99999999999999999999] ~ t1@f").expect_err("index too large");
        assert!(e.contains("too large"), "{e}");
        let e = parse("t99999999999999999999@f ~ t1@f").expect_err("thread too large");
        assert!(e.contains("too large"), "{e}");
        assert!(parse("t-1@f ~ t1@f").is_err());
        let e = parse("t0@f == 999999999999999999999999999999999999999999")
            .expect_err("value beyond 128 bits");
        assert!(e.contains("too large"), "{e}");
    }

    /// `--exists` references are checked against the module and launch.
    #[test]
    fn check_names_threads_functions_blocks_and_widths() {
        let m = crate::parse::parse_module(
            "t.ll",
            "declare i8 @f() convergent\ndeclare void @g() convergent\n\
             define void @k() {\nentry:\n  %x = call i8 @f()\n  call void @g()\n  br label %B\nB:\n  ret void\n}\n",
        )
        .expect("test module parses");
        let ok = |c: &str| check(&m, 2, &parse(c).expect("parses"));
        assert_eq!(
            ok("t0@f ~ t1@f && t1%B < t0%B && t0@f == 255 && t0@f == -128"),
            Ok(())
        );
        let e = ok("t2@f ~ t1@f").expect_err("thread 2 of 2");
        assert!(
            e.contains("thread 2 does not exist") && e.contains("2 threads"),
            "{e}"
        );
        let e = ok("exists(t0@nosuch)").expect_err("unknown function");
        assert!(e.contains("no function @nosuch"), "{e}");
        let e = ok("exists(t0%C)").expect_err("unknown block");
        assert!(e.contains("block %C"), "{e}");
        let e = ok("t0@f == 256").expect_err("does not fit i8");
        assert!(e.contains("i8"), "{e}");
        assert!(ok("t0@g == 1").is_err());
        assert!(ok("t0%B == 1").is_err());
    }
}
