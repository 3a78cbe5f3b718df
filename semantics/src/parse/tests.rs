//! Unit tests of the parser's diagnostics (rule P-PROG: file:line:col and
//! the construct's name) and of accepted-but-ignored syntax.

use super::{parse_module, ParseError, ParseErrorKind};
use crate::ir::{Const, InstKind, MdValue, Name, Operand, TermKind, Type, ValueDef};

fn err(text: &str) -> ParseError {
    parse_module("t.ll", text).expect_err("the module must be rejected")
}

fn syntax_at(text: &str, line: u32, col: u32, needle: &str) {
    let e = err(text);
    assert_eq!(e.kind, ParseErrorKind::Syntax, "{e}");
    assert_eq!((e.span.line, e.span.col), (line, col), "{e}");
    assert!(
        e.message.contains(needle),
        "message of `{e}` lacks `{needle}`"
    );
    assert!(
        e.to_string()
            .starts_with(&format!("t.ll:{line}:{col}: error: ")),
        "{e}"
    );
}

/// The construct is reported at `line:col`: as the module's error, or,
/// inside a function, as that function's [`crate::ir::UnsupportedBody`]
/// (rule P-PROG per function) while the module is accepted, prints the
/// function back verbatim, and round-trips.
fn unsupported_at(text: &str, construct: &str, line: u32, col: u32) {
    let (kind, span, shown) = match parse_module("t.ll", text) {
        Err(e) => (e.kind.clone(), e.span, e.to_string()),
        Ok(m) => {
            let Some(f) = m.functions.iter().find(|f| f.unsupported.is_some()) else {
                panic!("no function is unsupported in\n{text}");
            };
            let u = f.unsupported.as_ref().expect("found above");
            assert!(!f.has_body() && f.blocks.is_empty());
            assert!(
                u.text.starts_with("define") && u.text.ends_with('}'),
                "{}",
                u.text
            );
            assert!(text.contains(&u.text));
            let printed = crate::ir::print::print_module(&m);
            assert!(printed.contains(&u.text), "{printed}");
            assert_eq!(parse_module("p.ll", &printed).as_ref(), Ok(&m));
            let shown = format!(
                "t.ll:{}: unsupported construct `{}`: {}",
                u.span, u.construct, u.message
            );
            (
                ParseErrorKind::Unsupported {
                    construct: u.construct.clone(),
                },
                u.span,
                shown,
            )
        }
    };
    assert_eq!(
        kind,
        ParseErrorKind::Unsupported {
            construct: construct.to_string()
        },
        "{shown}"
    );
    assert_eq!((span.line, span.col), (line, col), "{shown}");
    assert!(
        shown.starts_with(&format!(
            "t.ll:{line}:{col}: unsupported construct `{construct}`"
        )),
        "{shown}"
    );
}

#[test]
fn undefined_value_and_block() {
    syntax_at(
        "define i32 @f() {\n  %a = add i32 %b, 1\n  ret i32 %a\n}\n",
        2,
        16,
        "use of undefined value '%b'",
    );
    syntax_at(
        "define void @f() {\n  br label %nowhere\n}\n",
        2,
        12,
        "use of undefined label '%nowhere'",
    );
    syntax_at(
        "define void @f() {\n  call void @g()\n  ret void\n}\n",
        2,
        13,
        "use of undefined value '@g'",
    );
}

