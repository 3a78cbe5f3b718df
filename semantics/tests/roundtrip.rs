//! Rule P-PROG round trip on generated modules: every module of
//! `testgen::modules::module_text` parses, parse -> print -> parse is the
//! identity, printing is a fixpoint, and (checked once on a fixed sample)
//! both the generated and the printed text are valid for `opt-22`.

use proptest::prelude::{prop_assert_eq, proptest, ProptestConfig};
use proptest::test_runner::TestCaseError;

use semantics::ir::print::print_module;
use semantics::parse::parse_module;
use testgen::modules::module_text;
use testgen::oracle::{opt_or_skip, run_opt, verify_ll};

fn roundtrip(text: &str) -> Result<(), TestCaseError> {
    let m = parse_module("gen.ll", text)
        .map_err(|e| TestCaseError::fail(format!("generated module rejected: {e}\n{text}")))?;
    let printed = print_module(&m);
    let m2 = parse_module("printed.ll", &printed)
        .map_err(|e| TestCaseError::fail(format!("printed module rejected: {e}\n{printed}")))?;
    prop_assert_eq!(&m2, &m, "parse(print(m)) != m for\n{}", printed);
    prop_assert_eq!(print_module(&m2), printed);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// P-PROG: parse -> print -> parse is the identity and print is a
    /// fixpoint, on random modules covering the whole subset.
    #[test]
    fn generated_modules_roundtrip(text in module_text()) {
        roundtrip(&text)?;
    }
}

/// The generator really produces valid LLVM IR, and so does the printer:
/// a fixed sample checked with `opt-22 -passes=verify`.
#[test]
fn generated_and_printed_modules_are_valid_llvm() {
    let Some(opt) = opt_or_skip("generated_and_printed_modules_are_valid_llvm") else {
        return;
    };
    let sample = testgen::sample(&module_text(), 24, 7);
    for text in &sample {
        let out = run_opt(&opt, &["-S"], text);
        assert!(
            out.success(),
            "opt rejects a generated module: {}\n{text}",
            out.stderr
        );
        // LLVM 22's own printing of the module is read too (it abbreviates
        // vectors with `splat`, moves attributes into groups, ...).
        let dis = parse_module("opt-S.ll", &out.stdout)
            .unwrap_or_else(|e| panic!("cannot parse opt -S output: {e}\n{}", out.stdout));
        assert_eq!(parse_module("p.ll", &print_module(&dis)).as_ref(), Ok(&dis));
        let m = parse_module("gen.ll", text).expect("generated modules parse");
        let printed = print_module(&m);
        let out = verify_ll(&opt, &printed);
        assert!(
            out.success(),
            "opt rejects a printed module: {}\n{printed}",
            out.stderr
        );
    }
}

/// The generator covers the subset: over a fixed sample, every instruction
/// and terminator kind, named and numbered values, implicit entry blocks,
/// bundles, `metadata` arguments, typed pointers, attribute groups and
/// explicit function types all occur.
#[test]
fn generator_covers_the_subset() {
    use semantics::ir::{Attr, InstKind, Name, Operand, TermKind, Type};
    use std::collections::BTreeSet;
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for text in testgen::sample(&module_text(), 64, 3) {
        let m = parse_module("gen.ll", &text).expect("generated modules parse");
        if !m.attr_groups.is_empty() {
            seen.insert("attr-group".into());
        }
        for f in &m.functions {
            // Typed pointers are read as opaque ones (as opt-22 does):
            // `@typed(i32 addrspace(1)*, i8*)` has parameters `ptr
            // addrspace(1), ptr`.
            let tys: Vec<&Type> = f.params.iter().map(|p| &p.ty).collect();
            if &*f.name == "typed"
                && text.contains("@typed(i32 addrspace(1)*, i8*)")
                && tys == [&Type::Ptr(1), &Type::Ptr(0)]
            {
                seen.insert("typed-ptr".into());
            }
            if f.fn_attrs.iter().any(|a| matches!(a, Attr::Group(_))) {
                seen.insert("fn-group-ref".into());
            }
            for v in &f.values {
                seen.insert(match v.name {
                    Name::Named(_) => "named-value".into(),
                    Name::Numbered(_) => "numbered-value".into(),
                });
            }
            for b in &f.blocks {
                if !b.explicit_label {
                    seen.insert("implicit-label".into());
                }
                for i in &b.insts {
                    let k = format!("{:?}", i.kind);
                    seen.insert(k.split([' ', '(', '{']).next().unwrap_or("").to_string());
                    if let InstKind::Call(c) = &i.kind {
                        if !c.bundles.is_empty() {
                            seen.insert("bundle".into());
                        }
                        if matches!(c.ty, Type::Func { .. }) {
                            seen.insert("explicit-fn-type".into());
                        }
                        if c.args
                            .iter()
                            .any(|a| matches!(a.value, Operand::Metadata(_)))
                        {
                            seen.insert("metadata-arg".into());
                        }
                    }
                }
                seen.insert(
                    match b.term.kind {
                        TermKind::Br(_) => "br",
                        TermKind::CondBr { .. } => "condbr",
                        TermKind::Switch { .. } => "switch",
                        TermKind::Ret(_) => "ret",
                        TermKind::Unreachable => "unreachable",
                    }
                    .into(),
                );
            }
        }
    }
    let want = [
        "Binary",
        "FNeg",
        "ICmp",
        "FCmp",
        "Cast",
        "Select",
        "Freeze",
        "Phi",
        "Call",
        "Alloca",
        "Load",
        "Store",
        "AtomicRmw",
        "CmpXchg",
        "Gep",
        "ExtractValue",
        "InsertValue",
        "ExtractElement",
        "InsertElement",
        "ShuffleVector",
        "br",
        "condbr",
        "switch",
        "ret",
        "unreachable",
        "bundle",
        "explicit-fn-type",
        "metadata-arg",
        "typed-ptr",
        "attr-group",
        "fn-group-ref",
        "named-value",
        "numbered-value",
        "implicit-label",
    ];
    let missing: Vec<&str> = want
        .iter()
        .copied()
        .filter(|w| !seen.contains(*w))
        .collect();
    assert!(
        missing.is_empty(),
        "generator never produced: {missing:?} (seen {seen:?})"
    );
}
