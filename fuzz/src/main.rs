//! `convcheck-fuzz` (`make fuzz`): mutates the shared corpus, the examples
//! and the claim files and runs every subcommand on each input.
//!
//! The supervisor splits the campaign into chunks and runs each chunk in a
//! worker process (this binary with `--worker`), `--jobs` at a time. A
//! worker runs its inputs in-process (panics caught), prints `at INDEX`
//! before each input, and ends with `stats JSON`. A worker that dies (a
//! stack overflow, an abort) or stops at the watchdog's limit (exit 86)
//! is a finding at the last index it printed; the supervisor saves that
//! input and restarts the chunk after it. Every `--subprocess-every`-th
//! input also runs through the `convcheck` binary, whose exit status must
//! equal the in-process one.
//!
//! Exit status: 0 nothing found, 1 findings (listed, inputs saved under
//! `--out`), 3 bad arguments.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::Parser;

use checker::cli::Exit;
use convcheck_fuzz::stats::{Finding, Stats};
use convcheck_fuzz::targets::{self, Outcome, Plan, REFINE_FLAGS, RUN_FLAGS};
use convcheck_fuzz::{generate, Input, SeedKind, Seeds};

/// Status of a worker stopped by its watchdog.
const EXIT_HANG: i32 = 86;

#[derive(Parser, Debug, Clone)]
#[command(
    name = "convcheck-fuzz",
    about = "Fuzz every convcheck subcommand (make fuzz)"
)]
struct Args {
    /// Number of inputs.
    #[arg(long, default_value_t = 1_000_000)]
    inputs: u64,
    /// Campaign seed: input I is a function of (seed, I).
    #[arg(long, default_value_t = 20261124)]
    seed: u64,
    /// Worker processes at a time.
    #[arg(long, default_value_t = 2)]
    jobs: usize,
    /// Inputs per worker process.
    #[arg(long, default_value_t = 5000)]
    chunk: u64,
    /// Every N-th input also goes through the `convcheck` binary (0: none).
    #[arg(long, default_value_t = 1000)]
    subprocess_every: u64,
    /// Every N-th refine-target input goes through `refine` (0: none).
    #[arg(long, default_value_t = 150)]
    refine_every: u64,
    /// Watchdog: seconds an input may take (refine: 6 times as many).
    #[arg(long, default_value_t = 20)]
    limit: u64,
    /// Where findings, inputs and the summary go.
    #[arg(long, default_value = "target/fuzz")]
    out: PathBuf,
    /// The `convcheck` binary (default: next to this one).
    #[arg(long)]
    convcheck: Option<PathBuf>,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    json: bool,
    /// Internal: run inputs FROM..TO in this process.
    #[arg(long, hide = true)]
    worker: bool,
    #[arg(long, hide = true, default_value_t = 0)]
    from: u64,
    #[arg(long, hide = true, default_value_t = 0)]
    to: u64,
}

fn seeds() -> Seeds {
    let root = testgen::oracle::workspace_root();
    let corpus = testgen::oracle::corpus_dir();
    if corpus.is_none() {
        eprintln!(
            "convcheck-fuzz: WARNING: the shared corpus is absent (set CONVCHECK_SHARED); fuzzing the examples only"
        );
    }
    Seeds::load(&root, corpus.as_deref())
}

fn convcheck_path(args: &Args) -> PathBuf {
    args.convcheck.clone().unwrap_or_else(|| {
        std::env::current_exe()
            .ok()
            .and_then(|p| p.parent().map(|d| d.join("convcheck")))
            .unwrap_or_else(|| PathBuf::from("convcheck"))
    })
}

fn plan(args: &Args, input: &Input) -> Plan {
    Plan {
        run: true,
        refine: args.refine_every > 0
            && matches!(input.kind, SeedKind::RefineTarget(_))
            && (input.index / 7).is_multiple_of(args.refine_every),
    }
}

fn save(out: &Path, what: &str, input: &Input) -> String {
    let ext = if input.kind == SeedKind::Claim {
        "claim"
    } else {
        "ll"
    };
    let p = out.join(format!("{what}-{}.{ext}", input.index));
    let _ = std::fs::write(&p, &input.bytes);
    p.display().to_string()
}

