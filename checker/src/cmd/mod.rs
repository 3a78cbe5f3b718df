//! One module per `convcheck` subcommand. Each exposes a clap `Args` struct
//! and `run(&Args) -> Result<Exit, CliError>` returning the exit status.

pub mod cycles;
pub mod demo;
pub mod parse;
pub mod prove;
pub mod refine;
pub mod run;
pub mod uniformity;
pub mod validate;
pub mod verify;
