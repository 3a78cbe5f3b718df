//! Tests of the term language without any solver.

use rustc_hash::FxHashMap as HashMap;

use proptest::prelude::{prop_assert_eq, proptest, ProptestConfig};

use super::arb::{bool_term, Gen, Uf, Vocab};
use super::eval::{apply_op, mask, to_signed, EvalError, Model, Value};
use super::smtlib::{bv_literal, script, symbol};
use super::{Condition, Node, Op, Sort, Terms};

fn bv8(bits: u128) -> Value {
    Value::bv(8, bits)
}

#[test]
fn hash_consing_gives_equal_terms_equal_ids() {
    let mut t = Terms::new();
    let x = t.var("x", Sort::BitVec(8));
    let y = t.var("y", Sort::BitVec(8));
    let a1 = t.bv_add(x, y);
    let a2 = t.bv_add(x, y);
    let b = t.bv_add(y, x);
    assert_eq!(a1, a2);
    // The builder puts the operands of commutative operators in id order
    // (`vc/build.rs`, R-VEC-SMT: O0 and O2 of one kernel build one term),
    // and only those.
    assert_eq!(a1, b, "commutative operands in one order");
    assert_ne!(
        t.bv_sub(x, y),
        t.bv_sub(y, x),
        "subtraction is not commutative"
    );
    let n = t.len();
    let _ = t.bv_add(x, y);
    assert_eq!(t.len(), n, "rebuilding allocates nothing");
    // Redeclaring a variable with the same sort is the same variable.
    assert_eq!(t.var("x", Sort::BitVec(8)), x);
}

#[test]
fn sort_errors_are_reported_by_try_app() {
    let mut t = Terms::new();
    let x = t.var("x", Sort::BitVec(8));
    let y = t.var("y", Sort::BitVec(4));
    let b = t.var("b", Sort::Bool);
    assert!(t.try_app(Op::BvAdd, &[x, y]).is_err());
    assert!(t.try_app(Op::And, &[b, x]).is_err());
    assert!(t.try_app(Op::Ite, &[x, x, x]).is_err());
    assert!(t.try_app(Op::Extract { hi: 8, lo: 0 }, &[x]).is_err());
    assert!(t.try_app(Op::Extract { hi: 2, lo: 3 }, &[x]).is_err());
    assert!(t.try_app(Op::ZeroExt(121), &[x]).is_err());
    {
        let r = t.try_app(Op::ZeroExt(120), &[x]).unwrap();
        assert_eq!(t.sort(r), &Sort::BitVec(128));
    }
    {
        let r = t.try_app(Op::Concat, &[x, y]).unwrap();
        assert_eq!(t.sort(r), &Sort::BitVec(12));
    }
    let f = t.func("f", &[Sort::BitVec(8)], Sort::Bool);
    assert!(t.try_app(Op::Apply(f), &[y]).is_err());
    assert!(t.try_app(Op::Apply(f), &[x, x]).is_err());
    {
        let r = t.try_app(Op::Apply(f), &[x]).unwrap();
        assert_eq!(t.sort(r), &Sort::Bool);
    }
}

#[test]
#[should_panic(expected = "vc sort error")]
fn builders_panic_on_sort_errors() {
    let mut t = Terms::new();
    let x = t.var("x", Sort::BitVec(8));
    let y = t.var("y", Sort::BitVec(4));
    t.bv_add(x, y);
}

#[test]
#[should_panic(expected = "redeclared")]
fn variables_cannot_change_sort() {
    let mut t = Terms::new();
    t.var("x", Sort::BitVec(8));
    t.var("x", Sort::Int);
}

