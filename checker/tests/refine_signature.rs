//! P-LAUNCH: which kernel parameters are uniform must agree between a
//! module and its opt output. opt-22 upgrades the legacy NVPTX annotation
//! `!nvvm.annotations = !{!{ptr @k, !"kernel", i32 1}}` to the `ptx_kernel`
//! calling convention when it reads a module (LLVM's LoopUnroll/NVPTX
//! tests are written so), so the checker reads the annotation as that
//! calling convention: the pair is checked instead of failing the
//! signature check ("parameter 1 is per thread in the source, uniform in
//! the target").

use checker::refine::{check_pair, Options, PairResult, Verdict};
use checker::smt::Session;

const BODY: &str = "(ptr %out, i32 %n) {
entry:
  %c = icmp eq i32 %n, 0
  br i1 %c, label %a, label %b
a:
  call void @bar()
  br label %b
b:
  ret void
}
declare void @bar() convergent
";

fn parse(text: &str) -> semantics::ir::Module {
    semantics::parse_module("t.ll", text).expect("test module parses")
}

fn verdict(src: &str, tgt: &str) -> Result<String, String> {
    let o = Options {
        threads: vec![1, 2],
        ..Options::default()
    };
    let mut session = Session::new(None);
    match check_pair(&parse(src), &parse(tgt), "k", &o, &mut session, true, None) {
        Ok(PairResult::Checked { outcome, .. }) => Ok(match outcome.verdict {
            Verdict::Refines { .. } => "refines".into(),
            other => format!("{other:?}"),
        }),
        Ok(other) => Ok(format!("{other:?}")),
        Err(e) => Err(e.to_string()),
    }
}

#[test]
fn nvvm_annotated_kernel_is_a_ptx_kernel() {
    let annotated = format!(
        "define void @k{BODY}!nvvm.annotations = !{{!0}}\n!0 = !{{ptr @k, !\"kernel\", i32 1}}\n"
    );
    let cc = format!("define ptx_kernel void @k{BODY}");
    let plain = format!("define void @k{BODY}");
    assert_eq!(verdict(&annotated, &cc), Ok("refines".to_string()));
    assert_eq!(verdict(&cc, &annotated), Ok("refines".to_string()));
    // Without the annotation the parameters are per thread: a signature
    // difference (invalid input), as before.
    let e = verdict(&plain, &cc).expect_err("per thread against uniform");
    assert!(
        e.contains("per thread in the source, uniform in the target"),
        "{e}"
    );
    // Another annotation (not `"kernel", i32 1`) does not make a kernel.
    let other = format!(
        "define void @k{BODY}!nvvm.annotations = !{{!0}}\n!0 = !{{ptr @k, !\"maxntidx\", i32 1}}\n"
    );
    assert!(verdict(&other, &cc).is_err());
}
