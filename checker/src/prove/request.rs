//! The one place where a claim's `check` line becomes library options.
//!
//! A claim file states each check as the `convcheck` command line a person
//! would type (`refine examples/refine/x.src.ll ... --threads 2`), so the
//! line is parsed by the subcommand's own clap `Args`, and every flag means
//! what it means on the command line. Right after parsing, the flags are
//! turned into the options of the library that decides the check
//! ([`semantics::rules::Options`], [`semantics::machine::Options`],
//! [`semantics::uniformity::Mode`], [`crate::refine::Options`]): the checks
//! themselves ([`super::checks`]) never see the CLI's types.

use std::path::{Path, PathBuf};

use clap::Parser;
use semantics::machine::query;
use semantics::uniformity::Mode;

use crate::cmd;

use super::format::{Check, Kind};

/// A check in library terms, its paths resolved against the suite's base
/// directory.
pub enum Request {
    /// `verify FILE [--llvm-compatible] [--closed-paths N]`.
    Verify {
        file: PathBuf,
        /// The path as the claim wrote it (for the report).
        shown: String,
        rules: semantics::rules::Options,
    },
    /// `run FILE --exists COND ...`.
    Run {
        file: PathBuf,
        opts: semantics::machine::Options,
        /// The condition as written, and parsed.
        exists: (String, query::Cond),
    },
    /// `uniformity FILE [--sound]`.
    Uniformity { file: PathBuf, mode: Mode },
    /// `refine SRC TGT ...`.
    Refine(RefineRequest),
    /// `meta NAME ...`: the arguments as written.
    Meta(Vec<String>),
}

/// `refine SRC TGT ...` in library terms.
pub struct RefineRequest {
    pub src: PathBuf,
    pub tgt: PathBuf,
    /// The paths as the claim wrote them (for the report).
    pub shown: (String, String),
    pub kernel: Option<String>,
    pub opts: crate::refine::Options,
    /// Replay counterexamples on the interpreter (R-CEX).
    pub replay: bool,
}

/// A request and the bounds and modes its verdict holds under, as the
/// claim's command line states them.
pub struct Parsed {
    pub request: Request,
    pub bounds: String,
}

/// A check line that does not make a request: the bounds known so far
/// (the command line itself when it does not parse) and why.
pub struct Refused {
    pub bounds: String,
    pub message: String,
}

#[derive(Parser)]
#[command(name = "verify", no_binary_name = true)]
struct VerifyCli {
    #[command(flatten)]
    a: cmd::verify::Args,
}

#[derive(Parser)]
#[command(name = "run", no_binary_name = true)]
struct RunCli {
    #[command(flatten)]
    a: cmd::run::Args,
}

#[derive(Parser)]
#[command(name = "uniformity", no_binary_name = true)]
struct UnifCli {
    #[command(flatten)]
    a: cmd::uniformity::Args,
}

#[derive(Parser)]
#[command(name = "refine", no_binary_name = true)]
struct RefineCli {
    #[command(flatten)]
    a: cmd::refine::Args,
}

fn rebase(base: &Path, p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    }
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or("").to_string()
}

/// Parses `check`'s command line and turns it into a [`Request`], paths
/// resolved against `base` (the directory that holds `proofs/` and
/// `examples/`).
pub fn request(base: &Path, check: &Check) -> Result<Parsed, Refused> {
    let args = &check.args;
    let refused = |message: String| Refused {
        bounds: args.join(" "),
        message: first_line(&message),
    };
    match check.kind {
        Kind::Verify => {
            let a = VerifyCli::try_parse_from(args)
                .map_err(|e| refused(e.to_string()))?
                .a;
            Ok(Parsed {
                bounds: if a.llvm_compatible {
                    "llvm-compatible"
                } else {
                    "document rules"
                }
                .into(),
                request: Request::Verify {
                    file: rebase(base, &a.file),
                    shown: a.file.display().to_string(),
                    rules: semantics::rules::Options {
                        llvm_compatible: a.llvm_compatible,
                        closed_paths: a.closed_paths,
                    },
                },
            })
        }
        Kind::Run => {
            let a = RunCli::try_parse_from(args)
                .map_err(|e| refused(e.to_string()))?
                .a;
            let bounds = format!(
                "threads {}, steps {}, anchor {}, {}{}",
                a.threads,
                a.max_steps,
                format!("{:?}", a.anchor).to_lowercase(),
                format!("{:?}", a.uncontrolled).to_lowercase(),
                if a.args.is_empty() {
                    String::new()
                } else {
                    format!(", args {}", a.args.join(" "))
                }
            );
            let fail = |message: String| Refused {
                bounds: bounds.clone(),
                message,
            };
            let opts = cmd::run::options(&a).map_err(|e| fail(e.message))?;
            let text = a
                .exists
                .clone()
                .ok_or_else(|| fail("no --exists condition".into()))?;
            let cond = query::parse(&text).map_err(|e| fail(format!("--exists: {e}")))?;
            Ok(Parsed {
                request: Request::Run {
                    file: rebase(base, &a.file),
                    opts,
                    exists: (text, cond),
                },
                bounds,
            })
        }
        Kind::Uniformity => {
            let a = UnifCli::try_parse_from(args)
                .map_err(|e| refused(e.to_string()))?
                .a;
            let mode = if a.sound { Mode::Sound } else { Mode::Llvm };
            Ok(Parsed {
                bounds: match mode {
                    Mode::Llvm => "amdgcn, LLVM-compatible analysis",
                    Mode::Sound => "amdgcn, sound analysis (--sound)",
                }
                .into(),
                request: Request::Uniformity {
                    file: rebase(base, &a.file),
                    mode,
                },
            })
        }
        Kind::Refine => {
            let a = RefineCli::try_parse_from(args)
                .map_err(|e| refused(e.to_string()))?
                .a;
            let c = &a.check;
            let bounds = format!(
                "threads {}, K={}, observe {:?}, {:?}",
                c.threads, c.max_steps, c.observe, c.uncontrolled
            )
            .to_lowercase();
            let threads = cmd::refine::parse_threads(&c.threads).map_err(|message| Refused {
                bounds: format!("threads {}, K={}", c.threads, c.max_steps),
                message,
            })?;
            Ok(Parsed {
                request: Request::Refine(RefineRequest {
                    src: rebase(base, &a.src),
                    tgt: rebase(base, &a.tgt),
                    shown: (a.src.display().to_string(), a.tgt.display().to_string()),
                    kernel: a.kernel.clone(),
                    opts: crate::refine::Options {
                        max_iterations: PROVE_MAX_ITERATIONS,
                        ..a.options(threads)
                    },
                    replay: !c.no_replay,
                }),
                bounds,
            })
        }
        Kind::Meta => Ok(Parsed {
            request: Request::Meta(args.clone()),
            bounds: String::new(),
        }),
    }
}

/// CEGIS iterations per thread count in the suite (the command's default
/// is 64): keeps the suite within its time budget; a check that needs more
/// answers `unknown`, reported as not checked.
pub const PROVE_MAX_ITERATIONS: usize = 16;
