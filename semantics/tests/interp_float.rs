//! Floating-point values in the reference interpreter (docs/RULES.md
//! P-FLOAT, P-FLOAT-NAN, P-FLOAT-FMF): the interpreter's value of generated
//! float instructions over constants agrees bit for bit (NaN payloads
//! aside) with `opt-22`'s constant folding, and small programs with float
//! loads, stores, phis and selects run as LLVM defines them.

use std::collections::{BTreeMap, BTreeSet};

use semantics::ir::float::FloatTy;
use semantics::ir::{Operand, TermKind};
use semantics::machine::launch::Exploration;
use semantics::machine::state::ThreadEnd;
use semantics::machine::{explore, Options, Val};
use semantics::parse_module;
use testgen::floats::case;
use testgen::oracle::{opt_or_skip, run_opt};

fn run(text: &str, opts: &Options) -> Exploration {
    let m = parse_module("float.ll", text).unwrap_or_else(|e| panic!("{e}"));
    explore(&m, opts).unwrap_or_else(|e| panic!("{e}"))
}

fn one_thread(entry: &str) -> Options {
    Options {
        threads: 1,
        entry: Some(entry.to_string()),
        ..Options::default()
    }
}

fn returned(ex: &Exploration) -> BTreeSet<Vec<String>> {
    ex.behaviours
        .iter()
        .map(|b| {
            b.execution
                .threads
                .iter()
                .map(|t| match &t.end {
                    Some(ThreadEnd::Returned(v)) => v.to_string(),
                    other => format!("{other:?}"),
                })
                .collect()
        })
        .collect()
}

/// Whether two values agree: equal bits, or both NaN of one format (P-FLOAT-NAN).
fn agree(ours: &Val, theirs: &Val) -> bool {
    match (ours, theirs) {
        (Val::Float { ty: a, bits: x }, Val::Float { ty: b, bits: y }) => {
            a == b && (x == y || (a.is_nan(*x) && b.is_nan(*y)))
        }
        _ => ours == theirs,
    }
}

