//! `cmpxchg` in the reference interpreter (docs/RULES.md P-MEM-ACCESS,
//! P-MEM-RACE: one sequentially consistent step; the `{ T, i1 }` result
//! read by `extractvalue`).

use std::collections::BTreeSet;

use semantics::machine::launch::Exploration;
use semantics::machine::state::ThreadEnd;
use semantics::machine::{explore, Options};
use semantics::parse_module;

fn run(text: &str, threads: u32) -> Exploration {
    let m = parse_module("cx.ll", text).unwrap_or_else(|e| panic!("{e}"));
    explore(
        &m,
        &Options {
            threads,
            ..Options::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"))
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
                    Some(ThreadEnd::Ub { why, .. }) => format!("UB: {why}"),
                    other => format!("{other:?}"),
                })
                .collect()
        })
        .collect()
}

/// A compare-and-swap increment loop run by three threads counts to 3;
/// each thread sees the count before its own increment.
#[test]
fn cas_loop_counts() {
    let text = "@g = global i32 0\ndeclare void @sync() convergent\ndefine i32 @k() {\nentry:\n  br label %loop\nloop:\n  %old = load atomic i32, ptr @g seq_cst, align 4\n  %new = add i32 %old, 1\n  %r = cmpxchg ptr @g, i32 %old, i32 %new seq_cst seq_cst, align 4\n  %ok = extractvalue { i32, i1 } %r, 1\n  br i1 %ok, label %done, label %loop\ndone:\n  call void @sync()\n  %v = load i32, ptr @g, align 4\n  ret i32 %v\n}\n";
    assert_eq!(
        returned(&run(text, 3)),
        [vec!["3".to_string(), "3".to_string(), "3".to_string()]].into()
    );
}

/// A failing exchange stores nothing and returns the value it found; a
/// `weak` one may also fail when the values are equal (both behaviours);
/// pointers compare by address.
#[test]
fn failure_weak_and_pointers() {
    let fail = "@g = global i32 7\ndefine i32 @k() {\nentry:\n  %r = cmpxchg ptr @g, i32 0, i32 5 monotonic monotonic, align 4\n  %old = extractvalue { i32, i1 } %r, 0\n  %ok = extractvalue { i32, i1 } %r, 1\n  %v = load i32, ptr @g, align 4\n  %s = add i32 %old, %v\n  %z = zext i1 %ok to i32\n  %t = add i32 %s, %z\n  ret i32 %t\n}\n";
    assert_eq!(returned(&run(fail, 1)), [vec!["14".to_string()]].into());
    let weak = "@g = global i32 0\ndefine i32 @k() {\nentry:\n  %r = cmpxchg weak ptr @g, i32 0, i32 5 seq_cst seq_cst, align 4\n  %v = load i32, ptr @g, align 4\n  ret i32 %v\n}\n";
    assert_eq!(
        returned(&run(weak, 1)),
        [vec!["0".to_string()], vec!["5".to_string()]].into()
    );
    let ptr = "@a = global i32 1\n@b = global i32 2\n@slot = global ptr @a\ndefine i32 @k() {\nentry:\n  %r = cmpxchg ptr @slot, ptr @a, ptr @b seq_cst seq_cst, align 8\n  %p = load ptr, ptr @slot, align 8\n  %v = load i32, ptr %p, align 4\n  ret i32 %v\n}\n";
    assert_eq!(returned(&run(ptr, 1)), [vec!["2".to_string()]].into());
}

/// A poison expected value decides nothing: UB.
#[test]
fn poison_comparison_is_ub() {
    let text = "@g = global i32 0\ndefine i32 @k() {\nentry:\n  %r = cmpxchg ptr @g, i32 poison, i32 5 seq_cst seq_cst, align 4\n  ret i32 0\n}\n";
    assert_eq!(
        returned(&run(text, 1)),
        [vec!["UB: cmpxchg compares poison".to_string()]].into()
    );
}
