//! `refine` on kernels that call defined functions (issue 6, F-20): calls
//! are inlined (`semantics::inline`, D-ENTRY-CALL, CO "Function inlining"),
//! copies of one anchor keep one D-CW identity, `atomicrmw` on a global is
//! an observed event whose result is an input (the memory abstraction), and
//! counterexamples are replayed on the original modules too (R-CEX).

mod common;

use common::verdict_name;
use std::path::Path;
use std::time::Duration;

use checker::refine::{check_pair, Options};
use checker::smt::Session;
use semantics::ir::Module;

fn parse(text: &str) -> Module {
    semantics::parse_module("t.ll", text).expect("test module parses")
}

fn example(name: &str) -> Module {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/refine")
        .join(name);
    let text = std::fs::read_to_string(&p).expect("example readable");
    semantics::parse_module(&p.display().to_string(), &text).expect("example parses")
}

fn opts(threads: Vec<usize>) -> Options {
    Options {
        threads,
        timeout: Duration::from_secs(60),
        max_iterations: 32,
        ..Options::default()
    }
}

/// The verdict's name; a replay disagreement fails the test.
fn check(src: &Module, tgt: &Module, kernel: &str, o: &Options) -> String {
    let mut session = Session::new(None);
    verdict_name(check_pair(src, tgt, kernel, o, &mut session, true, None).expect("check runs"))
}

const DECLS: &str = "
declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.anchor()
declare i32 @subgroupAdd(i32) convergent nounwind willreturn memory(none)
declare void @ext(i32)
";

/// CL-06 (D-ENTRY-CALL, CO "Function inlining"): the call with the loop
/// heart's token refines (and is) the document's inlined program.
#[test]
fn cl06_inline_entry_refines() {
    let src = example("cl06-inline-entry.src.ll");
    let tgt = example("cl06-inline-entry.tgt.ll");
    let o = Options {
        max_steps: 6,
        ..opts(vec![2])
    };
    assert_eq!(check(&src, &tgt, "main", &o), "refines");
}

