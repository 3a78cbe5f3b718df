//! Meta-claims MC-01..MC-07 (CLAIMS.md): generator-based properties run
//! with a fixed seed and a stated size bound, calling the same library
//! functions as the property tests (`semantics/tests/interp_props.rs`,
//! `verify_cycles.rs`, `infer_tokens.rs`, `uniformity_interp.rs`,
//! `checker/tests/refine_agree.rs`). A meta-claim this build cannot
//! check reports `not checked` with the reason; it never passes.
//!
//! Check line: `meta MC-NN --seed S --size N --cases C` (every flag
//! required, so the bounds are always stated in the claim file), or, for
//! MC-05 and MC-06, `meta MC-NN --file PATH`: the property on one program
//! (a recorded counterexample), with the property tests' launch (2
//! threads, `semantics::uniformity::oracle::prepare`).

use semantics::machine::dmax::{check_order, literal_classes};
use semantics::machine::program::Program;
use semantics::machine::{explore, ChooserMode, Options, Outcome, Uncontrolled};
use semantics::parse_module;
use semantics::rules::cycles::cycle_violation_keys;
use semantics::rules::{verify_module, Options as RuleOptions, RuleId};
use testgen::cfg::{arb_cfg, arb_reducible_cfg, GenCfg};
use testgen::tokens::{arb_token_module, arb_valid_token_module};

use super::checks::Obtained;

/// The parsed bounds of a meta check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    pub seed: u8,
    pub size: usize,
    pub cases: usize,
}

/// Parses `MC-NN --seed S --size N --cases C`.
pub fn parse(args: &[String]) -> Result<(String, Bounds), String> {
    let name = args.first().ok_or("meta: missing the claim name")?.clone();
    let (mut seed, mut size, mut cases) = (None, None, None);
    let mut i = 1;
    while i < args.len() {
        let v = args
            .get(i + 1)
            .ok_or_else(|| format!("meta: `{}` needs a value", args[i]))?;
        let n: usize = v
            .parse()
            .map_err(|_| format!("meta: `{}` expects a number, found `{v}`", args[i]))?;
        match args[i].as_str() {
            "--seed" => seed = Some(u8::try_from(n).map_err(|_| "meta: --seed is 0..255")?),
            "--size" => size = Some(n),
            "--cases" => cases = Some(n),
            other => return Err(format!("meta: unknown flag `{other}`")),
        }
        i += 2;
    }
    let need = |x: Option<usize>, k: &str| x.ok_or(format!("meta: `{k}` is required"));
    Ok((
        name,
        Bounds {
            seed: seed.ok_or("meta: `--seed` is required")?,
            size: need(size, "--size")?,
            cases: need(cases, "--cases")?,
        },
    ))
}

/// Replaces branch conditions by reads of the thread's input stream so that
/// threads take every path, loops included (as `interp_props.rs` does).
fn stream_conditions(ll: &str) -> String {
    let mut out = String::new();
    for (n, line) in ll.lines().enumerate() {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix("br i1 %c") {
            let rest = rest.split_once(',').map_or("", |x| x.1);
            out += &format!("  %in.{n} = call i1 @in()\n  br i1 %in.{n},{rest}\n");
        } else if let Some(rest) = t.strip_prefix("switch i32 %s") {
            let rest = rest.split_once(',').map_or("", |x| x.1);
            out += &format!("  %in.{n} = call i32 @in32()\n  switch i32 %in.{n},{rest}\n");
        } else {
            out += line;
            out.push('\n');
        }
    }
    out + "declare i1 @in()\ndeclare i32 @in32()\n"
}

