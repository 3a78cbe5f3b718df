//! One input through every subcommand, in-process: the library entry
//! points each subcommand calls, with the exit status it would return
//! ([`checker::cli::Exit`]); a panic is caught and reported as a crash.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use clap::Parser;

use checker::cli::{self, CliError, Exit};
use checker::cmd;
use semantics::ir::Module;

use crate::{Input, SeedKind, Seeds};

/// The subcommands (and modes) the fuzzer runs, as the CLI spells them.
pub const SUBCOMMANDS: [&str; 8] = [
    "parse",
    "verify",
    "verify --llvm-compatible",
    "cycles",
    "uniformity",
    "run",
    "refine",
    "prove --check-format",
];

/// What one subcommand did with one input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The exit status the subcommand returns.
    Exit(Exit),
    /// A panic: a bug of ours (the message and our source location).
    Panic(String),
}

/// The bounds `run` is fuzzed with: small, so that an input is quick.
pub const RUN_FLAGS: [&str; 6] = [
    "--threads",
    "2",
    "--max-steps",
    "40",
    "--max-executions",
    "24",
];

/// The bounds `refine` is fuzzed with (per-query timeout in seconds).
pub const REFINE_FLAGS: [&str; 6] = ["--threads", "1..2", "--max-steps", "6", "--timeout", "2"];

#[derive(Parser)]
struct RunCli {
    #[command(flatten)]
    args: cmd::run::Args,
}

#[derive(Parser)]
struct RefineCli {
    #[command(flatten)]
    args: cmd::refine::Args,
}

/// The name inputs have in diagnostics.
pub const NAME: &str = "fuzz.ll";

fn status<T>(r: &Result<T, CliError>, ok: impl FnOnce(&T) -> Exit) -> Exit {
    match r {
        Ok(v) => ok(v),
        Err(e) => e.status,
    }
}

/// Runs `f` under `catch_unwind` (the panic message is taken from
/// [`take_panic`]).
fn guarded(f: impl FnOnce() -> Exit) -> Outcome {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(e) => Outcome::Exit(e),
        Err(_) => Outcome::Panic(take_panic()),
    }
}

thread_local! {
    static LAST_PANIC: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// Installs a panic hook that records the message and location instead
/// of printing them (the fuzzer reports them).
pub fn quiet_panics() {
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let loc = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_default();
        LAST_PANIC.with(|p| *p.borrow_mut() = format!("{msg} at {loc}"));
    }));
}

fn take_panic() -> String {
    LAST_PANIC.with(|p| std::mem::take(&mut *p.borrow_mut()))
}

/// Which of the extra subcommands an input goes through.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// `run` on inputs that parse and verify (every such input).
    pub run: bool,
    /// `refine` on this refine-target input.
    pub refine: bool,
}

