//! The parser against opt-22 on generated modules (issue 12 item 9, bad
//! input): each module is accepted by both or rejected by both with the
//! same `line:col: error: message` (`read_verdict`'s form).

use std::path::Path;

use crate::oracle::read_verdict;

/// Tally of one differential run.
#[derive(Default)]
pub struct ParseDiff {
    pub accepted: usize,
    pub rejected: usize,
    wrong: Vec<String>,
}

impl ParseDiff {
    /// Parses `text` (as `t.ll`) with opt-22 and with the semantics
    /// parser; a difference is recorded under `label`.
    pub fn check(&mut self, opt: &Path, text: &str, label: &str) {
        let want = read_verdict(opt, text);
        let got = semantics::parse_module("t.ll", text).err().map(|e| {
            let s = e.to_string();
            let line = s.lines().next().unwrap_or("");
            line.strip_prefix("t.ll:").unwrap_or(line).to_string()
        });
        match &want {
            None => self.accepted += 1,
            Some(_) => self.rejected += 1,
        }
        if want != got {
            self.wrong
                .push(format!("{label}\n  opt-22: {want:?}\n  convcheck: {got:?}"));
        }
    }

    /// Panics on any difference, or unless each kind occurred more than
    /// `min_each` times (the run compares rejections, not only
    /// acceptance).
    pub fn finish(self, min_each: usize) {
        let cases = self.accepted + self.rejected;
        assert!(
            self.wrong.is_empty(),
            "{} of {cases} differ:\n{}",
            self.wrong.len(),
            self.wrong.join("\n")
        );
        assert!(
            self.accepted > min_each && self.rejected > min_each,
            "{} accepted, {} rejected",
            self.accepted,
            self.rejected
        );
        eprintln!(
            "{} accepted and {} rejected alike",
            self.accepted, self.rejected
        );
    }
}
