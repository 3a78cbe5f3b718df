//! The refinement checker (SMT-backed, added later) and the command-line
//! front end of `convcheck`: [`cli`] holds the conventions every subcommand
//! follows; [`cmd`] one module per subcommand.

pub mod cli;
pub mod cmd;
