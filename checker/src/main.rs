//! `convcheck`: the command-line front of the semantics and the checker.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

use checker::cli;

/// Executable semantics and model checker for GPU convergence in LLVM IR.
#[derive(Parser)]
#[command(name = "convcheck", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {}

fn main() -> ExitCode {
    let cli = Cli::parse();
    cli::finish(match cli.command {})
}
