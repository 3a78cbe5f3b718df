//! Tests of the Z3 layer against the installed libz3, with the vc evaluator
//! and Z3's own SMT-LIB parser as independent oracles.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use proptest::prelude::{prop_assert, prop_assert_eq, proptest, ProptestConfig};
use z3::SatResult;

use super::model::parse_bv_literal;
use super::{
    solve, unsat_core, CoreOutcome, Incremental, Outcome, Query, Session, SmtError, UnknownReason,
};
use crate::vc::arb::{bool_term, bv_term, Gen, Uf, Vocab, WIDTHS};
use crate::vc::eval::{Model, Value};
use crate::vc::{Sort, TermId, Terms};

const T: Duration = Duration::from_secs(20);

fn query(name: &str, conds: &[TermId]) -> Query {
    let mut q = Query::new(name, T);
    for (i, &c) in conds.iter().enumerate() {
        q.assert(c, format!("test condition {i}"));
    }
    q
}

fn sat_model(terms: &Terms, q: &Query) -> Model {
    match solve(terms, q).expect("no internal error") {
        Outcome::Sat(m) => m,
        other => panic!("{}: expected sat, got {other:?}", q.name),
    }
}

fn val(terms: &Terms, m: &Model, t: TermId) -> Value {
    m.var(terms.as_var(t).unwrap()).cloned().expect("extracted")
}

/// What Z3's own parser makes of our SMT-LIB text: an oracle for both the
/// printer and the API translation.
fn z3_parse_and_check(text: &str) -> SatResult {
    let s = z3::Solver::new();
    s.from_string(text);
    s.check()
}

fn answer(o: &Outcome) -> SatResult {
    match o {
        Outcome::Sat(_) => SatResult::Sat,
        Outcome::Unsat => SatResult::Unsat,
        Outcome::Unknown(_) => SatResult::Unknown,
    }
}

#[test]
fn sat_and_unsat_with_bit_vector_models() {
    let mut t = Terms::new();
    let x = t.var("x", Sort::BitVec(8));
    let y = t.var("y", Sort::BitVec(8));
    let s = t.bv_add(x, y);
    let seven = t.bv_const(8, 7);
    let three = t.bv_const(8, 3);
    let c1 = t.eq(s, seven);
    let c2 = t.bv_ugt(x, three);
    let m = sat_model(&t, &query("sum", &[c1, c2]));
    let (xv, yv) = (
        val(&t, &m, x).as_bits().unwrap(),
        val(&t, &m, y).as_bits().unwrap(),
    );
    assert_eq!((xv + yv) % 256, 7);
    assert!(xv > 3);
    // x*x = 3 (mod 256) has no solution: odd squares are 1 mod 8.
    let sq = t.bv_mul(x, x);
    let c = t.eq(sq, three);
    assert_eq!(solve(&t, &query("square", &[c])).unwrap(), Outcome::Unsat);
}

#[test]
fn wide_bit_vectors_and_big_integers_round_trip() {
    let mut t = Terms::new();
    let x = t.var("x", Sort::BitVec(100));
    let want: u128 = (1u128 << 90) + 5;
    let k = t.bv_const(100, want - 1);
    let one = t.bv_const(100, 1);
    let xm1 = t.bv_sub(x, one);
    let c1 = t.eq(xm1, k);
    let n = t.var("n", Sort::Int);
    let big = -(1i128 << 100);
    let lo = t.int_const(big - 2);
    let hi = t.int_const(big);
    let c2 = t.int_lt(lo, n);
    let c3 = t.int_lt(n, hi);
    let m = sat_model(&t, &query("wide", &[c1, c2, c3]));
    assert_eq!(val(&t, &m, x), Value::bv(100, want));
    assert_eq!(val(&t, &m, n), Value::Int(big - 1));
    let odd = t.var("odd", Sort::BitVec(7));
    let k7 = t.bv_const(7, 0b1010101);
    let c4 = t.eq(odd, k7);
    let m = sat_model(&t, &query("odd-width", &[c4]));
    assert_eq!(val(&t, &m, odd), Value::bv(7, 0b1010101));
}

