//! CEGIS on toy exists-forall problems over bit-vectors, against brute force.

use std::collections::HashMap;
use std::time::Duration;

use proptest::prelude::{prop_assert, prop_assert_eq, proptest, ProptestConfig};

use super::{run, CegisOutcome, ExistsForall, ProblemError, SmtExistsForall};
use crate::smt::{Session, UnknownReason};
use crate::vc::arb::{bool_term, Gen, Uf, Vocab};
use crate::vc::eval::{Model, Value};
use crate::vc::{Condition, Sort, TermId, Terms};

const T: Duration = Duration::from_secs(20);

fn problem(terms: Terms, x: TermId, y: TermId, phi: TermId) -> SmtExistsForall {
    SmtExistsForall::new(terms, &[x], &[y], phi, "phi", T, Session::new(None)).unwrap()
}

/// `phi(x, y)` for every `y` of width `w`, by the evaluator.
fn holds_for_all_y(terms: &Terms, x: TermId, y: TermId, phi: TermId, xv: &Value, w: u32) -> bool {
    (0..1u128 << w).all(|yv| {
        let mut m = Model::new();
        m.vars.insert(terms.as_var(x).unwrap(), xv.clone());
        m.vars.insert(terms.as_var(y).unwrap(), Value::bv(w, yv));
        m.eval(terms, phi) == Ok(Value::Bool(true))
    })
}

fn found(
    outcome: &CegisOutcome<HashMap<crate::vc::VarId, Value>>,
) -> &HashMap<crate::vc::VarId, Value> {
    match outcome {
        CegisOutcome::Found(c) => c,
        other => panic!("expected a solution, got {other:?}"),
    }
}

/// exists x. forall y. x & y = y: the unique solution is all ones.
#[test]
fn finds_the_mask_that_keeps_every_bit() {
    let mut t = Terms::new();
    let x = t.var("x", Sort::BitVec(8));
    let y = t.var("y", Sort::BitVec(8));
    let xy = t.bv_and(x, y);
    let phi = t.eq(xy, y);
    let mut p = problem(t, x, y, phi);
    let r = run(&mut p, "mask", 300).unwrap();
    let c = found(&r.outcome);
    assert_eq!(c[&p.terms.as_var(x).unwrap()], Value::bv(8, 0xff));
    // Each refuting witness has a bit the candidate lacks; at most 9 rounds.
    assert!(r.iterations >= 1 && r.iterations <= 9, "{}", r.iterations);
    assert_eq!(r.queries.len(), 2 * r.iterations);
    assert_eq!(r.queries[0], "mask-propose-0");
    assert_eq!(r.queries[1], "mask-check-0");
    let logged: Vec<&str> = p.session.log.iter().map(|q| q.name.as_str()).collect();
    assert_eq!(
        logged,
        r.queries.iter().map(String::as_str).collect::<Vec<_>>()
    );
}

/// Every query of a run is dumped under its own name, and each dump replays
/// with the `z3` binary to the answer the run got.
#[test]
fn every_query_of_a_run_is_dumped_and_replays() {
    let dir = crate::smt::tests::scratch_dir("cegis");
    let mut t = Terms::new();
    let x = t.var("x", Sort::BitVec(6));
    let y = t.var("y", Sort::BitVec(6));
    let xy = t.bv_or(x, y);
    let phi = t.eq(xy, x);
    let session = Session::new(Some(dir.clone()));
    let mut p = SmtExistsForall::new(t, &[x], &[y], phi, "x|y = x", T, session).unwrap();
    let r = run(&mut p, "ormask", 100).unwrap();
    assert_eq!(
        found(&r.outcome)[&p.terms.as_var(x).unwrap()],
        Value::bv(6, 63)
    );
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names.len(), r.queries.len());
    for q in &r.queries {
        assert!(names.contains(&format!("{q}.smt2")), "{q} not dumped");
    }
    let Some(z3) = crate::smt::tests::z3_binary() else {
        return;
    };
    for rec in &p.session.log {
        let got = crate::smt::tests::replay(&z3, rec.dumped.as_ref().unwrap());
        assert_eq!(got, rec.answer, "{}", rec.name);
    }
}

/// exists x. forall y. (x*y)&1 = y&1: exactly the odd x; the one found
/// must be correct for all 256 y.
#[test]
fn finds_an_odd_multiplier() {
    let mut t = Terms::new();
    let x = t.var("x", Sort::BitVec(8));
    let y = t.var("y", Sort::BitVec(8));
    let one = t.bv_const(8, 1);
    let xy = t.bv_mul(x, y);
    let l = t.bv_and(xy, one);
    let r_ = t.bv_and(y, one);
    let phi = t.eq(l, r_);
    let mut p = problem(t, x, y, phi);
    let r = run(&mut p, "odd", 300).unwrap();
    let xv = found(&r.outcome)[&p.terms.as_var(x).unwrap()].clone();
    assert_eq!(xv.as_bits().unwrap() % 2, 1);
    assert!(holds_for_all_y(&p.terms, x, y, phi, &xv, 8));
}

