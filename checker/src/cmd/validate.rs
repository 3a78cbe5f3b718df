//! `convcheck validate FILE.ll [options] -- OPT_ARGS...`: translation
//! validation of an opt pipeline for convergence (issue 14).
//!
//! Exit status: 1 if any function has a counterexample; otherwise 3 if FILE
//! cannot be read or parsed, the arguments are bad, or opt cannot be found
//! or fails (its stderr shown); otherwise 70 if the checker failed on some
//! function (our bug); otherwise 130 if Ctrl-C stopped the run (opt is
//! killed, or the checks under way answer unknown and the rest are not
//! started; the table of what was checked is printed); otherwise 2 if any
//! function is unknown, vacuous, unsupported or invalid; otherwise 0.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use crate::cli::{emit, CliError, Exit};
use crate::cmd::refine::{parse_threads, CheckArgs};
use crate::validate::adapter::Pair;
use crate::validate::render::{render_json, render_text, Validation};
use crate::validate::{bisect, check_all, match_functions, opt, FnResult, FnVerdict, RunSettings};

/// Run opt on FILE and check, for every function that contains or reaches
/// a convergent operation (C-CONV), that opt's version refines the original
/// (R-REF) within the bounds (R-BOUND). Functions are matched by name; one
/// the pass removed or added is reported as such.
///
/// opt is `--opt PATH`, else `$OPT`, else `opt-22` on PATH. It runs as
/// `opt OPT_ARGS -S FILE -o OUT`; OUT is `--keep DIR`/FILE-stem.opt.ll or a
/// temporary file, kept (and named) unless every function refines.
///
/// Exit status: 0 every checked function refines within bounds; 1 some
/// counterexample; 2 some unknown, vacuous, unsupported or invalid; 3 FILE
/// unreadable or unparsable, bad arguments, opt missing or failing; 70
/// internal error; 130 interrupted by Ctrl-C (the functions checked so far
/// are printed, the others marked not checked).
#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    /// The program given to opt (.ll).
    pub file: PathBuf,
    /// opt's arguments, after `--` (e.g. `-passes=simplifycfg
    /// -mtriple=amdgcn-amd-amdhsa`); with --run-line, added after the RUN
    /// line's.
    #[arg(last = true)]
    pub opt_args: Vec<String>,
    /// The opt to run (else $OPT, else opt-22 on PATH).
    #[arg(long, value_name = "PATH")]
    pub opt: Option<PathBuf>,
    /// Keep opt's output in DIR (as FILE-stem.opt.ll).
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,
    /// Take opt's options from FILE's first `; RUN: opt ...` line (without
    /// -S, %s, pipes and -o; unknown AMDGPU triples become
    /// amdgcn-amd-amdhsa).
    #[arg(long)]
    pub run_line: bool,
    /// Bounds and modes (R-BOUND), the same flags as `refine`'s.
    #[command(flatten)]
    pub check: CheckArgs,
    /// Time limit per function, in seconds (past it: unknown).
    #[arg(long, value_name = "SECONDS")]
    pub time_limit: Option<f64>,
    /// Functions checked in parallel (each with its own Z3 context).
    #[arg(long, default_value_t = 1)]
    pub jobs: usize,
    /// Do not check this function (repeatable); it is listed as skipped.
    #[arg(long, value_name = "NAME")]
    pub skip_function: Vec<String>,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
    /// For each counterexample, name the first pass of the pipeline after
    /// which the function stops refining (opt's -print-pipeline-passes,
    /// run pass by pass) and check that pass's before/after pair.
    #[arg(long)]
    pub bisect: bool,
}

fn bad(message: impl Into<String>) -> CliError {
    CliError::bad_input(message)
}

/// The exit status of a validation's results (issue 14's order, with our
/// own failures between bad input and no-verdict).
pub fn exit_status(results: &[FnResult]) -> Exit {
    if results
        .iter()
        .any(|r| r.verdict == FnVerdict::Counterexample)
    {
        Exit::Negative
    } else if results.iter().any(|r| r.internal.is_some()) {
        Exit::Internal
    } else if results.iter().any(|r| r.verdict != FnVerdict::Refines) {
        Exit::NoVerdict
    } else {
        Exit::Ok
    }
}

