//! `convcheck run`: the reference interpreter (M-OPER) on one launch.
//!
//! Prints, for each distinct behaviour, the per-thread table of
//! ConvergenceAndUniformity (converged block visits in one column) and the
//! convergent calls with their communicating sets and results, then the
//! counts: executions explored, distinct behaviours, cut, UB. `--json`
//! prints one JSON object instead; `--exists` answers a question about all
//! executions.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use semantics::ir::float::{self, FloatTy};
use semantics::machine::query::{self, Answer};
use semantics::machine::{
    explore_with, render, AnchorMode, ArgValues, ChooserMode, Environment, Options, RunError,
    ShuffleOob, Uncontrolled, DEFAULT_MAX_EXECUTIONS, DEFAULT_MAX_STEPS,
};

use crate::cli::{emit, emit_with, emitln, load_module, CliError, Exit};

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum EnvArg {
    /// `entry` of the kernel converged within a launch group (OpenCL).
    Opencl,
    /// `entry` of the kernel never converged (C/C++ threads).
    Cxx,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum AnchorArg {
    /// Every set allowed by D-CW and D-ORDER.
    All,
    /// The maximally converged threads (D-MAX-ITER).
    Maximal,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum UnctrlArg {
    /// D-MAX.
    Maximal,
    /// Token inference of ConvergentOperations "Inferring tokens".
    Inferred,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum OobArg {
    Poison,
    Ub,
}

/// Run a kernel in N threads and enumerate its executions.
#[derive(clap::Args, Debug)]
#[command(after_help = query::HELP)]
pub struct Args {
    /// The LLVM IR file (`-`: standard input).
    pub file: PathBuf,
    /// Number of threads (at least 1).
    #[arg(long, default_value_t = 2)]
    pub threads: u32,
    /// Number of launch groups: contiguous, of equal size except that the
    /// last may be smaller; 1 <= G <= threads, and the threads must fill
    /// exactly G groups of ceil(threads/G) (e.g. 4 threads make 1, 2 or 4
    /// groups, not 3).
    #[arg(long, default_value_t = 1)]
    pub groups: u32,
    /// Threads per subgroup (P-LAUNCH): subgroup operations (ballots,
    /// shuffles, subgroup reductions) communicate within a subgroup,
    /// workgroup barriers and collectives across the group; lanes, local and
    /// global ids are then distinct. Must divide the group size. Default:
    /// all threads form one subgroup.
    #[arg(long, value_name = "S")]
    pub subgroup_size: Option<u32>,
    /// Argument values: `name=v` (every thread) or `name=v0,v1,...` (one per
    /// thread). Arguments not given are enumerated over the input domain.
    /// An integer value must fit the parameter's type iN in its signed or
    /// unsigned reading (-2^(N-1) ..= 2^N-1), as LLVM literals do; a value
    /// of a half/bfloat/float/double parameter is an LLVM float literal
    /// (`1.5`, `-2.0e+3`, `inf`, `nan`, `0x3FF8000000000000`, `0xH3C00`),
    /// exactly representable in the type.
    #[arg(long = "arg", value_name = "NAME=V[,V...]")]
    pub args: Vec<String>,
    /// Contents of the buffer a pointer parameter points to (P-INPUT,
    /// P-MEM-OBJ): `name=i32:v0,v1,...` (element type i8, i16, i32 or i64,
    /// each value in its signed or unsigned reading; or f16, f32, f64, each
    /// value an LLVM float literal the type holds exactly, stored as its
    /// bits). The buffer has exactly
    /// these elements: accesses past them are out of bounds (UB). Buffers
    /// not given hold inputs chosen when first read.
    #[arg(long = "buffer", value_name = "NAME=iN:V[,V...]")]
    pub buffers: Vec<String>,
    /// Size in bytes of a pointer parameter's buffer when neither --buffer
    /// nor the parameter's `dereferenceable(N)` gives it.
    #[arg(long, default_value_t = semantics::machine::DEFAULT_BUFFER_BYTES)]
    pub buffer_bytes: u64,
    /// Detect data races (P-MEM-RACE): two threads touching a byte, one
    /// writing, not both atomic, not ordered by a barrier, end the
    /// execution with undefined behaviour naming both accesses.
    #[arg(long)]
    pub races: bool,
    /// Print only the counts (executions, distinct behaviours, complete or
    /// not, reductions, modes), not the behaviours: for launches with
    /// thousands of them. With --json, "executions" is left out.
    #[arg(long)]
    pub summary: bool,
    /// The kernel, with or without `@` (default: the module's only
    /// definition, else its only one with a kernel calling convention).
    /// `--entry` is an old spelling of this flag.
    #[arg(long, alias = "entry", value_name = "NAME")]
    pub kernel: Option<String>,
    /// Per-thread instruction bound (at least 1); executions exceeding it
    /// are reported as cut.
    #[arg(long, default_value_t = DEFAULT_MAX_STEPS)]
    pub max_steps: u64,
    /// How `entry` of the kernel converges (D-ENTRY-LAUNCH).
    #[arg(long, value_enum, default_value = "opencl")]
    pub environment: EnvArg,
    /// Which sets anchors form (D-ANCHOR).
    #[arg(long, value_enum, default_value = "all")]
    pub anchor: AnchorArg,
    /// Semantics of uncontrolled convergent operations (D-UNCTRL).
    #[arg(long, value_enum, default_value = "maximal")]
    pub uncontrolled: UnctrlArg,
    /// A shuffle reading a thread outside its set yields poison or is UB.
    #[arg(long, value_enum, default_value = "poison")]
    pub shuffle_oob: OobArg,
    /// Values tried for integer inputs that are not given (i1: false, true).
    /// Each value must fit every integer parameter type (wider than i1) of
    /// the kernel that is enumerated, in its signed or unsigned reading;
    /// other inputs (results of unknown calls, input memory) of narrower
    /// types take the value modulo 2^N.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "0,1,2",
        allow_hyphen_values = true
    )]
    pub domain: Vec<i128>,
    /// Draw choices at random with this seed instead of enumerating.
    #[arg(long)]
    pub random: Option<u64>,
    /// Executions to run in random mode (at least 1; needs --random).
    #[arg(long, default_value_t = 1000, requires = "random")]
    pub runs: u64,
    /// Stop after this many executions run to their end or pruned (at
    /// least 1).
    #[arg(long, default_value_t = DEFAULT_MAX_EXECUTIONS)]
    pub max_executions: u64,
    /// Stop after this many executions abandoned at a state already
    /// explored (memoization; each is a prefix of an execution, usually
    /// the launch and a few steps) [default: 10 x --max-executions].
    #[arg(long, value_name = "N")]
    pub max_merged: Option<u64>,
    /// Answer Always / Sometimes / Never for CONDITION over all executions,
    /// with a witness (syntax below).
    #[arg(long, value_name = "CONDITION")]
    pub exists: Option<String>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Also write a self-contained HTML page to this file: every behaviour
    /// (at most 64) with the CFG as SVG, each thread's path along the edges,
    /// and who communicates (each convergent operation's instances with
    /// their communicating sets).
    #[arg(long, value_name = "OUT.html")]
    pub report: Option<PathBuf>,
    /// Also write the kernel's CFG as Graphviz DOT (as `opt -passes=dot-cfg`
    /// does), annotated with cycles, back edges and each thread's visits and
    /// edges: one `digraph` per behaviour (at most 64).
    #[arg(long, value_name = "OUT.dot")]
    pub dot: Option<PathBuf>,
    /// Run even if the static rules (S-*, `convcheck verify`) reject the
    /// program; the interpreter then reports what the dynamic rules derive
    /// (e.g. CL-07's contradiction I1 == I2).
    #[arg(long)]
    pub no_verify: bool,
    /// Stop the enumeration after this many seconds (checked after every
    /// execution) and print what was found so far, marked partial and
    /// INCOMPLETE (as Ctrl-C does); with --exists, Always / Never over the
    /// partial results is no verdict (exit 2).
    #[arg(long, value_name = "SECONDS")]
    pub time_limit: Option<f64>,
    /// Turn off the exact reductions of the enumeration (memoized states,
    /// launch symmetry): every execution is run and counted. The set of distinct
    /// behaviours is the same; only the counts differ.
    #[arg(long)]
    pub no_reduce: bool,
    /// Search in N worker threads (exhaustive mode): the canonical
    /// launches are dealt out among them. The behaviours are the same for
    /// every N, and so is their order unless the closure under renaming
    /// adds some; the counts of explored and merged executions are not
    /// (each worker memoizes the states it explored), and a search with a
    /// single canonical launch uses one worker.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: u16,
}

/// `--arg name=v` / `name=v0,v1,...`. `float_of` names the floating
/// format of a kernel parameter (P-FLOAT): its values are LLVM literals
/// (`1.5`, `-2.0e+3`, `0x3FF8000000000000`, `0xH3C00`, as `run` prints
/// them) stored as bit patterns; every other value is an integer
/// (`true`/`false` for `i1`), range-checked against the parameter's type
/// by `check_against`.
fn parse_args(
    list: &[String],
    threads: u32,
    float_of: &dyn Fn(&str) -> Option<FloatTy>,
) -> Result<BTreeMap<String, ArgValues>, CliError> {
    let mut out = BTreeMap::new();
    for a in list {
        let (name, vals) = a.split_once('=').ok_or_else(|| {
            CliError::bad_input(format!("--arg {a}: expected NAME=V or NAME=V0,V1,..."))
        })?;
        let name = name.trim_start_matches('%').to_string();
        let float = float_of(&name);
        let vs: Result<Vec<i128>, String> = vals
            .split(',')
            .map(|v| match (v.trim(), float) {
                (x, Some(f)) => float::parse_literal(x, f).map(i128::from).map_err(|_| {
                    let ty = semantics::ir::print::type_str(&f.ty());
                    match x.parse::<f64>() {
                        // LLParser takes only literals the type holds exactly.
                        Ok(d) => format!(
                            "`{x}` is not exactly representable as {ty} (as in LLVM IR, \
                             a float literal must be exact; the nearest {ty} is {})",
                            float::print(f, f.from_f64(d))
                        ),
                        Err(_) => format!(
                            "`{x}` is not a {ty} literal (LLVM syntax: 1.5, -2.0e+3, inf, \
                             nan, 0x3FF8000000000000{})",
                            match f {
                                FloatTy::Half => ", 0xH3C00",
                                FloatTy::BFloat => ", 0xR3F80",
                                _ => "",
                            }
                        ),
                    }
                }),
                ("true", None) => Ok(1),
                ("false", None) => Ok(0),
                (x, None) => x
                    .parse::<i128>()
                    .map_err(|_| format!("`{x}` is not an integer")),
            })
            .collect();
        let vs = vs.map_err(|e| CliError::bad_input(format!("--arg {a}: {e}")))?;
        let v = if vs.len() == 1 {
            ArgValues::Uniform(vs[0])
        } else if vs.len() == threads as usize {
            ArgValues::PerThread(vs)
        } else {
            return Err(CliError::bad_input(format!(
                "--arg {a}: {} values for {threads} threads",
                vs.len()
            )));
        };
        out.insert(name, v);
    }
    Ok(out)
}

/// `--buffer name=iN:v0,v1,...`: the buffer's little-endian bytes by
/// parameter name.
fn parse_buffers(list: &[String]) -> Result<BTreeMap<String, Vec<u8>>, CliError> {
    let mut out = BTreeMap::new();
    for a in list {
        let bad = |why: &str| CliError::bad_input(format!("--buffer {a}: {why}"));
        let (name, rest) = a
            .split_once('=')
            .ok_or_else(|| bad("expected NAME=iN:V0,V1,..."))?;
        let (ty, vals) = rest
            .split_once(':')
            .ok_or_else(|| bad("expected an element type: NAME=i32:V0,V1,..."))?;
        let (bits, float): (u32, Option<FloatTy>) = match ty {
            "i8" => (8, None),
            "i16" => (16, None),
            "i32" => (32, None),
            "i64" => (64, None),
            "f16" => (16, Some(FloatTy::Half)),
            "f32" => (32, Some(FloatTy::Float)),
            "f64" => (64, Some(FloatTy::Double)),
            _ => {
                return Err(bad(
                    "element type must be i8, i16, i32, i64, f16, f32 or f64",
                ))
            }
        };
        let mut bytes = Vec::new();
        for v in vals.split(',') {
            // A float element is an LLVM float literal its type holds
            // exactly (P-FLOAT), stored as its bits.
            let x: i128 = match float {
                Some(f) => float::parse_literal(v.trim(), f)
                    .map(i128::from)
                    .map_err(|e| {
                        bad(&format!(
                            "value `{v}`: {e} (an exact {} literal, e.g. 1.5 or -2.0e+3)",
                            semantics::ir::print::type_str(&f.ty())
                        ))
                    })?,
                None => v
                    .trim()
                    .parse()
                    .map_err(|e| bad(&format!("value `{v}`: {e}")))?,
            };
            if !query::fits(bits, x) {
                let (lo, hi) = query::int_range(bits);
                return Err(bad(&format!(
                    "{x} does not fit i{bits} (signed or unsigned reading: {lo}..={hi})"
                )));
            }
            bytes.extend_from_slice(&(x as u128).to_le_bytes()[..bits as usize / 8]);
        }
        let name = name.trim_start_matches('%').to_string();
        if out.insert(name.clone(), bytes).is_some() {
            return Err(bad(&format!("buffer %{name} given twice")));
        }
    }
    Ok(out)
}

/// The numeric options that need no module: every count at least 1, and
/// `--groups` a real split of `--threads` (issue 17: values are checked,
/// never reinterpreted).
fn check_counts(args: &Args) -> Result<(), CliError> {
    let bad = |m: String| Err(CliError::bad_input(m));
    if args.threads == 0 {
        return bad("--threads 0: a launch needs at least one thread".into());
    }
    let (t, g) = (args.threads, args.groups);
    if g == 0 || g > t {
        return bad(format!(
            "--groups {g}: between 1 and the number of threads ({t})"
        ));
    }
    let size = t.div_ceil(g);
    if t.div_ceil(size) != g {
        return bad(format!(
            "--groups {g}: {t} threads in contiguous groups of {size} (the last may be \
             smaller) make {} groups, not {g}",
            t.div_ceil(size)
        ));
    }
    if let Some(s) = args.subgroup_size {
        if s == 0 || size % s != 0 {
            return bad(format!(
                "--subgroup-size {s}: must be at least 1 and divide the group size ({size})"
            ));
        }
    }
    for (name, v) in [
        ("--max-steps", args.max_steps),
        ("--max-executions", args.max_executions),
        ("--max-merged", args.max_merged.unwrap_or(1)),
        ("--runs", args.runs),
    ] {
        if v == 0 {
            return bad(format!("{name} 0: must be at least 1"));
        }
    }
    if args.domain.is_empty() {
        return bad("--domain: needs at least one value".into());
    }
    Ok(())
}

/// The checks that need the module: `--arg` and `--domain` values fit the
/// kernel parameters' types (never wrapped; `query::fits`), and `--exists`
/// names threads of the launch, functions and blocks of the module.
pub fn check_against(
    args: &Args,
    module: &semantics::ir::Module,
    opts: &Options,
    cond: Option<&query::Cond>,
) -> Result<(), CliError> {
    if let Some(c) = cond {
        query::check(module, opts.threads, c)
            .map_err(|e| CliError::bad_input(format!("--exists: {e}")))?;
    }
    // An unknown kernel or parameter is reported by the launch itself.
    let Ok(k) = semantics::machine::launch::find_kernel(module, opts) else {
        return Ok(());
    };
    let f = &module.functions[k];
    for p in &f.params {
        let (Some(v), Some(bits)) = (p.value, p.ty.int_bits()) else {
            continue;
        };
        let name = f.value(v).name.to_string();
        let (lo, hi) = query::int_range(bits);
        let given = match opts.args.get(&name) {
            Some(ArgValues::Uniform(x)) => vec![*x],
            Some(ArgValues::PerThread(xs)) => xs.clone(),
            None if bits > 1 => {
                if let Some(x) = args.domain.iter().find(|x| !query::fits(bits, **x)) {
                    return Err(CliError::bad_input(format!(
                        "--domain {x}: does not fit i{bits} (parameter %{name} of @{}; \
                         signed or unsigned reading: {lo}..={hi})",
                        f.name
                    )));
                }
                continue;
            }
            None => continue,
        };
        if let Some(x) = given.iter().find(|x| !query::fits(bits, **x)) {
            return Err(CliError::bad_input(format!(
                "--arg {name}: {x} does not fit i{bits} (signed or unsigned reading: {lo}..={hi})"
            )));
        }
    }
    Ok(())
}

/// Builds the interpreter options from the command line, without a
/// module: every `--arg` value is read as an integer.
pub fn options(args: &Args) -> Result<Options, CliError> {
    let mut opts = options_without_args(args)?;
    opts.args = parse_args(&args.args, args.threads, &|_| None)?;
    Ok(opts)
}

/// The interpreter options for a run of `module`: `--arg` values of the
/// kernel's floating-point parameters are read as float literals.
pub fn options_for(args: &Args, module: &semantics::ir::Module) -> Result<Options, CliError> {
    let mut opts = options_without_args(args)?;
    let kernel = semantics::machine::launch::find_kernel(module, &opts)
        .ok()
        .map(|k| &module.functions[k]);
    let float_of = |name: &str| {
        let f = kernel?;
        let p = f
            .params
            .iter()
            .find(|p| p.value.is_some_and(|v| f.value(v).name.to_string() == name))?;
        FloatTy::of(&p.ty)
    };
    opts.args = parse_args(&args.args, args.threads, &float_of)?;
    Ok(opts)
}

fn options_without_args(args: &Args) -> Result<Options, CliError> {
    check_counts(args)?;
    Ok(Options {
        entry: args
            .kernel
            .as_deref()
            .map(|k| crate::cli::function_name(k).to_string()),
        threads: args.threads,
        groups: args.groups,
        subgroup_size: args.subgroup_size,
        args: BTreeMap::new(),
        max_steps: args.max_steps,
        environment: match args.environment {
            EnvArg::Opencl => Environment::OpenCl,
            EnvArg::Cxx => Environment::Cxx,
        },
        anchor: match args.anchor {
            AnchorArg::All => AnchorMode::All,
            AnchorArg::Maximal => AnchorMode::Maximal,
        },
        uncontrolled: match args.uncontrolled {
            UnctrlArg::Maximal => Uncontrolled::Maximal,
            UnctrlArg::Inferred => Uncontrolled::Inferred,
        },
        shuffle_oob: match args.shuffle_oob {
            OobArg::Poison => ShuffleOob::Poison,
            OobArg::Ub => ShuffleOob::Ub,
        },
        int_domain: args.domain.clone(),
        chooser: match args.random {
            Some(seed) => ChooserMode::Random {
                seed,
                runs: args.runs,
            },
            None => ChooserMode::Exhaustive,
        },
        max_executions: args.max_executions,
        max_merged: args.max_merged,
        closure_records: semantics::machine::symmetry::CLOSURE_RECORDS,
        reduce: !args.no_reduce,
        drawn_results: true,
        buffer_bytes: args.buffer_bytes,
        buffers: parse_buffers(&args.buffers)?,
        races: args.races,
        streams: Vec::new(),
        jobs: args.jobs as usize,
    })
}

pub fn run(args: &Args) -> Result<Exit, CliError> {
    let module = load_module(&args.file)?;
    let opts = options_for(args, &module)?;
    let cond = match &args.exists {
        Some(c) => {
            Some(query::parse(c).map_err(|e| CliError::bad_input(format!("--exists: {e}")))?)
        }
        None => None,
    };
    check_against(args, &module, &opts, cond.as_ref())?;
    if !args.no_verify {
        let report =
            semantics::rules::verify_module(&module, &semantics::rules::Options::default());
        if !report.is_valid() {
            // A valid program is required: bad input (exit 3), with every
            // violation as a diagnostic.
            let (name, text) = crate::cli::read_input(&args.file)?;
            eprint!(
                "{}",
                crate::cmd::verify::render_diagnostics(&name, &text, &module, &report)
            );
            return Err(CliError::bad_input(
                "the program breaks the static rules; --no-verify runs it anyway",
            ));
        }
    }
    // Issue 18 item 4: a launch too large to enumerate says so before it
    // starts, with what bounds the run.
    if let Some(n) = semantics::machine::launch::launches_at_least(&module, &opts) {
        if opts.chooser == semantics::machine::ChooserMode::Exhaustive
            && n > opts.max_executions as f64
        {
            let count = if n.is_finite() && n < 1e15 {
                format!("{n:.0}")
            } else {
                format!("{n:.2e}")
            };
            eprintln!(
                "note: at least {count} launches to enumerate ({} threads, every integer \
                 parameter without --arg over its domain in every thread, up to thread \
                 symmetry): the run stops at --max-executions {} or --time-limit, and the \
                 closure under renaming lists {} thread records and counts at most {} \
                 thread records; fix inputs with --arg or narrow --domain for a complete answer",
                opts.threads,
                opts.max_executions,
                semantics::machine::symmetry::CLOSURE_RECORDS,
                semantics::machine::symmetry::CLOSURE_DIGESTS
            );
        }
    }
    // Ctrl-C stops the enumeration after the current execution; what was
    // found so far is printed, marked interrupted (issue 4).
    let interrupted = ctrl_c_flag();
    let limit = match args.time_limit {
        Some(t) if t.is_finite() && t >= 0.0 => Some(std::time::Duration::from_secs_f64(t)),
        Some(t) => {
            return Err(CliError::bad_input(format!(
                "--time-limit {t}: expected a number of seconds >= 0"
            )))
        }
        None => None,
    };
    let mut timed_out = false;
    // A progress spinner on stderr once the enumeration runs longer than a
    // second.
    let start = std::time::Instant::now();
    let mut bar: Option<indicatif::ProgressBar> = None;
    // The message is redrawn every 64 executions, or on each call when
    // the workers of --jobs report their totals (every few milliseconds).
    let every = if args.jobs > 1 { 1 } else { 64 };
    let mut progress = |explored: u64, pruned: u64| {
        if bar.is_none() && start.elapsed() > std::time::Duration::from_secs(1) {
            bar = Some(indicatif::ProgressBar::new_spinner());
        }
        if let Some(b) = &bar {
            if (explored + pruned).is_multiple_of(every) {
                b.set_message(format!(
                    "{explored} executions explored, {pruned} schedules pruned"
                ));
                b.tick();
            }
        }
        if limit.is_some_and(|l| start.elapsed() >= l) {
            timed_out = true;
            return false;
        }
        !interrupted.load(Ordering::SeqCst)
    };
    let result = explore_with(&module, &opts, &mut progress);
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    // Not dropped: `run` is the last thing the process does (main calls it
    // once), and freeing the behaviours record by record took a tenth of
    // cl04-caller-merge.src at 4 threads (97,200 behaviours).
    let ex = std::mem::ManuallyDrop::new(result.map_err(run_error)?);
    // Issue 13: which callees the intrinsic table does not model, and how
    // they were treated (a line of the text report, a JSON field).
    let unknown = semantics::machine::program::unknown_callees(&module);
    let unknown_line = (!unknown.is_empty()).then(|| {
        let list: Vec<String> = unknown
            .iter()
            .map(|(name, how)| format!("@{name} ({how})"))
            .collect();
        format!(
            "calls treated as unknown functions (not in the intrinsic table): {}",
            list.join(", ")
        )
    });
    let unknown_json = serde_json::json!(unknown
        .iter()
        .map(|(name, how)| serde_json::json!({"callee": name, "treated_as": how}))
        .collect::<Vec<_>>());
    if let Some(out) = &args.report {
        let html = crate::html::run_page(&module, &ex, &render::text(&module, &ex));
        std::fs::write(out, html)
            .map_err(|e| CliError::bad_input(format!("{}: {e}", out.display())))?;
    }
    if let Some(out) = &args.dot {
        std::fs::write(out, crate::html::run_dot(&module, &ex))
            .map_err(|e| CliError::bad_input(format!("{}: {e}", out.display())))?;
    }
    let stopped = interrupted.load(Ordering::SeqCst);
    let timed_out = timed_out && !stopped;
    let banner = if timed_out {
        format!(
            "TIME LIMIT ({} s): partial results, not every execution was explored",
            args.time_limit.unwrap_or_default()
        )
    } else {
        "INTERRUPTED (Ctrl-C): partial results, not every execution was explored".to_string()
    };
    if stopped {
        eprintln!("convcheck: interrupted; printing what was found so far");
    }
    if timed_out {
        eprintln!("convcheck: time limit reached; printing what was found so far");
    }
    let partial = stopped || timed_out;
    let modes = modes_line(args);
    if let Some(cond) = cond {
        let (answer, witness) = query::answer(&module, &cond, &ex);
        if args.json {
            let mut extra = serde_json::Map::new();
            extra.insert(
                "exists".into(),
                serde_json::json!({"answer": answer.to_string(), "witness": witness}),
            );
            extra.insert("unknown_calls".into(), unknown_json.clone());
            extra.insert("interrupted".into(), serde_json::json!(stopped));
            extra.insert("time_limit_reached".into(), serde_json::json!(timed_out));
            emit_with(|out| render::write_json(&module, &ex, extra, out))?;
        } else {
            if partial {
                emitln(&banner)?;
            }
            emitln(&answer.to_string())?;
            if let Some(w) = witness {
                let b = &ex.behaviours[w].execution;
                emitln(&format!(
                    "witness (behaviour {}): {}",
                    w + 1,
                    render::outcome_text(&module, &b.outcome)
                ))?;
                emit(&render::table(&module, &ex.kernel, b))?;
                emit(&render::events(&module, &ex.kernel, b))?;
            }
            emit(&render::counts(&ex))?;
            if let Some(l) = &unknown_line {
                emitln(l)?;
            }
            emitln(&modes)?;
        }
        return Ok(if stopped {
            Exit::Interrupted
        } else if !ex.complete && answer != Answer::Sometimes {
            // Always / Never over part of the executions (budget or
            // --time-limit) is no verdict; a witness of Sometimes is one
            // whatever was left unexplored.
            Exit::NoVerdict
        } else if answer == Answer::Never {
            Exit::Negative
        } else {
            Exit::Ok
        });
    }
    if args.json {
        let mut extra = serde_json::Map::new();
        extra.insert("interrupted".into(), serde_json::json!(stopped));
        extra.insert("time_limit_reached".into(), serde_json::json!(timed_out));
        extra.insert("unknown_calls".into(), unknown_json);
        emit_with(|out| render::write_json_as(&module, &ex, extra, !args.summary, out))?;
    } else {
        if partial {
            emitln(&banner)?;
        }
        if args.summary {
            emit(&render::summary(&module, &ex))?;
        } else {
            emit_with(|out| render::write_text(&module, &ex, out))?;
        }
        if let Some(l) = &unknown_line {
            emitln(l)?;
        }
        emitln(&modes)?;
        if partial {
            emitln(&banner)?;
        }
    }
    Ok(if stopped { Exit::Interrupted } else { Exit::Ok })
}

/// The exit status of an interpreter error: a construct outside the
/// subset is no verdict (2), an ill-formed program or launch bad input (3).
pub fn run_error(e: RunError) -> CliError {
    match e {
        RunError::Unsupported { .. } => CliError::no_verdict(e.to_string()),
        RunError::IllFormed { .. } | RunError::BadLaunch(_) => CliError::bad_input(e.to_string()),
    }
}

/// The modes every result is printed with, spelled as the command line
/// spells them (`--environment opencl`), so a run can be repeated.
pub fn modes_line(args: &Args) -> String {
    fn flag<T: clap::ValueEnum>(v: &T) -> String {
        v.to_possible_value()
            .map(|p| p.get_name().to_string())
            .unwrap_or_default()
    }
    format!(
        "modes: --threads {} --groups {}{} --max-steps {} --environment {} --anchor {} --uncontrolled {} --shuffle-oob {}{}",
        args.threads,
        args.groups,
        args.subgroup_size
            .map(|s| format!(" --subgroup-size {s}"))
            .unwrap_or_default(),
        args.max_steps,
        flag(&args.environment),
        flag(&args.anchor),
        flag(&args.uncontrolled),
        flag(&args.shuffle_oob),
        if args.races { " --races" } else { "" },
    )
}

/// A flag set by the first Ctrl-C (SIGINT); the exploration polls it after
/// every execution. A second Ctrl-C ends the process at once (status
/// [`Exit::Interrupted`]), for an execution that does not end by itself
/// soon. If a handler cannot be installed (e.g. one already is), Ctrl-C
/// keeps its default effect and the flag stays false.
pub(crate) fn ctrl_c_flag() -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    let f = Arc::clone(&flag);
    let _ = ctrlc::set_handler(move || {
        if f.swap(true, Ordering::SeqCst) {
            std::process::exit(i32::from(Exit::Interrupted.code()));
        }
    });
    flag
}
