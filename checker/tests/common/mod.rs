//! Shared by the refine test crates (`mod common;`).

use checker::refine::{PairResult, Verdict};

/// The verdict of `check_pair` (run with replay) as the tests compare it:
/// `refines`, `counterexample`, `unknown (why)`, `vacuous (why)`, and for
/// pairs not checked `invalid [rules]` or `unsupported [role] message`.
/// R-CEX: a counterexample the interpreter does not confirm, or one not
/// replayed, fails the test.
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