#[test]
fn redefinition_and_type_mismatch() {
    syntax_at(
        "define void @f(i32 %a) {\n  %a = add i32 1, 1\n  ret void\n}\n",
        2,
        3,
        "redefinition of '%a'",
    );
    syntax_at(
        "define void @f(i64 %a) {\n  %b = add i32 %a, 1\n  ret void\n}\n",
        2,
        16,
        "'%a' defined with type 'i64' but expected 'i32'",
    );
    // Forward references are checked once the definition is known.
    syntax_at(
        "define void @f() {\nentry:\n  br label %l\nl:\n  %p = phi i32 [ 0, %entry ], [ %q, %l ]\n  %q = add i64 1, 1\n  br label %l\n}\n",
        5,
        33,
        "'%q' defined with type 'i64' but expected 'i32'",
    );
    syntax_at(
        "define void @f() {\n  %x = store i32 0, ptr null\n  ret void\n}\n",
        2,
        3,
        "instructions returning void cannot have a name",
    );
    // Issue 12 item 9: an address that is not a pointer, with opt-22's
    // words at opt-22's column (the address's type).
    for (inst, col, message) in [
        (
            "%v = load i32, i32 %x",
            18,
            "load operand must be a pointer to a first class type",
        ),
        (
            "store i32 %x, i32 %x",
            17,
            "store operand must be a pointer",
        ),
        (
            "%a = atomicrmw add i32 %x, i32 1 seq_cst",
            22,
            "atomicrmw operand must be a pointer",
        ),
        (
            "%a = cmpxchg i32 %x, i32 1, i32 2 seq_cst seq_cst",
            16,
            "cmpxchg operand must be a pointer",
        ),
    ] {
        syntax_at(
            &format!("define void @f(i32 %x) {{\n  {inst}\n  ret void\n}}\n"),
            2,
            col,
            message,
        );
    }
}

#[test]
fn numbering_follows_llvm() {
    // Unnamed argument %0, implicit entry block %1, then %2.
    syntax_at(
        "define i32 @f(i32) {\n  %1 = add i32 %0, 1\n  ret i32 %1\n}\n",
        2,
        3,
        "instruction expected to be numbered '%2' or greater",
    );
    syntax_at(
        "define void @f(i32 %1, i32 %0) {\n  ret void\n}\n",
        1,
        28,
        "argument expected to be numbered '%2' or greater",
    );
    syntax_at(
        "define void @f() {\n  %0 = add i32 1, 1\n  ret void\n}\n",
        2,
        3,
        "instruction expected to be numbered '%1' or greater",
    );
    syntax_at(
        "define void @f() {\n  br label %0\n0:\n  ret void\n}\n",
        3,
        1,
        "label expected to be numbered '%1' or greater",
    );
    // Gaps are accepted (LLVM 22), implicit numbers continue after them.
    let m = parse_module(
        "t.ll",
        "define i32 @f(i32) {\n  %5 = add i32 %0, 1\n  add i32 %5, 1\n  br label %9\n9:\n  ret i32 %6\n}\n",
    )
    .expect("gaps are allowed");
    let f = &m.functions[0];
    assert_eq!(f.blocks[0].name, Name::Numbered(1));
    assert!(!f.blocks[0].explicit_label);
    let names: Vec<Name> = f.values.iter().map(|v| v.name.clone()).collect();
    assert_eq!(
        names,
        vec![Name::Numbered(0), Name::Numbered(5), Name::Numbered(6)]
    );
    assert_eq!(
        f.values[2].def,
        ValueDef::Inst {
            block: crate::ir::BlockId(0),
            index: 1
        }
    );
}

#[test]
fn unsupported_constructs_are_named() {
    let wrap = |body: &str| {
        format!("declare void @g()\ndefine void @f(ptr %p, i32 %x) {{\n{body}\n  ret void\n}}\n")
    };
    unsupported_at(
        &wrap("  invoke void @g() to label %a unwind label %b"),
        "invoke",
        3,
        3,
    );
    unsupported_at(&wrap("  callbr void @g() to label %a []"), "callbr", 3, 3);
    unsupported_at(&wrap("  indirectbr ptr %p, []"), "indirectbr", 3, 3);
    unsupported_at(&wrap("  resume i32 %x"), "resume", 3, 3);
    unsupported_at(&wrap("  %v = va_arg ptr %p, i32"), "va_arg", 3, 8);
    unsupported_at(&wrap("  fence seq_cst"), "fence", 3, 3);
    unsupported_at(&wrap("  %l = landingpad i32 cleanup"), "landingpad", 3, 8);
    unsupported_at(
        &wrap("  call void asm \"nop\", \"\"()"),
        "inline asm",
        3,
        13,
    );
    unsupported_at(
        &wrap("  store ptr blockaddress(@f, %bb), ptr %p"),
        "blockaddress",
        3,
        13,
    );
    unsupported_at(
        &wrap("  store i64 zext (i32 ptrtoint (ptr @g to i32) to i64), ptr %p"),
        "constant expression",
        3,
        13,
    );
    unsupported_at("@a = alias i32, ptr @b\n", "alias", 1, 6);
    unsupported_at("@a = ifunc void (), ptr @r\n", "ifunc", 1, 6);
    unsupported_at("$c = comdat any\n", "comdat definition", 1, 1);
    unsupported_at("module asm \"x\"\n", "module asm", 1, 1);
    unsupported_at("uselistorder ptr @f, { 1, 0 }\n", "uselistorder", 1, 1);
    unsupported_at(
        "declare i32 @p(...)\ndefine void @f() personality ptr @p {\n  ret void\n}\n",
        "personality",
        2,
        18,
    );
}

