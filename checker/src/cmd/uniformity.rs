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
//! Exit status: 0 on success (whatever the verdicts), 3 on bad input
//! (including an `--explain` name that no defined function has).

use std::path::PathBuf;

use crate::cli::{load_module, CliError, Exit};
use semantics::uniformity::explain::{explain, find_value, Explanation};

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
    /// divergence (the cycle and its divergent exit), for the
    /// LLVM-compatible verdicts.
    #[arg(long, value_name = "VALUE")]
    pub explain: Option<String>,
}

/// The text (or JSON) `run` prints for `args`, without printing it.
pub fn render(args: &Args) -> Result<String, CliError> {
    let module = load_module(&args.file)?;
    match &args.explain {
        Some(v) => explain_text(&module, v, args.json),
        None => render_module(&module, args.json),
    }
}

/// The output of the subcommand on a parsed module.
pub fn render_module(module: &semantics::ir::Module, json: bool) -> Result<String, CliError> {
    if json {
        let results = semantics::uniformity::analyze_module(module);
        let mut s = serde_json::to_string_pretty(&results)
            .map_err(|e| CliError::internal(format!("JSON encoding failed: {e}")))?;
        s.push('\n');
        Ok(s)
    } else {
        Ok(semantics::uniformity::print_module(module))
    }
}

/// `--explain SPEC`: finds the value (bad input when no defined function,
/// or more than one, has it) and renders its explanation.
pub fn explain_text(
    module: &semantics::ir::Module,
    spec: &str,
    json: bool,
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
    let e = explain(module, f, v);
    if json {
        let mut s = serde_json::to_string_pretty(&e)
            .map_err(|e| CliError::internal(format!("JSON encoding failed: {e}")))?;
        s.push('\n');
        return Ok(s);
    }
    Ok(explanation_text(&e))
}

fn explanation_text(e: &Explanation) -> String {
    if !e.divergent {
        let mut s = format!(
            "{} is uniform (the LLVM-compatible analysis prints it without DIVERGENT)\n",
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
    let out = render(args)?;
    crate::cli::emit(&out)?;
    Ok(Exit::Ok)
}