/// P-FLOAT against LLVM: 1,500 generated instructions over constants (all
/// four formats; arithmetic with fast-math flags, `fneg`, the 16 `fcmp`
/// predicates, the float intrinsics of the subset, int/float conversions,
/// `fpext`/`fptrunc`/`bitcast`) are folded by `opt-22 -passes=instsimplify`
/// and run by the interpreter; every folded result must be the
/// interpreter's, bit for bit except NaN payloads.
#[test]
fn constant_folding_agrees_with_opt() {
    let Some(opt) = opt_or_skip("constant_folding_agrees_with_opt") else {
        return;
    };
    let cases = testgen::sample(&case(), 1500, 7);
    let mut decls = BTreeSet::new();
    let mut text = String::new();
    for (i, c) in cases.iter().enumerate() {
        text.push_str(&c.function(&format!("f{i}")));
        decls.extend(c.decls.iter().cloned());
    }
    for d in &decls {
        text.push_str(d);
        text.push('\n');
    }
    let ours_module = parse_module("gen.ll", &text).unwrap_or_else(|e| panic!("{e}"));
    let out = run_opt(&opt, &["-passes=instsimplify", "-S"], &text);
    assert_eq!(
        out.status,
        Some(0),
        "opt-22 rejects the module: {}",
        out.stderr
    );
    let folded = parse_module("opt-S.ll", &out.stdout).unwrap_or_else(|e| panic!("{e}"));
    let mut checked: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut diffs = Vec::new();
    let mut poison_by_flags = 0;
    for (i, c) in cases.iter().enumerate() {
        let name = format!("f{i}");
        let f = folded
            .functions
            .iter()
            .find(|f| f.name == name)
            .expect("opt keeps every function");
        let entry = checked.entry(c.what.clone()).or_default();
        entry.1 += 1;
        let b = &f.blocks[0];
        // Folded: the body is just `ret <constant>`.
        let (true, TermKind::Ret(Some(r))) = (b.insts.is_empty(), &b.term.kind) else {
            continue;
        };
        let Operand::Const(_) = &r.value else {
            continue;
        };
        entry.0 += 1;
        let ours =
            single(&explore(&ours_module, &one_thread(&name)).unwrap_or_else(|e| panic!("{e}")));
        // opt's folded constant, read by running its `ret`.
        let theirs =
            single(&explore(&folded, &one_thread(&name)).unwrap_or_else(|e| panic!("{e}")));
        let (Some(o), Some(t)) = (ours, theirs) else {
            diffs.push(format!("{name} ({}): no single value", c.what));
            continue;
        };
        // P-FLOAT-FMF: poison refines to any value; opt-22 folds to the
        // IEEE result, which the flags allow it to pick.
        let flagged = ["nnan", "ninf", "fast"].iter().any(|f| c.body.contains(f));
        if o == Val::Poison && flagged && t != Val::Poison {
            poison_by_flags += 1;
            continue;
        }
        if !agree(&o, &t) {
            diffs.push(format!(
                "{name}: {} -> interpreter {o}, opt-22 {t}\n{}",
                c.what,
                c.function(&name)
            ));
        }
    }
    let total: usize = checked.values().map(|c| c.0).sum();
    eprintln!(
        "P-FLOAT vs opt-22: {total} of {} folded and compared ({poison_by_flags} poison by nnan/ninf where opt-22 keeps the IEEE value); per operation (folded/generated): {checked:?}",
        cases.len()
    );
    assert!(
        diffs.is_empty(),
        "{} differences:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
    // The comparison must have substance: most cases fold, and every
    // operation kind is compared at least once.
    assert!(total * 10 >= cases.len() * 8, "only {total} cases folded");
    for (what, (n, _)) in &checked {
        assert!(
            *n > 0,
            "opt-22 folded no {what}: the comparison does not cover it"
        );
    }
}

/// The single returned value of a one-thread exploration.
fn single(ex: &Exploration) -> Option<Val> {
    let vals: BTreeSet<Val> = ex
        .behaviours
        .iter()
        .filter_map(|b| match &b.execution.threads[0].end {
            Some(ThreadEnd::Returned(v)) => Some(v.clone()),
            _ => None,
        })
        .collect();
    (vals.len() == 1).then(|| vals.iter().next().expect("one value").clone())
}

/// P-FLOAT: floats through memory, phis and selects keep their bits; the
/// values print as opt prints them.
#[test]
fn floats_through_memory_and_control() {
    let text = "define float @k(i1 %c) {\nentry:\n  %p = alloca float, align 4\n  store float 1.500000e+00, ptr %p, align 4\n  %x = load float, ptr %p, align 4\n  %y = fmul float %x, 0x3FB99999A0000000\n  br i1 %c, label %a, label %b\na:\n  br label %j\nb:\n  br label %j\nj:\n  %z = phi float [ %y, %a ], [ -0.000000e+00, %b ]\n  %s = select i1 %c, float %z, float 0x7FF0000000000000\n  ret float %s\n}\n";
    let ex = run(text, &one_thread("k"));
    assert_eq!(
        returned(&ex),
        [
            vec!["0x3FC3333340000000".to_string()],
            vec!["0x7FF0000000000000".to_string()]
        ]
        .into()
    );
}

/// P-FLOAT-FMF: `nnan` on an operation whose operand is NaN is poison, and
/// a branch on an `fcmp nnan` of it is undefined behaviour.
#[test]
fn fast_math_flags_make_poison() {
    let text = "define i32 @k() {\nentry:\n  %n = fdiv float 0.000000e+00, 0.000000e+00\n  %c = fcmp nnan olt float %n, 1.000000e+00\n  br i1 %c, label %a, label %b\na:\n  ret i32 1\nb:\n  ret i32 0\n}\n";
    let ex = run(text, &one_thread("k"));
    assert_eq!(ex.ub, ex.explored);
    let text = text.replace("fcmp nnan", "fcmp");
    assert_eq!(
        returned(&run(&text, &one_thread("k"))),
        [vec!["0".to_string()]].into()
    );
}

/// LLParser: a decimal literal that the type cannot hold exactly is an
/// error at its location, with LLVM's wording.
#[test]
fn inexact_literals_are_rejected() {
    let e = parse_module("bad.ll", "define float @k() {\n  ret float 0.1\n}\n").unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("floating point constant invalid for type"),
        "{msg}"
    );
    assert!(msg.contains("bad.ll:2:13"), "{msg}");
    assert!(parse_module("ok.ll", "define half @k() {\n  ret half 0.5\n}\n").is_ok());
}

/// P-FLOAT with P-VEC-ELEM: a vector of floats is computed element by
/// element (`fneg` of zeros gives negative zeros); a float vector the
/// interpreter does not model (a scalable one) is reported unsupported,
/// never guessed.
#[test]
fn float_vectors_are_element_wise_and_scalable_ones_unsupported() {
    let m = parse_module(
        "v.ll",
        "define <2 x float> @k() {\n  %r = fneg <2 x float> zeroinitializer\n  ret <2 x float> %r\n}\n",
    )
    .unwrap();
    let neg0 = Val::Float {
        ty: FloatTy::Float,
        bits: 0x8000_0000,
    };
    assert_eq!(
        single(&explore(&m, &one_thread("k")).unwrap()),
        Some(Val::Vector(vec![neg0.clone(), neg0].into()))
    );
    let m = parse_module(
        "v.ll",
        "define <vscale x 2 x float> @k(<vscale x 2 x float> %v) {\n  %r = fneg <vscale x 2 x float> %v\n  ret <vscale x 2 x float> %r\n}\n",
    )
    .unwrap();
    let err = explore(&m, &one_thread("k")).map(|_| ()).unwrap_err();
    assert!(err.to_string().contains("unsupported"), "{err}");
}