/// Runs `input` through the subcommands; `on_start` is told each
/// subcommand before it starts (for the watchdog).
pub fn run_input(
    seeds: &Seeds,
    input: &Input,
    plan: Plan,
    on_start: &mut dyn FnMut(&'static str),
) -> Vec<(&'static str, Outcome)> {
    let mut out = Vec::new();
    if input.kind == SeedKind::Claim {
        on_start("prove --check-format");
        // The file keeps the seed's name: a claim's ID must equal its stem.
        let path = Path::new(input.seed.file_name().unwrap_or_default());
        let o = guarded(|| {
            let r = cli::decode(&path.display().to_string(), &input.bytes).and_then(|t| {
                // As `cmd::prove::load`: the file, FINDINGS.md's classes,
                // and the claim's links to findings.
                let c = checker::prove::format::parse_claim(path, &t)
                    .map_err(|e| CliError::bad_input(e.to_string()))?;
                checker::prove::check_finding_classes(&seeds.findings)
                    .map_err(CliError::bad_input)?;
                checker::prove::check_links(
                    &[c],
                    &checker::prove::recorded_findings(&seeds.findings),
                )
                .map_err(CliError::bad_input)
            });
            status(&r, |_| Exit::Ok)
        });
        out.push(("prove --check-format", o));
        return out;
    }
    // The text and module every subcommand reads (`cli::load_module`).
    let mut loaded: Option<Result<(String, Module), CliError>> = None;
    on_start("parse");
    let o = guarded(|| {
        let r =
            cli::decode(NAME, &input.bytes).and_then(|t| cli::parse_text(NAME, &t).map(|m| (t, m)));
        let s = status(&r, |(_, m)| {
            let printed = semantics::ir::print::print_module(m);
            std::hint::black_box(printed);
            Exit::Ok
        });
        loaded = Some(r);
        s
    });
    out.push(("parse", o));
    let Some(Ok((text, module))) = loaded else {
        // Every subcommand reads the input the same way: the same error.
        let e = match &out[0].1 {
            Outcome::Exit(e) => *e,
            Outcome::Panic(_) => return out,
        };
        for sub in ["verify", "verify --llvm-compatible", "cycles", "uniformity"] {
            out.push((sub, Outcome::Exit(e)));
        }
        return out;
    };
    let mut valid = false;
    on_start("verify");
    out.push((
        "verify",
        guarded(|| {
            let r = semantics::rules::verify_module(&module, &Default::default());
            let text = cmd::verify::render_diagnostics(NAME, &text, &module, &r);
            std::hint::black_box((text, semantics::rules::render_json(NAME, &r)));
            valid = r.is_valid();
            if valid {
                Exit::Ok
            } else {
                Exit::Negative
            }
        }),
    ));
    on_start("verify --llvm-compatible");
    out.push((
        "verify --llvm-compatible",
        guarded(|| {
            let opts = semantics::rules::Options {
                llvm_compatible: true,
                closed_paths: None,
            };
            let r = semantics::rules::verify_module(&module, &opts);
            std::hint::black_box(semantics::rules::render_text(NAME, &r));
            if r.is_valid() {
                Exit::Ok
            } else {
                Exit::Negative
            }
        }),
    ));
    on_start("cycles");
    out.push((
        "cycles",
        guarded(|| {
            std::hint::black_box(cmd::cycles::render(&module, false, 0));
            if input.index.is_multiple_of(8) {
                std::hint::black_box(cmd::cycles::render(&module, true, 4));
            }
            Exit::Ok
        }),
    ));
    on_start("uniformity");
    out.push((
        "uniformity",
        guarded(|| {
            use semantics::uniformity::Mode;
            let a = cmd::uniformity::render_module(&module, false, Mode::Llvm);
            let b = cmd::uniformity::render_module(&module, true, Mode::Llvm);
            let c = cmd::uniformity::render_module(&module, false, Mode::Sound);
            std::hint::black_box((&b, &c));
            status(&a.and(b).and(c), |_| Exit::Ok)
        }),
    ));
    if plan.run {
        on_start("run");
        out.push(("run", guarded(|| run_subcommand(&module, valid))));
    }
    if let (true, SeedKind::RefineTarget(i)) = (plan.refine, input.kind) {
        on_start("refine");
        let (src_path, src_text, _) = &seeds.pairs[i];
        out.push((
            "refine",
            guarded(|| refine_subcommand(src_path, src_text, &module)),
        ));
    }
    out
}

/// `convcheck run - RUN_FLAGS`: the static rules gate, then the bounded
/// exploration and its rendering.
fn run_subcommand(module: &Module, valid: bool) -> Exit {
    if !valid {
        return Exit::BadInput;
    }
    let argv = ["run", NAME].into_iter().chain(RUN_FLAGS);
    let args = match RunCli::try_parse_from(argv) {
        Ok(c) => c.args,
        Err(_) => return Exit::BadInput,
    };
    let opts = match cmd::run::options(&args) {
        Ok(o) => o,
        Err(e) => return e.status,
    };
    match semantics::machine::explore_with(module, &opts, &mut |_, _| true) {
        Ok(ex) => {
            std::hint::black_box(semantics::machine::render::text(module, &ex));
            Exit::Ok
        }
        Err(e) => cmd::run::run_error(e).status,
    }
}

/// `convcheck refine SRC - REFINE_FLAGS` with the pair's source and the
/// mutated target, mirroring `cmd::refine::run`'s statuses.
fn refine_subcommand(src_path: &Path, src_text: &str, tgt: &Module) -> Exit {
    use checker::refine::{check_pair, PairResult, RefineError, Verdict};
    let src = match cli::parse_text(&src_path.display().to_string(), src_text) {
        Ok(m) => m,
        Err(e) => return e.status,
    };
    let argv = ["refine", "src.ll", NAME].into_iter().chain(REFINE_FLAGS);
    let args = match RefineCli::try_parse_from(argv) {
        Ok(c) => c.args,
        Err(_) => return Exit::BadInput,
    };
    let threads = match cmd::refine::parse_threads(&args.check.threads) {
        Ok(t) => t,
        Err(_) => return Exit::BadInput,
    };
    let kernel = match cmd::refine::kernel_name(&src, &args.kernel) {
        Ok(k) => k,
        Err(e) => return e.status,
    };
    let opts = args.options(threads);
    let mut session = checker::smt::Session::new(None);
    match check_pair(&src, tgt, &kernel, &opts, &mut session, true, None) {
        Err(RefineError::Signature(_)) => Exit::BadInput,
        Err(RefineError::Smt(_)) => Exit::Internal,
        Err(RefineError::Unsupported { .. }) => Exit::NoVerdict,
        Ok(PairResult::Invalid { .. }) => Exit::BadInput,
        Ok(PairResult::Unsupported { .. }) => Exit::NoVerdict,
        Ok(PairResult::Checked {
            outcome, replay, ..
        }) => {
            if let Some(Err(_)) = replay {
                return Exit::Internal;
            }
            match outcome.verdict {
                Verdict::Refines { .. } => Exit::Ok,
                Verdict::Counterexample(_) => Exit::Negative,
                Verdict::Unknown(_) | Verdict::Vacuous(_) => Exit::NoVerdict,
            }
        }
    }
}
