//! `convcheck uniformity`: the uniformity analysis (docs/RULES.md §5, U-*).
//!
//! Prints exactly what `opt -passes='print<uniformity>' -disable-output
//! FILE` writes for the module's target triple (rule U-LLVM; no triple:
//! `-mtriple=amdgcn--`), but on stdout, so the two can be diffed:
//! `convcheck uniformity f.ll > ours; opt-22 ... f.ll 2> theirs`.
//! `--json` prints one JSON array, one object per defined function.
//! `--explain VALUE` prints why VALUE is divergent instead: the chain of
//! links (data dependence, sync dependence, diverged entry, temporal
//! divergence) back to a divergence source.
//!
//! `--sound` runs the sound variant instead (rule U-SOUND): it adds
//! `DIVERGENT` where LLVM 22 misses divergence that the reference
//! interpreter exhibits (proofs/FINDINGS.md F-17, F-23), and is not meant
//! to be diffed with `opt`.
//!
//! Exit status: 0 on success (whatever the verdicts), 2 when a function
//! of the module could not be read (an unsupported construct: it has no
//! report, the others do, and stderr names it), 3 on bad input
//! (including an `--explain` name that no defined function has).

use std::path::PathBuf;

use crate::cli::{load_module, CliError, Exit};
use semantics::uniformity::explain::{explain_with, find_value, Explanation};
use semantics::uniformity::Mode;

/// Which values and branches of an LLVM IR module are uniform across threads.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The LLVM IR file (`-`: standard input).
    pub file: PathBuf,
    /// Print JSON instead of LLVM's `print<uniformity>` text.
    #[arg(long)]
    pub json: bool,
    /// Explain why VALUE is divergent: `%x`, or `@f:%x` when several
    /// functions define `%x`. Prints the chain from a divergence source
    /// through data dependence, sync dependence (the divergent branch and
    /// its join), a cycle assumed divergent (diverged entry) or temporal
    /// divergence (the cycle and its divergent exit), for the verdicts of
    /// the analysis run (LLVM-compatible, or `--sound`).
    #[arg(long, value_name = "VALUE")]
    pub explain: Option<String>,
    /// Sound against the documents' semantics where LLVM 22 is not (rule
    /// U-SOUND): also divergent are uses outside a cycle of always-uniform
    /// values defined in it after a divergent exit, even when the cycle is
    /// assumed divergent (F-17); every definition of an irreducible cycle
    /// holding a divergent branch (F-23); phis at a divergent cycle exit
    /// merging different values, constants included; and calls marked
    /// `nodivergencesource` with divergent arguments. Output differs from
    /// the default (LLVM-compatible, diffable with `opt`) only by added
    /// DIVERGENT labels and cycles.
    #[arg(long)]
    pub sound: bool,
}

impl Args {
    fn mode(&self) -> Mode {
        if self.sound {
            Mode::Sound
        } else {
            Mode::Llvm
        }
    }
}

/// The text (or JSON) `run` prints for `args`, without printing it.
pub fn render(args: &Args) -> Result<String, CliError> {
    render_loaded(&load_module(&args.file)?, args)
}

fn render_loaded(module: &semantics::ir::Module, args: &Args) -> Result<String, CliError> {
    match &args.explain {
        Some(v) => explain_text(module, v, args.json, args.mode()),
        None => render_module(module, args.json, args.mode()),
    }
}

/// The output of the subcommand on a parsed module.
pub fn render_module(
    module: &semantics::ir::Module,
    json: bool,
    mode: Mode,
) -> Result<String, CliError> {
    if json {
        let results = semantics::uniformity::analyze_module_with(module, mode);
        let mut s = serde_json::to_string_pretty(&results)
            .map_err(|e| CliError::internal(format!("JSON encoding failed: {e}")))?;
        s.push('\n');
        Ok(s)
    } else {
        Ok(semantics::uniformity::print_module_with(module, mode))
    }
}

