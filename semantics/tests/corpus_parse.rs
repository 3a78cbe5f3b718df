//! Rule P-PROG on real LLVM tests: every `.ll` file of the shared corpus
//! either parses and round-trips (parse -> print -> parse is the identity,
//! print is a fixpoint) or is rejected as `Unsupported` naming the
//! construct (whole module, or one definition whose body is kept unread).
//! A syntax error on a corpus file is a parser bug. Counts are pinned.

use std::path::Path;

use semantics::ir::print::print_module;
use semantics::parse::{parse_module, ParseErrorKind};
use testgen::oracle::{corpus_or_skip, find_opt, run_opt, verify_ll};

/// Whether `opt -passes=verify` accepts `text`; the error text otherwise.
fn opt_accepts(opt: &Path, text: &str) -> Result<(), String> {
    let out = verify_ll(opt, text);
    if out.success() {
        Ok(())
    } else {
        Err(out.stderr)
    }
}

#[test]
fn corpus_parses_or_is_rejected_as_unsupported() {
    let Some(corpus) = corpus_or_skip("corpus_parse") else {
        return;
    };
    let files = testgen::oracle::ll_files(&corpus);
    if files.is_empty() {
        panic!("no .ll files under {}", corpus.display());
    }
    let opt = find_opt();
    if opt.is_none() {
        eprintln!(
            "SKIP (partly) corpus_parse: opt-22 not found, printed modules are not checked by LLVM"
        );
    }
    let mut opt_checked = 0;
    let mut failures = Vec::new();
    let mut rejects = Vec::new();
    let mut parsed = 0;
    // Definitions whose body is unsupported (rule P-PROG per function), by
    // construct.
    let mut fn_rejects: std::collections::BTreeMap<String, usize> = Default::default();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("corpus files are UTF-8");
        let name = path
            .strip_prefix(&corpus)
            .unwrap_or(path)
            .display()
            .to_string();
        match parse_module(&name, &text) {
            Ok(m) => {
                for f in &m.functions {
                    if let Some(u) = &f.unsupported {
                        *fn_rejects.entry(u.construct.clone()).or_insert(0) += 1;
                    }
                }
                let printed = print_module(&m);
                match parse_module("<printed>", &printed) {
                    Ok(m2) if m2 == m => {
                        let again = print_module(&m2);
                        if again != printed {
                            failures.push(format!("{name}: print is not a fixpoint"));
                        } else {
                            parsed += 1;
                        }
                        // The printed module is valid LLVM IR whenever the
                        // original is.
                        if let Some(opt) = &opt {
                            // `opt -S` both verifies the original and
                            // gives LLVM 22's own printing of it, which we
                            // must read as well.
                            let dis = run_opt(opt, &["-S"], &text);
                            if dis.success() {
                                opt_checked += 1;
                                if let Err(e) = opt_accepts(opt, &printed) {
                                    failures.push(format!(
                                        "{name}: opt accepts the original but not the printed module: {e}\n{printed}"
                                    ));
                                }
                                match parse_module("<opt -S>", &dis.stdout) {
                                    Ok(m3) => {
                                        let p3 = print_module(&m3);
                                        if parse_module("<printed opt -S>", &p3).as_ref() != Ok(&m3)
                                        {
                                            failures.push(format!(
                                                "{name}: opt -S output does not round-trip"
                                            ));
                                        }
                                    }
                                    Err(e) => {
                                        if e.kind == ParseErrorKind::Syntax {
                                            failures.push(format!("{name}: opt -S output: {e}"));
                                        }
                                    }
                                }
                            }
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
    eprintln!(
        "corpus_parse: {opt_checked} files accepted by opt: their printed form verified, their `opt -S` form parsed"
    );
    for r in &rejects {
        eprintln!("  REJECT {r}");
    }
    eprintln!("corpus_parse: functions with an unsupported body, by construct: {fn_rejects:?}");
    assert!(
        failures.is_empty(),
        "corpus failures:\n{}",
        failures.join("\n")
    );
    // Pinned counts (issue 12 item 6). When ../shared/corpus gains files,
    // update them from the lines printed above after checking the new
    // files' outcome.
    let fn_rejects: Vec<(&str, usize)> = fn_rejects.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(
        (files.len(), parsed, rejects.len()),
        (61, 61, 0),
        "files, parsed and round-tripped, rejected modules"
    );
    if opt.is_some() {
        assert_eq!(
            opt_checked, 57,
            "files opt-22 accepts (the others are invalid on purpose)"
        );
    }
    assert_eq!(fn_rejects, [("callbr", 3), ("inline asm", 15)]);
}
