//! Vectors in the reference interpreter (docs/RULES.md P-VEC-*): the
//! interpreter's value of generated vector instructions over constants
//! agrees element by element, bit for bit (NaN payloads aside), with
//! `opt-22`'s constant folding, poison where opt folds to poison; and
//! vector values flow through memory, phis and calls as LLVM lays them out.

use std::collections::{BTreeMap, BTreeSet};

use semantics::ir::{Operand, TermKind};
use semantics::machine::launch::Exploration;
use semantics::machine::state::ThreadEnd;
use semantics::machine::{explore, Options, Val};
use semantics::parse_module;
use testgen::oracle::{opt_or_skip, run_opt};
use testgen::vectors::vector_case;

fn one_thread(entry: &str) -> Options {
    Options {
        threads: 1,
        entry: Some(entry.to_string()),
        ..Options::default()
    }
}

/// How the interpreter's value relates to opt-22's, element by element.
#[derive(Debug, PartialEq, Eq)]
enum Cmp {
    /// Equal bits (NaNs of one format count as equal, P-FLOAT-NAN).
    Equal,
    /// Ours has poison where opt has a value: opt refined poison (allowed
    /// by LLVM, and reported per operation).
    Refined,
    Differ,
}

fn scalar(ours: &Val, theirs: &Val) -> Cmp {
    match (ours, theirs) {
        (Val::Float { ty: a, bits: x }, Val::Float { ty: b, bits: y })
            if a == b && (x == y || (a.is_nan(*x) && b.is_nan(*y))) =>
        {
            Cmp::Equal
        }
        (Val::Poison, Val::Poison) => Cmp::Equal,
        (Val::Poison, _) => Cmp::Refined,
        _ if ours == theirs => Cmp::Equal,
        _ => Cmp::Differ,
    }
}

fn compare(ours: &Val, theirs: &Val) -> Cmp {
    match (ours, theirs) {
        (Val::Vector(xs), Val::Vector(ys)) if xs.len() == ys.len() => {
            let each: Vec<Cmp> = xs
                .iter()
                .zip(ys.iter())
                .map(|(x, y)| scalar(x, y))
                .collect();
            if each.contains(&Cmp::Differ) {
                Cmp::Differ
            } else if each.contains(&Cmp::Refined) {
                Cmp::Refined
            } else {
                Cmp::Equal
            }
        }
        (Val::Vector(_), _) | (_, Val::Vector(_)) => Cmp::Differ,
        _ => scalar(ours, theirs),
    }
}

/// Where LLVM lets opt's folding refine the interpreter's poison to a
/// value: opt's constant folder ignores poison-generating flags (`nuw`,
/// `nsw`, `exact`, `disjoint`, `samesign`, `nneg`, `nnan`, `ninf`) and
/// folds to the wrapped or IEEE value; it reads a poison element as zero
/// when a bitcast combines elements.
fn refinable(c: &testgen::floats::Case) -> bool {
    c.what == "bitcast"
        || [
            "nuw ",
            "nsw ",
            "exact ",
            "disjoint ",
            "samesign ",
            "nneg ",
            "nnan ",
            "ninf ",
            "fast ",
        ]
        .iter()
        .any(|f| c.body.contains(f))
}

/// Lane-wise operations (`fcmp`, intrinsics on vectors) where each of
/// ours' poison elements that opt folded to a value has a poison operand
/// element in its lane, and reductions with a poison element: opt folds
/// `minnum(x, poison)` to `x` and `fcmp true` to `true` whatever the
/// operands, refining poison.
fn lanes_refined(ours: &Val, theirs: &Val, m: &semantics::ir::Module, name: &str) -> bool {
    use semantics::ir::{Const, InstKind};
    let f = m.function(name).expect("the generated function");
    let ops: Vec<&Operand> = match &f.blocks[0].insts[0].kind {
        InstKind::FCmp { lhs, rhs, .. } => vec![lhs, rhs],
        InstKind::Call(c) => c.args.iter().map(|a| &a.value).collect(),
        _ => return false,
    };
    let poison_at = |k: usize| {
        ops.iter().any(|o| match o.as_const() {
            Some(Const::Vector(xs)) => matches!(xs.get(k).map(|x| &x.value), Some(Const::Poison)),
            _ => false,
        })
    };
    let (Val::Vector(xs), Val::Vector(ys)) = (ours, theirs) else {
        // A reduction: opt folds `minnum(x, poison)` in the oracle chain
        // to `x`.
        return *ours == Val::Poison
            && ops.iter().any(|o| match o.as_const() {
                Some(Const::Vector(xs)) => xs.iter().any(|x| x.value == Const::Poison),
                _ => false,
            });
    };
    xs.iter()
        .zip(ys.iter())
        .enumerate()
        .all(|(k, (x, y))| scalar(x, y) != Cmp::Refined || poison_at(k))
}