/// exists x. forall y. x != y has no solution; each witness (y = the
/// candidate) blocks exactly one of the 16 values of a 4-bit x, so the run
/// takes exactly 16 refuted proposals and a 17th that is exhausted.
#[test]
fn no_solution_after_blocking_every_candidate() {
    let mut t = Terms::new();
    let x = t.var("x", Sort::BitVec(4));
    let y = t.var("y", Sort::BitVec(4));
    let phi = t.distinct(&[x, y]);
    let mut p = problem(t, x, y, phi);
    let r = run(&mut p, "distinct", 100).unwrap();
    assert_eq!(r.outcome, CegisOutcome::NoSolution);
    assert_eq!(r.iterations, 17);
    assert_eq!(p.blocked().len(), 16);
    assert_eq!(r.queries.last().unwrap(), "distinct-propose-16");
    let mut ys: Vec<u128> = p
        .blocked()
        .iter()
        .map(|w| w.values().next().unwrap().as_bits().unwrap())
        .collect();
    ys.sort();
    assert_eq!(ys, (0..16).collect::<Vec<_>>(), "every value blocked once");
}

/// exists x. forall y. y <u x: no solution. The solver picks the witnesses,
/// but each must be at least its candidate, which must exceed every earlier
/// witness: the witnesses strictly increase, and only y = 255 leaves no x.
#[test]
fn witnesses_block_ranges_of_candidates() {
    let mut t = Terms::new();
    let x = t.var("x", Sort::BitVec(8));
    let y = t.var("y", Sort::BitVec(8));
    let phi = t.bv_ult(y, x);
    let mut p = problem(t, x, y, phi);
    let r = run(&mut p, "below", 300).unwrap();
    assert_eq!(r.outcome, CegisOutcome::NoSolution);
    let ws: Vec<u128> = p
        .blocked()
        .iter()
        .map(|w| w.values().next().unwrap().as_bits().unwrap())
        .collect();
    assert_eq!(r.iterations, ws.len() + 1);
    assert!(ws.windows(2).all(|p| p[0] < p[1]), "{ws:?}");
    assert_eq!(ws.last(), Some(&255));
}

#[test]
fn iteration_limit_is_reported_not_guessed() {
    let mut t = Terms::new();
    let x = t.var("x", Sort::BitVec(4));
    let y = t.var("y", Sort::BitVec(4));
    let phi = t.distinct(&[x, y]);
    let mut p = problem(t, x, y, phi);
    let r = run(&mut p, "limited", 5).unwrap();
    assert_eq!(r.outcome, CegisOutcome::IterationLimit);
    assert_eq!(r.iterations, 5);
}

/// A propose step that times out ends the run with Unknown naming it.
#[test]
fn solver_timeout_ends_the_run_as_unknown() {
    let mut t = Terms::new();
    let p_: u128 = ((1u128 << 31) - 1) * ((1u128 << 31) - 19);
    let a = t.var("a", Sort::BitVec(64));
    let b = t.var("b", Sort::BitVec(64));
    let y = t.var("y", Sort::BitVec(1));
    let aw = t.zero_ext(64, a);
    let bw = t.zero_ext(64, b);
    let prod = t.bv_mul(aw, bw);
    let n = t.bv_const(128, p_);
    let one = t.bv_const(64, 1);
    let c1 = t.eq(prod, n);
    let c2 = t.bv_ugt(a, one);
    let c3 = t.bv_ugt(b, one);
    let side = t.and(&[c1, c2, c3]);
    let phi = t.tru();
    let mut p = SmtExistsForall::new(
        t,
        &[a, b],
        &[y],
        phi,
        "phi",
        Duration::from_millis(50),
        Session::new(None),
    )
    .unwrap()
    .with_side(Condition::new(side, "factor"))
    .unwrap();
    let r = run(&mut p, "hard", 10).unwrap();
    assert_eq!(
        r.outcome,
        CegisOutcome::Unknown {
            query: "hard-propose-0".into(),
            reason: UnknownReason::Timeout
        }
    );
}

