//! `refine` on `llvm.read_register` (issue 13): a register read is an
//! input of the environment (P-INPUT), per thread for a vector register and
//! the same in every thread for a scalar one (the intrinsic table's class
//! `ByRegister`, read by the uniformity analysis, the interpreter's
//! `machine::program::classify` and the encoder alike), whatever the
//! declaration's attributes. The two formalizations are checked on the
//! same programs: the interpreter's executions show per-thread values
//! exactly for vector registers, and the SMT checker's verdicts follow,
//! each counterexample replayed on the interpreter (R-CEX). (M-AGREE's
//! whole-verdict comparison does not apply: the interpreter chooses an
//! uninterpreted value per program, the encoding shares it between source
//! and target, see `refine::replay`.)

use std::collections::BTreeMap;
use std::path::PathBuf;

use checker::refine::{check_pair, Options, PairResult, Verdict};
use checker::smt::Session;
use semantics::machine::state::Observation;
use semantics::machine::{explore, ArgValues, Options as MOptions};

/// A kernel reading register `reg` into `%r`, then `body`.
fn kernel(reg: &str, body: &str) -> String {
    format!(
        "define void @k(i32 %x) {{\nentry:\n  \
         %r = call i32 @llvm.read_register.i32(metadata !{{!\"{reg}\"}})\n{body}  ret void\n}}\n\
         declare i32 @llvm.read_register.i32(metadata) nounwind memory(read)\n\
         declare i32 @llvm.nvvm.shfl.sync.idx.i32(i32, i32, i32, i32) convergent nounwind\n\
         declare void @use(i32)\n"
    )
}

fn parse(text: &str) -> semantics::ir::Module {
    semantics::parse_module("t.ll", text).expect("test module parses")
}

/// The SMT checker's verdict at 2 threads; a counterexample must replay.
fn smt_refines(src: &str, tgt: &str) -> bool {
    let (s, t) = (parse(src), parse(tgt));
    let o = Options {
        threads: vec![2],
        ..Options::default()
    };
    let mut session = Session::new(None);
    match check_pair(&s, &t, "k", &o, &mut session, true, None) {
        Ok(PairResult::Checked {
            outcome, replay, ..
        }) => {
            if let Some(Err(e)) = replay {
                panic!("R-CEX: the interpreter does not confirm: {e}");
            }
            match outcome.verdict {
                Verdict::Refines { .. } => true,
                Verdict::Counterexample(_) => {
                    assert!(replay.is_some(), "a counterexample is replayed");
                    false
                }
                other => panic!("{other:?}"),
            }
        }
        other => panic!("{other:?}"),
    }
}

/// The interpreter (M-OPER) on 2 threads: whether some execution gives the
/// two threads different values at their first `@use`.
fn interp_threads_can_differ(text: &str) -> bool {
    let m = parse(text);
    let mut args = BTreeMap::new();
    args.insert("x".to_string(), ArgValues::PerThread(vec![0, 0]));
    let opts = MOptions {
        threads: 2,
        args,
        ..MOptions::default()
    };
    let x = explore(&m, &opts).expect("the interpreter runs");
    assert!(x.complete && !x.behaviours.is_empty());
    x.behaviours.iter().any(|b| {
        let first = |t: usize| {
            b.execution.threads[t]
                .observations
                .iter()
                .find_map(|o| match o {
                    Observation::Call { args, .. } => args.first().cloned(),
                    _ => None,
                })
        };
        first(0) != first(1)
    })
}

/// P-INPUT, U-SOURCE `ByRegister`: a scalar register (`s0`, `exec`) holds
/// one value in every thread, a vector register (`v0`, `a3`) one per
/// thread, in the interpreter; so broadcasting lane 0's copy changes
/// nothing for a scalar register and is a counterexample for a vector one
/// in the SMT checker (replayed on the interpreter).
#[test]
fn vector_registers_differ_per_thread_scalar_ones_do_not() {
    let used = "  call void @use(i32 %r)\n";
    let broadcast =
        "  %b = call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 -1, i32 %r, i32 0, i32 31)\n  \
                     call void @use(i32 %b)\n";
    for (reg, vector) in [("s0", false), ("exec", false), ("v0", true), ("a3", true)] {
        assert_eq!(
            interp_threads_can_differ(&kernel(reg, used)),
            vector,
            "{reg}"
        );
        let refines = smt_refines(&kernel(reg, used), &kernel(reg, broadcast));
        assert_eq!(refines, !vector, "{reg}");
    }
}

/// P-INPUT: a register holds one value during the launch: reading it twice
/// gives the same value (the read has no effect to observe).
#[test]
fn a_register_read_twice_is_one_value() {
    let once = kernel("v1", "  call void @use(i32 %r)\n  call void @use(i32 %r)\n");
    let twice = kernel(
        "v1",
        "  call void @use(i32 %r)\n  \
         %r2 = call i32 @llvm.read_register.i32(metadata !{!\"v1\"})\n  call void @use(i32 %r2)\n",
    );
    assert!(smt_refines(&once, &twice));
    assert!(smt_refines(&twice, &once));
}

/// LLVM's own test (Transforms/InstCombine/convergent.ll,
/// `@convergent_intrinsic_call`: a `convergent` call site of
/// `llvm.read_register` with named metadata) was unsupported ("call argument
/// that is not an integer"); it now refines against itself and against
/// opt-22's instcombine output when opt-22 is there.
#[test]
fn llvm_instcombine_convergent_read_register() {
    let shared = std::env::var("CONVCHECK_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
    let path = shared.join("corpus/llvm/llvm/test/Transforms/InstCombine/convergent.ll");
    let Ok(text) = std::fs::read_to_string(&path) else {
        assert!(
            std::env::var("CI").is_err(),
            "{} missing under CI=true",
            path.display()
        );
        eprintln!(
            "SKIPPED (loudly): {} not found; set CONVCHECK_SHARED",
            path.display()
        );
        return;
    };
    let m = semantics::parse_module(&path.display().to_string(), &text).expect("corpus parses");
    let o = Options {
        threads: vec![2],
        ..Options::default()
    };
    let mut session = Session::new(None);
    match check_pair(
        &m,
        &m,
        "convergent_intrinsic_call",
        &o,
        &mut session,
        true,
        None,
    ) {
        Ok(PairResult::Checked { outcome, .. }) => {
            assert!(
                matches!(outcome.verdict, Verdict::Refines { .. }),
                "{:?}",
                outcome.verdict
            )
        }
        other => panic!("{other:?}"),
    }
}
