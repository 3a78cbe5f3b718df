//! One small program per rule clause that the corpus does not already
//! cover, in both modes, plus the renderers. Each test names its rule.

use semantics::parse_module;
use semantics::rules::{render_json, render_text, verify_module, Options, Report, Role, RuleId};

const DECLS: &str = "
declare void @op() convergent
declare void @plain()
declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.anchor()
declare token @llvm.experimental.convergence.loop()
";

fn check(body: &str, llvm: bool) -> Report {
    let text = format!("{body}\n{DECLS}");
    let m = parse_module("t.ll", &text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    verify_module(
        &m,
        &Options {
            llvm_compatible: llvm,
            closed_paths: None,
        },
    )
}

/// S-ENTRY-PLACE: at most once per function (no LLVM check of its own; LLVM
/// sees the second entry as preceded by a convergent operation).
#[test]
fn s_entry_place_second_entry() {
    let body = "define void @f() convergent {
  %a = call token @llvm.experimental.convergence.entry()
  %b = call token @llvm.experimental.convergence.entry()
  ret void
}";
    let d = check(body, false);
    let at_b: Vec<_> = d.violations.iter().filter(|v| v.inst == Some(1)).collect();
    assert_eq!(at_b.len(), 2, "{d:?}");
    assert!(at_b.iter().all(|v| v.rule == RuleId::SEntryPlace));
    assert!(at_b.iter().any(|v| v.llvm_message.is_none()
        && v.sites
            .iter()
            .any(|s| s.role == Role::Earlier && s.inst == Some(0))));
    let l = check(body, true);
    assert_eq!(l.violations.len(), 1);
    assert_eq!(l.rules(), vec![RuleId::SEntryPlace]);
}

/// S-TOKEN: tokens never pass through phi (LLVM: "PHI nodes cannot have
/// token type!", then the bundle check on the phi's user).
#[test]
fn s_token_phi() {
    let body = "define void @f(i1 %c) {
A:
  %a = call token @llvm.experimental.convergence.anchor()
  br i1 %c, label %B, label %C
B:
  br label %C
C:
  %p = phi token [ %a, %A ], [ %a, %B ]
  call void @op() [ \"convergencectrl\"(token %p) ]
  ret void
}";
    for llvm in [false, true] {
        let r = check(body, llvm);
        let msgs: Vec<&str> = r
            .violations
            .iter()
            .filter_map(|v| v.llvm_message.as_deref())
            .collect();
        assert!(
            msgs.contains(&"PHI nodes cannot have token type!"),
            "{msgs:?}"
        );
        assert!(msgs.contains(&"Convergence control tokens can only be produced by calls to the convergence control intrinsics."));
        assert!(r.rules().contains(&RuleId::SToken));
    }
}

/// P-PROG (SSA): a token use not dominated by its definition; LLVM prints
/// the generic message and, in the token walk, its own.
#[test]
fn p_prog_token_not_dominated() {
    let body = "define void @f(i1 %c) {
A:
  br i1 %c, label %B, label %C
B:
  %a = call token @llvm.experimental.convergence.anchor()
  br label %C
C:
  call void @op() [ \"convergencectrl\"(token %a) ]
  ret void
}";
    let l = check(body, true);
    let msgs: Vec<&str> = l
        .violations
        .iter()
        .filter_map(|v| v.llvm_message.as_deref())
        .collect();
    assert_eq!(
        msgs,
        vec![
            "Instruction does not dominate all uses!",
            "Convergence control token must dominate all its uses."
        ]
    );
    let d = check(body, false);
    assert_eq!(d.rules(), vec![RuleId::PProg]);
    let v = &d.violations[0];
    assert!(v
        .sites
        .iter()
        .any(|s| s.role == Role::Use && s.block == "C"));
    assert!(v
        .sites
        .iter()
        .any(|s| s.role == Role::Definition && s.block == "B"));
}