#[test]
fn metadata_and_debug_records_are_kept() {
    let text = "define void @f(i32 %x) !dbg !3 {\n  %a = add i32 %x, 1, !dbg !7, !tbaa !{!\"x\"}\n    #dbg_value(i32 %a, !8, !DIExpression(), !9)\n  call void @llvm.foo(metadata !\"s\", metadata i32 0)\n  ret void, !dbg !9\n}\n!llvm.module.flags = !{!0}\n!0 = !{i32 1, !\"k\", i32 2}\n!3 = distinct !DISubprogram(name: \"f\", unit: !1)\n";
    let m = parse_module("t.ll", text).expect("metadata is accepted and kept");
    let f = &m.functions[0];
    assert_eq!(f.blocks[0].insts.len(), 2);
    assert_eq!(f.md.len(), 1);
    assert_eq!(f.md[0].kind, "dbg");
    let a = f.blocks[0].insts[0].meta.attachments();
    assert_eq!(a.len(), 2);
    assert_eq!(
        a[1].value,
        MdValue::Tuple {
            distinct: false,
            elems: vec![MdValue::Str(b"x".to_vec())]
        }
    );
    let rec = f.blocks[0].insts[1].meta.dbg_records();
    assert_eq!(rec.len(), 1);
    assert_eq!(rec[0].kind, "dbg_value");
    assert_eq!(
        f.blocks[0].term.meta.attachment("dbg"),
        Some(&MdValue::Ref("9".into()))
    );
    match &f.blocks[0].insts[1].kind {
        InstKind::Call(c) => {
            assert_eq!(
                c.args[0].value,
                Operand::Metadata(Box::new("!\"s\"".into()))
            );
            assert_eq!(c.args[1].value, Operand::Metadata(Box::new("i32 0".into())));
            assert_eq!(c.args[0].ty, Type::Metadata);
        }
        k => panic!("expected a call, got {k:?}"),
    }
    let names: Vec<&str> = m.metadata.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["llvm.module.flags", "0", "3"]);
    assert!(matches!(
        m.md_def("3"),
        Some(MdValue::Special { distinct: true, kind, .. }) if kind == "DISubprogram"
    ));
    let printed = crate::ir::print::print_module(&m);
    assert_eq!(parse_module("p.ll", &printed).as_ref(), Ok(&m), "{printed}");
    assert!(
        printed.contains("!0 = !{i32 1, !\"k\", i32 2}"),
        "{printed}"
    );
    assert!(printed.contains("    #dbg_value("), "{printed}");
}

#[test]
fn metadata_definition_after_a_declaration_is_not_an_attachment() {
    // LoopUnroll/convergent.controlled.ll: `!0 = ...` right after `declare`.
    let m = parse_module(
        "t.ll",
        "declare !dbg !1 void @g()\ndeclare void @f()\n!0 = !{!0}\n!1 = !{}\n",
    )
    .expect("valid");
    assert!(m.functions[1].md.is_empty());
    assert_eq!(m.functions[0].md.len(), 1);
    assert_eq!(m.metadata.len(), 2);
    let printed = crate::ir::print::print_module(&m);
    assert!(printed.contains("declare !dbg !1 void @g()"), "{printed}");
}