#[test]
fn uninterpreted_sorts_and_functions_are_extracted() {
    let mut t = Terms::new();
    let u = t.uninterpreted_sort("Thread");
    let a = t.var("a", u.clone());
    let b = t.var("b", u.clone());
    let c = t.var("c", u.clone());
    let d = t.distinct(&[a, b, c]);
    let f = t.func("tid", &[u], Sort::BitVec(4));
    let fa = t.apply(f, &[a]);
    let fb = t.apply(f, &[b]);
    let sum = t.bv_add(fa, fb);
    let nine = t.bv_const(4, 9);
    let e = t.eq(sum, nine);
    let m = sat_model(&t, &query("threads", &[d, e]));
    let vals: Vec<Value> = [a, b, c].iter().map(|&x| val(&t, &m, x)).collect();
    assert!(
        vals[0] != vals[1] && vals[1] != vals[2] && vals[0] != vals[2],
        "{vals:?}"
    );
    let table = &m.funcs[&f];
    assert_eq!(table.entries.len(), 2);
    let (ta, tb) = (
        &table.entries[&vec![vals[0].clone()]],
        &table.entries[&vec![vals[1].clone()]],
    );
    assert_eq!((ta.as_bits().unwrap() + tb.as_bits().unwrap()) % 16, 9);
    assert_eq!(m.eval(&t, e), Ok(Value::Bool(true)));
}

/// The core names conflicting assertions by index, and is itself unsat.
#[test]
fn unsat_cores_point_at_conflicting_conditions() {
    let mut t = Terms::new();
    let x = t.var("x", Sort::BitVec(8));
    let y = t.var("y", Sort::BitVec(8));
    let five = t.bv_const(8, 5);
    let ten = t.bv_const(8, 10);
    let c0 = t.eq(y, five);
    let c1 = t.bv_ult(x, five);
    let c2 = t.bv_ult(y, ten);
    let c3 = t.bv_ugt(x, ten);
    let q = query("conflict", &[c0, c1, c2, c3]);
    let CoreOutcome::Unsat { core } = unsat_core(&t, &q).unwrap() else {
        panic!("expected unsat");
    };
    assert!(core.contains(&1) && core.contains(&3), "{core:?}");
    let sub: Vec<TermId> = core.iter().map(|&i| q.assertions[i].term).collect();
    assert_eq!(
        solve(&t, &query("core-alone", &sub)).unwrap(),
        Outcome::Unsat
    );
    let sat = query("no-conflict", &[c0, c1, c2]);
    assert!(matches!(
        unsat_core(&t, &sat).unwrap(),
        CoreOutcome::Other(Outcome::Sat(_))
    ));
}

/// Assertions accumulate across checks; each check answers what its
/// standalone snapshot answers, and the session dumps that snapshot.
#[test]
fn incremental_checks_accumulate_assertions() {
    let dir = scratch_dir("incremental");
    let mut session = Session::new(Some(dir.clone()));
    let mut t = Terms::new();
    let x = t.var("x", Sort::BitVec(8));
    let ten = t.bv_const(8, 10);
    let twelve = t.bv_const(8, 12);
    let eleven = t.bv_const(8, 11);
    let mut inc = Incremental::new(T);
    let c1 = t.bv_ugt(x, ten);
    inc.assert(&t, crate::vc::Condition::new(c1, "x > 10"));
    let o1 = session.check(&t, &mut inc, "inc-1").unwrap();
    let Outcome::Sat(m1) = &o1 else {
        panic!("{o1:?}")
    };
    assert!(val(&t, m1, x).as_bits().unwrap() > 10);
    // Terms built after the solver was created are fine (same arena).
    let c2 = t.bv_ult(x, twelve);
    inc.assert(&t, crate::vc::Condition::new(c2, "x < 12"));
    let o2 = session.check(&t, &mut inc, "inc-2").unwrap();
    let Outcome::Sat(m2) = &o2 else {
        panic!("{o2:?}")
    };
    assert_eq!(val(&t, m2, x), Value::bv(8, 11));
    let c3 = t.distinct(&[x, eleven]);
    inc.assert(&t, crate::vc::Condition::new(c3, "x != 11"));
    assert_eq!(
        session.check(&t, &mut inc, "inc-3").unwrap(),
        Outcome::Unsat
    );
    assert_eq!(inc.assertions().len(), 3);
    for (i, want) in [(1, "sat"), (2, "sat"), (3, "unsat")] {
        let mut snap = inc.snapshot(&format!("inc-{i}"));
        snap.assertions.truncate(i);
        assert_eq!(
            answer(&solve(&t, &snap).unwrap()),
            if want == "sat" {
                SatResult::Sat
            } else {
                SatResult::Unsat
            }
        );
        let text = std::fs::read_to_string(dir.join(format!("inc-{i}.smt2"))).unwrap();
        assert_eq!(
            text.matches("(assert ").count(),
            i,
            "dump {i} holds the first {i} assertions"
        );
    }
}

