//! `convcheck`: the command-line front of the semantics and the checker.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

use checker::cli;
use checker::cmd;

/// Executable semantics and model checker for GPU convergence in LLVM IR.
///
/// Reads textual LLVM IR (the subset documented in the README) and answers
/// questions about convergence: the cycle hierarchy LLVM computes, the static
/// token rules, the executions a program allows in N threads, uniformity, and
/// whether a transformed program refines the original.
///
/// Exit status: 0 success, 1 negative verdict (violations, counterexample),
/// 2 bad input (parse error, unsupported construct), 70 internal error.
#[derive(Parser)]
#[command(name = "convcheck", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse a module and print it back, or report file:line:col errors.
    Parse(cmd::parse::Args),
    /// Print the cycle hierarchy as `opt -passes='print<cycles>'` does.
    Cycles(cmd::cycles::Args),
    /// Check the static rules (S-*) of the convergence documents or LLVM 22's verifier.
    Verify(cmd::verify::Args),
    /// Execute a function in N threads under the reference semantics (M-OPER).
    Run(cmd::run::Args),
    /// Print the uniformity analysis as `opt -passes='print<uniformity>'` does.
    Uniformity(cmd::uniformity::Args),
    /// Check that a target program refines a source program (R-REF).
    Refine(cmd::refine::Args),
    /// Run opt on a file and check that each convergent function's result refines it.
    Validate(cmd::validate::Args),
    /// Check every claim of the documents (proofs/*.claim) and print the table.
    Prove(cmd::prove::Args),
    /// The main demonstration: the suite's headline, a counterexample and a proof.
    Demo(cmd::demo::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    cli::finish(match &cli.command {
        Command::Parse(a) => cmd::parse::run(a),
        Command::Cycles(a) => cmd::cycles::run(a),
        Command::Verify(a) => cmd::verify::run(a),
        Command::Run(a) => cmd::run::run(a),
        Command::Uniformity(a) => cmd::uniformity::run(a),
        Command::Refine(a) => cmd::refine::run(a),
        Command::Validate(a) => cmd::validate::run(a),
        Command::Prove(a) => cmd::prove::run(a),
        Command::Demo(a) => cmd::demo::run(a),
    })
}