/// `MC-05 --file PATH` / `MC-06 --file PATH` (module doc): `holds` or
/// `fails` with the oracle's report.
fn run_on_file(base: &std::path::Path, args: &[String]) -> Obtained {
    use semantics::uniformity::oracle::{check_m_convergence, check_soundness, prepare};
    let joined = args.join(" ");
    let (name, path) = match args {
        [name, flag, path] if flag == "--file" => (name.as_str(), path),
        _ => return Obtained::error(joined, "meta: expected `MC-NN --file PATH`".into()),
    };
    let bounds = format!("1 program, 2 threads: {path}");
    let path = base.join(path);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => return Obtained::error(bounds, format!("{}: {e}", path.display())),
    };
    let func = text
        .lines()
        .find_map(|l| l.strip_prefix("define "))
        .and_then(|l| l.split_once('@'))
        .and_then(|(_, r)| r.split_once('('))
        .map(|(f, _)| f.to_string())
        .unwrap_or_default();
    let result = prepare(&text, &func, 2).and_then(|(m, o)| match name {
        "MC-05" => check_soundness(&m, &func, &o).map(|c| format!("{c:?}")),
        "MC-06" => check_m_convergence(&m, &func, &o).map(|c| format!("{c:?}")),
        other => Err(format!(
            "meta: `--file` is for MC-05 and MC-06, not {other}"
        )),
    });
    match result {
        Ok(detail) => Obtained {
            verdict: "holds".into(),
            agrees: true,
            bounds,
            detail,
            not_checked: false,
        },
        Err(e) => Obtained {
            verdict: "fails".into(),
            agrees: false,
            bounds,
            detail: e,
            not_checked: false,
        },
    }
}

/// Runs a meta check; paths are relative to `base`.
pub fn run(base: &std::path::Path, args: &[String]) -> Obtained {
    if args.iter().any(|a| a == "--file") {
        return run_on_file(base, args);
    }
    let (name, b) = match parse(args) {
        Ok(x) => x,
        Err(e) => {
            return Obtained {
                verdict: format!("error: {e}"),
                agrees: false,
                bounds: args.join(" "),
                detail: e,
                not_checked: false,
            }
        }
    };
    let bounds = format!("seed {}, size {}, {} programs", b.seed, b.size, b.cases);
    let result = match name.as_str() {
        "MC-01" => mc01(b),
        "MC-02" => mc02(b),
        "MC-03" => mc03(b),
        "MC-04" => mc04(b, false),
        "MC-04/llvm" => mc04(b, true),
        "MC-05" => mc05(b),
        "MC-06" => mc06(b),
        "MC-07" => mc07(b),
        other => {
            return Obtained {
                verdict: format!("error: unknown meta-claim {other}"),
                agrees: false,
                bounds,
                detail: String::new(),
                not_checked: false,
            }
        }
    };
    match result {
        Ok(c) => Obtained {
            verdict: format!("holds on {}/{} programs", c.held, b.cases),
            agrees: true,
            bounds,
            detail: c.detail,
            not_checked: false,
        },
        Err(cex) => Obtained {
            verdict: "fails".into(),
            agrees: false,
            bounds,
            detail: cex,
            not_checked: false,
        },
    }
}

/// What a meta-claim covered when it held.
struct Covered {
    /// Generated programs (or pairs) the property was checked on and held
    /// for; the others of the stated `--cases` were outside the claim
    /// (e.g. not passing the static rules) and the detail says why.
    held: usize,
    /// Coverage counts (executions, pairs compared, ...).
    detail: String,
}

/// `Ok(coverage)` or `Err(counterexample text)`.
type Property = Result<Covered, String>;

