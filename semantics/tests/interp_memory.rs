//! Memory in the reference interpreter (docs/RULES.md §9): objects and
//! their identities (P-MEM-OBJ), the data layout (P-MEM-LAYOUT), pointers
//! with provenance (P-MEM-PTR), accesses and their undefined behaviour
//! (P-MEM-ACCESS), and what of memory a behaviour shows (R-MEM), on small
//! inline programs; memoization stays exact with memory in the state.

use std::collections::BTreeSet;

use semantics::machine::launch::Exploration;
use semantics::machine::memory::{words, Byte};
use semantics::machine::state::ThreadEnd;
use semantics::machine::{explore, render, Options, Outcome, Val};
use semantics::parse_module;

fn run(text: &str, opts: &Options) -> Exploration {
    let m = parse_module("mem.ll", text).unwrap_or_else(|e| panic!("{e}"));
    explore(&m, opts).unwrap_or_else(|e| panic!("{e}"))
}

fn threads(n: u32) -> Options {
    Options {
        threads: n,
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

fn memory_of<'a>(ex: &'a Exploration, b: usize, name: &str) -> Option<&'a Vec<Byte>> {
    ex.behaviours[b]
        .execution
        .memory
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, bytes)| bytes)
}

/// P-MEM-OBJ: every thread's `alloca` is its own object: each thread reads
/// back its own id, whatever the schedule.
#[test]
fn allocas_are_private_per_thread() {
    let ex = run(
        "declare i32 @llvm.amdgcn.workitem.id.x()\ndefine i32 @k() {\nentry:\n  %p = alloca i32, align 4\n  %t = call i32 @llvm.amdgcn.workitem.id.x()\n  store i32 %t, ptr %p, align 4\n  call void @sync()\n  %v = load i32, ptr %p, align 4\n  ret i32 %v\n}\ndeclare void @sync() convergent\n",
        &threads(3),
    );
    assert_eq!(
        returned(&ex),
        [vec!["0".into(), "1".into(), "2".into()]].into()
    );
}

/// P-MEM-ACCESS: a load of an `alloca` never written is poison; a store past
/// a global's end is UB naming the object, its size and the offset.
#[test]
fn uninitialised_is_poison_and_out_of_bounds_is_ub() {
    let ex = run(
        "define i32 @k() {\nentry:\n  %p = alloca i32, align 4\n  %v = load i32, ptr %p, align 4\n  ret i32 %v\n}\n",
        &threads(1),
    );
    assert_eq!(returned(&ex), [vec!["poison".to_string()]].into());
    let text = "@g = global [2 x i32] zeroinitializer\ndefine void @k(i64 %i) {\nentry:\n  %p = getelementptr [2 x i32], ptr @g, i64 0, i64 %i\n  store i32 1, ptr %p, align 4\n  ret void\n}\n";
    let mut o = threads(1);
    o.int_domain = vec![1, 2];
    let ex = run(text, &o);
    assert_eq!((ex.explored, ex.ub), (2, 1));
    let m = parse_module("mem.ll", text).expect("parses");
    let ub = ex
        .behaviours
        .iter()
        .find(|b| matches!(b.execution.outcome, Outcome::Ub { .. }))
        .expect("a UB behaviour");
    let msg = render::outcome_text(&m, &ub.execution.outcome);
    assert!(
        msg.contains("out-of-bounds access of 4 bytes at offset 8 of @g (8 bytes)"),
        "{msg}"
    );
    // The in-bounds behaviour's final @g shows the store (R-MEM).
    let ok = ex
        .behaviours
        .iter()
        .position(|b| matches!(b.execution.outcome, Outcome::Finished))
        .expect("a finished behaviour");
    assert_eq!(
        words(memory_of(&ex, ok, "@g").expect("@g observed")),
        ["0", "1"]
    );
}

