//! R-STREAM-SMT (P-INPUT, R-OBS): calls of unknown non-`readnone`
//! functions with a result read the thread's input stream in call order;
//! the stream is an input of the launch, shared by source and target.
//! Hand-written pairs are checked by the SMT checker on full-range inputs
//! (counterexamples replayed on the interpreter with the solver's streams,
//! R-CEX) and by both formalizations on the agreement's bounds (M-AGREE);
//! generated pairs (`testgen::refine_family::arb_stream_prog`) compare
//! the two formalizations (MC-07).

mod common;

use std::time::Duration;

use checker::agree::{check_agreement, interp_refines, smt_verdict};
use checker::refine::{check_pair, Options};
use checker::smt::Session;
use common::verdict_name;
use semantics::ir::Module;
use testgen::refine_family::{
    arb_stream_mutation, arb_stream_prog, mutate_stream, render, OpKind, Place, Prog, StreamUse,
};

fn parse(text: &str) -> Module {
    semantics::parse_module("t.ll", text).expect("test module parses")
}

const DECLS: &str = "
declare i32 @in()
declare i8 @in8()
declare i32 @in2()
declare void @use(i32)
declare i32 @subgroupAdd(i32) convergent nounwind willreturn memory(none)
";

/// The kernel `@k(i32 %x)` with `body` (ending in `ret void`).
fn kernel(body: &str) -> String {
    format!("define void @k(i32 %x) {{\nentry:\n{body}}}\n{DECLS}")
}

/// The checker's verdict on full-range inputs, 1..2 threads; a
/// counterexample the interpreter does not confirm fails the test.
fn full(src: &str, tgt: &str) -> String {
    let o = Options {
        threads: vec![1, 2],
        max_steps: 8,
        timeout: Duration::from_secs(60),
        ..Options::default()
    };
    let mut session = Session::new(None);
    verdict_name(
        check_pair(&parse(src), &parse(tgt), "k", &o, &mut session, true, None)
            .expect("check runs"),
    )
}

/// R-STREAM-SMT on one pair: the expected verdict on full-range inputs
/// (replayed), and the same verdict from both formalizations on the
/// agreement's bounds (M-AGREE).
fn expect(src: &str, tgt: &str, refines: bool) {
    let want = if refines { "refines" } else { "counterexample" };
    assert_eq!(full(src, tgt), want, "source:\n{src}\ntarget:\n{tgt}");
    assert_eq!(
        check_agreement(src, tgt),
        Ok(refines),
        "source:\n{src}\ntarget:\n{tgt}"
    );
}

const TWO_READS: &str = "  %a = call i32 @in()\n  %b = call i32 @in()\n";
const SWAPPED: &str = "  %b = call i32 @in()\n  %a = call i32 @in()\n";

/// R-STREAM-SMT "in call order": swapping two reads of one function
/// swaps the positions they read, so a use that tells them apart
/// (`a - b`) differs (a counterexample, replayed with the solver's
/// stream), while a use that does not (`a + b`) refines. Both
/// formalizations agree on both.
#[test]
fn reordering_two_stream_reads() {
    let sub = |reads: &str| {
        kernel(&format!(
            "{reads}  %d = sub i32 %a, %b\n  call void @use(i32 %d)\n  ret void\n"
        ))
    };
    let add = |reads: &str| {
        kernel(&format!(
            "{reads}  %d = add i32 %a, %b\n  call void @use(i32 %d)\n  ret void\n"
        ))
    };
    expect(&sub(TWO_READS), &sub(SWAPPED), false);
    expect(&add(TWO_READS), &add(SWAPPED), true);
}

/// Reordering reads of two different functions is a counterexample by
/// the events alone (R-OBS: callees in order).
#[test]
fn reordering_two_stream_functions() {
    let p = |first: &str, second: &str| {
        kernel(&format!(
            "  %a = call i32 @{first}()\n  %b = call i32 @{second}()\n  %d = add i32 %a, %b\n  \
             call void @use(i32 %d)\n  ret void\n"
        ))
    };
    expect(&p("in", "in2"), &p("in2", "in"), false);
}

const BRANCH: &str = "  %c = icmp slt i32 %x, 1\n  br i1 %c, label %arm, label %join\n";

