//! Shared by the refine test crates (`mod common;`).

use checker::refine::{PairResult, Verdict};

/// The verdict of `check_pair` (run with replay) as the tests compare it:
/// `refines`, `counterexample`, `unknown (why)`, `vacuous (why)`, and for
/// pairs not checked `invalid [rules]` or `unsupported [role] message`.
/// R-CEX: a counterexample the interpreter does not confirm, or one not
/// replayed, fails the test.
#[allow(dead_code)] // the MC-07 crates use only `mc07_generated`
pub fn verdict_name(result: PairResult) -> String {
    match result {
        PairResult::Invalid { rules, .. } => format!("invalid {rules:?}"),
        PairResult::Unsupported { role, message, .. } => format!("unsupported [{role}] {message}"),
        PairResult::Checked {
            outcome, replay, ..
        } => {
            if let Some(Err(e)) = replay {
                panic!("R-CEX: the interpreter does not confirm: {e}");
            }
            match outcome.verdict {
                Verdict::Refines { .. } => "refines".into(),
                Verdict::Counterexample(_) => {
                    assert!(replay.is_some(), "a counterexample is replayed");
                    "counterexample".into()
                }
                Verdict::Unknown(w) => format!("unknown ({w})"),
                Verdict::Vacuous(w) => format!("vacuous ({w})"),
            }
        }
    }
}

/// What an MC-07 (M-AGREE) run over generated pairs counted: pairs both
/// formalizations call refining, pairs both call different (counterexample
/// replayed, R-CEX), and pairs whose source has UB on every launch.
#[allow(dead_code)] // not every crate that shares this module runs MC-07
pub struct Mc07Tally {
    pub refines: usize,
    pub differ: usize,
    pub vacuous: usize,
}

/// MC-07 (M-AGREE) on `cases` generated inputs: `pair` renders each as a
/// (source, target) text and `check` compares the SMT checker with the
/// interpreter (`Ok(true)`: both say refines). A source with UB on every
/// launch is the checker's `vacuous` verdict (STYLE 9); the interpreter
/// must then find that everything refines it. Any disagreement fails the
/// test with both programs.
#[allow(dead_code)]
pub fn mc07_generated<S: proptest::strategy::Strategy>(
    cases: u32,
    inputs: S,
    pair: impl Fn(S::Value) -> (String, String),
    check: impl Fn(&str, &str) -> Result<bool, String>,
) -> Mc07Tally {
    use proptest::test_runner::{Config, TestCaseError, TestRunner};
    use std::cell::Cell;
    let (refines, differ, vacuous) = (Cell::new(0), Cell::new(0), Cell::new(0));
    let mut runner = TestRunner::new(Config {
        cases,
        ..Config::default()
    });
    let r = runner.run(&inputs, |v| {
        let (st, tt) = pair(v);
        let r = check(&st, &tt);
        if matches!(&r, Err(e) if e.contains("Vacuous(SourceAlwaysUb)")) {
            let parse = |t: &str| semantics::parse_module("gen.ll", t).expect("generated");
            if checker::agree::interp_refines(&parse(&st), &parse(&tt)) != Ok(true) {
                return Err(TestCaseError::fail(format!(
                    "vacuous source that the interpreter does not find always UB:\n{st}"
                )));
            }
            vacuous.set(vacuous.get() + 1);
            return Ok(());
        }
        match r {
            Ok(true) => refines.set(refines.get() + 1),
            Ok(false) => differ.set(differ.get() + 1),
            Err(e) => {
                return Err(TestCaseError::fail(format!(
                    "{e}\nsource:\n{st}\ntarget:\n{tt}"
                )))
            }
        }
        Ok(())
    });
    if let Err(e) = r {
        panic!("{e}");
    }
    Mc07Tally {
        refines: refines.get(),
        differ: differ.get(),
        vacuous: vacuous.get(),
    }
}

/// What the memory tests compare (R-MEM-SMT): the verdict of a checked
/// pair, or the unsupported construct's message.
#[allow(dead_code)] // used by the memory crates only
#[derive(Debug, PartialEq)]
pub enum Got {
    Refines,
    Cex,
    Vacuous,
    Unsupported(String),
}

/// The SMT checker on kernel `@k` of `src` and `tgt` (each with `decls`
/// appended) at `threads`. R-CEX: a counterexample must replay on the
/// interpreter on both sides; an unknown verdict or an error fails the
/// test.
#[allow(dead_code)] // used by the memory crates only
/// M-AGREE on a memory pair: the interpreter's verdict and the checker's
/// (`checker::agree::agreement_memory`), each program with `decls`
/// appended; an error fails the test.
pub fn agree_memory(src: &str, tgt: &str, decls: &str) -> checker::agree::MemAgree {
    let with = |t: &str| format!("{t}\n{decls}");
    checker::agree::agreement_memory(&with(src), &with(tgt)).unwrap_or_else(|e| panic!("{e}"))
}

#[allow(dead_code)] // used by the memory crates only
pub fn check_memory(src: &str, tgt: &str, decls: &str, threads: Vec<usize>) -> Got {
    use checker::refine::{check_pair, Options};
    let parse = |text: &str| {
        semantics::parse_module("t.ll", &format!("{text}\n{decls}")).expect("test module parses")
    };
    let (s, t) = (parse(src), parse(tgt));
    let o = Options {
        threads,
        ..Options::default()
    };
    let mut session = checker::smt::Session::new(None);
    match check_pair(&s, &t, "k", &o, &mut session, true, None) {
        Ok(PairResult::Checked {
            outcome, replay, ..
        }) => {
            if let Some(Err(e)) = replay {
                panic!("R-CEX: the interpreter does not confirm: {e}");
            }
            match outcome.verdict {
                Verdict::Refines { .. } => Got::Refines,
                Verdict::Counterexample(c) => {
                    assert!(
                        matches!(replay, Some(Ok(ref r)) if r.source_checked),
                        "a memory counterexample is replayed on both sides: {replay:?}"
                    );
                    eprintln!("cex memory {:?} buffers {:?}", c.memory, c.buffers);
                    Got::Cex
                }
                Verdict::Vacuous(_) => Got::Vacuous,
                other => panic!("{other:?}"),
            }
        }
        Ok(PairResult::Unsupported { message, .. }) => Got::Unsupported(message),
        Ok(other) => panic!("{other:?}"),
        Err(e) => panic!("{e}"),
    }
}
