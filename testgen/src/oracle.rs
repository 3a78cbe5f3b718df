//! Finding and running the behavioural oracle (`opt-22`) and the shared
//! reference data (`../shared`), with one rule for their absence: on a
//! developer machine a test without them prints a loud SKIP and passes; in CI
//! (`CI=true`) it fails, so a misconfigured runner can never pass vacuously.

use std::env;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The result of one `opt` run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptOutput {
    /// Exit code; `None` if `opt` was killed by a signal or failed to start.
    pub status: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl OptOutput {
    pub fn success(&self) -> bool {
        self.status == Some(0)
    }
}

/// True when running under CI (`CI=true` or `CI=1`), where missing oracles
/// and data are failures rather than skips.
pub fn in_ci() -> bool {
    is_ci_value(env::var("CI").ok().as_deref())
}

/// The CI rule on the value of `CI` (separate so tests need not set the
/// process environment, which other test threads read concurrently).
pub fn is_ci_value(v: Option<&str>) -> bool {
    matches!(v, Some("true") | Some("1") | Some("TRUE") | Some("True"))
}

/// `$OPT` if set and non-empty, else `opt-22` found on `PATH`.
pub fn find_opt() -> Option<PathBuf> {
    if let Some(p) = env::var_os("OPT").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let path = env::var_os("PATH")?;
    env::split_paths(&path)
        .map(|dir| dir.join("opt-22"))
        .find(|cand| cand.is_file())
}

/// Reports a missing prerequisite by the CI rule: panics under CI, otherwise
/// prints a loud SKIP line to stderr. Always returns `None` for chaining.
pub fn skip_or_fail<T>(test_name: &str, what: &str) -> Option<T> {
    if in_ci() {
        panic!("{test_name}: {what} is required when CI=true");
    }
    eprintln!("\n*** SKIP {test_name}: {what} not available ***\n");
    None
}

/// `$CLANG` if set and non-empty, else `clang-22` found on `PATH`.
pub fn find_clang() -> Option<PathBuf> {
    if let Some(p) = env::var_os("CLANG").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let path = env::var_os("PATH")?;
    env::split_paths(&path)
        .map(|dir| dir.join("clang-22"))
        .find(|cand| cand.is_file())
}

/// [`find_clang`], or SKIP/fail by the CI rule.
pub fn clang_or_skip(test_name: &str) -> Option<PathBuf> {
    find_clang().or_else(|| {
        skip_or_fail(
            test_name,
            "clang-22 (set CLANG, or run scripts/setup.sh clang-22)",
        )
    })
}

/// [`find_opt`], or SKIP/fail by the CI rule.
pub fn opt_or_skip(test_name: &str) -> Option<PathBuf> {
    find_opt().or_else(|| skip_or_fail(test_name, "opt-22 (set OPT or put opt-22 on PATH)"))
}

/// Runs `opt args...` with `input_ll` on stdin. Failure to start becomes
/// `status: None` with the OS error in `stderr`, so callers see one shape.
pub fn run_opt(opt: &Path, args: &[&str], input_ll: &str) -> OptOutput {
    let child = Command::new(opt)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            return OptOutput {
                status: None,
                stdout: String::new(),
                stderr: format!("failed to start {}: {e}", opt.display()),
            }
        }
    };
    // Feed stdin from a thread so a large output cannot deadlock the pipes.
    let mut stdin = child.stdin.take().expect("stdin was piped above");
    let input = input_ll.to_owned();
    let feeder = std::thread::spawn(move || {
        // A broken pipe means opt exited early; its stderr says why.
        let _ = stdin.write_all(input.as_bytes());
    });
    let out = child.wait_with_output();
    let _ = feeder.join();
    match out {
        Ok(o) => OptOutput {
            status: o.status.code(),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        },
        Err(e) => OptOutput {
            status: None,
            stdout: String::new(),
            stderr: format!("failed to wait for {}: {e}", opt.display()),
        },
    }
}

/// `opt -passes=verify -disable-output` on `input_ll`.
pub fn verify_ll(opt: &Path, input_ll: &str) -> OptOutput {
    run_opt(opt, &["-passes=verify", "-disable-output"], input_ll)
}

/// Every `.ll` file under `dir`, recursively, sorted by path; empty when
/// `dir` cannot be read (callers say loudly when they expected files).
pub fn ll_files(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "ll") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}

/// The workspace root: the parent of this crate's manifest directory.
pub fn workspace_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.parent().unwrap_or(here).to_path_buf()
}

/// The shared reference directory: `$CONVCHECK_SHARED`, else
/// `<workspace root>/../shared`, else `/work/shared`; `None` if none exists.
pub fn shared_dir() -> Option<PathBuf> {
    if let Some(p) = env::var_os("CONVCHECK_SHARED").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        return p.is_dir().then_some(p);
    }
    [
        workspace_root().join("..").join("shared"),
        PathBuf::from("/work/shared"),
    ]
    .into_iter()
    .find(|p| p.is_dir())
}

/// `<shared>/corpus` (the LLVM test corpus lives under `corpus/llvm/llvm/test`).
pub fn corpus_dir() -> Option<PathBuf> {
    shared_dir()
        .map(|s| s.join("corpus"))
        .filter(|p| p.is_dir())
}

/// [`shared_dir`], or SKIP/fail by the CI rule.
pub fn shared_or_skip(test_name: &str) -> Option<PathBuf> {
    shared_dir().or_else(|| skip_or_fail(test_name, "the shared directory (set CONVCHECK_SHARED)"))
}

/// [`corpus_dir`], or SKIP/fail by the CI rule.
pub fn corpus_or_skip(test_name: &str) -> Option<PathBuf> {
    corpus_dir().or_else(|| skip_or_fail(test_name, "the shared corpus (set CONVCHECK_SHARED)"))
}

/// opt's verdict on reading `text`: `None` when it reads the module, else
/// the first line of its error without the program name and file (what
/// the parser-agreement tests compare with convcheck's message).
pub fn read_verdict(opt: &Path, text: &str) -> Option<String> {
    let out = run_opt(opt, &["-S", "-o", "/dev/null"], text);
    if out.success() {
        return None;
    }
    let line = out.stderr.lines().next().unwrap_or("");
    Some(
        line.split_once("<stdin>:")
            .map_or(line, |x| x.1)
            .to_string(),
    )
}

/// splitmix64: a fixed stream of indices for tests that enumerate cases
/// without proptest's shrinking.
pub struct SplitMix(pub u64);

impl SplitMix {
    /// The next index below `n`.
    pub fn next(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::{is_ci_value, run_opt, workspace_root};
    use std::path::Path;

    #[test]
    fn missing_binary_is_reported_not_panicked() {
        let out = run_opt(Path::new("/nonexistent/opt-22"), &[], "");
        assert_eq!(out.status, None);
        assert!(out.stderr.contains("failed to start"));
    }

    #[test]
    fn ci_values() {
        assert!(is_ci_value(Some("true")) && is_ci_value(Some("1")));
        assert!(!is_ci_value(None) && !is_ci_value(Some("false")) && !is_ci_value(Some("")));
    }

    #[test]
    fn workspace_root_holds_the_workspace_manifest() {
        let manifest = std::fs::read_to_string(workspace_root().join("Cargo.toml"))
            .expect("workspace Cargo.toml");
        assert!(manifest.contains("[workspace]"));
    }
}
