//! `CycleInfo::print` against opt-22 on LLVM's own tests (reference data read
//! in place under `<shared>/corpus/llvm/llvm/test`): every defined function
//! of a file is parsed, turned into a [`Cfg`] and printed; the whole text must
//! equal opt's `print<cycles>` output for the file. The CycleInfo tests must
//! all be checked; the rest of the corpus (uniformity tests with irreducible
//! cycles, verifier tests) is checked wherever both our parser and opt accept
//! the file.

use semantics::cfg::{Cfg, CycleInfo};
use semantics::parse_module;
use std::path::Path;
use testgen::oracle::{corpus_or_skip, opt_or_skip, run_opt};

/// Compares one file; `None` when our parser or opt rejects it.
fn check_file(opt: &Path, path: &Path) -> Option<usize> {
    let text = std::fs::read_to_string(path).expect("read corpus file");
    let module = parse_module(&path.display().to_string(), &text).ok()?;
    let out = run_opt(opt, &["-passes=print<cycles>", "-disable-output"], &text);
    if !out.success() {
        return None;
    }
    let mut ours = String::new();
    let mut cycles = 0;
    for f in module.functions.iter().filter(|f| f.is_definition) {
        let cfg = Cfg::from_function(f);
        let ci = CycleInfo::compute(&cfg);
        cycles += ci.cycles.len();
        ours.push_str(&format!("CycleInfo for function: {}\n", f.name));
        ours.push_str(&ci.print(&cfg));
    }
    pretty_assertions::assert_eq!(ours, out.stderr, "{}", path.display());
    Some(cycles)
}

#[test]
fn cycles_match_opt_on_the_whole_corpus() {
    let Some(opt) = opt_or_skip("cycles_match_opt_on_the_whole_corpus") else {
        return;
    };
    let Some(corpus) = corpus_or_skip("cycles_match_opt_on_the_whole_corpus") else {
        return;
    };
    let files = testgen::oracle::ll_files(&corpus.join("llvm/llvm/test"));
    let (mut checked, mut cycles) = (0, 0);
    for path in &files {
        if let Some(c) = check_file(&opt, path) {
            checked += 1;
            cycles += c;
        }
    }
    eprintln!(
        "{checked} of {} corpus files checked against opt, {cycles} cycles",
        files.len()
    );
    assert!(
        checked * 2 >= files.len(),
        "only {checked} of {} files checked",
        files.len()
    );
    assert!(cycles >= 30, "only {cycles} cycles");
}

#[test]
fn cycles_match_opt_on_llvm_cycleinfo_tests() {
    let Some(opt) = opt_or_skip("cycles_match_opt_on_llvm_cycleinfo_tests") else {
        return;
    };
    let Some(corpus) = corpus_or_skip("cycles_match_opt_on_llvm_cycleinfo_tests") else {
        return;
    };
    let dir = corpus.join("llvm/llvm/test/Analysis/CycleInfo");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ll"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no .ll files in {}", dir.display());
    let mut functions = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).expect("read corpus file");
        let module = parse_module(&path.display().to_string(), &text)
            .unwrap_or_else(|e| panic!("{}: parse error {e:?}", path.display()));
        let mut ours = String::new();
        for f in module.functions.iter().filter(|f| f.is_definition) {
            let cfg = Cfg::from_function(f);
            ours.push_str(&format!("CycleInfo for function: {}\n", f.name));
            ours.push_str(&CycleInfo::compute(&cfg).print(&cfg));
            functions += 1;
        }
        let out = run_opt(&opt, &["-passes=print<cycles>", "-disable-output"], &text);
        assert!(
            out.success(),
            "{}: opt failed: {}",
            path.display(),
            out.stderr
        );
        pretty_assertions::assert_eq!(ours, out.stderr, "{}", path.display());
    }
    eprintln!(
        "{} corpus files, {functions} functions match opt",
        files.len()
    );
    assert!(functions >= 10, "only {functions} functions");
}
