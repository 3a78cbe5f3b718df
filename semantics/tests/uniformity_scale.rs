//! Rule U-LLVM at scale (issue 15): the hard shape
//! (`testgen::uniformity::gen_hard_kernel`: ~25% back edges to random
//! earlier blocks, forward jumps into the cycles, so many nested and
//! irreducible cycles, thread-id-dependent branches, phis and uses after
//! cycles) against `opt-22 -mtriple=amdgcn-- -passes='print<uniformity>'`:
//! identical per-instruction verdicts and block text, headers agreeing up
//! to LLVM's hash order (`ugen::headers_agree`). Sizes 60 to 1,500 blocks;
//! `make bench-uniformity` times 1k to 20k.

use testgen::support::ugen;

use semantics::uniformity;
use testgen::uniformity::gen_hard_kernel;

fn check(funcs: &[testgen::uniformity::UFunc], opt: &std::path::Path) -> usize {
    let (module, text) = ugen::module_of(funcs);
    let out = ugen::run_opt(opt, &text).unwrap_or_else(|e| panic!("opt rejected the batch: {e}"));
    let theirs = ugen::split_sections(&out);
    let ours = uniformity::analyze_module(&module);
    assert_eq!(theirs.len(), ours.len(), "one section per defined function");
    // The streamed report (what the CLI writes: instruction texts made
    // while written) is the stored one's text, byte for byte.
    let stored: String = ours.iter().map(uniformity::render_function).collect();
    assert!(
        uniformity::print_module_with(&module, uniformity::Mode::Llvm) == stored,
        "U-LLVM: the streamed report differs from the stored one"
    );
    let mut irreducible = 0;
    for ((name, their), our) in theirs.iter().zip(&ours) {
        assert_eq!(name, &our.function);
        let our_text = uniformity::render_function(our);
        assert!(
            ugen::verdicts(their) == ugen::verdicts(&our_text),
            "U-LLVM: verdicts differ from opt-22 on hard kernel {name}"
        );
        let (th, tb) = ugen::parse_section(their);
        let (oh, ob) = ugen::parse_section(&our_text);
        assert!(tb == ob, "U-LLVM: block text differs on hard kernel {name}");
        if let Err(e) = ugen::headers_agree(&th, &oh) {
            panic!("U-LLVM: headers differ on hard kernel {name}: {e}");
        }
        irreducible += usize::from(has_irreducible(their));
    }
    irreducible
}

/// Whether an opt section names a cycle with two or more entries.
fn has_irreducible(section: &str) -> bool {
    section.lines().any(|l| {
        l.contains("entries(")
            && l.split("entries(")
                .nth(1)
                .is_some_and(|r| r.split(')').next().is_some_and(|e| e.contains(' ')))
    })
}

#[test]
fn hard_shape_matches_opt() {
    let Some(opt) = testgen::oracle::opt_or_skip("hard_shape_matches_opt") else {
        return;
    };
    // 40 small and medium kernels in one opt call, then one large one.
    let small: Vec<_> = (0..40u64)
        .map(|s| gen_hard_kernel(0x5EED ^ s, &format!("h{s}"), 60 + 10 * s as usize))
        .collect();
    let irreducible = check(&small, &opt);
    assert!(
        irreducible >= 20,
        "only {irreducible} of 40 hard kernels have an irreducible cycle"
    );
    check(&[gen_hard_kernel(7, "big", 1500)], &opt);
}

/// Rule U-LLVM: the streamed report equals the stored one on a uniform
/// function, a single-lane function with a divergence source (everything
/// uniform: `"amdgpu-flat-work-group-size"="1,1"`) and a divergent one.
#[test]
fn streamed_report_equals_stored_report() {
    let text = r#"
define amdgpu_kernel void @uniform(i32 %n) {
entry:
  %x = add i32 %n, 1
  ret void
}

define void @one_lane() #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %c = icmp eq i32 %tid, 0
  br i1 %c, label %a, label %b
a:
  br label %b
b:
  ret void
}

define void @divergent() {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %c = icmp eq i32 %tid, 0
  br i1 %c, label %a, label %b
a:
  br label %b
b:
  %p = phi i32 [ 0, %entry ], [ 1, %a ]
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()

attributes #0 = { "amdgpu-flat-work-group-size"="1,1" }
"#;
    let module = semantics::parse::parse_module("t.ll", text).expect("valid module");
    let ours = uniformity::analyze_module(&module);
    let stored: String = ours.iter().map(uniformity::render_function).collect();
    let streamed = uniformity::print_module_with(&module, uniformity::Mode::Llvm);
    assert_eq!(streamed, stored);
    assert_eq!(
        streamed.matches("ALL VALUES UNIFORM").count(),
        2,
        "{streamed}"
    );
    assert!(
        streamed.contains("  DIVERGENT:   %p = phi i32"),
        "{streamed}"
    );
}