/// MC-01: on programs that follow the static rules, no execution derives a
/// contradiction (D-INST, D-CW) and every execution satisfies D-ORDER.
fn mc01(b: Bounds) -> Property {
    let progs = testgen::sample(&arb_valid_token_module(b.size), b.cases, b.seed);
    let (mut covered, mut execs) = (0, 0);
    for p in &progs {
        let text = stream_conditions(&p.to_ll());
        let Ok(m) = parse_module("mc01.ll", &text) else {
            return Err(format!("generated module does not parse:\n{text}"));
        };
        if !verify_module(&m, &RuleOptions::default())
            .violations
            .is_empty()
        {
            continue;
        }
        let opts = Options {
            threads: 3,
            max_steps: 30,
            chooser: ChooserMode::Random { seed: 1, runs: 60 },
            int_domain: vec![0, 1],
            ..Options::default()
        };
        let ex = match explore(&m, &opts) {
            Ok(x) => x,
            Err(e) => return Err(format!("{e} on\n{text}")),
        };
        covered += 1;
        for beh in &ex.behaviours {
            execs += 1;
            if let Outcome::Contradiction { .. } = beh.execution.outcome {
                return Err(format!(
                    "contradiction {:?} on\n{text}",
                    beh.execution.outcome
                ));
            }
            if let Err(e) = check_order(&beh.execution) {
                return Err(format!("D-ORDER: {e} on\n{text}"));
            }
        }
    }
    Ok(Covered {
        held: covered,
        detail: format!("{covered} valid programs, {execs} behaviours"),
    })
}

fn cfg_module(cfg: &GenCfg) -> String {
    let ll = cfg.to_ll("k");
    let mut out = String::new();
    for line in ll.lines() {
        let t = line.trim_start();
        if t.starts_with("define void @k(") {
            let attrs = t.split_once(')').map_or("", |x| x.1);
            out += &format!("define void @k(){attrs}\n");
        } else {
            out += line;
            out.push('\n');
        }
    }
    stream_conditions(&out)
}

/// MC-02: D-MAX (literal, over complete traces) and D-MAX-ITER (the
/// interpreter's keys) give the same converged-with classes.
fn mc02(b: Bounds) -> Property {
    let cfgs = testgen::sample(&arb_cfg(b.size), b.cases, b.seed);
    let (mut covered, mut compared) = (0, 0);
    for cfg in &cfgs {
        let text = cfg_module(cfg);
        let Ok(m) = parse_module("mc02.ll", &text) else {
            return Err(format!("generated module does not parse:\n{text}"));
        };
        let opts = Options {
            threads: 2,
            max_steps: 10,
            max_executions: 2000,
            ..Options::default()
        };
        let ex = match explore(&m, &opts) {
            Ok(x) => x,
            Err(e) => return Err(format!("{e} on\n{text}")),
        };
        let Some(kernel) = m.functions.iter().position(|f| f.name == "k") else {
            return Err(format!("no kernel @k in\n{text}"));
        };
        let prog = Program::new(&m, kernel);
        covered += 1;
        for beh in &ex.behaviours {
            let e = &beh.execution;
            if e.outcome != Outcome::Finished {
                continue;
            }
            let Some(lit) = literal_classes(&prog, e) else {
                continue;
            };
            if lit != e.visit_classes() {
                return Err(format!("literal and operational D-MAX differ on\n{text}"));
            }
            compared += 1;
        }
    }
    Ok(Covered {
        held: covered,
        detail: format!("{covered} CFGs, {compared} finished executions compared"),
    })
}

/// MC-03 (S-CYCLE-SUFF): checking cycles finds the same S-CYCLE violations
/// as checking every closed path of up to 2n+2 edges.
fn mc03(b: Bounds) -> Property {
    let progs = testgen::sample(&arb_token_module(b.size), b.cases, b.seed);
    let (mut covered, mut with_cycle_violation, mut skipped) = (0, 0, 0);
    for p in &progs {
        let text = p.to_ll();
        let Ok(m) = parse_module("mc03.ll", &text) else {
            return Err(format!("generated module does not parse:\n{text}"));
        };
        let n = m
            .functions
            .iter()
            .map(|f| f.blocks.len())
            .max()
            .unwrap_or(0);
        let by_cycles = verify_module(&m, &RuleOptions::default());
        // S-CYCLE-SUFF presupposes SSA form (P-PROG): a token use its
        // definition does not dominate is outside the claim, as in the
        // property test (which generates dominating uses only).
        if by_cycles.violations.iter().any(|v| v.rule == RuleId::PProg) {
            skipped += 1;
            continue;
        }
        let by_paths = verify_module(
            &m,
            &RuleOptions {
                llvm_compatible: false,
                closed_paths: Some(2 * n + 2),
            },
        );
        let (a, c) = (
            cycle_violation_keys(&by_cycles.violations),
            cycle_violation_keys(&by_paths.violations),
        );
        if a != c {
            return Err(format!("cycles {a:?} vs closed paths {c:?} on\n{text}"));
        }
        covered += 1;
        if !a.is_empty() {
            with_cycle_violation += 1;
        }
    }
    Ok(Covered {
        held: covered,
        detail: format!(
            "{covered} programs ({skipped} non-SSA skipped), {with_cycle_violation} with S-CYCLE violations"
        ),
    })
}

