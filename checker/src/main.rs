//! `convcheck`: the command-line front of the semantics and the checker.

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::process::ExitCode;

use checker::cli::{self, Exit, EXIT_HELP};
use checker::cmd;

/// mimalloc instead of the system allocator: the interpreter's enumeration
/// allocates and keeps hundreds of thousands of small records (behaviours,
/// thread bodies, instances), where glibc's malloc and free took a quarter
/// of the CPU time (cl19-anchor-sink-all.src at 4 threads).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// What `-h` and `--help` both say about the tool.
const ABOUT: &str = "Executable semantics and model checker for GPU convergence in LLVM IR.

Reads textual LLVM IR (the subset documented in the README; `-` reads
standard input) and answers questions about convergence: the cycle
hierarchy LLVM computes, the static token rules, the executions a program
allows in N threads, uniformity, and whether a transformed program refines
the original.

Rule IDs (S-CYCLE-1, D-MAX, M-OPER, ...) and claim IDs (CL-12, MC-07) in
this help and in messages are defined in docs/RULES.md of the project.";

#[derive(Parser)]
#[command(name = "convcheck", version, about = ABOUT, long_about = None)]
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

/// The command with the exit-status table after every `--help` (and `-h`),
/// below what a subcommand already prints there.
fn command() -> clap::Command {
    Cli::command().after_help(EXIT_HELP).mut_subcommands(|sub| {
        let before = sub
            .get_after_help()
            .map(|h| format!("{h}\n\n"))
            .unwrap_or_default();
        sub.after_help(format!("{before}{EXIT_HELP}"))
    })
}

fn main() -> ExitCode {
    cli::install_panic_hook();
    // A deliberate bug, for the test of the panic hook (exit 70).
    if std::env::var_os("CONVCHECK_INTERNAL_TEST_PANIC").is_some() {
        panic!("CONVCHECK_INTERNAL_TEST_PANIC is set: a deliberate internal error");
    }
    let cli = match command()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m))
    {
        Ok(c) => c,
        Err(e) => {
            // Help and version go to stdout with status 0; a usage error
            // is bad input (3), not clap's 2 (which means "no verdict" here).
            let _ = e.print();
            return if e.use_stderr() {
                Exit::BadInput.into()
            } else {
                Exit::Ok.into()
            };
        }
    };
    let (result, json) = match &cli.command {
        Command::Parse(a) => (cmd::parse::run(a), false),
        Command::Cycles(a) => (cmd::cycles::run(a), false),
        Command::Verify(a) => (cmd::verify::run(a), a.json),
        Command::Run(a) => (cmd::run::run(a), a.json),
        Command::Uniformity(a) => (cmd::uniformity::run(a), a.json),
        Command::Refine(a) => (cmd::refine::run(a), a.json),
        Command::Validate(a) => (cmd::validate::run(a), a.json),
        Command::Prove(a) => (cmd::prove::run(a), false),
        Command::Demo(a) => (cmd::demo::run(a), false),
    };
    cli::finish(result, json)
}