/// The single end of a one-thread exploration: returned value, or UB.
fn single(ex: &Exploration) -> Option<Result<Val, String>> {
    let ends: BTreeSet<String> = ex
        .behaviours
        .iter()
        .map(|b| format!("{:?}", b.execution.threads[0].end))
        .collect();
    if ends.len() != 1 {
        return None;
    }
    match &ex.behaviours[0].execution.threads[0].end {
        Some(ThreadEnd::Returned(v)) => Some(Ok(v.clone())),
        Some(ThreadEnd::Ub { why, .. }) => Some(Err(why.to_string())),
        _ => None,
    }
}

/// P-VEC-* against LLVM: 1,500 generated vector instructions over
/// constants are folded by `opt-22 -passes=instsimplify` (a float
/// reduction, which opt does not fold, through its LangRef scalarization,
/// `testgen::vectors::reductions`) and run by the interpreter; every folded result must be the interpreter's, element by
/// element, bit for bit except NaN payloads, poison where opt's is. The
/// interpreter may be poison where opt folds to a value only where LLVM
/// refines poison (opt's bitcast folding reads a poison element as zero
/// when it combines elements; an `nnan`/`ninf` operation on NaN or
/// infinity, which opt folds to the IEEE value): counted per operation.
#[test]
fn vector_constant_folding_agrees_with_opt() {
    let Some(opt) = opt_or_skip("vector_constant_folding_agrees_with_opt") else {
        return;
    };
    let generated = testgen::sample(&vector_case(), 1500, 11);
    let mut decls = BTreeSet::new();
    let (mut text, mut oracle_text) = (String::new(), String::new());
    for (i, (c, oracle)) in generated.iter().enumerate() {
        let name = format!("f{i}");
        text.push_str(&c.function(&name));
        // opt folds the oracle (LangRef's scalarization) where it does not
        // fold the vector instruction itself (float reductions).
        match oracle {
            Some(body) => oracle_text.push_str(&format!(
                "define {} @{name}() {{\nentry:\n{body}}}\n",
                c.ret_ty
            )),
            None => oracle_text.push_str(&c.function(&name)),
        }
        decls.extend(c.decls.iter().cloned());
    }
    for d in &decls {
        for t in [&mut text, &mut oracle_text] {
            t.push_str(d);
            t.push('\n');
        }
    }
    let cases: Vec<&testgen::floats::Case> = generated.iter().map(|(c, _)| c).collect();
    let ours_module = parse_module("gen.ll", &text).unwrap_or_else(|e| panic!("{e}"));
    let out = run_opt(&opt, &["-passes=instsimplify", "-S"], &oracle_text);
    assert_eq!(
        out.status,
        Some(0),
        "opt-22 rejects the module: {}",
        out.stderr
    );
    let folded = parse_module("opt-S.ll", &out.stdout).unwrap_or_else(|e| panic!("{e}"));
    // Per operation: (folded and compared, generated).
    let mut checked: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut refined: BTreeMap<String, usize> = BTreeMap::new();
    let mut ub_folded = 0;
    let mut poison_elems = 0;
    let mut diffs = Vec::new();
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
        let (true, TermKind::Ret(Some(r))) = (b.insts.is_empty(), &b.term.kind) else {
            continue;
        };
        let Operand::Const(_) = &r.value else {
            continue;
        };
        entry.0 += 1;
        let ours = single(
            &explore(&ours_module, &one_thread(&name))
                .unwrap_or_else(|e| panic!("{name} ({}): {e}\n{}", c.what, c.function(&name))),
        );
        let theirs =
            single(&explore(&folded, &one_thread(&name)).unwrap_or_else(|e| panic!("{e}")));
        let (Some(o), Some(Ok(t))) = (ours, theirs) else {
            diffs.push(format!("{name} ({}): no single value", c.what));
            continue;
        };
        let o = match o {
            Ok(o) => o,
            // UB (a division's element): opt may fold it to anything.
            Err(_) => {
                ub_folded += 1;
                continue;
            }
        };
        if let Val::Vector(xs) = &t {
            poison_elems += xs.iter().filter(|x| **x == Val::Poison).count();
        }
        match compare(&o, &t) {
            Cmp::Equal => {}
            Cmp::Refined if refinable(c) || lanes_refined(&o, &t, &ours_module, &name) => {
                *refined.entry(c.what.clone()).or_default() += 1;
            }
            _ => diffs.push(format!(
                "{name}: {} -> interpreter {o}, opt-22 {t}\n{}",
                c.what,
                c.function(&name)
            )),
        }
    }
    let total: usize = checked.values().map(|c| c.0).sum();
    eprintln!(
        "P-VEC vs opt-22: {total} of {} folded and compared ({ub_folded} UB in the interpreter, \
         {poison_elems} poison elements in opt's results; poison refined by opt: {refined:?}); \
         per operation (folded/generated): {checked:?}",
        cases.len()
    );
    assert!(
        diffs.is_empty(),
        "{} differences:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
    assert!(total >= 1000, "only {total} cases folded");
    assert!(poison_elems > 0, "no poison element was compared");
    for (what, (n, _)) in &checked {
        assert!(
            *n > 0,
            "opt-22 folded no {what}: the comparison does not cover it"
        );
    }
}