fn code(o: &Outcome) -> i32 {
    match o {
        Outcome::Exit(e) => i32::from(e.code()),
        Outcome::Panic(_) => 101,
    }
}

/// Runs `convcheck` on the input for every subcommand it went through
/// in-process and compares exit statuses.
fn through_binary(
    args: &Args,
    seeds: &Seeds,
    input: &Input,
    results: &[(&'static str, Outcome)],
    stats: &mut Stats,
) {
    let dir = args.out.join(format!("sub-{}", args.from));
    let _ = std::fs::create_dir_all(&dir);
    let file = dir.join(if input.kind == SeedKind::Claim {
        input.seed.file_name().unwrap_or_default().to_os_string()
    } else {
        "fuzz.ll".into()
    });
    // One file per directory: `prove --check-format DIR` reads them all.
    if let Ok(rd) = std::fs::read_dir(&dir) {
        for e in rd.flatten() {
            let _ = std::fs::remove_file(e.path());
        }
    }
    if std::fs::write(&file, &input.bytes).is_err() {
        return;
    }
    if input.kind == SeedKind::Claim {
        let _ = std::fs::write(dir.join("FINDINGS.md"), &seeds.findings);
    }
    let f = file.display().to_string();
    stats.subprocess_inputs += 1;
    for (sub, o) in results {
        let mut argv: Vec<String> = Vec::new();
        match *sub {
            "verify --llvm-compatible" => {
                argv.extend(["verify".into(), f.clone(), "--llvm-compatible".into()])
            }
            "prove --check-format" => argv.extend([
                "prove".into(),
                dir.display().to_string(),
                "--check-format".into(),
            ]),
            "run" => {
                argv.extend(["run".into(), f.clone()]);
                argv.extend(RUN_FLAGS.iter().map(|s| s.to_string()));
            }
            "refine" => {
                let SeedKind::RefineTarget(i) = input.kind else {
                    continue;
                };
                argv.extend([
                    "refine".into(),
                    seeds.pairs[i].0.display().to_string(),
                    f.clone(),
                ]);
                argv.extend(REFINE_FLAGS.iter().map(|s| s.to_string()));
            }
            s => argv.extend([s.to_string(), f.clone()]),
        }
        stats.subprocess_runs += 1;
        let got = run_binary(&convcheck_path(args), &argv, args.limit * 6);
        let want = code(o);
        if got != Some(want) {
            let finding = Finding {
                index: input.index,
                subcommand: sub.to_string(),
                seed: input.seed.display().to_string(),
                message: format!(
                    "`convcheck {}` exited {got:?}, in-process {want}",
                    argv.join(" ")
                ),
                file: save(&args.out, "mismatch", input),
            };
            if got.is_none_or(|c| c == 101 || c == 70) {
                stats.crashes.push(finding);
            } else {
                stats.mismatches.push(finding);
            }
        }
    }
}

/// The binary's exit code (`None`: killed by a signal or past `limit`).
fn run_binary(bin: &Path, argv: &[String], limit: u64) -> Option<i32> {
    let mut child = Command::new(bin)
        .args(argv)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(s)) => return s.code(),
            Ok(None) if start.elapsed() > Duration::from_secs(limit) => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(_) => return None,
        }
    }
}