/// Runs the subcommand.
pub fn run(args: &Args) -> Result<Exit, CliError> {
    let threads = parse_threads(&args.check.threads).map_err(bad)?;
    let time_limit = match args.time_limit {
        Some(t) if t.is_finite() && t > 0.0 => Some(Duration::from_secs_f64(t)),
        Some(t) => return Err(bad(format!("bad --time-limit {t}: expected seconds > 0"))),
        None => None,
    };
    if args.jobs == 0 {
        return Err(bad("bad --jobs 0: expected at least 1"));
    }
    if args.file.as_os_str() == "-" {
        return Err(bad(
            "validate needs FILE as a file opt can read (standard input `-` is not supported)",
        ));
    }
    let (file, text) = crate::cli::read_input(&args.file)?;
    let src = crate::cli::parse_text(&file, &text)?;
    let mut opt_args = if args.run_line {
        opt::run_line_args(&text).map_err(|e| bad(format!("{file}: --run-line: {e}")))?
    } else {
        Vec::new()
    };
    opt_args.extend(args.opt_args.iter().cloned());
    opt::check_args(&opt_args).map_err(bad)?;
    let env_opt = std::env::var("OPT").ok();
    let opt_path = opt::locate(args.opt.as_deref(), env_opt.as_deref()).map_err(bad)?;
    if args.run_line {
        // An older test's legacy pass flags (`-loop-distribute`), which
        // opt-22 rejects, as the `-passes=` pipeline they name.
        let (a, moved) = opt::legacy_pass_flags(&opt_args, &opt_path).map_err(bad)?;
        if !moved.is_empty() && !args.json {
            eprintln!(
                "validate: --run-line: legacy pass flags {} run as -passes={}",
                moved
                    .iter()
                    .map(|m| format!("-{m}"))
                    .collect::<Vec<_>>()
                    .join(" "),
                moved.join(",")
            );
        }
        opt_args = a;
    }
    let stem = args
        .file
        .file_stem()
        .map_or("input".into(), |s| s.to_string_lossy().into_owned());
    let (output, temporary) = match &args.keep {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .map_err(|e| bad(format!("{}: cannot create: {e}", dir.display())))?;
            (dir.join(format!("{stem}.opt.ll")), false)
        }
        None => (
            std::env::temp_dir().join(format!(
                "convcheck-validate-{}-{stem}.opt.ll",
                std::process::id()
            )),
            true,
        ),
    };
    let argv = opt::argv(&opt_path, &opt_args, &args.file, &output);
    // Ctrl-C: opt is killed, or the checks under way stop and the others
    // are not started; what was checked is printed, exit status 130.
    let stop = crate::cmd::run::ctrl_c_flag();
    if let Err(f) = opt::run_until(&argv, Some(&stop)) {
        if f.interrupted {
            let _ = std::fs::remove_file(&output);
            eprintln!("convcheck: {f}; nothing was checked");
            return Ok(Exit::Interrupted);
        }
        return Err(bad(f.to_string()));
    }
    let out_name = output.display().to_string();
    let tgt = std::fs::read_to_string(&output)
        .map_err(|e| e.to_string())
        .and_then(|t| semantics::parse_module(&out_name, &t).map_err(|e| e.to_string()));
    let mut ropts = args.check.options(threads);
    // refine's budget per check is validate's --time-limit (none by default).
    ropts.time_limit = time_limit;
    ropts.interrupt = Some(stop.clone());
    let mut matching = match &tgt {
        Ok(t) => match_functions(&src, t),
        Err(_) => crate::validate::Matching {
            checked: crate::validate::convergent_functions(&src),
            ..Default::default()
        },
    };
    let skip: Vec<&str> = args
        .skip_function
        .iter()
        .map(|n| n.trim_start_matches('@'))
        .collect();
    let (skipped, checked): (Vec<String>, Vec<String>) = std::mem::take(&mut matching.checked)
        .into_iter()
        .partition(|n| skip.contains(&n.as_str()));
    matching.checked = checked;
    matching.skipped = skipped;
    let mut results: Vec<FnResult> = match &tgt {
        Ok(t) => {
            let bar = progress_bar(matching.checked.len());
            let on_done = |_: usize, _: usize, r: &FnResult| {
                if let Some(b) = &bar {
                    b.set_message(format!("@{} {}", r.name, r.verdict.name()));
                    b.inc(1);
                }
            };
            let pair = Pair {
                src: &src,
                tgt: t,
                src_path: &file,
                tgt_path: &out_name,
            };
            let settings = RunSettings {
                opts: &ropts,
                replay: !args.check.no_replay,
                time_limit,
                jobs: args.jobs,
                on_done: &on_done,
            };
            let r = check_all(&pair, &matching.checked, &settings);
            if let Some(b) = bar {
                b.finish_and_clear();
            }
            r
        }
        Err(e) => matching
            .checked
            .iter()
            .map(|n| FnResult {
                name: n.clone(),
                verdict: FnVerdict::Unsupported,
                reason: format!("opt's output cannot be read: {e}"),
                bounds: crate::refine::report::bounds_used_text(&ropts, ropts.max_steps),
                seconds: 0.0,
                text: None,
                counterexample: None,
                internal: None,
                bisect: None,
                steps: ropts.max_steps,
                buffer_bytes: ropts.buffer_bytes,
                reflexive: false,
            })
            .collect(),
    };
    let interrupted = stop.load(std::sync::atomic::Ordering::SeqCst);
    if args.bisect && !interrupted {
        let dir = match &args.keep {
            Some(d) => d.join(format!("{stem}.bisect")),
            None => std::env::temp_dir().join(format!(
                "convcheck-validate-{}-{stem}.bisect",
                std::process::id()
            )),
        };
        let pipeline = bisect::pipeline_text(&opt_path, &opt_args, &args.file);
        let b = bisect::Bisector {
            opt: &opt_path,
            base: bisect::base_args(&opt_args),
            original: &src,
            original_path: &file,
            opts: &ropts,
            replay: !args.check.no_replay,
            time_limit,
            dir,
        };
        for r in results
            .iter_mut()
            .filter(|r| r.verdict == FnVerdict::Counterexample)
        {
            r.bisect = Some(
                pipeline
                    .clone()
                    .and_then(|p| b.bisect(&args.file, &p, &r.name)),
            );
        }
    }
    let v = Validation {
        file: file.clone(),
        opt_argv: &argv,
        output: out_name.clone(),
        opts: &ropts,
        matching: &matching,
        results: &results,
    };
    // A counterexample found before Ctrl-C is still a negative verdict.
    let status = match exit_status(&results) {
        s @ (Exit::Negative | Exit::Internal) => s,
        _ if interrupted => Exit::Interrupted,
        s => s,
    };
    if temporary && status == Exit::Ok {
        let _ = std::fs::remove_file(&output);
    } else if temporary {
        eprintln!("convcheck: opt's output is kept in {out_name}");
    }
    for r in &results {
        if let Some(e) = &r.internal {
            eprintln!("convcheck: internal error on @{}: {e}", r.name);
        }
    }
    if args.json {
        emit(&format!("{}\n", render_json(&v)))?;
    } else {
        emit(&render_text(&v))?;
    }
    Ok(status)
}

/// A progress bar on stderr when it is a terminal (never in pipes or CI).
fn progress_bar(n: usize) -> Option<indicatif::ProgressBar> {
    if n < 2 || !std::io::stderr().is_terminal() {
        return None;
    }
    let b = indicatif::ProgressBar::new(n as u64);
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} functions {elapsed} {msg}")
    {
        b.set_style(style);
    }
    Some(b)
}
