//! Differential test: `convcheck cycles` against
//! `opt-22 -passes='print<cycles>' -disable-output` (issue: foundation).
//! The two must print identical text on generated CFGs (reducible and
//! irreducible, 1..40 blocks) and on LLVM's own CycleInfo tests.

use std::path::Path;
use std::process::Command;

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, TestRunner};
use testgen::cfg::{arb_cfg, arb_irreducible_cfg, GenCfg};
use testgen::oracle;

fn convcheck_cycles(file: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_convcheck"))
        .arg("cycles")
        .arg(file)
        .output()
        .expect("convcheck runs");
    assert!(
        out.status.success(),
        "convcheck cycles {} failed: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

fn opt_cycles(opt: &Path, file: &Path) -> String {
    let out = Command::new(opt)
        .args(["-passes=print<cycles>", "-disable-output"])
        .arg(file)
        .output()
        .expect("opt runs");
    assert!(
        out.status.success(),
        "opt failed on {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stderr).expect("utf-8 output")
}

/// Compares function by function so a failure names the CFG that differs.
fn assert_same(ours: &str, llvm: &str, what: &str, sources: &[(String, String)]) {
    if ours == llvm {
        return;
    }
    let split = |s: &str| -> Vec<String> {
        s.split("CycleInfo for function: ")
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect()
    };
    let (a, b) = (split(ours), split(llvm));
    for (i, (x, y)) in a.iter().zip(b.iter()).enumerate() {
        if x != y {
            let src = sources
                .get(i)
                .map(|(n, ll)| format!("function {n}:\n{ll}"))
                .unwrap_or_default();
            pretty_assertions::assert_eq!(x, y, "{what}: first difference\n{src}");
        }
    }
    pretty_assertions::assert_eq!(ours, llvm, "{what}: different number of functions");
}

fn check_generated(
    opt: &Path,
    strategy: impl Strategy<Value = GenCfg>,
    count: usize,
    seed: u8,
    tag: &str,
) {
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        proptest::test_runner::TestRng::from_seed(
            proptest::test_runner::RngAlgorithm::ChaCha,
            &[seed; 32],
        ),
    );
    let cfgs: Vec<GenCfg> = (0..count)
        .map(|_| strategy.new_tree(&mut runner).expect("generate").current())
        .collect();
    // One module per batch of 100 functions keeps the process count low.
    let mut cycles_seen = 0;
    for (batch, chunk) in cfgs.chunks(100).enumerate() {
        let mut text = String::new();
        let mut sources = Vec::new();
        for (i, c) in chunk.iter().enumerate() {
            let name = format!("{tag}{batch}_{i}");
            let ll = c.to_ll(&name);
            text.push_str(&ll);
            text.push('\n');
            sources.push((name, ll));
        }
        let dir =
            std::env::temp_dir().join(format!("convcheck-cycles-{}-{tag}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let file = dir.join(format!("batch{batch}.ll"));
        std::fs::write(&file, &text).expect("write batch");
        let ours = convcheck_cycles(&file);
        assert_eq!(
            ours.matches("CycleInfo for function: ").count(),
            chunk.len(),
            "one report per generated function"
        );
        assert_same(
            &ours,
            &opt_cycles(opt, &file),
            &format!("generated batch {tag}{batch}"),
            &sources,
        );
        cycles_seen += ours.matches("depth=").count();
    }
    assert!(
        cycles_seen >= count / 2,
        "{tag}: generated CFGs have too few cycles ({cycles_seen}) to test anything"
    );
    eprintln!("{tag}: {count} CFGs, {cycles_seen} cycles, output identical to opt");
}

#[test]
fn generated_cfgs_match_opt() {
    let Some(opt) = oracle::opt_or_skip("generated_cfgs_match_opt") else {
        return;
    };
    check_generated(&opt, arb_cfg(40), 1000, 7, "any");
    check_generated(&opt, arb_irreducible_cfg(40), 500, 11, "irr");
}

#[test]
fn llvm_cycleinfo_tests_match_opt() {
    let Some(opt) = oracle::opt_or_skip("llvm_cycleinfo_tests_match_opt") else {
        return;
    };
    let Some(corpus) = oracle::corpus_or_skip("llvm_cycleinfo_tests_match_opt") else {
        return;
    };
    let dir = corpus.join("llvm/llvm/test/Analysis/CycleInfo");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).expect("CycleInfo tests present") {
        let path = entry.expect("dir entry").path();
        if path.extension().is_some_and(|e| e == "ll") {
            assert_same(
                &convcheck_cycles(&path),
                &opt_cycles(&opt, &path),
                &path.display().to_string(),
                &[],
            );
            n += 1;
        }
    }
    assert!(
        n >= 2,
        "expected LLVM's CycleInfo tests in {}",
        dir.display()
    );
}
