//! Differential test of [`CycleInfo`] against LLVM 22's
//! `opt -passes='print<cycles>'` (GenericCycleInfo): generated CFGs of 1..40
//! blocks (self loops, irreducible regions, unreachable blocks, duplicate
//! successors, switches) are rendered as LLVM IR, many functions per file, and
//! the text opt prints for each function must equal `CycleInfo::print`.
//!
//! opt is located via env `OPT`, else `opt-22` on PATH. When absent the test
//! fails under `CI=true` and is skipped with a loud message otherwise.

mod common;

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use semantics::cfg::{Cfg, CycleInfo};
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;

fn find_opt() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("OPT") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("opt-22"))
        .find(|p| p.is_file())
}

/// Returns opt, or `None` after printing a loud SKIP (panics under CI=true).
pub fn opt_or_skip(test: &str) -> Option<PathBuf> {
    match find_opt() {
        Some(p) => Some(p),
        None => {
            if std::env::var("CI").as_deref() == Ok("true") {
                panic!("{test}: opt-22 not found (set OPT or put opt-22 on PATH) and CI=true");
            }
            eprintln!(
                "\n!!!!! SKIP {test}: opt-22 not found (set OPT or put opt-22 on PATH) !!!!!\n"
            );
            None
        }
    }
}

/// Runs `print<cycles>` on `ll` and splits opt's stderr per function.
pub fn opt_cycles(opt: &PathBuf, ll: &str, tag: &str) -> HashMap<String, String> {
    let dir = std::env::temp_dir();
    let path = dir.join(format!("convcheck-cycles-{}-{tag}.ll", std::process::id()));
    std::fs::write(&path, ll).expect("write temp .ll");
    let out = Command::new(opt)
        .args(["-passes=print<cycles>", "-disable-output"])
        .arg(&path)
        .output()
        .expect("run opt");
    let _ = std::fs::remove_file(&path);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "opt failed:\n{err}\n--- input ---\n{ll}"
    );
    split_functions(&err)
}

pub fn split_functions(text: &str) -> HashMap<String, String> {
    let mut map = HashMap::new();
    let mut cur: Option<String> = None;
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("CycleInfo for function: ") {
            cur = Some(name.to_string());
            map.insert(name.to_string(), String::new());
        } else if let Some(c) = &cur {
            let body = map.get_mut(c).expect("inserted above");
            body.push_str(line);
            body.push('\n');
        }
    }
    map
}

fn check_batch(opt: &PathBuf, cfgs: &[common::GenCfg], tag: &str) -> usize {
    let mut ll = String::new();
    for (i, g) in cfgs.iter().enumerate() {
        ll.push_str(&g.to_ll(&format!("f{i}")));
    }
    let got = opt_cycles(opt, &ll, tag);
    let mut cycles = 0;
    for (i, g) in cfgs.iter().enumerate() {
        let cfg = Cfg::from_succs(g.succs());
        let ci = CycleInfo::compute(&cfg);
        cycles += ci.cycles.len();
        let ours = ci.print(&cfg);
        let theirs = got.get(&format!("f{i}")).cloned().unwrap_or_default();
        assert_eq!(
            ours,
            theirs,
            "print<cycles> differs for\n{}",
            g.to_ll(&format!("f{i}"))
        );
    }
    cycles
}

#[test]
fn cycles_match_opt_on_generated_cfgs() {
    let Some(opt) = opt_or_skip("cycles_match_opt_on_generated_cfgs") else {
        return;
    };
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]),
    );
    let strat = common::arb_cfg(40, false);
    let cfgs: Vec<common::GenCfg> = (0..800)
        .map(|_| strat.new_tree(&mut runner).expect("generate").current())
        .collect();
    let mut total = 0;
    for (k, chunk) in cfgs.chunks(200).enumerate() {
        total += check_batch(&opt, chunk, &format!("gen{k}"));
    }
    let irreducible = cfgs
        .iter()
        .map(|g| CycleInfo::compute(&Cfg::from_succs(g.succs())))
        .filter(|ci| ci.cycles.iter().any(|c| !c.is_reducible()))
        .count();
    eprintln!(
        "compared {} CFGs, {total} cycles, {irreducible} CFGs with irreducible cycles",
        cfgs.len()
    );
    assert!(
        total > 500 && irreducible > 50,
        "generator too tame: {total} cycles, {irreducible} irreducible"
    );
}
