//! The fixed-seed slice of the fuzzer that `make test` runs (issue 11
//! item 3; the full campaign is `make fuzz`): 3,000 inputs through every
//! subcommand in-process, 30 of them through the `convcheck` binary too;
//! no crash, hang, internal error or exit-status mismatch.

use std::process::Command;

#[test]
fn fixed_seed_slice_finds_nothing() {
    let exe = std::path::PathBuf::from(env!("CARGO_BIN_EXE_convcheck-fuzz"));
    let convcheck = exe.with_file_name("convcheck");
    assert!(
        convcheck.exists(),
        "{} is missing: build it first (cargo build --release --bin convcheck)",
        convcheck.display()
    );
    let out_dir = std::env::temp_dir().join(format!("convcheck-fuzz-slice-{}", std::process::id()));
    let out = Command::new(&exe)
        .args([
            "--inputs",
            "3000",
            "--seed",
            "20261124",
            "--chunk",
            "1500",
            "--subprocess-every",
            "100",
            "--refine-every",
            "50",
            "--json",
            "--out",
        ])
        .arg(&out_dir)
        .output()
        .expect("convcheck-fuzz runs");
    let stats: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON summary ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let _ = std::fs::remove_dir_all(&out_dir);
    for k in ["crashes", "hangs", "internal", "mismatches"] {
        assert_eq!(stats[k], serde_json::json!([]), "{k}: {stats:#}");
    }
    assert_eq!(stats["inputs"], 3000);
    assert!(
        stats["subprocess_runs"].as_u64().unwrap_or(0) >= 100,
        "{stats:#}"
    );
    // Every subcommand was reached, and some inputs got past the parser.
    for sub in [
        "parse",
        "verify",
        "verify --llvm-compatible",
        "cycles",
        "uniformity",
        "run",
        "refine",
        "prove --check-format",
    ] {
        let h = &stats["exits"][sub];
        assert!(h.is_object(), "{sub} never ran: {stats:#}");
        assert!(
            h["0"].as_u64().unwrap_or(0) > 0,
            "{sub} never succeeded: {h}"
        );
    }
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
