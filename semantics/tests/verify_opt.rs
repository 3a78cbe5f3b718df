//! Rule S-LLVM, differential: on generated token programs the
//! LLVM-compatible verifier prints exactly what `opt-22 -passes=verify`
//! prints (every message and every value line, in order). Programs are
//! batched, `BATCH` functions per `opt` run; token names carry the function
//! name, so identical output means that for every generated function the
//! accept/reject verdicts agree and LLVM's first message is among ours.
//! Both are also checked explicitly per function.

use testgen::support::token_prog as support;

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use semantics::rules::{render::render_llvm_lines, verify_module, Options};
use support::{arb_any_token_prog, TokenProg};
use testgen::oracle::{opt_or_skip, verify_ll};

/// opt's stderr without its final "input module is broken" line.
fn opt_lines(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .filter(|l| !l.ends_with("error: input module is broken!") && !l.is_empty())
        .map(str::to_string)
        .collect()
}

fn modules() -> usize {
    std::env::var("VERIFY_OPT_MODULES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2400)
}

const BATCH: usize = 12;

/// The functions (`fK`) that opt's output names: every instruction of a
/// generated function mentions `%fK.` (its tokens) or `(i32 K)` (its calls).
fn functions_named(lines: &[String], n: usize) -> BTreeSet<usize> {
    (0..n)
        .filter(|k| {
            let a = format!("%f{k}.");
            let b = format!("(i32 {k})");
            lines.iter().any(|l| l.contains(&a) || l.contains(&b))
        })
        .collect()
}

#[test]
fn verify_agrees_with_opt_on_generated_token_modules() {
    let Some(opt) = opt_or_skip("verify_agrees_with_opt_on_generated_token_modules") else {
        return;
    };
    let n = modules();
    let progs: Vec<TokenProg> = testgen::sample(&arb_any_token_prog(7), n, 31);
    let batches: Vec<&[TokenProg]> = progs.chunks(BATCH).collect();
    let llvm = Options {
        llvm_compatible: true,
        closed_paths: None,
    };
    let next = AtomicUsize::new(0);
    let failures: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let rejected = AtomicUsize::new(0);
    let exact = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::SeqCst);
                if k >= batches.len() {
                    break;
                }
                let batch = batches[k];
                let ll = TokenProg::batch_ll(batch);
                let out = verify_ll(&opt, &ll);
                let theirs = opt_lines(&out.stderr);
                let report = verify_module(&TokenProg::batch_module(batch), &llvm);
                let ours = render_llvm_lines(&report);
                let mut why = Vec::new();
                // Per-function verdicts: opt rejects fK iff it names fK.
                let opt_rejects = functions_named(&theirs, batch.len());
                let our_rejects: BTreeSet<usize> = report
                    .violations
                    .iter()
                    .filter_map(|v| v.function.strip_prefix('f')?.parse().ok())
                    .collect();
                rejected.fetch_add(opt_rejects.len(), Ordering::SeqCst);
                if opt_rejects != our_rejects {
                    why.push(format!(
                        "verdicts differ: opt rejects {opt_rejects:?}, we reject {our_rejects:?}"
                    ));
                }
                if out.success() != report.is_valid() {
                    why.push("module verdicts differ".into());
                }
                if let Some(first) = theirs.first() {
                    let ours_msgs: Vec<&str> = report
                        .violations
                        .iter()
                        .filter_map(|v| v.llvm_message.as_deref())
                        .collect();
                    if !ours_msgs.contains(&first.as_str()) {
                        why.push("LLVM's first message is not among ours".into());
                    }
                }
                if theirs == ours {
                    exact.fetch_add(1, Ordering::SeqCst);
                } else {
                    why.push("output differs".into());
                }
                if !why.is_empty() {
                    failures
                        .lock()
                        .expect("no panics while holding the lock")
                        .push(format!(
                            "batch {k}: {}\n{ll}\n--- opt-22:\n{}\n--- ours:\n{}\n",
                            why.join(", "),
                            theirs.join("\n"),
                            ours.join("\n")
                        ));
                }
            });
        }
    });
    let failures = failures.into_inner().expect("threads joined");
    let rejected = rejected.into_inner();
    eprintln!(
        "S-LLVM differential: {n} generated functions in {} opt runs; {rejected} rejected by opt-22; {} runs with identical output; {} mismatching runs",
        batches.len(),
        exact.into_inner(),
        failures.len()
    );
    if let Some(f) = failures.first() {
        panic!("{} mismatching batches; first:\n{f}", failures.len());
    }
    // The generator must exercise both verdicts substantially.
    assert!(
        rejected > n / 5 && rejected < n * 9 / 10,
        "rejected {rejected} of {n}"
    );
}

/// The same differential on the shared generators of `testgen::tokens`
/// (arbitrary and likely-valid placements, reducible and irreducible CFGs),
/// going through our parser: `TokenProgram::to_module_ll` text is parsed and
/// verified, opt-22 verifies the same text.
#[test]
fn verify_agrees_with_opt_on_testgen_token_modules() {
    use testgen::tokens::{arb_token_module, arb_valid_token_module, TokenProgram as Tp};
    let Some(opt) = opt_or_skip("verify_agrees_with_opt_on_testgen_token_modules") else {
        return;
    };
    let n = modules() / 2;
    let mut progs: Vec<Tp> = testgen::sample(&arb_token_module(7), n * 2 / 3, 41);
    progs.extend(testgen::sample(&arb_valid_token_module(7), n / 3, 43));
    let batches: Vec<&[Tp]> = progs.chunks(BATCH).collect();
    let llvm = Options {
        llvm_compatible: true,
        closed_paths: None,
    };
    let next = AtomicUsize::new(0);
    let failures: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let rejected = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::SeqCst);
                if k >= batches.len() {
                    break;
                }
                let ll = Tp::to_module_ll(batches[k]);
                let m = match semantics::parse_module("batch.ll", &ll) {
                    Ok(m) => m,
                    Err(e) => {
                        failures
                            .lock()
                            .expect("no panics while holding the lock")
                            .push(format!("batch {k}: parse error {e}\n{ll}"));
                        continue;
                    }
                };
                let out = verify_ll(&opt, &ll);
                let theirs = opt_lines(&out.stderr);
                let report = verify_module(&m, &llvm);
                let ours = render_llvm_lines(&report);
                let ours_rejects: BTreeSet<&str> = report
                    .violations
                    .iter()
                    .map(|v| v.function.as_str())
                    .collect();
                rejected.fetch_add(ours_rejects.len(), Ordering::SeqCst);
                if theirs != ours || out.success() != report.is_valid() {
                    failures
                        .lock()
                        .expect("no panics while holding the lock")
                        .push(format!(
                            "batch {k}: output differs\n{ll}\n--- opt-22:\n{}\n--- ours:\n{}\n",
                            theirs.join("\n"),
                            ours.join("\n")
                        ));
                }
            });
        }
    });
    let failures = failures.into_inner().expect("threads joined");
    eprintln!(
        "S-LLVM differential (testgen::tokens): {} functions in {} opt runs; {} rejected; {} mismatching runs",
        progs.len(),
        batches.len(),
        rejected.into_inner(),
        failures.len()
    );
    if let Some(f) = failures.first() {
        panic!("{} mismatching batches; first:\n{f}", failures.len());
    }
}
