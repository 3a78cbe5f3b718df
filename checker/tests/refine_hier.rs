//! D-HIER in `refine` (issue 12 item 8): every cycle hierarchy of the target
//! against some hierarchy of the source (`--hierarchy all`, the default), or
//! LLVM's alone (`--hierarchy llvm`). Pairs in `checker/tests/data/hier/`:
//! jump threading that makes a reducible loop irreducible, with an
//! uncontrolled barrier whose D-MAX keys depend on the header chosen.
//! Every counterexample is replayed on the interpreter, which enumerates
//! the hierarchies itself (R-CEX).

mod common;

use common::verdict_name;
use std::path::Path;

use checker::refine::hier::HierarchyMode;
use checker::refine::{check_pair, Options};
use checker::smt::Session;
use semantics::ir::Module;

fn data(name: &str) -> Module {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/hier")
        .join(name);
    let text = std::fs::read_to_string(&p).expect("test data readable");
    semantics::parse_module(&p.display().to_string(), &text).expect("test data parses")
}

fn check(src: &Module, tgt: &Module, hierarchy: HierarchyMode) -> String {
    let o = Options {
        threads: vec![1, 2, 3],
        hierarchy,
        ..Options::default()
    };
    let mut session = Session::new(None);
    verdict_name(check_pair(src, tgt, "k", &o, &mut session, true, None).expect("check runs"))
}

/// LLVM's DFS takes %A as the header of the target's irreducible cycle,
/// under which the barrier's sets are the source's: `llvm` refines; under
/// the other hierarchy (header %B) they are not: `all` finds it.
#[test]
fn another_hierarchy_shows_the_difference() {
    let s = data("jump-thread.src.ll");
    let t = data("jump-thread-swapped.tgt.ll");
    assert_eq!(check(&s, &t, HierarchyMode::Llvm), "refines");
    assert_eq!(check(&s, &t, HierarchyMode::All), "counterexample");
}

/// With the entry branch the other way round LLVM's own hierarchy shows
/// the difference: both modes find it.
#[test]
fn llvm_hierarchy_shows_the_difference() {
    let s = data("jump-thread.src.ll");
    let t = data("jump-thread.tgt.ll");
    assert_eq!(check(&s, &t, HierarchyMode::Llvm), "counterexample");
    assert_eq!(check(&s, &t, HierarchyMode::All), "counterexample");
}

/// The source's hierarchy is chosen per execution: an irreducible program
/// refines itself (each target hierarchy is matched by the same source
/// hierarchy, not by LLVM's), and so do the two irreducible targets each
/// other.
#[test]
fn source_hierarchy_is_existential() {
    let a = data("jump-thread.tgt.ll");
    let b = data("jump-thread-swapped.tgt.ll");
    assert_eq!(check(&a, &a, HierarchyMode::All), "refines");
    assert_eq!(check(&b, &a, HierarchyMode::All), "refines");
    assert_eq!(check(&a, &b, HierarchyMode::All), "refines");
}

/// Four irreducible regions in a row, two entries each: 16 hierarchies,
/// past the limit, so `all` answers unknown naming the count and the limit
/// (exit 2), and `llvm` still checks.
#[test]
fn too_many_hierarchies_is_unknown() {
    let mut body = String::from("define void @k(i1 %c, i1 %d) {\nentry:\n  br label %p0\n");
    for r in 0..4 {
        body += &format!(
            "p{r}:\n  br i1 %c, label %a{r}, label %b{r}\n\
             a{r}:\n  call void @barrier()\n  br i1 %d, label %b{r}, label %p{n}\n\
             b{r}:\n  br i1 %d, label %a{r}, label %p{n}\n",
            n = r + 1
        );
    }
    body += "p4:\n  ret void\n}\n\ndeclare void @barrier() convergent\n";
    let m = semantics::parse_module("many.ll", &body).expect("parses");
    let v = check(&m, &m, HierarchyMode::All);
    assert!(
        v.starts_with("unknown (source: at least 9 cycle hierarchies, limit 8"),
        "{v}"
    );
    assert!(!check(&m, &m, HierarchyMode::Llvm).starts_with("unknown (source"));
}
