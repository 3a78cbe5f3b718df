//! The one source of nondeterminism (STYLE 12). Every choice the semantics
//! leaves open — unspecified inputs, input-stream values, uninterpreted
//! results, which communicating set fires next (M-OPER), anchor sets
//! (D-ANCHOR), cycle hierarchies (D-HIER) — is a call to [`Chooser::choose`].
//!
//! Exhaustive mode enumerates every sequence of choices depth-first by
//! replay: an execution is re-run with a recorded prefix of choices, and
//! the last choice that still has an untried alternative is advanced. The
//! re-run starts from the launch, or (checkpoints, [`Chooser::resume_at`])
//! from a saved machine state at a point of the prefix: the machine is a
//! function of the choices made so far, so resuming from the state saved
//! after the first `d` choices of the prefix is the same as re-running
//! those `d` choices. Random mode draws each choice from a seeded generator, for
//! launches too large to enumerate.

/// How choices are made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChooserMode {
    /// Every sequence of choices, each exactly once.
    Exhaustive,
    /// `runs` executions with choices drawn from a generator seeded with `seed`.
    Random { seed: u64, runs: u64 },
}

/// Records and replays choices; see the module documentation.
#[derive(Clone, Debug)]
pub struct Chooser {
    mode: ChooserMode,
    /// Choices made in the current execution: (taken, number of options).
    log: Vec<(usize, usize)>,
    /// Choices to replay at the start of the current execution:
    /// (taken, number of options).
    prefix: Vec<(usize, usize)>,
    /// Executions started so far.
    runs: u64,
    /// xorshift64* state for random mode.
    rng: u64,
}

impl Chooser {
    pub fn new(mode: ChooserMode) -> Chooser {
        let seed = match mode {
            ChooserMode::Random { seed, .. } => seed,
            ChooserMode::Exhaustive => 0,
        };
        Chooser {
            mode,
            log: Vec::new(),
            prefix: Vec::new(),
            runs: 1,
            rng: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
        }
    }

    pub fn mode(&self) -> ChooserMode {
        self.mode
    }

    /// Picks one of `n` options (`n >= 1`); returns its index.
    pub fn choose(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        let pos = self.log.len();
        let c = match self.mode {
            ChooserMode::Exhaustive => self.prefix.get(pos).map_or(0, |p| p.0).min(n - 1),
            ChooserMode::Random { .. } => (self.next_random() % n as u64) as usize,
        };
        self.log.push((c, n));
        c
    }

    /// Whether the next choice replays a recorded one (the state it is
    /// made in has been visited before, on this same path).
    pub fn replaying(&self) -> bool {
        matches!(self.mode, ChooserMode::Exhaustive) && self.log.len() < self.prefix.len()
    }

    /// Ends the current execution and prepares the next one; `false` when
    /// every choice sequence has been explored (exhaustive) or the run
    /// budget is spent (random).
    pub fn next_execution(&mut self) -> bool {
        let more = match self.mode {
            ChooserMode::Exhaustive => {
                let mut log = std::mem::take(&mut self.log);
                while let Some((c, n)) = log.pop() {
                    if c + 1 < n {
                        log.push((c + 1, n));
                        break;
                    }
                }
                self.prefix = log;
                !self.prefix.is_empty()
            }
            ChooserMode::Random { runs, .. } => {
                self.log.clear();
                self.runs < runs
            }
        };
        if more {
            self.runs += 1;
        }
        more
    }

    /// Number of choices made so far in the current execution.
    pub fn depth(&self) -> usize {
        self.log.len()
    }

    /// Exhaustive mode, after [`Chooser::next_execution`]: the position of
    /// the choice that was advanced. The choices before it are those of the
    /// previous execution, so a machine state saved in the previous
    /// execution after at most this many choices is a valid starting point
    /// for the next one ([`Chooser::resume_at`]).
    pub fn advanced(&self) -> usize {
        self.prefix.len().saturating_sub(1)
    }

    /// Continues the current execution as if its first `depth` choices had
    /// just been replayed (`depth <= self.advanced()`, exhaustive mode): the
    /// caller restores the machine state saved at that depth.
    pub fn resume_at(&mut self, depth: usize) {
        debug_assert!(self.log.is_empty() && depth <= self.advanced());
        self.log.clear();
        self.log.extend_from_slice(&self.prefix[..depth]);
    }

    fn next_random(&mut self) -> u64 {
        let mut x = self.rng;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exhaustive mode visits each leaf of a choice tree exactly once,
    /// including trees whose shape depends on earlier choices.
    #[test]
    fn exhaustive_enumerates_dependent_tree() {
        let mut ch = Chooser::new(ChooserMode::Exhaustive);
        let mut seen = Vec::new();
        loop {
            let a = ch.choose(3);
            let b = if a == 1 { ch.choose(2) } else { 9 };
            seen.push((a, b));
            if !ch.next_execution() {
                break;
            }
        }
        assert_eq!(seen, vec![(0, 9), (1, 0), (1, 1), (2, 9)]);
    }

    /// Resuming at a depth gives the same sequence of executions as
    /// re-running from the start (the choices before the depth replayed).
    #[test]
    fn resume_at_continues_the_enumeration() {
        let mut plain = Chooser::new(ChooserMode::Exhaustive);
        let mut seen = Vec::new();
        loop {
            seen.push((plain.choose(2), plain.choose(3), plain.choose(2)));
            if !plain.next_execution() {
                break;
            }
        }
        let mut ch = Chooser::new(ChooserMode::Exhaustive);
        let mut resumed = Vec::new();
        // Saved after the first choice: (depth 1, first choice).
        let mut saved: Option<(usize, usize)> = None;
        loop {
            let a = match saved {
                Some((1, a)) if ch.advanced() >= 1 => {
                    ch.resume_at(1);
                    a
                }
                _ => {
                    let a = ch.choose(2);
                    saved = Some((1, a));
                    a
                }
            };
            resumed.push((a, ch.choose(3), ch.choose(2)));
            if !ch.next_execution() {
                break;
            }
        }
        assert_eq!(seen, resumed);
        assert_eq!(seen.len(), 12);
    }

    #[test]
    fn random_mode_respects_budget_and_range() {
        let mut ch = Chooser::new(ChooserMode::Random { seed: 7, runs: 5 });
        let mut count = 0;
        loop {
            count += 1;
            assert!(ch.choose(4) < 4);
            if !ch.next_execution() {
                break;
            }
        }
        assert_eq!(count, 5);
    }
}