/// MC-04: token inference yields a program that passes the static rules,
/// and (on reducible CFGs) the `inferred` mode gives the same communicating
/// sets of `@op` as `maximal` on every complete exploration.
///
/// `llvm_rules`: check the inferred program with LLVM 22's verifier rules
/// (`--llvm-compatible`, which ignore unreachable code) instead of the
/// documents' (which check every closed path, unreachable ones included:
/// finding F-06).
fn mc04(b: Bounds, llvm_rules: bool) -> Property {
    use semantics::infer::infer_tokens;
    let cfgs = testgen::sample(&arb_reducible_cfg(b.size), b.cases, b.seed);
    let (mut covered, mut compared) = (0, 0);
    for (i, cfg) in cfgs.iter().enumerate() {
        let body = |blk: usize| {
            if (blk + i).is_multiple_of(2) {
                vec![format!("%op{blk} = call i32 @op(i32 {blk})")]
            } else {
                Vec::new()
            }
        };
        let ll = cfg.to_ll_with("k", "", &body);
        let mut text = String::new();
        for line in ll.lines() {
            let t = line.trim_start();
            if t.starts_with("define void @k(") {
                let attrs = t.split_once(')').map_or("", |x| x.1);
                text += &format!("define void @k(){attrs}\n");
            } else {
                text += line;
                text.push('\n');
            }
        }
        let text = stream_conditions(&text) + "declare i32 @op(i32) convergent\n";
        let Ok(m) = parse_module("mc04.ll", &text) else {
            return Err(format!("generated module does not parse:\n{text}"));
        };
        let inferred = match infer_tokens(&m) {
            Ok(x) => x,
            Err(e) => return Err(format!("inference failed: {e:?} on\n{text}")),
        };
        let report = verify_module(
            &inferred,
            &RuleOptions {
                llvm_compatible: llvm_rules,
                closed_paths: None,
            },
        );
        if !report.violations.is_empty() {
            return Err(format!(
                "inferred program breaks {:?} on\n{text}",
                report.rules()
            ));
        }
        covered += 1;
        let opts = Options {
            threads: 2,
            max_steps: 7,
            max_executions: 1500,
            ..Options::default()
        };
        let (Ok(max), Ok(inf)) = (
            explore(&m, &opts),
            explore(
                &m,
                &Options {
                    uncontrolled: Uncontrolled::Inferred,
                    ..opts.clone()
                },
            ),
        ) else {
            return Err(format!("exploration failed on\n{text}"));
        };
        if !max.complete || !inf.complete {
            continue;
        }
        if super::sets::op_sets(&max) != super::sets::op_sets(&inf) {
            return Err(format!("maximal and inferred differ on\n{text}"));
        }
        compared += 1;
    }
    Ok(Covered {
        held: covered,
        detail: format!(
            "{covered} programs verified after inference, {compared} compared with maximal"
        ),
    })
}

/// The generated uniformity programs of MC-05 / MC-06 (at most `size`
/// blocks, stores dropped), each with its thread count (2 or 3), as the
/// property tests draw them.
fn uniformity_programs(b: Bounds) -> Vec<(testgen::uniformity::UFunc, u32)> {
    let strategy = testgen::uniformity::arb_launch_sized(b.size);
    testgen::sample(&strategy, b.cases, b.seed)
        .into_iter()
        .map(|(u, threads)| (u.without_stores(), threads))
        .collect()
}

