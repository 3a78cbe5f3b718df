//! CL-23 and CL-24 (examples/uniformity/*.ll): the documents' verdicts, as
//! `convcheck uniformity --json` reports them. Every value named `%uni.*`
//! must be uniform and every `%div.*` divergent (STYLE 7: names state the
//! expected property); the functions whose closed path has a diverged entry
//! must report the cycle as assumed divergent (rule U-MCONV) and their
//! contrasts must not. When `opt-22` is available, its verdict lines for
//! the named values are the same as ours (rule U-LLVM).

use std::path::{Path, PathBuf};

use checker::cmd::uniformity::{render, Args};
use serde_json::Value;

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("examples")
        .join("uniformity")
}

/// (function, value name, divergent) for every named value in the JSON.
fn named_verdicts(json: &Value) -> Vec<(String, String, bool)> {
    let mut out = Vec::new();
    for f in json.as_array().expect("an array of functions") {
        let fname = f["function"].as_str().unwrap_or_default().to_string();
        for b in f["blocks"].as_array().into_iter().flatten() {
            for d in b["definitions"].as_array().into_iter().flatten() {
                let text = d["text"].as_str().unwrap_or_default();
                if let Some((lhs, _)) = text.split_once(" = ") {
                    out.push((
                        fname.clone(),
                        lhs.trim_start_matches('%').to_string(),
                        d["divergent"].as_bool().unwrap_or(false),
                    ));
                }
            }
        }
    }
    out
}

fn analyse(file: &str) -> Value {
    let args = Args {
        file: examples_dir().join(file),
        json: true,
        explain: None,
        sound: false,
    };
    let text = render(&args).unwrap_or_else(|e| panic!("{file}: {}", e.message));
    serde_json::from_str(&text).expect("convcheck uniformity --json prints JSON")
}

fn assumed_divergent(json: &Value, function: &str) -> Vec<String> {
    json.as_array()
        .expect("an array of functions")
        .iter()
        .find(|f| f["function"] == function)
        .unwrap_or_else(|| panic!("function {function} analysed"))["cycles_assumed_divergent"]
        .as_array()
        .expect("a list of cycles")
        .iter()
        .map(|c| c.as_str().unwrap_or_default().to_string())
        .collect()
}

/// Checks every `%uni.*` / `%div.*` name; returns how many were checked.
fn check_names(file: &str, json: &Value) -> usize {
    let mut checked = 0;
    for (f, name, divergent) in named_verdicts(json) {
        if name.starts_with("uni.") {
            assert!(!divergent, "{file} @{f}: %{name} must be uniform");
            checked += 1;
        } else if name.starts_with("div.") {
            assert!(divergent, "{file} @{f}: %{name} must be divergent");
            checked += 1;
        }
    }
    checked
}

/// The verdict lines opt prints for named values equal ours.
fn check_against_opt(file: &str) {
    let Some(opt) = testgen::oracle::opt_or_skip("uniformity examples vs opt") else {
        return;
    };
    let path = examples_dir().join(file);
    let text = std::fs::read_to_string(&path).expect("example readable");
    let out = testgen::oracle::run_opt(
        &opt,
        &[
            "-mtriple=amdgcn--",
            "-passes=print<uniformity>",
            "-disable-output",
        ],
        &text,
    );
    assert!(out.success(), "opt-22 rejected {file}: {}", out.stderr);
    let ours = render(&Args {
        file: path,
        json: false,
        explain: None,
        sound: false,
    })
    .unwrap_or_else(|e| panic!("{file}: {}", e.message));
    let named = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| l.contains(" %uni.") || l.contains(" %div."))
            .filter(|l| l.contains(" = "))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(
        named(&out.stderr),
        named(&ours),
        "{file}: verdicts differ from opt-22"
    );
}

/// CL-23 (rule U-MCONV): a diverged entry R on the closed path
/// P->Q->R->S makes S, and the whole cycle, not m-converged; without it, S
/// reconverges and only the join's phi is divergent.
#[test]
fn cl23_diverged_entry_criterion() {
    let file = "cl23_diverged_entry.ll";
    let json = analyse(file);
    assert!(check_names(file, &json) >= 10);
    let assumed = assumed_divergent(&json, "diverged_entry");
    let whole_path = |c: &String| {
        ["P", "Q", "R", "S"]
            .iter()
            .all(|b| c.contains(&format!(" {b}")) || c.contains(&format!("({b}")))
    };
    assert!(
        assumed.iter().any(whole_path),
        "the cycle P,Q,R,S is assumed divergent: {assumed:?}"
    );
    assert!(assumed_divergent(&json, "no_diverged_entry").is_empty());
    check_against_opt(file);
}

/// CL-24 (rule U-MCONV): diverged paths from Entry reaching entries P and
/// R of an irreducible cycle make every node of the cycle not m-converged;
/// reaching the single header of a reducible cycle only makes its phi
/// divergent.
#[test]
fn cl24_diverged_paths_reaching_a_cycle() {
    let file = "cl24_diverged_paths_reach_cycle.ll";
    let json = analyse(file);
    assert!(check_names(file, &json) >= 12);
    assert_eq!(assumed_divergent(&json, "entries_p_and_r").len(), 1);
    assert!(assumed_divergent(&json, "reducible_control").is_empty());
    check_against_opt(file);
}

