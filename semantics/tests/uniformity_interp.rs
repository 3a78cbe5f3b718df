//! MC-05 and MC-06: the uniformity analysis against the reference
//! interpreter.
//!
//! MC-05: the analysis is sound. For generated programs (testgen::uniformity) and launches
//! (uniform values for kernel and `inreg` arguments, distinct per-thread
//! values for the others), every value the analysis calls uniform (rule
//! U-DEF) is equal in every pair of converged instances (D-CW: block visits
//! in one converged-with class) of every finished execution the
//! interpreter finds.
//!
//! Values are observed by instrumenting the program: before each
//! terminator, one call `@obs(i32 %v)` / `@obsb(i1 %c)` per value defined in
//! the block. Calls to these unknown non-convergent functions are
//! observable (P-INPUT, R-OBS) and change no value, so the k-th
//! observations of a visit of block B are the values of B's k-th
//! definition in that visit. Stores are dropped (they define nothing).
//!
//! MC-06: blocks the analysis treats as m-converged (every block outside
//! the cycles it reports as assumed divergent, rule U-MCONV) have the same
//! converged-with relation in every cycle hierarchy the interpreter
//! enumerates (D-HIER, `machine::dmax::not_m_converged`).

mod unif_support;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use proptest::prelude::{prop_assert, proptest, ProptestConfig};
use semantics::cfg::{Cfg, CycleInfo, DomTree};
use semantics::ir::Module;
use semantics::machine::dmax::not_m_converged;
use semantics::machine::state::Observation;
use semantics::machine::{explore, ArgValues, ChooserMode, Options, Outcome, Val};
use semantics::parse_module;
use semantics::uniformity::analysis::Analysis;
use testgen::uniformity::{gen_function, UFunc, UInst, UOp, UTerm};
use unif_support::ugen;

fn op(o: &UOp) -> String {
    match o {
        UOp::Arg(i) => format!("%a{i}"),
        UOp::Val(v) => format!("%v{v}"),
        UOp::Const(c) => c.to_string(),
    }
}

/// The instrumented program, and per block the defined values it observes
/// (value id, is i1), in order.
fn instrumented(u: &UFunc) -> (String, Vec<Vec<(usize, bool)>>) {
    let mut s = String::new();
    let cc = if u.kernel { "amdgpu_kernel " } else { "" };
    let params: Vec<String> = u
        .inreg
        .iter()
        .enumerate()
        .map(|(i, &r)| format!("i32 {}%a{i}", if r { "inreg " } else { "" }))
        .collect();
    let _ = writeln!(s, "define {cc}void @k({}) {{", params.join(", "));
    let mut observed = Vec::new();
    for (bi, b) in u.blocks.iter().enumerate() {
        let _ = writeln!(s, "b{bi}:");
        let mut obs = Vec::new();
        for i in &b.insts {
            let line = match i {
                UInst::Tid { dst } => {
                    obs.push((*dst, false));
                    format!("%v{dst} = call i32 @llvm.amdgcn.workitem.id.x()")
                }
                UInst::Add { dst, a, b } => {
                    obs.push((*dst, false));
                    format!("%v{dst} = add i32 {}, {}", op(a), op(b))
                }
                UInst::ReadFirstLane { dst, a } => {
                    obs.push((*dst, false));
                    format!(
                        "%v{dst} = call i32 @llvm.amdgcn.readfirstlane.i32(i32 {})",
                        op(a)
                    )
                }
                UInst::Phi { dst, incoming } => {
                    obs.push((*dst, false));
                    let ins: Vec<String> = incoming
                        .iter()
                        .map(|(o, p)| format!("[ {}, %b{p} ]", op(o)))
                        .collect();
                    format!("%v{dst} = phi i32 {}", ins.join(", "))
                }
                UInst::Cmp { dst, a, b } => {
                    obs.push((*dst, true));
                    format!("%v{dst} = icmp slt i32 {}, {}", op(a), op(b))
                }
                UInst::Store { .. } => continue,
            };
            let _ = writeln!(s, "  {line}");
        }
        for (v, is_bool) in &obs {
            if *is_bool {
                let _ = writeln!(s, "  call void @obsb(i1 %v{v})");
            } else {
                let _ = writeln!(s, "  call void @obs(i32 %v{v})");
            }
        }
        let t = match &b.term {
            UTerm::Br(t) => format!("br label %b{t}"),
            UTerm::CondBr { cond, t, f } => format!("br i1 %v{cond}, label %b{t}, label %b{f}"),
            UTerm::Switch { on, default, cases } => {
                testgen::uniformity::switch_text(*on, *default, cases)
            }
            UTerm::Ret => "ret void".into(),
            UTerm::Unreachable => "unreachable".into(),
        };
        let _ = writeln!(s, "  {t}");
        observed.push(obs);
    }
    s.push_str("}\ndeclare i32 @llvm.amdgcn.workitem.id.x()\n");
    s.push_str("declare i32 @llvm.amdgcn.readfirstlane.i32(i32)\n");
    s.push_str("declare void @obs(i32)\ndeclare void @obsb(i1)\n");
    (s, observed)
}