/// Hoisting a stream read out of a branch makes threads that did not
/// take the branch read (an extra event): a counterexample; so is
/// duplicating the read in both arms' join. Identical programs refine.
#[test]
fn hoisting_or_duplicating_a_stream_read() {
    let src = kernel(&format!(
        "{BRANCH}arm:\n  %a = call i32 @in()\n  call void @use(i32 %a)\n  br label %join\n\
         join:\n  ret void\n"
    ));
    let hoisted = kernel(&format!(
        "  %a = call i32 @in()\n{BRANCH}arm:\n  call void @use(i32 %a)\n  br label %join\n\
         join:\n  ret void\n"
    ));
    let duplicated = kernel(&format!(
        "{BRANCH}arm:\n  %a = call i32 @in()\n  %a2 = call i32 @in()\n  call void @use(i32 %a)\n  \
         br label %join\njoin:\n  ret void\n"
    ));
    expect(&src, &hoisted, false);
    expect(&src, &duplicated, false);
    expect(&src, &src, true);
    expect(&hoisted, &hoisted, true);
}

/// A target that reads the stream fewer times than the source is a
/// counterexample (the missing event), even when it uses the value the
/// source used.
#[test]
fn fewer_stream_reads() {
    let src = kernel(&format!(
        "{TWO_READS}  call void @use(i32 %a)\n  ret void\n"
    ));
    let tgt = kernel("  %a = call i32 @in()\n  call void @use(i32 %a)\n  ret void\n");
    expect(&src, &tgt, false);
    expect(&tgt, &src, false);
}

/// R-REF with streams: the source's UB excuses the target only on the
/// launches (streams included) where it happens. A source that is UB when
/// its read is 0 is refined by a target that uses the value anyway, but
/// not by one that changes the observation where the source is defined:
/// the interpreter must not let UB under one stream value excuse another
/// (a free draw per call would).
#[test]
fn source_ub_excuses_only_its_own_streams() {
    let src = kernel(
        "  %a = call i32 @in()\n  %q = udiv i32 7, %a\n  call void @use(i32 %a)\n  ret void\n",
    );
    let same = kernel("  %a = call i32 @in()\n  call void @use(i32 %a)\n  ret void\n");
    let other = kernel(
        "  %a = call i32 @in()\n  %b = add i32 %a, 1\n  call void @use(i32 %b)\n  ret void\n",
    );
    expect(&src, &same, true);
    expect(&src, &other, false);
    // Two positions: UB at the second read does not excuse a difference
    // at the first when the second is not 0.
    let src2 = kernel(&format!(
        "{TWO_READS}  %q = udiv i32 7, %b\n  call void @use(i32 %a)\n  ret void\n"
    ));
    let tgt2 = kernel(&format!(
        "{TWO_READS}  %q = udiv i32 7, %b\n  %a1 = add i32 %a, 1\n  call void @use(i32 %a1)\n  \
         ret void\n"
    ));
    assert_eq!(interp_refines(&parse(&src2), &parse(&tgt2)), Ok(false));
    expect(&src2, &tgt2, false);
}

/// One stream, read at different widths: an `i8` read takes the low bits
/// of the position's value (the interpreter truncates the pinned value
/// the same way), so the narrow and the wide read of one position agree
/// on the low byte.
#[test]
fn stream_reads_of_different_widths() {
    let src = kernel(
        "  %a = call i8 @in8()\n  %b = call i32 @in()\n  %w = zext i8 %a to i32\n  \
         call void @use(i32 %w)\n  call void @use(i32 %b)\n  ret void\n",
    );
    let tgt = kernel(
        "  %a = call i8 @in8()\n  %b = call i32 @in()\n  %w = zext i8 %a to i32\n  \
         call void @use(i32 %b)\n  call void @use(i32 %w)\n  ret void\n",
    );
    expect(&src, &src, true);
    expect(&src, &tgt, false);
}

/// A stream value in a convergent operation: the reduction sums the
/// threads' reads at their own positions; reading one more value before
/// it shifts the position (and adds an event).
#[test]
fn stream_value_in_a_reduction() {
    let src = kernel(
        "  %a = call i32 @in()\n  %r = call i32 @subgroupAdd(i32 %a)\n  call void @use(i32 %r)\n  \
         ret void\n",
    );
    let tgt = kernel(
        "  %z = call i32 @in()\n  %a = call i32 @in()\n  %r = call i32 @subgroupAdd(i32 %a)\n  \
         call void @use(i32 %r)\n  ret void\n",
    );
    expect(&src, &src, true);
    expect(&src, &tgt, false);
}

/// Results other than integers stay unsupported, with the rule named.
#[test]
fn float_stream_results_are_unsupported() {
    let text = "define void @k(i32 %x) {\nentry:\n  %f = call float @inf()\n  ret void\n}\n\
                declare float @inf()\n";
    let v = full(text, text);
    assert!(
        v.starts_with("unsupported") && v.contains("R-STREAM-SMT") && v.contains("float"),
        "{v}"
    );
}