/// P-MEM-LAYOUT: struct fields at their ABI alignment from the datalayout
/// (`{i8, i64}`: offset 8 with `i64:64`, offset 4 with LLVM's default);
/// bytes written as one type and read as another, little-endian.
#[test]
fn struct_offsets_follow_the_data_layout() {
    let body = "%S = type { i8, i64 }\n@s = global %S zeroinitializer\ndefine i32 @k() {\nentry:\n  %f = getelementptr %S, ptr @s, i64 0, i32 1\n  store i64 258, ptr %f, align 4\n  %b = getelementptr i8, ptr @s, i64 OFF\n  %v = load i8, ptr %b, align 1\n  %w = zext i8 %v to i32\n  ret i32 %w\n}\n";
    let with = |dl: &str, off: u32| {
        let text = format!("{dl}{}", body.replace("OFF", &off.to_string()));
        returned(&run(&text, &threads(1)))
    };
    let one = [vec!["1".to_string()]].into();
    let two = [vec!["2".to_string()]].into();
    // Default layout: the i64 at 4; its low byte 2, the next byte 1.
    assert_eq!(with("", 4), two);
    assert_eq!(with("", 5), one);
    // `i64:64`: the i64 at 8.
    assert_eq!(with("target datalayout = \"e-i64:64\"\n", 8), two);
    assert_eq!(
        with("target datalayout = \"e-i64:64\"\n", 4),
        [vec!["0".to_string()]].into()
    );
}

/// P-MEM-PTR: a pointer stored and loaded back keeps its object; `null`
/// loads back as null; accessing through null is UB.
#[test]
fn pointers_keep_provenance_in_memory() {
    let ex = run(
        "@g = global i32 5\n@slot = global ptr null\ndefine i32 @k() {\nentry:\n  %n = load ptr, ptr @slot, align 8\n  %isnull = icmp eq ptr %n, null\n  br i1 %isnull, label %a, label %b\na:\n  store ptr @g, ptr @slot, align 8\n  %p = load ptr, ptr @slot, align 8\n  %v = load i32, ptr %p, align 4\n  ret i32 %v\nb:\n  ret i32 -1\n}\n",
        &threads(1),
    );
    assert_eq!(returned(&ex), [vec!["5".to_string()]].into());
    let ex = run(
        "define i32 @k() {\nentry:\n  %v = load i32, ptr null, align 4\n  ret i32 %v\n}\n",
        &threads(1),
    );
    assert_eq!(ex.ub, 1);
}

/// P-INPUT, R-MEM: given buffer contents are read; input bytes that are
/// never read or not overwritten are not observed (`?`); the buffer has
/// exactly the given size.
#[test]
fn given_buffers_and_observed_contents() {
    let text = "declare i32 @llvm.amdgcn.workitem.id.x()\ndefine amdgpu_kernel void @k(ptr %out, ptr %in) {\nentry:\n  %t = call i32 @llvm.amdgcn.workitem.id.x()\n  %i = zext i32 %t to i64\n  %src = getelementptr i32, ptr %in, i64 %i\n  %x = load i32, ptr %src, align 4\n  %y = mul i32 %x, 10\n  %dst = getelementptr i32, ptr %out, i64 %i\n  store i32 %y, ptr %dst, align 4\n  ret void\n}\n";
    let mut o = threads(2);
    o.buffers.insert(
        "in".into(),
        [3i32, 4, 5].iter().flat_map(|x| x.to_le_bytes()).collect(),
    );
    let ex = run(text, &o);
    assert_eq!(ex.behaviours.len(), 1);
    assert_eq!(words(memory_of(&ex, 0, "%out").expect("%out")), {
        let mut w = vec!["30".to_string(), "40".to_string()];
        w.extend(std::iter::repeat_n("?".to_string(), 14));
        w
    });
    assert_eq!(
        words(memory_of(&ex, 0, "%in").expect("%in")),
        ["3", "4", "5"]
    );
    // Three threads read in[2]; four read past the 3 given elements: UB.
    let mut o4 = o.clone();
    o4.threads = 4;
    let ex = run(text, &o4);
    assert_eq!(ex.ub, ex.explored, "every execution reads in[3]");
    // Without contents, `in` is input: its loaded values do not split the
    // behaviours by themselves, only through what the program stores.
    let mut oi = threads(1);
    oi.buffers.clear();
    let ex = run(text, &oi);
    assert_eq!(
        ex.behaviours.len(),
        3,
        "out[0] = 10 * in[0], in[0] over {{0, 1, 2}}"
    );
    for b in 0..3 {
        assert_eq!(words(memory_of(&ex, b, "%in").expect("%in"))[0], "?");
    }
}

