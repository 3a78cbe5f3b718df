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