/// The blocks inside a cycle the analysis assumes divergent (U-MCONV).
fn not_m_converged_by_analysis(u: &UFunc) -> BTreeSet<usize> {
    let mut m = Module::default();
    m.functions.push(ugen::build(u));
    m.functions.extend(ugen::declarations());
    let f = &m.functions[0];
    let cfg = Cfg::from_function(f);
    let dt = DomTree::dominators(&cfg);
    let ci = CycleInfo::compute(&cfg);
    let mut a = Analysis::new(&m, f, &cfg, &dt, &ci);
    a.run();
    a.assumed_divergent
        .iter()
        .flat_map(|c| ci.cycles[c.0].blocks.iter().map(|b| b.0))
        .collect()
}

/// The analysis verdict of each value id of `u` (true: divergent).
fn verdicts(u: &UFunc) -> BTreeMap<usize, bool> {
    let mut m = Module::default();
    m.functions.push(ugen::build(u));
    m.functions.extend(ugen::declarations());
    let f = &m.functions[0];
    let cfg = Cfg::from_function(f);
    let dt = DomTree::dominators(&cfg);
    let ci = CycleInfo::compute(&cfg);
    let mut a = Analysis::new(&m, f, &cfg, &dt, &ci);
    a.run();
    let mut out = BTreeMap::new();
    for (bi, b) in u.blocks.iter().enumerate() {
        for (ii, i) in b.insts.iter().enumerate() {
            let dst = match i {
                UInst::Tid { dst }
                | UInst::Add { dst, .. }
                | UInst::ReadFirstLane { dst, .. }
                | UInst::Phi { dst, .. }
                | UInst::Cmp { dst, .. } => *dst,
                UInst::Store { .. } => continue,
            };
            out.insert(dst, a.div_insts[bi][ii]);
        }
    }
    out
}

/// Counts of what one program's check compared.
#[derive(Default, Debug)]
struct Checked {
    executions: usize,
    /// Converged pairs of instances of uniform values compared.
    uniform_pairs: usize,
    /// Converged pairs of instances of divergent values with unequal values
    /// (the analysis was needed).
    divergent_unequal: usize,
}

/// The launch: uniform values for kernel and `inreg` arguments, distinct
/// per-thread values for the others.
fn launch(u: &UFunc, threads: u32) -> Options {
    let mut args = BTreeMap::new();
    for (i, &r) in u.inreg.iter().enumerate() {
        let v = if u.kernel || r {
            ArgValues::Uniform(3 + i as i128)
        } else {
            ArgValues::PerThread(
                (0..threads)
                    .map(|t| (t as i128) * 5 - 2 + i as i128)
                    .collect(),
            )
        };
        args.insert(format!("a{i}"), v);
    }
    Options {
        threads,
        max_steps: 60,
        max_executions: 300,
        args,
        chooser: ChooserMode::Exhaustive,
        ..Options::default()
    }
}

