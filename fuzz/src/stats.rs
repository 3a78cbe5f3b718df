//! The figures of a campaign: inputs per subcommand, the exit-status
//! histogram, and every finding (crash, hang, internal error, exit status
//! of the binary differing from the in-process one).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One problem found, with what reproduces it.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Finding {
    /// The input's index in the campaign (reproduce with `--from I --to I+1`).
    pub index: u64,
    pub subcommand: String,
    /// The seed file mutated.
    pub seed: String,
    pub message: String,
    /// Where the input was saved.
    pub file: String,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Stats {
    pub inputs: u64,
    /// Subcommand → exit status → count.
    pub exits: BTreeMap<String, BTreeMap<i32, u64>>,
    /// Mutation kind → inputs it was applied to.
    pub mutations: BTreeMap<String, u64>,
    /// Panics (caught in-process, or a signal / status 101 of the binary).
    pub crashes: Vec<Finding>,
    /// Inputs that ran past the watchdog's limit.
    pub hangs: Vec<Finding>,
    /// Exit status 70 without a panic (e.g. a solver sort error in refine).
    pub internal: Vec<Finding>,
    /// Inputs also run through the `convcheck` binary, and the runs.
    pub subprocess_inputs: u64,
    pub subprocess_runs: u64,
    /// The binary's exit status differed from the in-process one.
    pub mismatches: Vec<Finding>,
}

impl Stats {
    pub fn count(&mut self, sub: &str, code: i32) {
        *self
            .exits
            .entry(sub.to_string())
            .or_default()
            .entry(code)
            .or_default() += 1;
    }

    pub fn merge(&mut self, o: Stats) {
        self.inputs += o.inputs;
        for (s, h) in o.exits {
            let e = self.exits.entry(s).or_default();
            for (c, n) in h {
                *e.entry(c).or_default() += n;
            }
        }
        for (m, n) in o.mutations {
            *self.mutations.entry(m).or_default() += n;
        }
        self.crashes.extend(o.crashes);
        self.hangs.extend(o.hangs);
        self.internal.extend(o.internal);
        self.subprocess_inputs += o.subprocess_inputs;
        self.subprocess_runs += o.subprocess_runs;
        self.mismatches.extend(o.mismatches);
    }

    /// Whether nothing was found.
    pub fn clean(&self) -> bool {
        self.crashes.is_empty()
            && self.hangs.is_empty()
            && self.internal.is_empty()
            && self.mismatches.is_empty()
    }

    /// The figures as a Markdown table (the README's "Robustness").
    pub fn table(&self) -> String {
        let codes = [0, 1, 2, 3, 70, 130];
        let mut s = String::from("| subcommand | inputs | 0 | 1 | 2 | 3 | 70 | other |\n");
        s.push_str("|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (sub, h) in &self.exits {
            let total: u64 = h.values().sum();
            let other: u64 = h
                .iter()
                .filter(|(c, _)| !codes[..5].contains(c))
                .map(|(_, n)| n)
                .sum();
            let n = |c: i32| h.get(&c).copied().unwrap_or(0);
            s.push_str(&format!(
                "| `{sub}` | {total} | {} | {} | {} | {} | {} | {other} |\n",
                n(0),
                n(1),
                n(2),
                n(3),
                n(70)
            ));
        }
        s
    }

    pub fn summary(&self) -> String {
        let muts: Vec<String> = self
            .mutations
            .iter()
            .map(|(m, n)| format!("{m} {n}"))
            .collect();
        format!(
            "{} inputs; {} crashes, {} hangs, {} internal errors; {} inputs ({} runs) through the binary, {} exit-status mismatches\nmutations applied: {}\n{}",
            self.inputs,
            self.crashes.len(),
            self.hangs.len(),
            self.internal.len(),
            self.subprocess_inputs,
            self.subprocess_runs,
            self.mismatches.len(),
            muts.join(", "),
            self.table()
        )
    }
}