/// The worker: inputs `from..to` in-process, with a watchdog.
fn worker(args: &Args) -> ExitCode {
    targets::quiet_panics();
    let seeds = seeds();
    let _ = std::fs::create_dir_all(&args.out);
    // (index, subcommand, start in ms since `t0`) of the input running.
    let t0 = Instant::now();
    let current: Arc<Mutex<(u64, &'static str)>> = Arc::new(Mutex::new((0, "")));
    let started = Arc::new(AtomicU64::new(u64::MAX));
    {
        let current = Arc::clone(&current);
        let started = Arc::clone(&started);
        let limit = args.limit;
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(200));
            let s = started.load(Ordering::SeqCst);
            if s == u64::MAX {
                continue;
            }
            let (index, sub) = *current.lock().unwrap_or_else(|p| p.into_inner());
            let lim = if sub == "refine" { limit * 6 } else { limit };
            let now = t0.elapsed().as_millis() as u64;
            if now.saturating_sub(s) > lim * 1000 {
                println!("hang {index} {sub}");
                let _ = std::io::stdout().flush();
                std::process::exit(EXIT_HANG);
            }
        });
    }
    let mut stats = Stats::default();
    let stdout = std::io::stdout();
    for index in args.from..args.to {
        let input = generate(&seeds, args.seed, index);
        {
            let mut o = stdout.lock();
            let _ = writeln!(o, "at {index}");
            let _ = o.flush();
        }
        let mut on_start = |sub: &'static str| {
            *current.lock().unwrap_or_else(|p| p.into_inner()) = (index, sub);
            started.store(t0.elapsed().as_millis() as u64, Ordering::SeqCst);
        };
        let results = targets::run_input(&seeds, &input, plan(args, &input), &mut on_start);
        started.store(u64::MAX, Ordering::SeqCst);
        stats.inputs += 1;
        for m in &input.mutations {
            let name = serde_json::to_value(m)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            *stats.mutations.entry(name).or_default() += 1;
        }
        for (sub, o) in &results {
            stats.count(sub, code(o));
            let finding = |message: String, what: &str| Finding {
                index,
                subcommand: sub.to_string(),
                seed: input.seed.display().to_string(),
                message,
                file: save(&args.out, what, &input),
            };
            match o {
                Outcome::Panic(m) => stats.crashes.push(finding(m.clone(), "crash")),
                Outcome::Exit(Exit::Internal) => stats
                    .internal
                    .push(finding("exit 70 (internal error)".into(), "internal")),
                Outcome::Exit(_) => {}
            }
        }
        if args.subprocess_every > 0 && index.is_multiple_of(args.subprocess_every) {
            through_binary(args, &seeds, &input, &results, &mut stats);
        }
    }
    let mut o = stdout.lock();
    let _ = writeln!(
        o,
        "stats {}",
        serde_json::to_string(&stats).unwrap_or_default()
    );
    let _ = o.flush();
    ExitCode::SUCCESS
}

/// Runs one worker over `from..to`; returns its stats and, if it stopped
/// early, the index it stopped at and why.
fn spawn_worker(args: &Args, from: u64, to: u64) -> (Stats, Option<(u64, String)>) {
    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("convcheck-fuzz"));
    let mut cmd = Command::new(exe);
    cmd.args([
        "--worker",
        "--from",
        &from.to_string(),
        "--to",
        &to.to_string(),
        "--seed",
        &args.seed.to_string(),
        "--subprocess-every",
        &args.subprocess_every.to_string(),
        "--refine-every",
        &args.refine_every.to_string(),
        "--limit",
        &args.limit.to_string(),
        "--out",
        &args.out.display().to_string(),
    ]);
    if let Some(c) = &args.convcheck {
        cmd.arg("--convcheck").arg(c);
    }
    let mut child = match cmd.stdout(Stdio::piped()).stderr(Stdio::null()).spawn() {
        Ok(c) => c,
        Err(e) => return (Stats::default(), Some((from, format!("cannot start: {e}")))),
    };
    let mut last = from;
    let mut stats = None;
    let mut hang = None;
    if let Some(out) = child.stdout.take() {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if let Some(i) = line.strip_prefix("at ") {
                last = i.parse().unwrap_or(last);
            } else if let Some(j) = line.strip_prefix("stats ") {
                stats = serde_json::from_str::<Stats>(j).ok();
            } else if let Some(h) = line.strip_prefix("hang ") {
                hang = Some(h.to_string());
            }
        }
    }
    let status = child.wait().ok();
    match (stats, status) {
        (Some(s), Some(st)) if st.success() => (s, None),
        (_, st) => {
            let why = match (hang, st.and_then(|s| s.code())) {
                (Some(h), _) => format!("hang: {h}"),
                (None, Some(c)) => format!("worker exited {c}"),
                (None, None) => "worker killed by a signal (stack overflow or abort)".to_string(),
            };
            (Stats::default(), Some((last, why)))
        }
    }
}