#[test]
fn loop_metadata_is_queryable() {
    let m = parse_module(
        "t.ll",
        "define void @f(i1 %c) {\nentry:\n  br label %l\nl:\n  br i1 %c, label %l, label %e, !llvm.loop !0\ne:\n  ret void\n}\n!0 = distinct !{!0, !1, !2}\n!1 = !{!\"llvm.loop.unroll.count\", i32 4}\n!2 = !{!\"llvm.loop.mustprogress\"}\n",
    )
    .expect("valid");
    let f = &m.functions[0];
    let props = m.loop_properties(f, crate::ir::BlockId(1));
    let names: Vec<&str> = props.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["llvm.loop.unroll.count", "llvm.loop.mustprogress"]);
    assert_eq!(
        props[0].1,
        [MdValue::Typed {
            ty: Type::Int(32),
            value: "4".into()
        }]
    );
    assert!(m.loop_properties(f, crate::ir::BlockId(0)).is_empty());
}

#[test]
fn deeply_nested_metadata_is_an_error_not_a_crash() {
    let depth = 100_000;
    let text = format!("!0 = {}{}\n", "!{".repeat(depth), "}".repeat(depth));
    let e = parse_module("t.ll", &text).expect_err("too deep");
    assert!(e.message.contains("nested deeper than 256"), "{e}");
    assert_eq!((e.span.line, e.kind.clone()), (1, ParseErrorKind::Syntax));
}

#[test]
fn splat_expands_and_typed_pointers_read_as_opaque() {
    let m = parse_module(
        "t.ll",
        "define <2 x i32> @f(i32 addrspace(1)* %p) {\n  ret <2 x i32> splat (i32 3)\n}\n",
    )
    .expect("valid");
    let f = &m.functions[0];
    assert_eq!(
        f.params[0].ty,
        Type::Ptr(1),
        "opt-22 reads `i32 addrspace(1)*` as `ptr addrspace(1)`"
    );
    match &f.blocks[0].term.kind {
        TermKind::Ret(Some(v)) => match v.value.as_const() {
            Some(Const::Vector(items)) => assert_eq!(items.len(), 2),
            o => panic!("expected a vector constant, got {o:?}"),
        },
        t => panic!("expected ret, got {t:?}"),
    }
}

#[test]
fn lexical_errors_have_positions() {
    let e = err("define void @f() {\n  ret void ^\n}\n");
    assert_eq!((e.span.line, e.span.col), (2, 12), "{e}");
    let e = err("@s = global [2 x i8] c\"ab");
    assert_eq!(e.kind, ParseErrorKind::Syntax);
    assert!(e.message.contains("end of file"), "{e}");
}

#[test]
fn types_of_constants_and_returns_are_checked() {
    syntax_at(
        "define i32 @f() {\n  ret i64 0\n}\n",
        2,
        7,
        "value doesn't match function result type 'i32'",
    );
    syntax_at(
        "%T = type { %U }\n",
        1,
        13,
        "use of undefined type named 'U'",
    );
    syntax_at(
        "@g = global i32 null\n",
        1,
        17,
        "constant 'null' is invalid for type 'i32'",
    );
    syntax_at(
        "@g = global i8 300\n",
        1,
        16,
        "constant '300' is invalid for type 'i8'",
    );
    syntax_at(
        "@g = global [3 x i8] c\"ab\"\n",
        1,
        22,
        "is invalid for type '[3 x i8]'",
    );
    syntax_at(
        "@g = global float 1\n",
        1,
        19,
        "constant '1' is invalid for type 'float'",
    );
    // Both spellings of an i8 are accepted.
    parse_module(
        "t.ll",
        "@a = global i8 255\n@b = global i8 -128\n@c = global i1 true\n",
    )
    .expect("valid constants");
}

#[test]
fn hex_and_wide_integers() {
    let m = parse_module("t.ll", "@a = global i8 s0xFF\n@b = global i16 u0xFF\n").expect("valid");
    assert_eq!(
        m.globals[0].init,
        Some(Const::Int {
            value: -1,
            bool_syntax: false
        })
    );
    assert_eq!(
        m.globals[1].init,
        Some(Const::Int {
            value: 255,
            bool_syntax: false
        })
    );
    unsupported_at(
        "@a = global i256 1000000000000000000000000000000000000000000000000\n",
        "integer constant wider than 128 bits",
        1,
        18,
    );
}