/// C-CONV / S-LOOP-PLACE: finding S-1 (a bundle makes a call convergent in
/// the documents' reading, not in LLVM 22).
#[test]
fn finding_s1_bundle_on_plain_call() {
    let body = "define void @f() convergent {
A:
  %e = call token @llvm.experimental.convergence.entry()
  br label %B
B:
  call void @plain() [ \"convergencectrl\"(token %e) ]
  %l = call token @llvm.experimental.convergence.loop() [ \"convergencectrl\"(token %e) ]
  ret void
}";
    assert_eq!(check(body, false).rules(), vec![RuleId::SLoopPlace]);
    assert!(check(body, true).is_valid());
}

/// S-MIX: finding S-3 (a lone anchor is not controlled convergence in the
/// documents; LLVM 22 says it is).
#[test]
fn finding_s3_anchor_and_uncontrolled() {
    let body = "define void @f() {
  %a = call token @llvm.experimental.convergence.anchor()
  call void @op()
  ret void
}";
    assert!(check(body, false).is_valid());
    assert_eq!(check(body, true).rules(), vec![RuleId::SMix]);
}

/// S-CYCLE-4 and S-CYCLE-1 sites: the heart and the block it fails to
/// dominate; the use and the token's definition.
#[test]
fn s_cycle_sites_and_renderers() {
    let body = "define void @f(i1 %c) {
A:
  %a = call token @llvm.experimental.convergence.anchor()
  br label %B
B:
  br i1 %c, label %C, label %B
C:
  %h = call token @llvm.experimental.convergence.loop() [ \"convergencectrl\"(token %a) ]
  br i1 %c, label %C, label %B
}";
    let d = check(body, false);
    assert_eq!(d.rules(), vec![RuleId::SCycle4]);
    let v = &d.violations[0];
    assert_eq!(v.block, "C");
    assert!(v
        .sites
        .iter()
        .any(|s| s.role == Role::Use && s.block == "C"));
    assert!(v
        .sites
        .iter()
        .any(|s| s.role == Role::Definition && s.block == "A"));
    assert!(v
        .sites
        .iter()
        .any(|s| s.role == Role::NotDominated && s.block == "B"));
    let text = render_text("t.ll", &d);
    assert!(text.starts_with("Cycle heart must dominate all blocks in the cycle.\n"));
    assert!(text.contains("; [S-CYCLE-4] @f %C #0"));
    assert!(text.ends_with("t.ll: 1 violation(s) of S-CYCLE-4\n"));
    let json: serde_json::Value = serde_json::from_str(&render_json("t.ll", &d)).expect("JSON");
    assert_eq!(json["valid"], false);
    assert_eq!(json["violations"][0]["rule"], "S-CYCLE-4");
    assert_eq!(json["violations"][0]["sites"][0]["role"], "use");
}

/// C-CONV in LLVM mode: target intrinsics LLVM marks convergent whatever
/// their declaration says (`convergent` comes from the intrinsic tables),
/// and one it does not; checked against opt-22 when available.
#[test]
fn c_conv_target_intrinsics_match_opt() {
    let calls = [
        (
            "i32 @llvm.amdgcn.readfirstlane.i32(i32 %x)",
            "declare i32 @llvm.amdgcn.readfirstlane.i32(i32)",
            true,
        ),
        (
            "i64 @llvm.amdgcn.ballot.i64(i1 true)",
            "declare i64 @llvm.amdgcn.ballot.i64(i1)",
            true,
        ),
        (
            "i1 @llvm.nvvm.vote.all(i1 true)",
            "declare i1 @llvm.nvvm.vote.all(i1)",
            true,
        ),
        (
            "i32 @llvm.amdgcn.workitem.id.x()",
            "declare i32 @llvm.amdgcn.workitem.id.x()",
            false,
        ),
    ];
    let opt = testgen::oracle::find_opt();
    for (call, decl, convergent) in calls {
        let text = format!(
            "define void @f(i32 %x) {{\n  %a = call token @llvm.experimental.convergence.anchor()\n  %r = call {call}\n  ret void\n}}\n{decl}\ndeclare token @llvm.experimental.convergence.anchor()\n"
        );
        let m = parse_module("t.ll", &text).unwrap_or_else(|e| panic!("{e}"));
        let l = verify_module(
            &m,
            &Options {
                llvm_compatible: true,
                closed_paths: None,
            },
        );
        assert_eq!(!l.is_valid(), convergent, "{call}");
        if let Some(opt) = &opt {
            let out = testgen::oracle::verify_ll(opt, &text);
            assert_eq!(out.success(), l.is_valid(), "{call}: opt-22 verdict");
        }
    }
}