/// MC-07 / M-AGREE on generated pairs with stream reads (R-STREAM-SMT):
/// programs of the family whose operations read the stream and use the
/// value (observed, divided by, reduced, compared with `%x`), against
/// moves, drops, swaps and duplicates of their operations. Both verdicts
/// must occur.
#[test]
fn mc07_stream_pairs_agree() {
    let cases = 48;
    let t = common::mc07_generated(
        cases,
        (arb_stream_prog(3), arb_stream_mutation()),
        |(p, m)| (render(&p), render(&mutate_stream(&p, m))),
        check_agreement,
    );
    let (yes, no, vac) = (t.refines, t.differ, t.vacuous);
    eprintln!(
        "MC-07 streams: {cases} pairs agree ({yes} refine, {no} counterexamples, {vac} with a \
         source always UB)"
    );
    assert!(yes > 0 && no > 0, "both verdicts occur");
}

/// Non-vacuity of the generated family's stream operations: a swap of
/// two reads whose uses differ is a counterexample for both
/// formalizations, the program against itself refines.
#[test]
fn stream_family_has_both_verdicts() {
    let p = Prog {
        controlled: false,
        with_loop: false,
        ops: vec![
            (OpKind::Stream(StreamUse::Use), Place::Join),
            (OpKind::Stream(StreamUse::Sub), Place::Join),
        ],
        spin: None,
    };
    let q = mutate_stream(&p, testgen::refine_family::StreamMutation::Swap(0, 1));
    let (s, t) = (parse(&render(&p)), parse(&render(&q)));
    assert_eq!(interp_refines(&s, &t), Ok(false));
    assert_eq!(smt_verdict(&s, &t), Ok(false));
    assert_eq!(interp_refines(&s, &s), Ok(true));
    assert_eq!(smt_verdict(&s, &s), Ok(true));
}

/// R-CEX with a target that has UB in one thread before a convergent
/// operation of the same block (found by `mc07_stream_pairs_agree`): the
/// encoding lets the UB thread join the reduction for its whole block
/// visit, the interpreter stops it at the division, so the other thread's
/// reduced value differs; the replay compares a UB execution by its UB
/// thread alone (the behaviour is the UB), and both formalizations call
/// the swap a counterexample (the source has no UB where the target
/// divides by a zero read).
#[test]
fn target_ub_before_a_reduction_replays() {
    let p = Prog {
        controlled: false,
        with_loop: false,
        ops: vec![
            (OpKind::Stream(StreamUse::Add), Place::Join),
            (OpKind::Stream(StreamUse::Use), Place::Join),
            (OpKind::Stream(StreamUse::Div), Place::Join),
        ],
        spin: None,
    };
    let q = mutate_stream(&p, testgen::refine_family::StreamMutation::Swap(0, 2));
    expect(&render(&p), &render(&q), false);
}

/// R-STREAM-SMT in the counterexample (R-CEX): each stream call of the
/// target's trace shows the value it read, the launch's `stream[t0][k]`
/// in call order (and the replayed interpreter agrees, or the checker
/// would not print the counterexample).
#[test]
fn counterexample_traces_show_stream_values() {
    let dir = std::env::temp_dir().join(format!("convcheck-stream-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let (s, t) = (dir.join("s.ll"), dir.join("t.ll"));
    let body = |first: &str, second: &str| {
        kernel(&format!(
            "  %{first} = call i32 @in()\n  %{second} = call i32 @in()\n  %d = sub i32 %a, %b\n  call void @use(i32 %d)\n  ret void\n"
        ))
    };
    std::fs::write(&s, body("a", "b")).expect("write");
    std::fs::write(&t, body("b", "a")).expect("write");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_convcheck"))
        .args(["refine", "--kernel", "k", "--threads", "1"])
        .arg(&s)
        .arg(&t)
        .output()
        .expect("convcheck runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("verdict: counterexample"), "{text}");
    let streams: Vec<String> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("stream[t0]["))
        .map(|r| r.split(" = ").nth(1).expect("a value").to_string())
        .collect();
    let target = text
        .split("target execution")
        .nth(1)
        .and_then(|r| r.split("a source execution").next())
        .expect("a target trace");
    let shown: Vec<String> = target
        .lines()
        .filter_map(|l| l.trim().strip_prefix("@in() = "))
        .map(str::to_string)
        .collect();
    assert_eq!(streams.len(), 2, "{text}");
    assert_eq!(shown, streams, "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