/// Issue 11 item 1: nesting beyond `MAX_NESTING` is an error at the
/// construct, never a stack overflow (in the parser, or later when the
/// value is printed or dropped).
#[test]
fn deep_types_and_constants_are_errors_not_crashes() {
    let stars = format!("@g = external global i32{}\n", "*".repeat(100_000));
    let arrays = format!(
        "@g = external global {}i32{}\n",
        "[1 x ".repeat(100_000),
        "]".repeat(100_000)
    );
    let structs = format!(
        "@g = external global {}i32{}\n",
        "{ ".repeat(100_000),
        " }".repeat(100_000)
    );
    let consts = format!(
        "@g = global {{ i32 }} {}i32 1{}\n",
        "{ { i32 } ".repeat(100_000),
        " }".repeat(100_000)
    );
    let fn_ty = format!(
        "declare void @f({}i32{})\n",
        "void (".repeat(100_000),
        ")".repeat(100_000)
    );
    for (what, text) in [
        ("type", stars),
        ("type", arrays),
        ("type", structs),
        ("type", consts.clone()),
        ("type", fn_ty),
    ] {
        let e = parse_module("t.ll", &text).expect_err("too deep");
        assert_eq!(e.kind, ParseErrorKind::Syntax, "{e}");
        assert!(
            e.message
                .contains(&format!("{what} nested deeper than {}", super::MAX_NESTING)),
            "{e}"
        );
        assert_eq!(e.span.line, 1);
    }
    // Nesting within the bound is accepted and prints back.
    let ok = format!("@g = external global i32{}\n", "*".repeat(200));
    let m = parse_module("t.ll", &ok).expect("200 levels are within the bound");
    let printed = crate::ir::print::print_module(&m);
    assert_eq!(parse_module("p.ll", &printed).as_ref(), Ok(&m));
}

/// Rule P-PROG per function: inline asm in one function leaves the other
/// functions of the module readable (issue 12 item 1).
#[test]
fn unsupported_construct_only_affects_its_function() {
    let text = "define void @asm(i32 %x) {\n  call void asm sideeffect \"s_nop 0\", \"\"()\n  ret void\n}\n\ndefine i32 @ok(i32 %y) {\n  %z = add i32 %y, 1\n  ret i32 %z\n}\n";
    let m = parse_module("t.ll", text).expect("the module is accepted");
    let bad = m.function("asm").expect("kept");
    assert!(bad.is_definition && !bad.has_body());
    assert_eq!(bad.values.len(), 1, "the arguments stay");
    let u = bad.unsupported.as_ref().expect("unsupported");
    assert_eq!(
        (u.construct.as_str(), u.span.line, u.span.col),
        ("inline asm", 2, 13)
    );
    let ok = m.function("ok").expect("parsed");
    assert!(ok.has_body());
    assert_eq!(ok.blocks[0].insts.len(), 1);
    // A syntax error after the unsupported construct is still an error.
    let e = err("define void @f() {\n  call void asm \"\", \"\"()\n  ret void\n}\ndefine void @g() {\n  ret i32\n}\n");
    assert_eq!(e.kind, ParseErrorKind::Syntax, "{e}");
}

/// The parser lexes on demand (issue 17 item 8) but keeps the order of
/// diagnostics it had with a token list: a lexical error anywhere is the
/// module's error, even after a syntax error earlier in the text.
#[test]
fn lexical_error_wins_over_an_earlier_syntax_error() {
    syntax_at(
        "define void @f() {\n  ret i32\n}\n\ndefine void @g() {\n  ret void ~\n}\n",
        6,
        12,
        "unexpected character '~'",
    );
}

/// A named type used before its definition (the prescan reads every
/// token, then the parser starts again from the first).
#[test]
fn named_type_defined_after_its_use() {
    let text = "define i32 @f(ptr %p) {\n  %s = load %T, ptr %p\n  %x = extractvalue %T %s, 1\n  ret i32 %x\n}\n%T = type { i8, i32 }\n";
    let m = parse_module("t.ll", text).expect("accepted");
    let f = m.function("f").expect("parsed");
    assert_eq!(f.blocks[0].insts.len(), 2);
    assert_eq!(m.types.len(), 1);
    assert_eq!(f.values[2].ty, Type::Int(32), "extractvalue's type from %T");
}