/// MC-05 on one program; `Err` describes a violation.
fn check(u: &UFunc, threads: u32) -> Result<Checked, String> {
    let (text, observed) = instrumented(u);
    let module = parse_module("mc05.ll", &text).map_err(|e| format!("parse: {e}\n{text}"))?;
    let div = verdicts(u);
    let opts = launch(u, threads);
    let ex = explore(&module, &opts).map_err(|e| format!("explore: {e:?}\n{text}"))?;
    let mut c = Checked::default();
    for b in &ex.behaviours {
        let e = &b.execution;
        if e.outcome != Outcome::Finished {
            continue;
        }
        c.executions += 1;
        // Per visit, the observed values in order.
        let mut at: BTreeMap<(usize, usize), Vec<Val>> = BTreeMap::new();
        for (t, th) in e.threads.iter().enumerate() {
            let mut obs = th.observations.iter().filter_map(|o| match o {
                Observation::Call { callee, args, .. } if callee == "obs" || callee == "obsb" => {
                    args.first().copied()
                }
                _ => None,
            });
            for (p, v) in th.trace.iter().enumerate() {
                let vals: Vec<Val> = obs.by_ref().take(observed[v.block.0].len()).collect();
                at.insert((t, p), vals);
            }
        }
        for class in e.visit_classes() {
            let (t0, p0) = class[0];
            let block = e.threads[t0].trace[p0].block.0;
            for &(t, p) in &class[1..] {
                for (k, (dst, _)) in observed[block].iter().enumerate() {
                    let (x, y) = (at[&(t0, p0)].get(k), at[&(t, p)].get(k));
                    if div[dst] {
                        c.divergent_unequal += usize::from(x != y);
                        continue;
                    }
                    c.uniform_pairs += 1;
                    if x != y {
                        return Err(format!(
                            "MC-05: %v{dst} (block b{block}) is uniform by the analysis but \
                             converged instances of threads {t0} and {t} read {x:?} and {y:?}\n{text}"
                        ));
                    }
                }
            }
        }
    }
    Ok(c)
}