fn supervisor(args: &Args) -> ExitCode {
    let _ = std::fs::create_dir_all(&args.out);
    let seeds = seeds();
    eprintln!(
        "convcheck-fuzz: {} inputs from seed {}: {} modules, {} refine pairs, {} claim files; {} jobs",
        args.inputs,
        args.seed,
        seeds.modules.len(),
        seeds.pairs.len(),
        seeds.claims.len(),
        args.jobs
    );
    let chunks: Vec<(u64, u64)> = (0..args.inputs)
        .step_by(args.chunk.max(1) as usize)
        .map(|a| (a, (a + args.chunk.max(1)).min(args.inputs)))
        .collect();
    let queue = Arc::new(Mutex::new(chunks));
    let total = Arc::new(Mutex::new(Stats::default()));
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..args.jobs.max(1) {
            let queue = Arc::clone(&queue);
            let total = Arc::clone(&total);
            let seeds = &seeds;
            s.spawn(move || loop {
                let next = queue.lock().unwrap_or_else(|p| p.into_inner()).pop();
                let Some((mut from, to)) = next else {
                    break;
                };
                while from < to {
                    let (st, stopped) = spawn_worker(args, from, to);
                    let mut t = total.lock().unwrap_or_else(|p| p.into_inner());
                    t.merge(st);
                    match stopped {
                        None => from = to,
                        Some((i, why)) => {
                            let input = generate(seeds, args.seed, i);
                            let f = Finding {
                                index: i,
                                subcommand: why.clone(),
                                seed: input.seed.display().to_string(),
                                message: why.clone(),
                                file: save(&args.out, "crash", &input),
                            };
                            eprintln!("convcheck-fuzz: input {i}: {why} (saved to {})", f.file);
                            t.inputs += 1;
                            if why.starts_with("hang") {
                                t.hangs.push(f);
                            } else {
                                t.crashes.push(f);
                            }
                            // The inputs before `i` in this run are lost
                            // from the figures: rerun them.
                            if i > from {
                                queue
                                    .lock()
                                    .unwrap_or_else(|p| p.into_inner())
                                    .push((from, i));
                            }
                            from = i + 1;
                        }
                    }
                    let done = t.inputs;
                    drop(t);
                    eprint!(
                        "\rconvcheck-fuzz: {done}/{} inputs, {:.0} s",
                        args.inputs,
                        start.elapsed().as_secs_f64()
                    );
                }
            });
        }
    });
    eprintln!();
    let t = total.lock().unwrap_or_else(|p| p.into_inner());
    let secs = start.elapsed().as_secs_f64();
    let summary = format!(
        "convcheck-fuzz --inputs {} --seed {}: {:.0} s ({:.0} inputs/s)\n{}",
        args.inputs,
        args.seed,
        secs,
        t.inputs as f64 / secs.max(1e-9),
        t.summary()
    );
    let _ = std::fs::write(args.out.join("summary.txt"), &summary);
    let _ = std::fs::write(
        args.out.join("summary.json"),
        serde_json::to_string_pretty(&*t).unwrap_or_default(),
    );
    if args.json {
        println!("{}", serde_json::to_string_pretty(&*t).unwrap_or_default());
    } else {
        println!("{summary}");
        for (what, fs) in [
            ("crash", &t.crashes),
            ("hang", &t.hangs),
            ("internal error", &t.internal),
            ("exit-status mismatch", &t.mismatches),
        ] {
            for f in fs.iter().take(20) {
                println!(
                    "{what}: input {} ({}, from {}): {} [{}]",
                    f.index, f.subcommand, f.seed, f.message, f.file
                );
            }
        }
    }
    if t.clean() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn main() -> ExitCode {
    let args = match Args::try_parse() {
        Ok(a) => a,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 3 } else { 0 });
        }
    };
    if args.worker {
        worker(&args)
    } else {
        supervisor(&args)
    }
}