#[test]
fn boolean_builders_simplify() {
    let mut t = Terms::new();
    let a = t.var("a", Sort::Bool);
    let b = t.var("b", Sort::Bool);
    let tru = t.tru();
    let fls = t.fls();
    assert_eq!(t.and(&[]), tru);
    assert_eq!(t.and(&[a]), a);
    assert_eq!(t.and(&[a, tru]), a);
    assert_eq!(t.and(&[a, fls, b]), fls);
    assert_eq!(t.or(&[a, tru]), tru);
    assert_eq!(t.or(&[fls, fls]), fls);
    let na = t.not(a);
    assert_eq!(t.not(na), a);
    assert_eq!(t.ite(tru, a, b), a);
    assert_eq!(t.ite(fls, a, b), b);
    assert_eq!(t.eq(a, a), tru);
    let ab = t.and(&[a, b, a]);
    assert!(matches!(t.node(ab), Node::App(Op::And, args) if args.len() == 2));
    let x = t.bv_const(8, 3);
    let y = t.bv_const(8, 300);
    assert_eq!(
        t.literal(y),
        Some(bv8(44)),
        "literals are reduced mod 2^width"
    );
    let s = t.bv_add(x, y);
    assert_eq!(t.literal(s), Some(bv8(47)), "constant folding");
    assert_eq!(t.eq(x, y), fls);
}

#[test]
fn substitute_replaces_variables_and_folds() {
    let mut t = Terms::new();
    let x = t.var("x", Sort::BitVec(8));
    let y = t.var("y", Sort::BitVec(8));
    let s = t.bv_add(x, y);
    let c = t.bv_ult(s, x);
    let mut map = HashMap::default();
    let five = t.bv_const(8, 5);
    map.insert(t.as_var(y).unwrap(), five);
    let c2 = t.substitute(c, &map);
    assert_eq!(t.display(c2).to_string(), "(bvult (bvadd x #x05) x)");
    let two_fifty = t.bv_const(8, 250);
    map.insert(t.as_var(x).unwrap(), two_fifty);
    let c3 = t.substitute(c, &map);
    // 250 + 5 = 255 is not below 250.
    assert_eq!(t.literal(c3), Some(Value::Bool(false)));
}

/// Every binary bit-vector operator at width 8, exhaustively, against Rust's
/// own u8/i8 arithmetic (an oracle independent of `apply_op`), including the
/// SMT-LIB conventions for division by zero and over-wide shifts.
#[test]
fn bv_operators_match_native_arithmetic_exhaustively_at_width_8() {
    for s in 0..=255u8 {
        for u in 0..=255u8 {
            let (si, ui) = (s as i8, u as i8);
            let expect: [(Op, Value); 17] = [
                (Op::BvAnd, bv8((s & u) as u128)),
                (Op::BvOr, bv8((s | u) as u128)),
                (Op::BvXor, bv8((s ^ u) as u128)),
                (Op::BvAdd, bv8(s.wrapping_add(u) as u128)),
                (Op::BvSub, bv8(s.wrapping_sub(u) as u128)),
                (Op::BvMul, bv8(s.wrapping_mul(u) as u128)),
                (Op::BvUdiv, bv8(s.checked_div(u).map_or(255, |q| q as u128))),
                (
                    Op::BvUrem,
                    bv8(if u == 0 { s as u128 } else { (s % u) as u128 }),
                ),
                (
                    Op::BvSdiv,
                    bv8(if u == 0 {
                        if si < 0 {
                            1
                        } else {
                            255
                        }
                    } else {
                        si.wrapping_div(ui) as u8 as u128
                    }),
                ),
                (
                    Op::BvSrem,
                    bv8(if u == 0 {
                        s as u128
                    } else {
                        si.wrapping_rem(ui) as u8 as u128
                    }),
                ),
                (Op::BvShl, bv8(if u >= 8 { 0 } else { (s << u) as u128 })),
                (Op::BvLshr, bv8(if u >= 8 { 0 } else { (s >> u) as u128 })),
                (Op::BvAshr, bv8((si >> u.min(7)) as u8 as u128)),
                (Op::BvUlt, Value::Bool(s < u)),
                (Op::BvUle, Value::Bool(s <= u)),
                (Op::BvSlt, Value::Bool(si < ui)),
                (Op::BvSle, Value::Bool(si <= ui)),
            ];
            for (op, want) in expect {
                let got = apply_op(op, &[bv8(s as u128), bv8(u as u128)]).unwrap();
                assert_eq!(got, want, "{op:?} {s} {u}");
            }
        }
        assert_eq!(
            apply_op(Op::BvNeg, &[bv8(s as u128)]).unwrap(),
            bv8(s.wrapping_neg() as u128)
        );
        assert_eq!(
            apply_op(Op::BvNot, &[bv8(s as u128)]).unwrap(),
            bv8(!s as u128)
        );
        assert_eq!(
            apply_op(Op::SignExt(8), &[bv8(s as u128)]).unwrap(),
            Value::bv(16, s as i8 as i16 as u16 as u128)
        );
        assert_eq!(
            apply_op(Op::ZeroExt(8), &[bv8(s as u128)]).unwrap(),
            Value::bv(16, s as u128)
        );
        assert_eq!(
            apply_op(Op::Extract { hi: 6, lo: 2 }, &[bv8(s as u128)]).unwrap(),
            Value::bv(5, ((s >> 2) & 0x1f) as u128)
        );
    }
}