fn returned(text: &str, entry: &str) -> BTreeSet<String> {
    let m = parse_module("vec.ll", text).unwrap_or_else(|e| panic!("{e}"));
    let ex = explore(&m, &one_thread(entry)).unwrap_or_else(|e| panic!("{e}"));
    ex.behaviours
        .iter()
        .map(|b| match &b.execution.threads[0].end {
            Some(ThreadEnd::Returned(v)) => v.to_string(),
            other => format!("{other:?}"),
        })
        .collect()
}

/// P-VEC-MEM: a vector is stored element by element at the data layout's
/// offsets (little-endian, no padding between elements), so its bytes
/// read back as scalars of other types; a poison element poisons its own
/// bytes only; phis carry vectors.
#[test]
fn vectors_through_memory_and_phis() {
    let text = "define i32 @k(i1 %c) {\nentry:\n  %p = alloca <4 x i32>, align 16\n  store <4 x i32> <i32 1, i32 poison, i32 515, i32 -1>, ptr %p, align 16\n  %q = getelementptr i8, ptr %p, i64 8\n  %b = load i16, ptr %q, align 2\n  %w = load <2 x i64>, ptr %p, align 16\n  %v = load <8 x i16>, ptr %p, align 16\n  br i1 %c, label %a, label %j\na:\n  br label %j\nj:\n  %x = phi <8 x i16> [ %v, %a ], [ zeroinitializer, %entry ]\n  %e = extractelement <8 x i16> %x, i32 4\n  %f = extractelement <2 x i64> %w, i32 0\n  %g = extractelement <2 x i64> %w, i32 1\n  %z = zext i16 %e to i32\n  %s = zext i16 %b to i32\n  %r = add i32 %z, %s\n  %t = trunc i64 %g to i32\n  %u = add i32 %r, %t\n  ret i32 %u\n}\n";
    // Bytes: 01 00 00 00 | poison x4 | 03 02 00 00 | ff x4. %b (i16 at
    // byte 8) is 515; %v's element 4 (bytes 8-9) is 515, or 0 through the
    // other edge; %w's element 0 spans the poison element (poison, unused),
    // element 1 is 515 | -1 << 32, truncated 515. So 515 + 515 + 515 or
    // 0 + 515 + 515.
    assert_eq!(
        returned(text, "k"),
        ["1545".to_string(), "1030".to_string()].into()
    );
    let narrow = "define <8 x i1> @k() {\nentry:\n  %p = alloca <8 x i1>, align 1\n  store <8 x i1> zeroinitializer, ptr %p, align 1\n  %v = load <8 x i1>, ptr %p, align 1\n  ret <8 x i1> %v\n}\n";
    let m = parse_module("narrow.ll", narrow).expect("parses");
    let e = explore(&m, &one_thread("k")).expect_err("sub-byte vector elements in memory");
    assert!(e.to_string().contains("narrower than a byte"), "{e}");
}
