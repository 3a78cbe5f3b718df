//! `convcheck uniformity`: the uniformity analysis (SEMANTICS.md §5, U-*).
//!
//! Prints exactly what `opt -mtriple=amdgcn-- -passes='print<uniformity>'
//! -disable-output FILE` writes (rule U-LLVM), but on stdout, so the two can
//! be diffed: `convcheck uniformity f.ll > ours; opt-22 ... f.ll 2> theirs`.
//! `--json` prints one JSON array, one object per defined function.
//!
//! Exit status: 0 on success (whatever the verdicts), 2 on bad input.

use std::path::PathBuf;

use crate::cli::{load_module, CliError, Exit};

/// Which values and branches of an LLVM IR module are uniform across threads.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The LLVM IR file (`-`: standard input).
    pub file: PathBuf,
    /// Print JSON instead of LLVM's `print<uniformity>` text.
    #[arg(long)]
    pub json: bool,
}

/// The text (or JSON) `run` prints for `args`, without printing it.
pub fn render(args: &Args) -> Result<String, CliError> {
    render_module(&load_module(&args.file)?, args.json)
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

pub fn run(args: &Args) -> Result<Exit, CliError> {
    let out = render(args)?;
    crate::cli::emit(&out)?;
    Ok(Exit::Ok)
}