/// MC-06 on one program: returns (hierarchies explored, blocks whose
/// relation differs between hierarchies); `Err` on a violation.
fn check_mconv(u: &UFunc, threads: u32) -> Result<(usize, usize), String> {
    let (text, _) = instrumented(u);
    let module = parse_module("mc06.ll", &text).map_err(|e| format!("parse: {e}\n{text}"))?;
    let ex = explore(&module, &launch(u, threads)).map_err(|e| format!("explore: {e:?}"))?;
    let claimed = not_m_converged_by_analysis(u);
    let observed = not_m_converged(&ex);
    for (_, b) in &observed {
        if !claimed.contains(&b.0) {
            return Err(format!(
                "MC-06: block b{} is m-converged by the analysis (no assumed-divergent \
                 cycle contains it) but its converged-with relation differs between \
                 cycle hierarchies\n{text}",
                b.0
            ));
        }
    }
    let hierarchies = ex.hierarchies.iter().map(|h| h.1).max().unwrap_or(1);
    Ok((hierarchies, observed.len()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// MC-05 (rules U-DEF, U-FIX) on random generated programs.
    #[test]
    fn mc05_uniform_values_are_equal_in_converged_instances(
        u in testgen::uniformity::arb_function(),
        three in proptest::bool::ANY,
    ) {
        let r = check(&u, if three { 3 } else { 2 });
        prop_assert!(r.is_ok(), "{}", r.err().unwrap_or_default());
    }
}

/// MC-05 is not vacuous: on a fixed sample, many converged pairs of
/// uniform values are compared, and divergent values do differ in
/// converged instances (so the launches separate threads).
#[test]
fn mc05_sample_compares_many_converged_pairs() {
    let mut total = Checked::default();
    for id in 0..600u64 {
        let u = gen_function(0x5EED ^ id.wrapping_mul(0x9E37), "k");
        match check(&u, 2) {
            Ok(c) => {
                total.executions += c.executions;
                total.uniform_pairs += c.uniform_pairs;
                total.divergent_unequal += c.divergent_unequal;
            }
            Err(e) => panic!("{e}"),
        }
    }
    eprintln!("MC-05 sample: {total:?}");
    assert!(total.executions >= 300, "{total:?}");
    assert!(total.uniform_pairs >= 900, "{total:?}");
    assert!(total.divergent_unequal >= 300, "{total:?}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// MC-06 (rules U-MCONV, D-HIER) on random generated programs.
    #[test]
    fn mc06_m_converged_blocks_agree_across_hierarchies(
        u in testgen::uniformity::arb_function(),
        three in proptest::bool::ANY,
    ) {
        let r = check_mconv(&u, if three { 3 } else { 2 });
        prop_assert!(r.is_ok(), "{}", r.err().unwrap_or_default());
    }
}

/// MC-06 is not vacuous: the sample has programs with several hierarchies
/// and blocks whose relation does differ between them (all inside cycles
/// the analysis assumes divergent).
#[test]
fn mc06_sample_has_hierarchy_dependent_blocks() {
    let (mut multi, mut differing) = (0, 0);
    for id in 0..600u64 {
        let u = gen_function(0x5EED ^ id.wrapping_mul(0x9E37), "k");
        match check_mconv(&u, 2) {
            Ok((h, d)) => {
                multi += usize::from(h > 1);
                differing += d;
            }
            Err(e) => panic!("{e}"),
        }
    }
    eprintln!("MC-06 sample: {multi} programs with several hierarchies, {differing} hierarchy-dependent blocks");
    assert!(multi >= 20 && differing >= 5, "{multi} {differing}");
}

/// U-9 (proofs/FINDINGS.md): LLVM 22's analysis, and ours since it follows
/// LLVM (U-LLVM), call `%use` uniform in
/// examples/uniformity/u9_assumed_divergent_exit.ll, but the interpreter
/// finds converged instances of it (D-MAX, outside every cycle) storing
/// different values. This documents an LLVM approximation that breaks
/// U-DEF; it fails if either side changes.
#[test]
fn u9_llvm_misses_temporal_divergence_of_always_uniform_values() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/uniformity/u9_assumed_divergent_exit.ll");
    let text = std::fs::read_to_string(&path).expect("example readable");
    let module = parse_module("u9.ll", &text).expect("parses");
    let result = &semantics::uniformity::analyze_module(&module)[0];
    let use_verdict = result
        .blocks
        .iter()
        .flat_map(|b| &b.definitions)
        .find(|d| d.text.starts_with("%use = "))
        .expect("%use is analysed");
    assert!(
        !use_verdict.divergent,
        "the analysis (like LLVM 22) calls %use uniform"
    );
    assert!(result
        .cycles_assumed_divergent
        .iter()
        .any(|c| c.contains("entries(R P)")));

    let mut args = BTreeMap::new();
    args.insert("uni.enter".to_string(), ArgValues::Uniform(1));
    let opts = Options {
        threads: 2,
        max_steps: 100,
        args,
        ..Options::default()
    };
    let ex = explore(&module, &opts).expect("explores");
    let f = &module.functions[0];
    let exit = f
        .block_ids()
        .find(|&b| f.block_name(b) == "exit")
        .expect("exit block");
    let mut witnessed = false;
    for b in &ex.behaviours {
        let e = &b.execution;
        if e.outcome != Outcome::Finished {
            continue;
        }
        let stored: Vec<Option<Val>> = e
            .threads
            .iter()
            .map(|th| {
                th.observations.iter().find_map(|o| match o {
                    Observation::Store { value, .. } => Some(*value),
                    _ => None,
                })
            })
            .collect();
        for class in e.visit_classes() {
            let in_exit = class
                .iter()
                .filter(|&&(t, p)| e.threads[t].trace[p].block == exit)
                .count();
            if in_exit == 2 && stored[0] != stored[1] {
                eprintln!("U-9: converged instances of %use store {stored:?}");
                witnessed = true;
            }
        }
    }
    assert!(
        witnessed,
        "the interpreter shows converged instances of %use with different values"
    );
}