#[test]
fn malformed_problems_are_rejected() {
    let mut t = Terms::new();
    let x = t.var("x", Sort::BitVec(4));
    let y = t.var("y", Sort::BitVec(4));
    let z = t.var("z", Sort::BitVec(4));
    let phi = t.bv_ult(x, z);
    let s = || Session::new(None);
    assert_eq!(
        SmtExistsForall::new(t.clone(), &[x], &[y], phi, "", T, s()).err(),
        Some(ProblemError::FreeVariable("z".into()))
    );
    assert_eq!(
        SmtExistsForall::new(t.clone(), &[x, z], &[z], phi, "", T, s()).err(),
        Some(ProblemError::BothSides("z".into()))
    );
    let xy = t.bv_ult(x, y);
    assert_eq!(
        SmtExistsForall::new(t.clone(), &[x], &[y], phi, "", T, s()).err(),
        Some(ProblemError::FreeVariable("z".into()))
    );
    let sum = t.bv_add(x, y);
    assert!(matches!(
        SmtExistsForall::new(t.clone(), &[sum], &[y], xy, "", T, s()).err(),
        Some(ProblemError::NotAVariable(_))
    ));
    let ok = SmtExistsForall::new(t.clone(), &[x], &[y], xy, "", T, s()).unwrap();
    assert_eq!(
        ok.with_side(Condition::new(xy, "mentions y")).err(),
        Some(ProblemError::FreeVariable("y".into()))
    );
    let f = t.func("f", &[Sort::BitVec(4)], Sort::Bool);
    let fx = t.apply(f, &[x]);
    assert_eq!(
        SmtExistsForall::new(t, &[x], &[], fx, "", T, s()).err(),
        Some(ProblemError::Function("f".into()))
    );
}

/// A trivial problem through the generic interface, to pin the protocol:
/// propose/check/block are called in order, and blocking is what makes
/// progress.
#[test]
fn generic_loop_calls_propose_check_block_in_order() {
    struct Countdown {
        calls: Vec<String>,
        next: u32,
    }
    impl ExistsForall for Countdown {
        type Candidate = u32;
        type Witness = u32;
        fn propose(&mut self, q: &str) -> Result<super::Proposal<u32>, crate::smt::SmtError> {
            self.calls.push(format!("propose {q}"));
            Ok(super::Proposal::Candidate(self.next))
        }
        fn check(&mut self, c: &u32, q: &str) -> Result<super::Check<u32>, crate::smt::SmtError> {
            self.calls.push(format!("check {q} {c}"));
            Ok(if *c == 0 {
                super::Check::Holds
            } else {
                super::Check::Refuted(*c)
            })
        }
        fn block(&mut self, c: &u32, w: u32) {
            self.calls.push(format!("block {c} {w}"));
            self.next -= 1;
        }
    }
    let mut p = Countdown {
        calls: Vec::new(),
        next: 2,
    };
    let r = run(&mut p, "cd", 10).unwrap();
    assert_eq!(r.outcome, CegisOutcome::Found(0));
    assert_eq!(r.iterations, 3);
    assert_eq!(
        p.calls,
        [
            "propose cd-propose-0",
            "check cd-check-0 2",
            "block 2 2",
            "propose cd-propose-1",
            "check cd-check-1 1",
            "block 1 1",
            "propose cd-propose-2",
            "check cd-check-2 0",
        ]
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// Random phi(x, y) over 4-bit x and y (every other variable fixed to a
    /// random literal): CEGIS finds a solution iff brute force over all 16x16
    /// pairs finds one, the solution it finds is one, and it takes at most
    /// 17 rounds (each witness is new, and there are 16).
    #[test]
    fn agrees_with_brute_force(seed in proptest::prelude::any::<u64>()) {
        let mut t = Terms::new();
        let v = Vocab::new(&mut t);
        let mut g = Gen::new(seed);
        let raw = bool_term(&mut t, &v, &mut g, Uf::No, 5);
        let x4: Vec<TermId> = v.bvs.iter().filter(|p| p.0 == 4).map(|p| p.1).collect();
        let (x, y) = (x4[0], x4[1]);
        let mut fixed = HashMap::new();
        for (var, val) in v.assignment(&t, &mut g).vars {
            if var != t.as_var(x).unwrap() && var != t.as_var(y).unwrap() {
                let lit = t.value(&val).unwrap();
                fixed.insert(var, lit);
            }
        }
        let phi = t.substitute(raw, &fixed);
        let solutions: Vec<u128> = (0..16)
            .filter(|&xv| holds_for_all_y(&t, x, y, phi, &Value::bv(4, xv), 4))
            .collect();
        let mut p = problem(t, x, y, phi);
        let r = run(&mut p, "random", 40).unwrap();
        prop_assert!(r.iterations <= 17, "{}", r.iterations);
        match &r.outcome {
            CegisOutcome::Found(c) => {
                let xv = c[&p.terms.as_var(x).unwrap()].as_bits().unwrap();
                prop_assert!(solutions.contains(&xv), "{xv} not in {solutions:?}");
            }
            CegisOutcome::NoSolution => prop_assert_eq!(solutions, Vec::<u128>::new()),
            other => prop_assert!(false, "unexpected {other:?}"),
        }
    }
}
