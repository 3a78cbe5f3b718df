//! Rule U-LLVM on LLVM's own tests: every `.ll` under
//! `corpus/llvm/llvm/test/Analysis/UniformityAnalysis` that our parser
//! accepts and `opt-22 -mtriple=amdgcn-- -passes='print<uniformity>'` runs
//! is analysed by both; per-instruction verdicts must be identical.
//! Remaining text differences are counted and printed (classified in
//! proofs/FINDINGS.md).

use testgen::support as unif_support;

use semantics::uniformity;
use unif_support::ugen;

#[test]
fn corpus_uniformity_tests_match_opt() {
    let Some(opt) = testgen::oracle::opt_or_skip("corpus_uniformity_tests_match_opt") else {
        return;
    };
    let Some(corpus) = testgen::oracle::corpus_or_skip("corpus_uniformity_tests_match_opt") else {
        return;
    };
    let files =
        testgen::oracle::ll_files(&corpus.join("llvm/llvm/test/Analysis/UniformityAnalysis"));
    assert!(
        !files.is_empty(),
        "no UniformityAnalysis tests under {}",
        corpus.display()
    );
    let (mut compared, mut parse_rejected, mut opt_rejected) = (Vec::new(), Vec::new(), Vec::new());
    let mut verdict_mismatch = Vec::new();
    let mut text_mismatch = Vec::new();
    let mut functions = 0;
    for file in &files {
        let name = file
            .strip_prefix(&corpus)
            .unwrap_or(file)
            .display()
            .to_string();
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let module = match semantics::parse_module(&name, &text) {
            Ok(m) => m,
            Err(e) => {
                parse_rejected.push(format!("{name}: {e}"));
                continue;
            }
        };
        let out = match ugen::run_opt(&opt, &text) {
            Ok(o) => o,
            Err(e) => {
                opt_rejected.push(format!("{name}: {}", e.lines().next().unwrap_or("")));
                continue;
            }
        };
        compared.push(name.clone());
        // Definitions whose body uses an unsupported construct (rule
        // P-PROG per function) are not analysed: their sections are
        // skipped, the module's other functions are compared.
        let theirs: Vec<_> = ugen::split_sections(&out)
            .into_iter()
            .filter(|(fname, _)| {
                let unread = module
                    .function(fname)
                    .is_some_and(|f| f.unsupported.is_some());
                if unread {
                    parse_rejected.push(format!("{name} @{fname}: unsupported body"));
                }
                !unread
            })
            .collect();
        let ours = uniformity::analyze_module(&module);
        assert_eq!(
            theirs.len(),
            ours.len(),
            "{name}: one section per defined function"
        );
        for ((fname, their), our) in theirs.iter().zip(&ours) {
            functions += 1;
            let our_text = uniformity::render_function(our);
            if ugen::verdicts(their) != ugen::verdicts(&our_text) {
                verdict_mismatch.push(format!(
                    "--- {name} @{fname}\n--- opt:\n{their}\n--- ours:\n{our_text}"
                ));
                continue;
            }
            let (th, tb) = ugen::parse_section(their);
            let (oh, ob) = ugen::parse_section(&our_text);
            if let Err(e) = ugen::headers_agree(&th, &oh) {
                text_mismatch.push(format!("{name} @{fname}: header: {e}"));
            } else if tb != ob {
                let first = tb
                    .lines()
                    .zip(ob.lines())
                    .find(|(a, b)| a != b)
                    .map(|(a, b)| format!("\n    opt : {a}\n    ours: {b}"))
                    .unwrap_or_default();
                text_mismatch.push(format!("{name} @{fname}: block text{first}"));
            }
        }
    }
    eprintln!(
        "UniformityAnalysis corpus: {} files, {} compared ({functions} functions), \
         {} rejected by our parser, {} rejected by opt-22; verdict mismatches: {}, \
         text mismatches: {}",
        files.len(),
        compared.len(),
        parse_rejected.len(),
        opt_rejected.len(),
        verdict_mismatch.len(),
        text_mismatch.len()
    );
    for r in parse_rejected.iter().chain(&opt_rejected) {
        eprintln!("  skipped {r}");
    }
    for t in &text_mismatch {
        eprintln!("  text: {t}");
    }
    assert!(!compared.is_empty(), "no corpus file could be compared");
    assert!(
        verdict_mismatch.is_empty(),
        "{} functions differ in verdicts:\n{}",
        verdict_mismatch.len(),
        verdict_mismatch.join("\n")
    );
}
