//! Constant expressions (issue 12 item 2, rule P-PROG): the kinds LLVM 22
//! still has (`getelementptr`, `trunc`, `ptrtoint`, `inttoptr`, `bitcast`,
//! `addrspacecast`, `add`, `sub`, `xor`) are values in global initializers
//! and instruction operands; they print back as opt-22 prints them; ill-typed
//! ones get a located error, never a panic; the interpreter evaluates them.

use semantics::ir::print::print_module;
use semantics::ir::{Const, ConstExpr};
use semantics::machine::state::ThreadEnd;
use semantics::machine::{explore, ArgValues, Options, Outcome, Val};
use semantics::parse_module;
use testgen::oracle::{opt_or_skip, run_opt};

/// One of each kind, nested, in initializers and operands, written the way
/// opt-22 prints them.
const MODULE: &str = r#"@a = addrspace(3) global [4 x i32] zeroinitializer, align 4
@b = global i32 7, align 4
@used = appending global [2 x ptr] [ptr addrspacecast (ptr addrspace(3) @a to ptr), ptr @b], section "llvm.metadata"
@p = global ptr getelementptr inbounds nuw (i8, ptr @b, i64 2), align 8
@q = global ptr getelementptr inbounds inrange(-4, 12) ([4 x i32], ptr addrspacecast (ptr addrspace(3) @a to ptr), i64 0, i64 1), align 8
@i = global i64 add nuw (i64 ptrtoint (ptr @b to i64), i64 4), align 8
@j = global i32 xor (i32 ptrtoint (ptr @b to i32), i32 -1), align 4
@t = global i32 trunc (i64 ptrtoint (ptr @b to i64) to i32), align 4
@k = global ptr inttoptr (i64 sub (i64 ptrtoint (ptr @b to i64), i64 8) to ptr), align 8

define i32 @f(i64 %i) {
entry:
  %x = getelementptr inbounds nuw [4 x i32], ptr addrspacecast (ptr addrspace(3) @a to ptr), i64 0, i64 %i
  store i32 5, ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @a to ptr), i64 8), align 4
  %y = load i32, ptr %x, align 4
  %z = load i32, ptr bitcast (ptr @b to ptr), align 4
  %s = add i32 %y, %z
  ret i32 %s
}
"#;

fn lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with(';'))
        .filter(|l| !l.starts_with("source_filename"))
        .map(|l| l.trim_end().to_string())
        .collect()
}

#[test]
fn constant_expressions_parse_and_print_as_written() {
    let m = parse_module("ce.ll", MODULE).unwrap_or_else(|e| panic!("{e}"));
    let printed = print_module(&m);
    assert_eq!(lines(&printed), lines(MODULE));
    let reparsed = parse_module("printed.ll", &printed).expect("printed text parses");
    assert_eq!(reparsed, m);
    // The initializer of @used holds a cast of a global: a value, not text.
    let used = m.globals.iter().find(|g| g.name == "used").expect("@used");
    let Some(Const::Array(items)) = &used.init else {
        panic!("array initializer")
    };
    assert!(matches!(&items[0].value, Const::Expr(e) if matches!(**e, ConstExpr::Cast { .. })));
    let f = m.function("f").expect("@f");
    assert!(
        f.has_body(),
        "a function using constant expressions is read"
    );
    let store = &f.blocks[0].insts[1];
    assert!(matches!(
        &store.kind,
        semantics::ir::InstKind::Store { ptr, .. }
            if matches!(ptr.value.as_const(), Some(Const::Expr(_)))
    ));
}

/// opt-22 reads our text and prints it back the same way (its `-S` output
/// is also what we print for it): the printed form is LLVM's.
#[test]
fn opt_prints_constant_expressions_as_we_do() {
    let Some(opt) = opt_or_skip("opt_prints_constant_expressions_as_we_do") else {
        return;
    };
    // opt folds `trunc (ptrtoint (p to i64) to i32)` to `ptrtoint (p to
    // i32)`: leave that line out of the comparison.
    let text: String = MODULE
        .lines()
        .filter(|l| !l.starts_with("@t ="))
        .map(|l| format!("{l}\n"))
        .collect();
    let out = run_opt(&opt, &["-S"], &text);
    assert_eq!(
        out.status,
        Some(0),
        "opt-22 rejects the module: {}",
        out.stderr
    );
    let theirs = parse_module("opt-S.ll", &out.stdout).unwrap_or_else(|e| panic!("{e}"));
    let ours = parse_module("ce.ll", &text).expect("parses");
    assert_eq!(theirs.globals, ours.globals);
    assert_eq!(lines(&print_module(&theirs)), lines(&out.stdout));
}

/// P-PROG: ill-typed constant expressions and kinds LLVM 22 no longer has
/// are errors with a location, as opt-22 rejects them.
#[test]
fn ill_typed_constant_expressions_are_located_errors() {
    let cases = [
        (
            "@g = global i32 0\n@x = global i32 ptrtoint (i32 0 to i32)\n",
            "invalid cast opcode",
        ),
        (
            "@g = global i32 0\n@x = global ptr trunc (i64 1 to i32)\n",
            "is invalid for type",
        ),
        (
            "@g = global i32 0\n@x = global i64 add (i64 1, i32 2)\n",
            "invalid operand types",
        ),
        (
            "@g = global i32 0\n@x = global ptr getelementptr (i8, i64 0, i64 1)\n",
            "must be a pointer",
        ),
        (
            "@g = global i32 0\n@x = global ptr addrspace(1) getelementptr (i8, ptr @g, i64 1)\n",
            "is invalid for type",
        ),
        (
            "@g = global i32 0\n@x = global i64 zext (i32 ptrtoint (ptr @g to i32) to i64)\n",
            "constant expression",
        ),
        (
            "@g = global i32 0\n@x = global i64 mul (i64 ptrtoint (ptr @g to i64), i64 2)\n",
            "constant expression",
        ),
    ];
    for (text, want) in cases {
        let e = parse_module("bad.ll", text).expect_err(text);
        let shown = e.to_string();
        assert!(shown.contains(want), "{text}: {shown}");
        assert!(shown.contains("bad.ll:2:"), "{text}: {shown}");
    }
}

/// The interpreter evaluates constant expressions with the rules of the
/// instructions of the same opcode: a store through a constant GEP of an
/// `addrspacecast` global and a load through a GEP of the same global meet.
#[test]
fn the_interpreter_evaluates_constant_expressions() {
    let m = parse_module("ce.ll", MODULE).expect("parses");
    let mut results = Vec::new();
    for i in 0..4 {
        let opts = Options {
            threads: 1,
            entry: Some("f".into()),
            args: [("i".to_string(), ArgValues::Uniform(i))].into(),
            ..Options::default()
        };
        let ex = explore(&m, &opts).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(ex.behaviours.len(), 1);
        let b = &ex.behaviours[0];
        assert!(
            matches!(b.execution.outcome, Outcome::Finished),
            "{:?}",
            b.execution.outcome
        );
        match &b.execution.threads[0].end {
            Some(ThreadEnd::Returned(Val::Int { v, .. })) => results.push(*v),
            other => panic!("{other:?}"),
        }
    }
    // a = {0, 0, 5, 0}, b = 7: f(i) = a[i] + 7.
    assert_eq!(results, vec![7, 7, 12, 7]);
}
