//! Differential test of [`CycleInfo`] against LLVM 22's
//! `opt -passes='print<cycles>'` (GenericCycleInfo): generated CFGs of 1..40
//! blocks (self loops, irreducible regions, unreachable blocks, duplicate
//! successors, switches) are rendered as LLVM IR, many functions per file, and
//! the text opt prints for each function must equal `CycleInfo::print`.
//!
//! opt is located via env `OPT`, else `opt-22` on PATH. When absent the test
//! fails under `CI=true` and is skipped with a loud message otherwise.

use semantics::cfg::{Cfg, CycleInfo};
use std::collections::HashMap;
use std::path::Path;
use testgen::cfg::{arb_cfg, arb_irreducible_cfg, arb_reducible_cfg, GenCfg};
use testgen::oracle::{opt_or_skip, run_opt};

/// Runs `print<cycles>` on `ll` and splits opt's stderr per function.
pub fn opt_cycles(opt: &Path, ll: &str) -> HashMap<String, String> {
    let out = run_opt(opt, &["-passes=print<cycles>", "-disable-output"], ll);
    assert!(
        out.success(),
        "opt failed:\n{}\n--- input ---\n{ll}",
        out.stderr
    );
    split_functions(&out.stderr)
}

/// opt's output per function: the lines after `CycleInfo for function: F`.
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

/// Compares every function of one batch; returns the number of cycles seen.
fn check_batch(opt: &Path, cfgs: &[GenCfg]) -> usize {
    let got = opt_cycles(opt, &GenCfg::to_module_ll(cfgs));
    let mut cycles = 0;
    for (i, g) in cfgs.iter().enumerate() {
        let cfg = Cfg::from_succs(g.succs());
        let ci = CycleInfo::compute(&cfg);
        cycles += ci.cycles.len();
        let ours = ci.print(&cfg);
        let name = format!("f{i}");
        let theirs = got.get(&name).cloned().unwrap_or_default();
        assert_eq!(
            ours,
            theirs,
            "print<cycles> differs for\n{}",
            g.to_ll(&name)
        );
    }
    cycles
}

#[test]
fn cycles_match_opt_on_generated_cfgs() {
    let Some(opt) = opt_or_skip("cycles_match_opt_on_generated_cfgs") else {
        return;
    };
    let mut cfgs = testgen::sample(&arb_cfg(40), 500, 1);
    cfgs.extend(testgen::sample(&arb_irreducible_cfg(40), 200, 2));
    cfgs.extend(testgen::sample(&arb_reducible_cfg(40), 100, 3));
    let mut total = 0;
    for chunk in cfgs.chunks(200) {
        total += check_batch(&opt, chunk);
    }
    let irreducible = cfgs
        .iter()
        .map(|g| CycleInfo::compute(&Cfg::from_succs(g.succs())))
        .filter(|ci| ci.cycles.iter().any(|c| !c.is_reducible()))
        .count();
    eprintln!(
        "compared {} CFGs with opt: {total} cycles, {irreducible} CFGs with irreducible cycles",
        cfgs.len()
    );
    assert!(
        total > 500 && irreducible > 150,
        "generator too tame: {total} cycles, {irreducible} irreducible"
    );
}