/// The verdict of a meta-claim that checks every program and keeps the
/// first failure: `Err` names how many held and shows the first failure.
fn tally(held: usize, cases: usize, first: Option<String>, detail: String) -> Property {
    match first {
        None => Ok(Covered { held, detail }),
        Some(f) => Err(format!("{held} of {cases} held; first failure:\n{f}")),
    }
}

/// Runs `check` on every program of [`uniformity_programs`] (parsed, with
/// the oracle's launch) and `add`s what each one that holds reports;
/// returns how many held and the first failure with its program.
fn over_uniformity_programs<T>(
    b: Bounds,
    check: &dyn Fn(&semantics::ir::Module, &str, &semantics::machine::Options) -> Result<T, String>,
    add: &mut dyn FnMut(T),
) -> (usize, Option<String>) {
    let (mut held, mut first) = (0, None);
    for (u, threads) in uniformity_programs(b) {
        let text = u.to_llvm() + testgen::uniformity::DECLARATIONS;
        let r = semantics::uniformity::oracle::prepare(&text, &u.name, threads)
            .and_then(|(m, o)| check(&m, &u.name, &o));
        match r {
            Ok(c) => {
                add(c);
                held += 1;
            }
            Err(e) => {
                first.get_or_insert(format!("{e} ({threads} threads) on\n{text}"));
            }
        }
    }
    (held, first)
}

/// MC-05 (U-DEF, U-FIX): the uniformity analysis is sound against the
/// interpreter (`semantics::uniformity::oracle::check_soundness`).
fn mc05(b: Bounds) -> Property {
    use semantics::uniformity::oracle::{check_soundness, SoundnessCounts};
    let mut total = SoundnessCounts::default();
    let (held, first) = over_uniformity_programs(b, &check_soundness, &mut |c| total.add(c));
    let detail = format!(
        "{} executions, {} converged pairs of uniform values compared, {} of divergent values differ",
        total.executions, total.uniform_pairs, total.divergent_unequal
    );
    tally(held, b.cases, first, detail)
}

/// MC-06 (U-MCONV, D-HIER): blocks the analysis treats as m-converged have
/// the same relation in every cycle hierarchy
/// (`semantics::uniformity::oracle::check_m_convergence`).
fn mc06(b: Bounds) -> Property {
    use semantics::uniformity::oracle::check_m_convergence;
    let (mut multi, mut differing) = (0, 0);
    let (held, first) = over_uniformity_programs(b, &check_m_convergence, &mut |c| {
        multi += usize::from(c.hierarchies > 1);
        differing += c.differing_blocks;
    });
    let detail = format!(
        "{multi} programs with several cycle hierarchies, {differing} hierarchy-dependent blocks (all in cycles assumed divergent)"
    );
    tally(held, b.cases, first, detail)
}

/// MC-07 (M-AGREE): the interpreter and the SMT checker give the same
/// verdict on each generated pair (a program of `testgen::refine_family`
/// with at most `size` convergent operations, and a mutation of it), via
/// `checker::agree::check_agreement`.
fn mc07(b: Bounds) -> Property {
    use testgen::refine_family::{arb_mutation, arb_prog, mutate, render};
    let pairs = testgen::sample(&(arb_prog(b.size), arb_mutation()), b.cases, b.seed);
    let (mut refines, mut fails, mut first) = (0, 0, None);
    for (p, (i, to)) in &pairs {
        let (st, tt) = (render(p), render(&mutate(p, *i, *to)));
        match crate::agree::check_agreement(&st, &tt) {
            Ok(true) => refines += 1,
            Ok(false) => fails += 1,
            Err(e) => {
                first.get_or_insert(format!("{e}\nsource:\n{st}\ntarget:\n{tt}"));
            }
        }
    }
    let detail =
        format!("both say refines on {refines} pairs, both find a counterexample on {fails}");
    tally(refines + fails, b.cases, first, detail)
}
