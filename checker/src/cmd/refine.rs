//! `convcheck refine SRC TGT`: does the target refine the source (R-REF),
//! within bounds (R-BOUND)?
//!
//! Exit status ([`Exit`]): 0 refines within bounds, 1 counterexample, 2
//! unknown or vacuous, or a construct outside the supported subset, 3
//! invalid input (parse error, a static rule broken by the source or the
//! target, bad arguments), 70 internal error (including a counterexample
//! the reference interpreter does not reproduce, R-CEX).

use std::path::PathBuf;
use std::time::Duration;

use semantics::ir::Module;

use crate::cli::{CliError, Exit};
use crate::refine::encode::Observe;
use crate::refine::hier::HierarchyMode;
use crate::refine::report::{render_json, render_text, Report};
use crate::refine::{
    check, Options, PairResult, RefineError, Side, Strategies, Uncontrolled, Verdict,
    DEFAULT_MAX_STEPS,
};
use crate::smt::QueryRecord;

/// Exit status of an unknown or vacuous verdict.
pub const EXIT_UNKNOWN: Exit = Exit::NoVerdict;
/// Exit status of invalid input.
pub const EXIT_INVALID: Exit = Exit::BadInput;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObserveArg {
    /// Convergent calls with side effects are observed with their
    /// communicating sets; modelled or `memory(none)` ones through values.
    Auto,
    /// Every convergent call is observed with its set (the strict reading).
    Sets,
    /// No convergent call is observed with its set; only values and
    /// external calls.
    Values,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShuffleOobArg {
    Poison,
    Ub,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum UncontrolledArg {
    /// D-MAX: maximal convergence over LLVM's cycle hierarchy.
    Maximal,
    /// Tokens inserted by the spec's inference procedure ("Inferring
    /// Tokens"), then D-CTRL/D-LOOP.
    Inferred,
}

/// Check that TGT refines SRC (R-REF): for every launch within the bounds
/// (thread counts, block visits per thread, all integer inputs), every
/// behaviour of the target (its per-thread observable events, the
/// communicating sets of observed convergent calls, return values) is a
/// behaviour of the source, or the source has undefined behaviour.
///
/// Both programs are first checked against the static rules (S-*). The
/// question is answered by counterexample-guided iteration over an SMT
/// encoding of bounded executions (M-AXIOM). A counterexample is replayed on
/// the reference interpreter before it is printed (R-CEX).
///
/// Verdicts (exit status): refines within bounds (0), counterexample (1),
/// unknown or vacuous (2, with the reason), invalid input (3). "Refines" is
/// never a proof beyond the stated bounds.
#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    /// The source program (.ll; `-`: standard input).
    pub src: PathBuf,
    /// The target (transformed) program (.ll; `-`: standard input).
    pub tgt: PathBuf,
    /// The kernel to launch (without `@`); default: the only function
    /// defined in the source, else its only one with a kernel calling
    /// convention.
    #[arg(long)]
    pub kernel: Option<String>,
    /// Bounds and modes (R-BOUND), the same flags as `validate`'s.
    #[command(flatten)]
    pub check: CheckArgs,
    /// Time budget of the whole run (every thread count and query), in
    /// seconds; when spent the verdict is `unknown (time limit; ...)` naming
    /// the thread counts finished (exit 2). Each query's limit is clipped to
    /// what is left.
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    pub time_limit: u64,
    /// Write every solver query as SMT-LIB into DIR.
    #[arg(long, value_name = "DIR")]
    pub dump_smt: Option<PathBuf>,
    /// Print the verdict as JSON.
    #[arg(long)]
    pub json: bool,
    /// Also write a self-contained HTML page (CFGs of source and target as
    /// SVG with each thread's path, the first difference) to this file.
    #[arg(long, value_name = "OUT.html")]
    pub report: Option<PathBuf>,
    /// Also write the CFGs of source and target as Graphviz DOT, annotated
    /// (cycles, back edges, the counterexample's paths), to this file.
    #[arg(long, value_name = "OUT.dot")]
    pub dot: Option<PathBuf>,
    /// Print every solver query with its answer and time to stderr.
    #[arg(long)]
    pub stats: bool,
    /// Theorem C-PAIR (proofs/CUTOFF.md): when its side conditions hold (no
    /// anchors, convergent results unused, no atomics, one cycle hierarchy
    /// in the source), check 1 and 2 threads whose ids range over 0..W-1
    /// and, if they refine, answer for every thread count up to W (2..1024);
    /// otherwise say which condition fails and check --threads as usual.
    #[arg(long, value_name = "W", value_parser = clap::value_parser!(u16).range(2..=1024))]
    pub cutoff: Option<u16>,
    /// Asked for more than 4 threads, search the thread counts directly
    /// rather than first searching 2 to 4 threads and lifting a
    /// counterexample found there (issue 16; the verdicts are the same, the
    /// lifted counterexample is checked at the asked count).
    #[arg(long)]
    pub no_lift: bool,
    /// Asked for more than 4 threads without --cutoff, do not try theorem
    /// C-PAIR with W = the largest --threads count (it is tried by default
    /// and, when its conditions hold and the pair check refines, answers for
    /// every thread count up to W); check the counts as bounded.
    #[arg(long)]
    pub no_auto_cutoff: bool,
}

/// The bounds and modes of a refinement check (R-BOUND) and how it is
/// decided: one set of flags, flattened into `refine` and `validate`, so a
/// flag means the same in both commands (and in `prove`'s claim files).
#[derive(clap::Args, Debug, Clone)]
pub struct CheckArgs {
    /// Thread counts to check: `N` or `LO..HI` (inclusive) or a comma list;
    /// each between 1 and 64.
    #[arg(long, default_value = "1..4")]
    pub threads: String,
    /// Maximum block visits per thread (K); executions longer than that are
    /// cut and reported as such.
    #[arg(long, default_value_t = DEFAULT_MAX_STEPS)]
    pub max_steps: usize,
    /// When the answer is that --max-steps is too small (no target execution
    /// returns or is stuck, a source execution is cut on a candidate
    /// counterexample's launch, the source is cut on every launch), check
    /// again at twice the bound, up to CAP block visits per thread, within
    /// the time limit; the verdict names the bound it holds for.
    #[arg(long, value_name = "CAP")]
    pub grow_steps: Option<usize>,
    /// Bytes of each kernel pointer parameter's input buffer when the
    /// parameter has no `dereferenceable(N)` (P-MEM-OBJ; the interpreter's
    /// `run --buffer-bytes` default).
    #[arg(long, default_value_t = semantics::machine::DEFAULT_BUFFER_BYTES)]
    pub buffer_bytes: u64,
    /// When the source has undefined behaviour on every launch and some
    /// input buffer has the size --buffer-bytes chose (an access past it is
    /// UB), check again with buffers twice as large, up to CAP bytes (at
    /// most 512), within the time limit; the verdict names the size used.
    #[arg(long, value_name = "CAP", value_parser = clap::value_parser!(u64).range(1..=512))]
    pub grow_buffers: Option<u64>,
    /// What is observed of convergent calls (R-OBS).
    #[arg(long, value_enum, default_value = "auto")]
    pub observe: ObserveArg,
    /// Semantics of uncontrolled convergent operations (D-UNCTRL).
    #[arg(long, value_enum, default_value = "maximal")]
    pub uncontrolled: UncontrolledArg,
    /// C-OPS shuffle reading a thread outside the communicating set: poison
    /// (default) or undefined behaviour; a `"convcheck-out-of-range"`
    /// attribute on the declaration takes precedence.
    #[arg(long, value_enum, default_value = "poison")]
    pub shuffle_oob: ShuffleOobArg,
    /// Time limit per solver query, in seconds.
    #[arg(long, default_value_t = 60)]
    pub timeout: u64,
    /// How CEGIS learns source strategies for programs with anchors
    /// (proofs/FINDINGS.md F-21). All are exact; only speed differs.
    #[arg(long, value_enum, default_value = "canonical")]
    pub strategies: StrategiesArg,
    /// Skip the replay of counterexamples on the interpreter (R-CEX); the
    /// output then says the counterexample is not replayed.
    #[arg(long)]
    pub no_replay: bool,
    /// Cycle hierarchies (D-HIER): `all` checks every hierarchy of the
    /// target against some hierarchy of the source (irreducible CFGs have
    /// one per choice of entry); `llvm` uses LLVM's alone.
    #[arg(long, value_enum, default_value = "all")]
    pub hierarchy: HierarchyArg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum HierarchyArg {
    /// LLVM's cycle hierarchy alone.
    Llvm,
    /// Every cycle hierarchy of each program (D-HIER).
    All,
}

impl Default for CheckArgs {
    /// The flags' defaults, taken from clap (an empty command line), so
    /// they are the ones `--help` shows.
    fn default() -> CheckArgs {
        #[derive(clap::Parser)]
        #[command(no_binary_name = true)]
        struct Defaults {
            #[command(flatten)]
            check: CheckArgs,
        }
        <Defaults as clap::Parser>::try_parse_from(std::iter::empty::<String>())
            .expect("every CheckArgs flag has a default")
            .check
    }
}

impl CheckArgs {
    /// The check's bounds and modes (R-BOUND) as these flags give them, for
    /// `threads` (already parsed from `--threads`). Budgets other than the
    /// per-query `--timeout` are the caller's (`refine --time-limit` bounds
    /// the whole run, `validate --time-limit` each function).
    pub fn options(&self, threads: Vec<usize>) -> Options {
        Options {
            threads,
            max_steps: self.max_steps,
            observe: match self.observe {
                ObserveArg::Auto => Observe::Auto,
                ObserveArg::Sets => Observe::Sets,
                ObserveArg::Values => Observe::Values,
            },
            uncontrolled: match self.uncontrolled {
                UncontrolledArg::Maximal => Uncontrolled::Maximal,
                UncontrolledArg::Inferred => Uncontrolled::Inferred,
            },
            timeout: Duration::from_secs(self.timeout),
            shuffle_oob_ub: self.shuffle_oob == ShuffleOobArg::Ub,
            strategies: match self.strategies {
                StrategiesArg::Plain => Strategies::Plain,
                StrategiesArg::Canonical => Strategies::Canonical,
                StrategiesArg::Mirror => Strategies::Mirror,
            },
            hierarchy: match self.hierarchy {
                HierarchyArg::Llvm => HierarchyMode::Llvm,
                HierarchyArg::All => HierarchyMode::All,
            },
            grow_steps: self.grow_steps.filter(|cap| *cap > self.max_steps),
            buffer_bytes: self.buffer_bytes,
            grow_buffers: self.grow_buffers.filter(|cap| *cap > self.buffer_bytes),
            ..Options::default()
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum StrategiesArg {
    /// Learn anchor keys and D-ORDER ranks as the solver's models chose them
    Plain,
    /// Prefer matching source executions with launch-independent ranks (j-th
    /// occurrence of operation o has rank j*ops+o), learn only their anchor keys
    Canonical,
    /// Canonical, and first learn the mirror strategy: source anchors group the
    /// threads as the target's anchors of the same name did
    Mirror,
}

/// The most threads `refine` checks (`--threads`), a fixed limit of the
/// checker, named in `--help` and in the error.
pub const MAX_THREADS: usize = 64;

/// Parses `N`, `LO..HI` or `A,B,C` (each between 1 and [`MAX_THREADS`]).
pub fn parse_threads(s: &str) -> Result<Vec<usize>, String> {
    let bad = || format!("bad --threads `{s}`: expected N, LO..HI or a comma list");
    let too_many =
        |n: usize| format!("bad --threads `{s}`: {n} threads; refine checks at most {MAX_THREADS}");
    let v: Vec<usize> = if let Some((a, b)) = s.split_once("..") {
        let a: usize = a.trim().parse().map_err(|_| bad())?;
        let b: usize = b.trim().parse().map_err(|_| bad())?;
        // Checked before the range is built: `1..99999999999` must not
        // allocate.
        if b > MAX_THREADS {
            return Err(too_many(b));
        }
        (a..=b).collect()
    } else {
        s.split(',')
            .map(|x| x.trim().parse().map_err(|_| bad()))
            .collect::<Result<_, _>>()?
    };
    if v.is_empty() {
        return Err(bad());
    }
    if v.contains(&0) {
        return Err(format!(
            "bad --threads `{s}`: a launch needs at least one thread"
        ));
    }
    if let Some(n) = v.iter().find(|n| **n > MAX_THREADS) {
        return Err(too_many(*n));
    }
    Ok(v)
}

fn invalid(message: String) -> CliError {
    CliError::new(EXIT_INVALID, message)
}

fn load(path: &std::path::Path) -> Result<Module, CliError> {
    crate::cli::load_module(path)
}

pub fn kernel_name(m: &Module, given: &Option<String>) -> Result<String, CliError> {
    if let Some(k) = given {
        return Ok(crate::cli::function_name(k).to_string());
    }
    match m.default_entry() {
        Ok(k) => Ok(m.functions[k].name.clone()),
        Err(n) => Err(invalid(format!(
            "the source defines {n} functions and not exactly one kernel; name the kernel with --kernel"
        ))),
    }
}

impl Args {
    /// The check's bounds and modes (R-BOUND) as these flags give them, for
    /// `threads` (already parsed from `--threads`), with refine's budget of
    /// the whole run and `--cutoff`. `convcheck prove` runs claim checks
    /// through this too, so a flag means the same there.
    pub fn options(&self, threads: Vec<usize>) -> Options {
        Options {
            time_limit: Some(Duration::from_secs(self.time_limit)),
            cutoff: self.cutoff.map(usize::from),
            lift: !self.no_lift,
            auto_cutoff: !self.no_auto_cutoff,
            ..self.check.options(threads)
        }
    }
}

/// Runs the subcommand.
pub fn run(args: &Args) -> Result<Exit, CliError> {
    let threads = parse_threads(&args.check.threads).map_err(invalid)?;
    let src = load(&args.src)?;
    let tgt = load(&args.tgt)?;
    let kernel = kernel_name(&src, &args.kernel)?;
    let mut opts = args.options(threads);
    opts.dump_smt = args.dump_smt.clone();
    // Ctrl-C stops the run through the same budget as --time-limit: the
    // verdict says what was decided, and the exit status is 130.
    opts.interrupt = Some(crate::cmd::run::ctrl_c_flag());
    if let Some(d) = &args.dump_smt {
        std::fs::create_dir_all(d)
            .map_err(|e| invalid(format!("{}: cannot create: {e}", d.display())))?;
    }
    let progress: Option<crate::refine::Progress> = if args.stats {
        Some(Box::new(|q: &QueryRecord| {
            eprintln!(
                "{:>8.3}s {:7} {}",
                q.elapsed.as_secs_f64(),
                q.answer,
                q.name
            )
        }))
    } else {
        None
    };
    let (result, queries) = check(&src, &tgt, &kernel, &opts, !args.check.no_replay, progress)
        .map_err(|e| match e {
            RefineError::Signature(m) => invalid(format!("invalid input: {m}")),
            other => CliError::internal(other.to_string()),
        })?;
    let path = |role: Side| role.pick(&args.src, &args.tgt).display().to_string();
    let (outcome, replay, inlined) = match result {
        PairResult::Invalid {
            role,
            rules,
            message,
        } => {
            return Err(invalid(format!(
                "invalid input: the {role} ({}) breaks {}: {message}",
                path(role),
                rules.join(", ")
            )))
        }
        PairResult::Unsupported {
            role,
            message,
            span,
        } => {
            // No verdict (exit 2): a readable program with a construct the
            // encoding does not cover.
            let at = match span {
                Some(sp) => format!("{}:{}:{}", path(role), sp.line, sp.col),
                None => path(role),
            };
            return Err(CliError::no_verdict(format!(
                "{at}: no verdict: unsupported by the refinement checker in the {role}: {message}"
            )));
        }
        PairResult::Checked {
            outcome,
            replay,
            inlined,
        } => (outcome, replay, inlined),
    };
    let report = Report::new(
        (
            args.src.display().to_string(),
            args.tgt.display().to_string(),
        ),
        &kernel,
        &opts,
        (&outcome, replay.as_ref()),
        queries,
        (&src, &tgt),
        inlined.as_deref(),
    );
    if let Some(out) = &args.report {
        let html =
            crate::html::refine_page(&src, &tgt, &kernel, &outcome.verdict, &render_text(&report));
        std::fs::write(out, html).map_err(|e| invalid(format!("{}: {e}", out.display())))?;
    }
    if let Some(out) = &args.dot {
        let dot = crate::html::refine_dot(&src, &tgt, &kernel, &outcome.verdict);
        std::fs::write(out, dot).map_err(|e| invalid(format!("{}: {e}", out.display())))?;
    }
    let text = if args.json {
        format!("{}\n", render_json(&report))
    } else {
        render_text(&report)
    };
    if let Some(Err(e)) = &replay {
        eprint!("{text}");
        return Err(CliError::internal(format!(
            "R-CEX: the reference interpreter does not confirm the counterexample: {e}"
        )));
    }
    crate::cli::emit(&text)?;
    Ok(match &outcome.verdict {
        Verdict::Refines { .. } => Exit::Ok,
        Verdict::Counterexample(_) => Exit::Negative,
        Verdict::Unknown(why) if why.is_interrupted() => {
            eprintln!("convcheck: interrupted; the verdict above says what was decided");
            Exit::Interrupted
        }
        Verdict::Unknown(_) | Verdict::Vacuous(_) => EXIT_UNKNOWN,
    })
}
