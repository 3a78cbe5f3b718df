//! Pointers as values in the reference interpreter (docs/RULES.md
//! P-MEM-PTR): fixed object addresses, `ptrtoint`/`inttoptr` (in
//! instructions, constant expressions and through memory), ordered
//! comparisons of pointers to different objects, `null`, `select` and
//! `phi` of pointers, and what stays unsupported (narrow address spaces).

use std::collections::BTreeSet;

use semantics::machine::launch::Exploration;
use semantics::machine::memory::SLOT;
use semantics::machine::state::ThreadEnd;
use semantics::machine::{explore, Options, UbKind};
use semantics::parse_module;

fn run(text: &str) -> Exploration {
    let m = parse_module("ptr.ll", text).unwrap_or_else(|e| panic!("{e}"));
    explore(
        &m,
        &Options {
            threads: 1,
            ..Options::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn returned(ex: &Exploration) -> BTreeSet<String> {
    ex.behaviours
        .iter()
        .map(|b| match &b.execution.threads[0].end {
            Some(ThreadEnd::Returned(v)) => v.to_string(),
            other => format!("{other:?}"),
        })
        .collect()
}

fn one(ex: &Exploration) -> String {
    let r = returned(ex);
    assert_eq!(r.len(), 1, "{r:?}");
    r.into_iter().next().expect("one value")
}

/// P-MEM-PTR: `ptrtoint` is base + offset (global @g is object 1, at one
/// slot), arithmetic on it and `inttoptr` back keep the object: the store
/// lands in @g[1].
#[test]
fn ptrtoint_inttoptr_round_trip() {
    let ex = run("@g = global [2 x i32] zeroinitializer\ndefine i64 @k() {\nentry:\n  %a = ptrtoint ptr @g to i64\n  %b = add i64 %a, 4\n  %p = inttoptr i64 %b to ptr\n  store i32 7, ptr %p, align 4\n  %q = getelementptr [2 x i32], ptr @g, i64 0, i64 1\n  %v = load i32, ptr %q, align 4\n  %r = zext i32 %v to i64\n  %s = add i64 %r, %a\n  ret i64 %s\n}\n");
    assert_eq!(one(&ex), (SLOT + 7).to_string());
}

/// P-MEM-PTR: bases are aligned (an alloca's address has its low bits
/// clear), `null` is address 0 and `inttoptr 0` is `null`.
#[test]
fn alignment_and_null() {
    let ex = run("define i1 @k() {\nentry:\n  %p = alloca i64, align 16\n  %a = ptrtoint ptr %p to i64\n  %low = and i64 %a, 15\n  %z = ptrtoint ptr null to i64\n  %n = inttoptr i64 %z to ptr\n  %isnull = icmp eq ptr %n, null\n  %aligned = icmp eq i64 %low, 0\n  %nz = icmp ne i64 %a, 0\n  %x = and i1 %isnull, %aligned\n  %y = and i1 %x, %nz\n  ret i1 %y\n}\n");
    assert_eq!(one(&ex), "true");
}

/// P-MEM-PTR: ordered comparisons of pointers to different objects compare
/// their addresses (one answer, the same as comparing `ptrtoint`s); within
/// one object, offsets order.
#[test]
fn ordered_comparisons() {
    let ex = run("@a = global i32 0\n@b = global [4 x i32] zeroinitializer\ndefine i32 @k() {\nentry:\n  %lt = icmp ult ptr @a, @b\n  %ia = ptrtoint ptr @a to i64\n  %ib = ptrtoint ptr @b to i64\n  %lt2 = icmp ult i64 %ia, %ib\n  %same = icmp eq i1 %lt, %lt2\n  %p = getelementptr i32, ptr @b, i64 3\n  %gt = icmp sgt ptr %p, @b\n  %x = and i1 %same, %gt\n  %s = select i1 %lt, ptr @a, ptr @b\n  %c = icmp eq ptr %s, @a\n  %y = and i1 %x, %c\n  %r = zext i1 %y to i32\n  ret i32 %r\n}\n");
    assert_eq!(one(&ex), "1");
}

/// P-MEM-PTR through memory: a stored pointer read as an integer is its
/// address; an integer stored and read as a pointer is `inttoptr` (the
/// store through it reaches @g).
#[test]
fn pointers_and_integers_through_memory() {
    let ex = run("@g = global i32 0\n@slot = global i64 0\ndefine i32 @k() {\nentry:\n  store ptr @g, ptr @slot, align 8\n  %a = load i64, ptr @slot, align 8\n  %ia = ptrtoint ptr @g to i64\n  %eq = icmp eq i64 %a, %ia\n  %a4 = add i64 %a, 0\n  store i64 %a4, ptr @slot, align 8\n  %p = load ptr, ptr @slot, align 8\n  store i32 9, ptr %p, align 4\n  %v = load i32, ptr @g, align 4\n  %e = zext i1 %eq to i32\n  %r = add i32 %v, %e\n  ret i32 %r\n}\n");
    assert_eq!(one(&ex), "10");
}

/// P-MEM-PTR, P-MEM-ACCESS: an address in no object makes a pointer that
/// compares and converts but whose access is UB; a constant-expression
/// `inttoptr` is the same rule.
#[test]
fn addresses_outside_objects() {
    let ex = run("define i32 @k() {\nentry:\n  %p = inttoptr i64 12345 to ptr\n  %a = ptrtoint ptr %p to i64\n  %ok = icmp eq i64 %a, 12345\n  br i1 %ok, label %l, label %bad\nl:\n  %v = load i32, ptr %p, align 4\n  ret i32 %v\nbad:\n  ret i32 -1\n}\n");
    assert_eq!(ex.ub, 1);
    let ends: Vec<_> = ex
        .behaviours
        .iter()
        .map(|b| b.execution.threads[0].end.clone())
        .collect();
    assert!(
        matches!(
            &ends[..],
            [Some(ThreadEnd::Ub {
                why: UbKind::NoObject,
                ..
            })]
        ),
        "{ends:?}"
    );
    let ex = run(&format!("@g = global i32 3\ndefine i32 @k() {{\nentry:\n  %v = load i32, ptr inttoptr (i64 {SLOT} to ptr), align 4\n  ret i32 %v\n}}\n"));
    assert_eq!(one(&ex), "3");
}

/// A phi of pointers picks the object of the edge taken.
#[test]
fn phi_of_pointers() {
    let ex = run("@a = global i32 1\n@b = global i32 2\ndefine i32 @k(i1 %c) {\nentry:\n  br i1 %c, label %x, label %y\nx:\n  br label %j\ny:\n  br label %j\nj:\n  %p = phi ptr [ @a, %x ], [ @b, %y ]\n  %v = load i32, ptr %p, align 4\n  ret i32 %v\n}\n");
    assert_eq!(returned(&ex), ["1".to_string(), "2".to_string()].into());
}

/// The fixed bases are laid out for 64-bit pointers: the address of an
/// alloca in a 32-bit address space does not fit and is reported
/// unsupported, never truncated.
#[test]
fn narrow_address_spaces_are_unsupported() {
    let m = parse_module("ptr.ll", "target datalayout = \"e-p5:32:32-A5\"\ndefine i32 @k() {\nentry:\n  %p = alloca i32, align 4, addrspace(5)\n  %a = ptrtoint ptr addrspace(5) %p to i32\n  ret i32 %a\n}\n").unwrap();
    let err = explore(
        &m,
        &Options {
            threads: 1,
            ..Options::default()
        },
    )
    .map(|_| ())
    .unwrap_err()
    .to_string();
    assert!(err.contains("32-bit address space 5"), "{err}");
}