/// Controlled convergence (rules U-EXIT, U-LLVM): tokens get no special
/// treatment; the loop counter is uniform at its definition and temporally
/// divergent at its use after the loop; the whole text equals opt-22's
/// (one cycle, so no order-dependent header).
#[test]
fn controlled_loop_matches_opt_exactly() {
    let file = "controlled_loop.ll";
    let json = analyse(file);
    assert!(check_names(file, &json) >= 6);
    let temporal = json[0]["temporal_divergence"]
        .as_array()
        .expect("a list")
        .len();
    assert_eq!(
        temporal, 1,
        "the store after the loop reads %uni.i1 temporally divergent"
    );
    check_against_opt(file);
    if let Some(opt) = testgen::oracle::find_opt() {
        let path = examples_dir().join(file);
        let text = std::fs::read_to_string(&path).expect("example readable");
        let out = testgen::oracle::run_opt(
            &opt,
            &[
                "-mtriple=amdgcn--",
                "-passes=print<uniformity>",
                "-disable-output",
            ],
            &text,
        );
        let ours = render(&Args {
            file: path,
            json: false,
            explain: None,
            sound: false,
        })
        .expect("analyses");
        assert_eq!(out.stderr, ours);
    }
}

/// `convcheck uniformity` text of `path` in the default or `--sound` mode.
fn text_of(path: &Path, sound: bool) -> Result<String, String> {
    render(&Args {
        file: path.to_path_buf(),
        json: false,
        explain: None,
        sound,
    })
    .map_err(|e| e.message)
}

/// Per function, the printed lines (the function header included).
fn per_function(text: &str) -> Vec<Vec<&str>> {
    let mut out: Vec<Vec<&str>> = Vec::new();
    for l in text.lines() {
        if l.starts_with("UniformityInfo for function") || out.is_empty() {
            out.push(Vec::new());
        }
        if let Some(f) = out.last_mut() {
            f.push(l);
        }
    }
    out
}

/// Rule U-SOUND: the `--sound` text only adds to the default text. Per
/// function, every default line appears in the sound text in order, a
/// uniform line possibly as the same line marked DIVERGENT, and a DIVERGENT
/// line never loses its mark; a function the default calls ALL VALUES
/// UNIFORM may be printed in full by the sound mode.
fn check_sound_adds_only(path: &Path) -> usize {
    let (Ok(default), Ok(sound)) = (text_of(path, false), text_of(path, true)) else {
        return 0;
    };
    let (d, s) = (per_function(&default), per_function(&sound));
    assert_eq!(d.len(), s.len(), "{}", path.display());
    let mut added = 0;
    for (df, sf) in d.iter().zip(&s) {
        assert_eq!(df.first(), sf.first(), "{}", path.display());
        if df.get(1) == Some(&"ALL VALUES UNIFORM") {
            added += usize::from(sf.get(1) != Some(&"ALL VALUES UNIFORM"));
            continue;
        }
        let mut k = 0;
        for line in df {
            let unmarked = line.replacen("  DIVERGENT: ", "             ", 1);
            let marked = unmarked.replacen("             ", "  DIVERGENT: ", 1);
            let want_marked = line.starts_with("  DIVERGENT: ");
            loop {
                let Some(got) = sf.get(k) else {
                    panic!(
                        "{}: `--sound` lost the line `{line}`\n--- default\n{default}\n--- sound\n{sound}",
                        path.display()
                    );
                };
                k += 1;
                if *got == marked || (!want_marked && *got == *line) {
                    added += usize::from(*got != *line);
                    break;
                }
                added += 1;
            }
        }
        added += sf.len() - k;
    }
    added
}

/// U-SOUND on the documents' examples, the findings' programs and LLVM's
/// own uniformity tests (../shared/corpus): the sound output only adds
/// DIVERGENT marks and list entries, and does add some (F-17, F-23).
#[test]
fn sound_mode_only_adds_divergence() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(examples_dir())
        .expect("examples/uniformity")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ll"))
        .collect();
    if let Some(c) = testgen::oracle::corpus_or_skip("sound_mode_only_adds_divergence") {
        let dir = c.join("llvm/llvm/test/Analysis/UniformityAnalysis");
        files.extend(testgen::oracle::ll_files(&dir));
    }
    files.sort();
    let mut changed = Vec::new();
    for f in &files {
        if check_sound_adds_only(f) > 0 {
            changed.push(
                f.file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned(),
            );
        }
    }
    eprintln!(
        "--sound adds divergence in {} of {} files: {changed:?}",
        changed.len(),
        files.len()
    );
    for must in [
        "u9_assumed_divergent_exit.ll",
        "f23_self_join_irreducible.ll",
    ] {
        assert!(changed.iter().any(|c| c == must), "{must}: {changed:?}");
    }
}

/// A module with one function the front end cannot read (inline asm,
/// P-PROG): `uniformity` reports the other function and exits 2 (no verdict
/// for the module), 0 without it.
#[test]
fn unsupported_function_means_no_verdict() {
    use checker::cli::Exit;
    let dir = std::env::temp_dir().join(format!("convcheck-unif-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let good = "define void @ok(i32 %x) {\n  %y = add i32 %x, 1\n  ret void\n}\n";
    let asm =
        "define void @asm() {\n  call void asm sideeffect \"s_nop 0\", \"\"()\n  ret void\n}\n";
    let both = dir.join("both.ll");
    std::fs::write(&both, format!("{good}{asm}")).expect("write");
    let alone = dir.join("alone.ll");
    std::fs::write(&alone, good).expect("write");
    let args = |file: PathBuf| Args {
        file,
        json: false,
        explain: None,
        sound: false,
    };
    let text = render(&args(both.clone())).expect("readable");
    assert!(
        text.contains("function 'ok'") && !text.contains("function 'asm'"),
        "{text}"
    );
    assert_eq!(
        checker::cmd::uniformity::run(&args(both)).ok(),
        Some(Exit::NoVerdict)
    );
    assert_eq!(
        checker::cmd::uniformity::run(&args(alone)).ok(),
        Some(Exit::Ok)
    );
}