#[test]
fn parses_z3_bit_vector_numerals() {
    assert_eq!(parse_bv_literal("#x0b"), Some(11));
    assert_eq!(parse_bv_literal("#b101"), Some(5));
    assert_eq!(
        parse_bv_literal("(_ bv1267650600228229401496703205381 100)"),
        Some((1u128 << 100) + 5)
    );
    assert_eq!(parse_bv_literal("x"), None);
}

/// Factoring the 62-bit semiprime (2^31-1)(2^31-19) by bit-blasting is far
/// beyond a few milliseconds.
fn hard_query(t: &mut Terms, timeout: Duration) -> Query {
    let p: u128 = ((1u128 << 31) - 1) * ((1u128 << 31) - 19);
    let x = t.var("hx", Sort::BitVec(64));
    let y = t.var("hy", Sort::BitVec(64));
    let xw = t.zero_ext(64, x);
    let yw = t.zero_ext(64, y);
    let prod = t.bv_mul(xw, yw);
    let n = t.bv_const(128, p);
    let one = t.bv_const(64, 1);
    let c1 = t.eq(prod, n);
    let c2 = t.bv_ugt(x, one);
    let c3 = t.bv_ugt(y, one);
    let mut q = Query::new("hard-factoring", timeout);
    q.assert(c1, "x*y = p");
    q.assert(c2, "x > 1");
    q.assert(c3, "y > 1");
    q
}

/// R-BOUND: a time-out answers unknown, never anything else, and the limit
/// is enforced.
#[test]
fn timeout_answers_unknown() {
    let mut t = Terms::new();
    let q = hard_query(&mut t, Duration::from_millis(50));
    let start = Instant::now();
    let o = solve(&t, &q).unwrap();
    assert_eq!(o, Outcome::Unknown(UnknownReason::Timeout));
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "limit not enforced: {:?}",
        start.elapsed()
    );
}

#[test]
fn dump_smt_writes_a_file_named_after_the_query() {
    let dir = scratch_dir("dump");
    let mut t = Terms::new();
    let x = t.var("x", Sort::BitVec(8));
    let five = t.bv_const(8, 5);
    let c = t.bv_ult(x, five);
    let q = query("cegis/check #3", &[c]);
    let path = q.dump_smt(&t, &dir).unwrap();
    assert_eq!(path, dir.join("cegis_check__3.smt2"));
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text, q.to_smtlib(&t));
    assert!(text.contains("; query: cegis/check #3\n"));
    assert!(text.contains("; origin: test condition 0\n(assert (bvult x #x05))\n"));
    // A session dumps every query, never overwriting a same-named one.
    let mut s = Session::new(Some(dir.join("session")));
    s.solve(&t, &q).unwrap();
    s.solve(&t, &q).unwrap();
    let dumped: Vec<PathBuf> = s.log.iter().map(|r| r.dumped.clone().unwrap()).collect();
    assert_eq!(dumped[0].file_name().unwrap(), "cegis_check__3.smt2");
    assert_eq!(dumped[1].file_name().unwrap(), "cegis_check__3.2.smt2");
    assert_eq!(s.log[1].answer, "sat");
    // An unwritable directory is an error, not a silent skip.
    let blocked = dir.join("file");
    std::fs::write(&blocked, "").unwrap();
    assert!(matches!(
        q.dump_smt(&t, &blocked),
        Err(SmtError::Dump { .. })
    ));
}

pub(crate) fn scratch_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("convcheck-smt-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The `z3` binary, or `None` with a loud SKIP; on CI its absence fails.
pub(crate) fn z3_binary() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join("z3"))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "the z3 binary is required on CI (apt-get install z3) to replay SMT-LIB dumps"
        );
        eprintln!("SKIP: no z3 binary on PATH; dumped SMT-LIB files are not replayed");
    }
    found
}

