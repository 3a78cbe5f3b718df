//! `convcheck cycles FILE`: the cycle hierarchy of every defined function,
//! printed exactly as `opt -passes='print<cycles>' -disable-output` prints it
//! (LLVM's GenericCycleInfo), or every hierarchy the CFG admits (D-HIER).

use std::fmt::Write;
use std::path::PathBuf;

use semantics::cfg::{all_hierarchies, Cfg, CycleInfo};

use crate::cli::{self, CliError, Exit};

/// Print the cycle hierarchy of each defined function.
///
/// The default output is byte-for-byte what
/// `opt-22 -passes='print<cycles>' -disable-output FILE` writes (to stderr;
/// convcheck writes it to stdout), so the two can be diffed.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The textual LLVM IR file (`-`: standard input).
    pub file: PathBuf,
    /// Print every cycle hierarchy the CFG admits over all depth-first
    /// orders (rule D-HIER), numbered, LLVM's first. Reducible CFGs have one.
    #[arg(long)]
    pub all_hierarchies: bool,
    /// With --all-hierarchies: stop after this many hierarchies per function.
    #[arg(long, default_value_t = 64)]
    pub limit: usize,
}

pub fn run(args: &Args) -> Result<Exit, CliError> {
    let module = cli::load_module(&args.file)?;
    cli::emit(&render(&module, args.all_hierarchies, args.limit))?;
    Ok(Exit::Ok)
}

/// The output of the subcommand on a parsed module: each defined
/// function's cycle hierarchy (or, with `all`, up to `limit` of them).
pub fn render(module: &semantics::ir::Module, all: bool, limit: usize) -> String {
    let mut out = String::new();
    for f in module.functions.iter().filter(|f| f.has_body()) {
        let cfg = Cfg::from_function(f);
        let _ = writeln!(out, "CycleInfo for function: {}", f.name);
        if all {
            let hs = all_hierarchies(&cfg, limit);
            let capped = if hs.len() >= limit {
                " (limit reached)"
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "; {} hierarch{}{capped}",
                hs.len(),
                if hs.len() == 1 { "y" } else { "ies" }
            );
            for (i, h) in hs.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "; hierarchy {i}{}",
                    if i == 0 { " (LLVM's)" } else { "" }
                );
                out.push_str(&h.print(&cfg));
            }
        } else {
            out.push_str(&CycleInfo::compute(&cfg).print(&cfg));
        }
    }
    out
}
