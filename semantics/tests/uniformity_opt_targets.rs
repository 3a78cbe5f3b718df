//! Rule U-SOURCE per target (issue 13 item 3): the uniformity analysis on
//! the generated functions of `testgen::uniformity`, rewritten for NVPTX
//! (`target triple = "nvptx64-nvidia-cuda"`, `ptx_kernel` kernels,
//! `llvm.nvvm.read.ptx.sreg.tid.x` as the thread id, the AMDGPU
//! read-first-lane kept as an unknown intrinsic, which NVPTX treats as a
//! divergent call), and for SPIR-V and DirectX (no branch divergence in
//! LLVM 22: every function ALL VALUES UNIFORM), against `opt-22` reading
//! the triple from the module. Verdicts must be equal, modulo LLVM's
//! hash-order reruns (proofs/FINDINGS.md U-9), and block text too.

use testgen::support as unif_support;

use semantics::uniformity;
use testgen::uniformity::gen_function;
use unif_support::ugen;

const FUNCTIONS: usize = 500;
const BATCH: usize = 250;
const RERUNS: usize = 30;

/// The generated module text for a target triple.
fn for_target(text: &str, triple: &str) -> String {
    let t = text
        .replace(
            "amdgpu_kernel ",
            if triple.starts_with("nvptx") {
                "ptx_kernel "
            } else {
                ""
            },
        )
        .replace("llvm.amdgcn.workitem.id.x", "llvm.nvvm.read.ptx.sreg.tid.x");
    format!("target triple = \"{triple}\"\n{t}")
}

fn run_opt(opt: &std::path::Path, text: &str) -> String {
    let out =
        testgen::oracle::run_opt(opt, &["-passes=print<uniformity>", "-disable-output"], text);
    assert!(
        out.success(),
        "opt rejected a generated module: {}",
        out.stderr
    );
    out.stderr
}

#[test]
fn generated_functions_match_opt_on_nvptx_spirv_and_directx() {
    let Some(opt) = testgen::oracle::opt_or_skip("generated_functions_match_opt_on_nvptx") else {
        return;
    };
    for (triple, want_divergence) in [
        ("nvptx64-nvidia-cuda", true),
        ("spirv64-unknown-unknown", false),
        ("dxil-pc-shadermodel6.3-compute", false),
    ] {
        let (mut checked, mut divergent, mut reruns) = (0, 0, 0);
        let mut mismatches = Vec::new();
        for batch in 0..FUNCTIONS.div_ceil(BATCH) {
            let funcs: Vec<_> = (0..BATCH)
                .map(|i| {
                    let id = batch * BATCH + i;
                    gen_function(0xBEEF ^ (id as u64).wrapping_mul(0x9E37), &format!("f{id}"))
                })
                .collect();
            let (_, text) = ugen::module_of(&funcs);
            let text = for_target(&text, triple);
            let module = semantics::parse_module("gen.ll", &text).expect("generated module parses");
            let theirs = ugen::split_sections(&run_opt(&opt, &text));
            let ours = uniformity::analyze_module(&module);
            assert_eq!(theirs.len(), ours.len(), "one section per defined function");
            for ((name, their), our) in theirs.iter().zip(&ours) {
                checked += 1;
                let our_text = uniformity::render_function(our);
                divergent += usize::from(our.found_divergence());
                let ob = ugen::parse_section(&our_text).1;
                if ugen::verdicts(their) == ugen::verdicts(&our_text)
                    && ugen::parse_section(their).1 == ob
                {
                    continue;
                }
                // U-9: LLVM's verdicts can depend on its hash-ordered
                // worklist; accept ours when some run of opt prints them.
                reruns += 1;
                let f = funcs.iter().find(|f| &f.name == name).expect("generated");
                let single = for_target(
                    &format!("{}{}", f.to_llvm(), testgen::uniformity::DECLARATIONS),
                    triple,
                );
                let printed = (0..RERUNS).any(|_| {
                    ugen::split_sections(&run_opt(&opt, &single))
                        .first()
                        .is_some_and(|(_, s)| ugen::parse_section(s).1 == ob)
                });
                if !printed {
                    mismatches.push(format!(
                        "--- {triple} {name}\n--- opt:\n{their}\n--- ours:\n{our_text}"
                    ));
                }
            }
        }
        eprintln!(
            "uniformity vs opt-22 on {triple}: {checked} functions, {divergent} with divergence, \
             {reruns} needing an opt rerun, {} mismatches",
            mismatches.len()
        );
        assert_eq!(checked, FUNCTIONS);
        if want_divergence {
            assert!(
                divergent >= FUNCTIONS / 2,
                "only {divergent} functions with divergence"
            );
        } else {
            assert_eq!(divergent, 0, "{triple}: LLVM 22 computes no divergence");
        }
        assert!(
            mismatches.is_empty(),
            "{} functions differ; first:\n{}",
            mismatches.len(),
            mismatches[0]
        );
    }
}