/// `--explain SPEC`: finds the value (bad input when no defined function,
/// or more than one, has it) and renders its explanation.
pub fn explain_text(
    module: &semantics::ir::Module,
    spec: &str,
    json: bool,
    mode: Mode,
) -> Result<String, CliError> {
    let (func, name) = match spec.split_once(':') {
        Some((f, v)) if f.starts_with('@') => (Some(&f[1..]), v),
        _ => (None, spec),
    };
    let bare = name.strip_prefix('%').unwrap_or(name);
    if bare.is_empty() {
        return Err(CliError::bad_input(format!(
            "--explain `{spec}`: expected a value name such as `%x` or `@f:%x`"
        )));
    }
    let defined: Vec<&semantics::ir::Function> = module
        .functions
        .iter()
        .filter(|f| f.is_definition && func.is_none_or(|n| f.name == n))
        .collect();
    if let Some(n) = func {
        if defined.is_empty() {
            return Err(CliError::bad_input(format!(
                "--explain `{spec}`: the module defines no function @{n}"
            )));
        }
    }
    let found: Vec<_> = defined
        .iter()
        .filter_map(|f| find_value(f, bare).map(|v| (*f, v)))
        .collect();
    let (f, v) = match found.as_slice() {
        [one] => *one,
        [] => {
            let scope = match func {
                Some(n) => format!("@{n}"),
                None => "any defined function".into(),
            };
            return Err(CliError::bad_input(format!(
                "--explain `{spec}`: no value named %{bare} in {scope}"
            )));
        }
        many => {
            let names: Vec<String> = many.iter().map(|(f, _)| format!("@{}", f.name)).collect();
            return Err(CliError::bad_input(format!(
                "--explain `{spec}`: %{bare} is defined in {}; write `@F:%{bare}`",
                names.join(", ")
            )));
        }
    };
    let e = explain_with(module, f, v, mode);
    if json {
        let mut s = serde_json::to_string_pretty(&e)
            .map_err(|e| CliError::internal(format!("JSON encoding failed: {e}")))?;
        s.push('\n');
        return Ok(s);
    }
    Ok(explanation_text(&e, mode))
}

fn explanation_text(e: &Explanation, mode: Mode) -> String {
    if !e.divergent {
        let which = match mode {
            Mode::Llvm => "the LLVM-compatible analysis",
            Mode::Sound => "the sound analysis (--sound)",
        };
        let mut s = format!(
            "{} is uniform ({which} prints it without DIVERGENT)\n",
            e.value
        );
        for l in &e.chain {
            s.push_str(&format!("  {l}\n"));
        }
        return s;
    }
    let mut s = format!("{} is divergent:\n", e.value);
    for (i, l) in e.chain.iter().enumerate() {
        s.push_str(&format!("  {}. {l}\n", i + 1));
    }
    s
}

pub fn run(args: &Args) -> Result<Exit, CliError> {
    let module = load_module(&args.file)?;
    if args.explain.is_none() && !args.json {
        // The report is streamed: at 20,000 blocks of the hard shape it is
        // over 200 MB (LLVM's format prints a cycle per temporal use).
        crate::cli::emit_with(|w| {
            semantics::uniformity::write_module_with(w, &module, args.mode())
        })?;
    } else {
        crate::cli::emit(&render_loaded(&module, args)?)?;
    }
    // Functions the front end could not read (P-PROG, noted on stderr when
    // parsed) have no report: the output covers the others only, which is
    // no verdict for the module (as in `verify`).
    let not_analysed: Vec<String> = module
        .functions
        .iter()
        .filter(|f| f.unsupported.is_some())
        .map(|f| format!("@{}", f.name))
        .collect();
    if !not_analysed.is_empty() && args.explain.is_none() {
        eprintln!(
            "{}: not analysed (unsupported constructs, see the notes above): {}; \
             the report covers the other functions only",
            args.file.display(),
            not_analysed.join(", ")
        );
        return Ok(Exit::NoVerdict);
    }
    Ok(Exit::Ok)
}
