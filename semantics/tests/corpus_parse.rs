//! Rule P-PROG on real LLVM tests: every `.ll` file of the shared corpus
//! either parses and round-trips (parse -> print -> parse is the identity,
//! print is a fixpoint) or is rejected as `Unsupported` naming the
//! construct. A syntax error on a corpus file is a parser bug.

use std::path::{Path, PathBuf};

use semantics::ir::print::print_module;
use semantics::parse::{parse_module, ParseErrorKind};

/// The shared directory: `$CONVCHECK_SHARED`, else `<workspace>/../shared`,
/// else `/work/shared`.
fn shared_dir() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("CONVCHECK_SHARED") {
        return Some(PathBuf::from(p));
    }
    let ws = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for cand in [ws.join("../shared"), PathBuf::from("/work/shared")] {
        if cand.join("corpus").is_dir() {
            return Some(cand);
        }
    }
    None
}

fn collect_ll(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect_ll(&p, out);
        } else if p.extension().is_some_and(|x| x == "ll") {
            out.push(p);
        }
    }
}

#[test]
fn corpus_parses_or_is_rejected_as_unsupported() {
    let Some(shared) = shared_dir() else {
        eprintln!("SKIP corpus_parse: shared corpus not found (set CONVCHECK_SHARED)");
        return;
    };
    let mut files = Vec::new();
    collect_ll(&shared.join("corpus"), &mut files);
    files.sort();
    if files.is_empty() {
        eprintln!("SKIP corpus_parse: no .ll files under {}", shared.display());
        return;
    }
    let mut failures = Vec::new();
    let mut rejects = Vec::new();
    let mut parsed = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).expect("corpus files are UTF-8");
        let name = path
            .strip_prefix(&shared)
            .unwrap_or(path)
            .display()
            .to_string();
        match parse_module(&name, &text) {
            Ok(m) => {
                let printed = print_module(&m);
                match parse_module("<printed>", &printed) {
                    Ok(m2) if m2 == m => {
                        let again = print_module(&m2);
                        if again != printed {
                            failures.push(format!("{name}: print is not a fixpoint"));
                        } else {
                            parsed += 1;
                        }
                    }
                    Ok(_) => failures.push(format!("{name}: reparse differs\n{printed}")),
                    Err(e) => failures.push(format!("{name}: printed text fails: {e}\n{printed}")),
                }
            }
            Err(e) => match &e.kind {
                ParseErrorKind::Unsupported { construct } => {
                    rejects.push(format!("{name}: {construct} ({e})"))
                }
                ParseErrorKind::Syntax => failures.push(format!("{e}")),
            },
        }
    }
    eprintln!(
        "corpus_parse: {} files, {parsed} parsed and round-tripped, {} rejected as unsupported:",
        files.len(),
        rejects.len()
    );
    for r in &rejects {
        eprintln!("  REJECT {r}");
    }
    assert!(
        failures.is_empty(),
        "corpus failures:\n{}",
        failures.join("\n")
    );
    assert!(parsed > 0, "no corpus file parsed");
}
