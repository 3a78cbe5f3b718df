//! `convcheck parse FILE`: parse a module and print it back (rule P-PROG),
//! or report the first error with `file:line:col`.

use std::path::PathBuf;

use crate::cli::{self, CliError, Exit};

/// Parse an LLVM IR file and pretty-print it, or report where and why it is
/// outside the accepted subset.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The textual LLVM IR file (`-`: standard input).
    pub file: PathBuf,
    /// Only check that the file parses; print nothing on success.
    #[arg(long)]
    pub quiet: bool,
}

pub fn run(args: &Args) -> Result<Exit, CliError> {
    let module = cli::load_module(&args.file)?;
    if !args.quiet {
        cli::emit(&semantics::ir::print::print_module(&module))?;
    }
    Ok(Exit::Ok)
}