#[test]
fn width_128_edge_cases() {
    let big = |b: u128| Value::bv(128, b);
    let min = 1u128 << 127;
    assert_eq!(mask(128), u128::MAX);
    assert_eq!(to_signed(128, min), i128::MIN);
    assert_eq!(to_signed(4, 0b1000), -8);
    assert_eq!(to_signed(1, 1), -1);
    assert_eq!(
        apply_op(Op::BvAdd, &[big(u128::MAX), big(2)]).unwrap(),
        big(1)
    );
    assert_eq!(
        apply_op(Op::BvSdiv, &[big(min), big(u128::MAX)]).unwrap(),
        big(min)
    );
    assert_eq!(
        apply_op(Op::BvAshr, &[big(min), big(500)]).unwrap(),
        big(u128::MAX)
    );
    assert_eq!(apply_op(Op::BvShl, &[big(1), big(127)]).unwrap(), big(min));
    assert_eq!(
        apply_op(Op::Concat, &[Value::bv(64, 1), Value::bv(64, 2)]).unwrap(),
        big((1u128 << 64) | 2)
    );
    assert_eq!(
        apply_op(Op::IntMul, &[Value::Int(i128::MAX), Value::Int(2)]),
        Err(EvalError::IntOverflow(Op::IntMul))
    );
    assert_eq!(
        apply_op(Op::BvAdd, &[bv8(1), Value::bv(4, 1)]),
        Err(EvalError::IllSorted(Op::BvAdd))
    );
}

#[test]
fn model_eval_uses_function_tables_and_reports_gaps() {
    let mut t = Terms::new();
    let x = t.var("x", Sort::BitVec(8));
    let f = t.func("f", &[Sort::BitVec(8)], Sort::BitVec(8));
    let fx = t.apply(f, &[x]);
    let one = t.bv_const(8, 1);
    let e = t.bv_add(fx, one);
    let mut m = Model::new();
    assert_eq!(m.eval(&t, e), Err(EvalError::UnassignedVar("x".into())));
    m.vars.insert(t.as_var(x).unwrap(), bv8(3));
    assert_eq!(
        m.eval(&t, e),
        Err(EvalError::UndefinedApplication("f".into()))
    );
    m.funcs
        .entry(f)
        .or_default()
        .entries
        .insert(vec![bv8(3)], bv8(41));
    assert_eq!(m.eval(&t, e), Ok(bv8(42)));
    m.vars.insert(t.as_var(x).unwrap(), bv8(4));
    assert!(m.eval(&t, e).is_err());
    m.funcs.get_mut(&f).unwrap().default = Some(bv8(9));
    assert_eq!(m.eval(&t, e), Ok(bv8(10)));
}

#[test]
fn smtlib_printing() {
    assert_eq!(bv_literal(8, 0x0f), "#x0f");
    assert_eq!(bv_literal(3, 5), "#b101");
    assert_eq!(bv_literal(12, 1), "#x001");
    assert_eq!(symbol("t0.x"), "t0.x");
    assert_eq!(symbol("a b"), "|a b|");
    assert_eq!(symbol("0x"), "|0x|");
    assert_eq!(symbol("let"), "|let|");
    let mut t = Terms::new();
    let u = t.uninterpreted_sort("Thread");
    let x = t.var("x", Sort::BitVec(8));
    let n = t.var("n", Sort::Int);
    let a = t.var("a b", u.clone());
    let f = t.func("tid", &[u], Sort::BitVec(8));
    let fa = t.apply(f, &[a]);
    let e = t.extract(3, 0, x);
    let z = t.zero_ext(4, e);
    let c = t.bv_ule(z, fa);
    let m5 = t.int_const(-5);
    let d = t.int_lt(n, m5);
    let both = t.and(&[c, d]);
    assert_eq!(
        t.display(both).to_string(),
        "(and (bvule ((_ zero_extend 4) ((_ extract 3 0) x)) (tid |a b|)) (< n (- 5)))"
    );
}