/// P-MEM-OBJ: a workgroup global has one instance per launch group, and is
/// not observed (R-MEM); other globals have one instance per launch.
#[test]
fn workgroup_globals_are_per_group_and_not_observed() {
    let text = "@lds = addrspace(3) global i32 poison\n@g = global i32 0\ndefine void @k() {\nentry:\n  store i32 1, ptr addrspace(3) @lds, align 4\n  %v = load i32, ptr addrspace(3) @lds, align 4\n  store i32 %v, ptr @g, align 4\n  ret void\n}\n";
    let m = parse_module("mem.ll", text).expect("parses");
    assert_ne!(
        semantics::machine::memory::global_id(&m, 0, 0),
        semantics::machine::memory::global_id(&m, 0, 1)
    );
    assert_eq!(
        semantics::machine::memory::global_id(&m, 1, 0),
        semantics::machine::memory::global_id(&m, 1, 1)
    );
    let ex = run(
        text,
        &Options {
            threads: 2,
            groups: 2,
            ..Options::default()
        },
    );
    let shown: Vec<&str> = ex.behaviours[0]
        .execution
        .memory
        .iter()
        .map(|(n, _)| n.as_str())
        .collect();
    assert_eq!(shown, ["@g"]);
    assert_eq!(words(memory_of(&ex, 0, "@g").expect("@g")), ["1"]);
}

/// `atomicrmw` is one step (P-MEM-RACE: sequentially consistent): three
/// threads adding 1 leave 3 and see 0, 1, 2 in some order.
#[test]
fn atomicrmw_adds_up() {
    let ex = run(
        "@c = global i32 0\ndefine i32 @k() {\nentry:\n  %old = atomicrmw add ptr @c, i32 1 seq_cst, align 4\n  ret i32 %old\n}\n",
        &threads(3),
    );
    for b in 0..ex.behaviours.len() {
        assert_eq!(words(memory_of(&ex, b, "@c").expect("@c")), ["3"]);
        let mut olds: Vec<Val> = ex.behaviours[b]
            .execution
            .threads
            .iter()
            .filter_map(|t| match &t.end {
                Some(ThreadEnd::Returned(v)) => Some(v.clone()),
                _ => None,
            })
            .collect();
        olds.sort();
        assert_eq!(olds.len(), 3);
    }
}

/// Memoization (machine/reduce.rs) keeps the behaviours exactly with memory
/// in the state: reduced and plain enumerations agree on a program whose
/// threads communicate through a global between barriers.
#[test]
fn memoization_is_exact_with_memory() {
    let text = "declare i32 @llvm.amdgcn.workitem.id.x()\ndeclare void @llvm.amdgcn.s.barrier() convergent\n@x = global [3 x i32] zeroinitializer\ndefine void @k(i32 %d) {\nentry:\n  %t = call i32 @llvm.amdgcn.workitem.id.x()\n  %i = zext i32 %t to i64\n  %p = getelementptr [3 x i32], ptr @x, i64 0, i64 %i\n  %c = icmp ult i32 %t, %d\n  br i1 %c, label %w, label %j\nw:\n  store i32 %d, ptr %p, align 4\n  br label %j\nj:\n  call void @llvm.amdgcn.s.barrier()\n  %q = getelementptr [3 x i32], ptr @x, i64 0, i64 0\n  %v = load i32, ptr %q, align 4\n  store i32 %v, ptr %p, align 4\n  ret void\n}\n";
    let keys = |reduce: bool| {
        let ex = run(
            text,
            &Options {
                threads: 3,
                reduce,
                ..Options::default()
            },
        );
        ex.behaviours
            .iter()
            .map(|b| b.execution.behaviour_key())
            .collect::<BTreeSet<String>>()
    };
    let (a, b) = (keys(true), keys(false));
    assert!(!a.is_empty());
    assert_eq!(a, b);
}