/// A callee with `entry` called in both arms of a divergent branch (tokens
/// of the kernel's `entry`) vs. one call after the join: D-ENTRY-CALL makes
/// the arms' threads communicate separately, the merged call makes them
/// communicate together, so merging is a counterexample; replayed on the
/// inlined and on the original modules.
#[test]
fn merging_convergent_call_sites_is_a_counterexample() {
    let callee = "
define i32 @f() convergent {
  %e = call token @llvm.experimental.convergence.entry()
  %s = call i32 @subgroupAdd(i32 1) [ \"convergencectrl\"(token %e) ]
  ret i32 %s
}";
    let src = parse(&format!(
        "{DECLS}{callee}
define void @k(i1 %c) convergent {{
entry:
  %t = call token @llvm.experimental.convergence.entry()
  br i1 %c, label %l, label %r
l:
  %x = call i32 @f() [ \"convergencectrl\"(token %t) ]
  br label %j
r:
  %y = call i32 @f() [ \"convergencectrl\"(token %t) ]
  br label %j
j:
  %v = phi i32 [ %x, %l ], [ %y, %r ]
  call void @ext(i32 %v)
  ret void
}}"
    ));
    let tgt = parse(&format!(
        "{DECLS}{callee}
define void @k(i1 %c) convergent {{
entry:
  %t = call token @llvm.experimental.convergence.entry()
  br i1 %c, label %l, label %r
l:
  br label %j
r:
  br label %j
j:
  %v = call i32 @f() [ \"convergencectrl\"(token %t) ]
  call void @ext(i32 %v)
  ret void
}}"
    ));
    assert_eq!(check(&src, &tgt, "k", &opts(vec![2])), "counterexample");
    // The other direction too: splitting the call separates the threads.
    assert_eq!(check(&tgt, &src, "k", &opts(vec![2])), "counterexample");
}

/// Copies of one anchor are one static instruction (D-CW): a callee with
/// an anchor called from both arms may group threads of both arms (no rule
/// ties an anchor to its call site), so merging the calls refines. Without
/// the shared identity of the copies this would be a counterexample (the
/// merged anchor groups both threads, two separate copies could not).
#[test]
fn copies_of_one_anchor_may_converge() {
    let callee = "
define i32 @f() {
  %a = call token @llvm.experimental.convergence.anchor()
  %s = call i32 @subgroupAdd(i32 1) [ \"convergencectrl\"(token %a) ]
  ret i32 %s
}";
    let src = parse(&format!(
        "{DECLS}{callee}
define void @k(i1 %c) {{
entry:
  br i1 %c, label %l, label %r
l:
  %x = call i32 @f()
  br label %j
r:
  %y = call i32 @f()
  br label %j
j:
  %v = phi i32 [ %x, %l ], [ %y, %r ]
  call void @ext(i32 %v)
  ret void
}}"
    ));
    let tgt = parse(&format!(
        "{DECLS}{callee}
define void @k(i1 %c) {{
entry:
  br i1 %c, label %l, label %r
l:
  br label %j
r:
  br label %j
j:
  %v = call i32 @f()
  call void @ext(i32 %v)
  ret void
}}"
    ));
    assert_eq!(check(&src, &tgt, "k", &opts(vec![2])), "refines");
    assert_eq!(check(&tgt, &src, "k", &opts(vec![2])), "refines");
}

/// Recursion is inlined to `semantics::inline::RECURSION_DEPTH` nested
/// copies and cut past it: a recursion without end that repeats itself
/// (the same arguments, nothing observable) is stuck (R-PREFIX-REC) and
/// refines itself; one that counts down past the depth has no execution
/// compared (unknown, never a verdict; `refine_prefix.rs` has more).
/// Uncontrolled calls of `entry` callees outside a convergent kernel's
/// entry block are unsupported, with the reason.
#[test]
fn endless_recursion_refines_and_uncontrolled_entry_calls_unsupported() {
    let rec = parse(&format!(
        "{DECLS}
define void @f(i32 %x) {{
  call void @f(i32 %x)
  ret void
}}
define void @k(i32 %a) {{
  call void @f(i32 %a)
  ret void
}}"
    ));
    assert_eq!(check(&rec, &rec, "k", &opts(vec![1, 2])), "refines");
    let down = parse(&format!(
        "{DECLS}
define void @f(i32 %x) {{
  %y = add i32 %x, 1
  call void @f(i32 %y)
  ret void
}}
define void @k(i32 %a) {{
  call void @f(i32 %a)
  ret void
}}"
    ));
    let got = check(&down, &down, "k", &opts(vec![1]));
    assert!(
        got.starts_with("unknown") && got.contains("bound too small"),
        "{got}"
    );
    let unc = parse(&format!(
        "{DECLS}
define void @f() convergent {{
  %e = call token @llvm.experimental.convergence.entry()
  %s = call i32 @subgroupAdd(i32 1) [ \"convergencectrl\"(token %e) ]
  ret void
}}
define void @k() {{
  call void @f()
  ret void
}}"
    ));
    let got = check(&unc, &unc, "k", &opts(vec![1]));
    assert!(
        got.starts_with("unsupported") && got.contains("without a convergencectrl token"),
        "{got}"
    );
    // In a convergent kernel, but in a loop: D-MAX there converges
    // iterations (D-MAX-ITER), not the launch group; no token says so.
    let looped = parse(&format!(
        "{DECLS}
define void @f() convergent {{
  %e = call token @llvm.experimental.convergence.entry()
  %s = call i32 @subgroupAdd(i32 1) [ \"convergencectrl\"(token %e) ]
  ret void
}}
define void @k(i1 %c) convergent {{
entry:
  br label %loop
loop:
  call void @f()
  br i1 %c, label %loop, label %done
done:
  ret void
}}"
    ));
    let got = check(&looped, &looped, "k", &opts(vec![1]));
    assert!(
        got.starts_with("unsupported") && got.contains("without a convergencectrl token"),
        "{got}"
    );
}

/// D-ENTRY-CALL for an uncontrolled call outside every cycle of a
/// convergent kernel (LLVM's Inline/convergence-inline.ll
/// @test_convergent_no_token): D-MAX converges the launch group's
/// instances there, as the kernel's `entry` would, so the callee's `entry`
/// becomes an inserted `entry` token. The
/// program refines itself; a target whose callee groups threads by an
/// anchor instead (any grouping) is a counterexample at 2 threads (the
/// source's operation has every thread in its set), replayed on the
/// inlined and the original modules, where the interpreter executes the
/// uncontrolled call itself.
#[test]
fn uncontrolled_entry_call_in_the_entry_block_is_the_launch_entry() {
    let kernel = "
define void @k(i32 %x) convergent {
entry:
  call void @f(i32 %x)
  ret void
}";
    let src = parse(&format!(
        "{DECLS}{kernel}
define void @f(i32 %v) convergent {{
  %e = call token @llvm.experimental.convergence.entry()
  %s = call i32 @subgroupAdd(i32 %v) [ \"convergencectrl\"(token %e) ]
  call void @ext(i32 %s)
  ret void
}}"
    ));
    let tgt = parse(&format!(
        "{DECLS}{kernel}
define void @f(i32 %v) convergent {{
  %e = call token @llvm.experimental.convergence.entry()
  %a = call token @llvm.experimental.convergence.anchor()
  %s = call i32 @subgroupAdd(i32 %v) [ \"convergencectrl\"(token %a) ]
  call void @ext(i32 %s)
  ret void
}}"
    ));
    assert_eq!(check(&src, &src, "k", &opts(vec![1, 2])), "refines");
    assert_eq!(check(&src, &tgt, "k", &opts(vec![1, 2])), "counterexample");
    assert_eq!(check(&tgt, &src, "k", &opts(vec![1, 2])), "refines");
    // In a branch (outside every cycle): the threads that take it are
    // converged there, the others do not communicate.
    let branch = |body: &str| {
        parse(&format!(
            "{DECLS}
define void @k(i32 %x) convergent {{
entry:
  %c = icmp ult i32 %x, 7
  br i1 %c, label %then, label %done
then:
  call void @f(i32 %x)
  br label %done
done:
  ret void
}}
define void @f(i32 %v) convergent {{
  %e = call token @llvm.experimental.convergence.entry()
{body}
  call void @ext(i32 %s)
  ret void
}}"
        ))
    };
    let src = branch("  %s = call i32 @subgroupAdd(i32 %v) [ \"convergencectrl\"(token %e) ]");
    let tgt = branch(
        "  %a = call token @llvm.experimental.convergence.anchor()
  %s = call i32 @subgroupAdd(i32 %v) [ \"convergencectrl\"(token %a) ]",
    );
    assert_eq!(check(&src, &src, "k", &opts(vec![1, 2])), "refines");
    assert_eq!(check(&src, &tgt, "k", &opts(vec![1, 2])), "counterexample");
}

/// The memory abstraction: `atomicrmw` on a global is an observed event
/// (global, operation, value operand; R-OBS) whose result is an input
/// shared by source and target (P-INPUT). The same program refines itself,
/// also when its result feeds an observed call; counterexamples that real
/// memory cannot confirm are "unknown", those it confirms are verdicts.
#[test]
fn atomicrmw_is_an_observed_event_with_an_input_result() {
    let prog = |inc: i32| {
        parse(&format!(
            "@g = global i32 0
declare void @ext(i32)
define void @k(i32 %a) {{
  %o = atomicrmw add ptr @g, i32 {inc} monotonic
  %p = add i32 %o, %a
  call void @ext(i32 %p)
  ret void
}}"
        ))
    };
    assert_eq!(check(&prog(1), &prog(1), "k", &opts(vec![1, 2])), "refines");
    // A different value operand is a counterexample of the encoding; the
    // interpreter cannot confirm a difference that lies only in values
    // under the abstraction (it does not compare them), so the answer is
    // "unknown", never "refines".
    let got = check(&prog(1), &prog(2), "k", &opts(vec![1]));
    assert!(
        got.starts_with("unknown") && got.contains("not replayable with real memory"),
        "{got}"
    );
    // A counterexample that needs an atomic result real memory cannot
    // return (1 thread, @g = 0: the old value is 0, never 5) is "unknown",
    // not a verdict; one that real memory shows is a counterexample.
    let branchy = |cmp: i32| {
        parse(&format!(
            "@g = global i32 0
declare void @ext(i32)
define void @k(i32 %a) {{
  %o = atomicrmw add ptr @g, i32 1 monotonic
  %c = icmp eq i32 %o, {cmp}
  br i1 %c, label %z, label %nz
z:
  call void @ext(i32 0)
  ret void
nz:
  ret void
}}"
        ))
    };
    let quiet = parse(
        "@g = global i32 0
define void @k(i32 %a) {
  %o = atomicrmw add ptr @g, i32 1 monotonic
  ret void
}",
    );
    let got = check(&branchy(5), &quiet, "k", &opts(vec![1]));
    assert!(
        got.starts_with("unknown") && got.contains("not replayable with real memory"),
        "{got}"
    );
    assert_eq!(
        check(&branchy(0), &quiet, "k", &opts(vec![1])),
        "counterexample"
    );
    let local = parse(
        "declare void @ext(i32)
define void @k(ptr %q) {
  %o = atomicrmw add ptr %q, i32 1 monotonic
  ret void
}",
    );
    let got = check(&local, &local, "k", &opts(vec![1]));
    assert!(got.starts_with("unsupported"), "{got}");
}

/// CL-04 (CO "Opportunistic convergent operations"): callers may move call
/// sites of the non-convergent @reserveSpaceInBuffer. Slow (64-bit ballot,
/// anchors, CEGIS: about a minute each in release):
/// `cargo test -p checker --release --test refine_calls -- --ignored`.
#[test]
#[ignore]
fn cl04_caller_split_refines() {
    let src = example("cl04-caller-split.src.ll");
    let tgt = example("cl04-caller-split.tgt.ll");
    assert_eq!(check(&src, &tgt, "append", &opts(vec![2])), "refines");
}

/// See [`cl04_caller_split_refines`]; the merge direction (F-24: the solver
/// times out on it at 60 s per query on this machine).
#[test]
#[ignore]
fn cl04_caller_merge_refines() {
    let src = example("cl04-caller-merge.src.ll");
    let tgt = example("cl04-caller-merge.tgt.ll");
    assert_eq!(check(&src, &tgt, "append", &opts(vec![2])), "refines");
}

/// Issue 13 item 4: the table's rows reach the encoder. SPIR-V's and
/// DirectX's `wave.reduce.umax` encode as C-OPS reductions and NVPTX's
/// `barrier.cta.sync.aligned.all` as a convergent call without a value, so
/// `refine` answers instead of stopping at an unsupported intrinsic: the
/// program refines itself, and hoisting the reductions out of a divergent
/// branch is a counterexample the interpreter confirms (t0 alone reduces
/// its own id 0 in the source, umax(0, 1) = 1 in the target).
#[test]
fn spirv_dx_reductions_and_nvptx_barrier_are_encoded() {
    let decls = "
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.spv.wave.reduce.umax.i32(i32)
declare i32 @llvm.dx.wave.reduce.umax.i32(i32)
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)
declare void @use(i32)
";
    let src = parse(&format!(
        "define void @k() convergent {{
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %c = icmp eq i32 %t, 0
  br i1 %c, label %then, label %exit
then:
  %r = call i32 @llvm.spv.wave.reduce.umax.i32(i32 %t)
  %s = call i32 @llvm.dx.wave.reduce.umax.i32(i32 %r)
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  call void @use(i32 %s)
  br label %exit
exit:
  ret void
}}
{decls}"
    ));
    let tgt = parse(&format!(
        "define void @k() convergent {{
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %c = icmp eq i32 %t, 0
  %r = call i32 @llvm.spv.wave.reduce.umax.i32(i32 %t)
  %s = call i32 @llvm.dx.wave.reduce.umax.i32(i32 %r)
  br i1 %c, label %then, label %exit
then:
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  call void @use(i32 %s)
  br label %exit
exit:
  ret void
}}
{decls}"
    ));
    assert_eq!(check(&src, &src, "k", &opts(vec![2])), "refines");
    assert_eq!(check(&src, &tgt, "k", &opts(vec![2])), "counterexample");
}

/// D-CALL-NC (finding F-28, CO "Inferring non-convergence"): a call site
/// marked `convergent` (or with a `"convergencectrl"` bundle) whose callee
/// is a declared non-convergent function is that function's ordinary call
/// in the dynamic semantics (P-INPUT: here an input-stream read), so
/// InstCombine's removal of the attribute (corpus
/// `InstCombine/convergent.ll`, `@no_extern`) refines, in both directions
/// and for the bundle too; both formalizations agree (M-AGREE). It is
/// still such a call: hoisting it out of a divergent branch adds reads
/// (a counterexample). A callee declared `convergent` keeps the call
/// convergent (an unknown convergent function, C-OPS), and C-CONV, the
/// static rule, still calls the marked site convergent.
#[test]
fn convergent_call_site_of_a_non_convergent_function() {
    use checker::agree::check_agreement;
    let module = |decl: &str, body: &str| {
        format!(
            "define void @k(i32 %x) convergent {{\nentry:\n  %e = call token \
             @llvm.experimental.convergence.entry()\n{body}  ret void\n}}\n\
             declare token @llvm.experimental.convergence.entry()\n{decl}\n\
             declare void @use(i32)\n"
        )
    };
    let plain = "declare i32 @f()";
    let read = |site: &str| format!("  %a = call i32 @f(){site}\n  call void @use(i32 %a)\n");
    let marked = module(plain, &read(" convergent"));
    let bundled = module(plain, &read(" [ \"convergencectrl\"(token %e) ]"));
    let unmarked = module(plain, &read(""));
    for (s, t) in [
        (&marked, &unmarked),
        (&unmarked, &marked),
        (&bundled, &unmarked),
        (&unmarked, &bundled),
    ] {
        assert_eq!(
            check(&parse(s), &parse(t), "k", &opts(vec![1, 2])),
            "refines"
        );
        assert_eq!(check_agreement(s, t), Ok(true), "{s}\n{t}");
    }
    // Still a call with its observed event: hoisting it out of a branch.
    let branch = "  %c = icmp slt i32 %x, 1\n  br i1 %c, label %arm, label %join\narm:\n";
    let in_arm = module(
        plain,
        &format!("{branch}{}  br label %join\njoin:\n", read(" convergent")),
    );
    let hoisted = module(
        plain,
        &format!(
            "  %a = call i32 @f() convergent\n{branch}  call void @use(i32 %a)\n  br label %join\njoin:\n"
        ),
    );
    assert_eq!(
        check(&parse(&in_arm), &parse(&hoisted), "k", &opts(vec![1, 2])),
        "counterexample"
    );
    assert_eq!(check_agreement(&in_arm, &hoisted), Ok(false));
    // A callee declared convergent keeps the marked call convergent.
    let conv = parse(&module("declare i32 @f() convergent", &read(" convergent")));
    assert_eq!(
        semantics::machine::program::classify(&conv, &call_of_f(&conv)),
        semantics::machine::program::CalleeKind::UnknownConvergent
    );
    // C-CONV (static) is unchanged; D-CALL-NC is the dynamic reading.
    let call = call_of_f;
    let mk = parse(&marked);
    assert!(semantics::machine::program::is_convergent_call(
        &mk,
        &call(&mk)
    ));
    assert!(!semantics::machine::program::is_dynamically_convergent_call(&mk, &call(&mk)));
    assert_eq!(
        semantics::machine::program::classify(&mk, &call(&mk)),
        semantics::machine::program::CalleeKind::UnknownStream
    );
}

/// The kernel `@k`'s call of `@f`.
fn call_of_f(m: &Module) -> semantics::ir::Call {
    m.function("k")
        .expect("kernel")
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .find_map(|i| match &i.kind {
            semantics::ir::InstKind::Call(c) if c.callee_name() == Some("f") => Some((**c).clone()),
            _ => None,
        })
        .expect("call of @f")
}