#[test]
fn script_declares_used_symbols_and_names_shared_subterms_once() {
    let mut t = Terms::new();
    let x = t.var("x", Sort::BitVec(8));
    let _unused = t.var("unused", Sort::Bool);
    let y = t.var("y", Sort::BitVec(8));
    let s = t.bv_mul(x, y);
    let c1 = t.bv_ult(s, x);
    let c2 = t.bv_ult(y, s);
    let conds = [
        Condition::new(c1, "@f:%bb1\nsecond line"),
        Condition::new(c2, ""),
    ];
    let text = script(&t, "q1", Some(500), &conds);
    let expected = "\
; query: q1
(set-option :timeout 500)
(set-option :produce-models true)
(declare-const x (_ BitVec 8))
(declare-const y (_ BitVec 8))
(define-fun $t3 () (_ BitVec 8) (bvmul x y))
; origin: @f:%bb1 second line
(assert (bvult $t3 x))
(assert (bvult y $t3))
(check-sat)
";
    assert_eq!(text, expected);
}

#[test]
#[should_panic(expected = "cannot be an SMT-LIB symbol")]
fn names_that_cannot_be_printed_are_rejected() {
    let mut t = Terms::new();
    t.var("a|b", Sort::Bool);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Substituting literals for every variable folds a term to exactly the
    /// value the evaluator gives it: the simplifying builders preserve
    /// meaning.
    #[test]
    fn folding_agrees_with_evaluation(seed in proptest::prelude::any::<u64>()) {
        let mut t = Terms::new();
        let v = Vocab::new(&mut t);
        let mut g = Gen::new(seed);
        let phi = bool_term(&mut t, &v, &mut g, Uf::No, 4);
        let m = v.assignment(&t, &mut g);
        let want = m.eval(&t, phi);
        let mut map = HashMap::default();
        for (var, val) in &m.vars {
            let lit = t.value(val).unwrap();
            map.insert(*var, lit);
        }
        let folded = t.substitute(phi, &map);
        match want {
            Ok(val) => prop_assert_eq!(t.literal(folded), Some(val)),
            // Only integer overflow can stop evaluation here; folding then
            // leaves the overflowing operation in place.
            Err(e) => prop_assert_eq!(matches!(e, EvalError::IntOverflow(_)), true),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Substituting a term `s` for a variable `v` means evaluating with `v`
    /// set to the value of `s`: eval(t[v := s], m) = eval(t, m[v := eval(s, m)]).
    #[test]
    fn substitution_is_evaluation_under_an_updated_assignment(seed in proptest::prelude::any::<u64>()) {
        let mut t = Terms::new();
        let v = Vocab::new(&mut t);
        let mut g = Gen::new(seed);
        let phi = bool_term(&mut t, &v, &mut g, Uf::No, 4);
        let m = v.assignment(&t, &mut g);
        let (w, target) = v.bvs[g.below(v.bvs.len() as u64) as usize];
        let s = super::arb::bv_term(&mut t, &v, &mut g, Uf::No, w, 3);
        let var = t.as_var(target).unwrap();
        let mut map = HashMap::default();
        map.insert(var, s);
        let substituted = t.substitute(phi, &map);
        let (Ok(sv), Ok(direct)) = (m.eval(&t, s), m.eval(&t, substituted)) else {
            // Integer overflow in i128 only.
            return Ok(());
        };
        let mut m2 = m.clone();
        m2.vars.insert(var, sv);
        prop_assert_eq!(m2.eval(&t, phi), Ok(direct));
    }
}