pub(crate) fn replay(z3: &Path, file: &Path) -> String {
    let out = Command::new(z3).arg(file).output().expect("z3 runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap_or("")
        .to_string()
}

/// Dumped files are standalone: the `z3` binary gives the answer the API
/// gave, for sat, unsat, uninterpreted symbols and timeouts alike.
#[test]
fn dumps_replay_with_the_z3_binary() {
    let Some(z3) = z3_binary() else { return };
    let dir = scratch_dir("replay");
    let mut t = Terms::new();
    let v = Vocab::new(&mut t);
    let mut s = Session::new(Some(dir));
    let mut queries = vec![hard_query(&mut t, Duration::from_millis(50))];
    let mut g = Gen::new(7);
    for i in 0..30 {
        let phi = bool_term(&mut t, &v, &mut g, Uf::Yes, 5);
        queries.push(query(&format!("random-{i}"), &[phi]));
    }
    let mut seen = (0, 0, 0);
    for q in &queries {
        let o = s.solve(&t, q).unwrap();
        let rec = s.log.last().unwrap();
        let got = replay(&z3, rec.dumped.as_ref().unwrap());
        assert_eq!(got, rec.answer, "query {}", q.name);
        match o {
            Outcome::Sat(_) => seen.0 += 1,
            Outcome::Unsat => seen.1 += 1,
            Outcome::Unknown(_) => seen.2 += 1,
        }
    }
    assert!(
        seen.0 > 0 && seen.1 > 0 && seen.2 > 0,
        "cover every answer: {seen:?}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(120))]

    /// Random formulas with every operator and uninterpreted symbols: the API
    /// answer agrees with Z3 parsing our SMT-LIB text, and every model
    /// satisfies the formula under the vc evaluator (checked inside `solve`,
    /// which would return `ModelMismatch` otherwise).
    #[test]
    fn api_and_printed_smtlib_agree(seed in proptest::prelude::any::<u64>()) {
        let mut t = Terms::new();
        let v = Vocab::new(&mut t);
        let mut g = Gen::new(seed);
        let a = bool_term(&mut t, &v, &mut g, Uf::Yes, 5);
        let b = bool_term(&mut t, &v, &mut g, Uf::Yes, 5);
        let q = query("random", &[a, b]);
        let o = solve(&t, &q).unwrap();
        prop_assert!(!matches!(o, Outcome::Unknown(_)), "{o:?}");
        prop_assert_eq!(answer(&o), z3_parse_and_check(&q.to_smtlib(&t)));
    }

    /// The vc evaluator and Z3 agree on the value of random bit-vector terms
    /// at random inputs: fixing the inputs, the term cannot differ from the
    /// evaluator's value (division by zero, over-wide shifts, signed
    /// operators, extension and extraction included).
    #[test]
    fn evaluator_agrees_with_z3(seed in proptest::prelude::any::<u64>()) {
        let mut t = Terms::new();
        let v = Vocab::new(&mut t);
        let mut g = Gen::new(seed);
        let w = WIDTHS[g.below(WIDTHS.len() as u64) as usize];
        let e = bv_term(&mut t, &v, &mut g, Uf::No, w, 5);
        let phi = bool_term(&mut t, &v, &mut g, Uf::No, 4);
        let m = v.assignment(&t, &mut g);
        let mut q = Query::new("eval", T);
        for (var, value) in &m.vars {
            let lit = t.value(value).unwrap();
            let vt = t.var_term(*var);
            let c = t.eq(vt, lit);
            q.assert(c, "input");
        }
        let ev = m.eval(&t, e).unwrap();
        let lit = t.value(&ev).unwrap();
        let differs = t.distinct(&[e, lit]);
        let mut qe = q.clone();
        qe.assert(differs, "bit-vector term differs from the evaluator");
        prop_assert_eq!(solve(&t, &qe).unwrap(), Outcome::Unsat);
        if let Ok(pv) = m.eval(&t, phi) {
            let lit = t.value(&pv).unwrap();
            let differs = t.xor(phi, lit);
            q.assert(differs, "formula differs from the evaluator");
            prop_assert_eq!(solve(&t, &q).unwrap(), Outcome::Unsat);
        }
    }
}
