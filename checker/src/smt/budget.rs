//! One stop mechanism for a whole run (issue 11 item 2): a deadline (the
//! run's time budget, `refine --time-limit`) and an interrupt flag (set by
//! Ctrl-C). Every query a [`super::Session`] runs first asks the budget
//! whether the run is over, gets a time limit clipped to what is left, and,
//! while Z3 works, a watcher thread interrupts Z3 as soon as the flag is set,
//! so a stop takes effect within [`POLL`] whatever the query.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How often the watcher looks at the interrupt flag during a query.
pub const POLL: Duration = Duration::from_millis(20);

/// Why a run stopped before its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The run's time budget was spent.
    TimeLimit,
    /// The interrupt flag was set (Ctrl-C).
    Interrupted,
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stop::TimeLimit => write!(f, "time limit"),
            Stop::Interrupted => write!(f, "interrupted"),
        }
    }
}

/// A run's deadline and interrupt flag (both optional: the default never
/// stops).
#[derive(Clone, Debug, Default)]
pub struct Budget {
    deadline: Option<Instant>,
    stop: Option<Arc<AtomicBool>>,
}

impl Budget {
    /// A budget of `limit` from now (none: unlimited), stopped early when
    /// `stop` becomes true.
    pub fn new(limit: Option<Duration>, stop: Option<Arc<AtomicBool>>) -> Budget {
        Budget {
            deadline: limit.map(|l| Instant::now() + l),
            stop,
        }
    }

    /// Whether the run is over, and why (an interrupt wins over the clock).
    pub fn spent(&self) -> Option<Stop> {
        if self.stop.as_ref().is_some_and(|s| s.load(Ordering::SeqCst)) {
            return Some(Stop::Interrupted);
        }
        match self.deadline {
            Some(d) if Instant::now() >= d => Some(Stop::TimeLimit),
            _ => None,
        }
    }

    /// `limit` clipped to the time left, and whether the clip applied.
    pub fn clip(&self, limit: Duration) -> (Duration, bool) {
        match self.deadline {
            Some(d) => {
                let left = d.saturating_duration_since(Instant::now());
                if left < limit {
                    (left, true)
                } else {
                    (limit, false)
                }
            }
            None => (limit, false),
        }
    }

    /// Runs `f` (a Z3 check in `ctx`), interrupting Z3 from a watcher thread
    /// when the flag is set meanwhile.
    pub(super) fn watch<R>(&self, ctx: &z3::Context, f: impl FnOnce() -> R) -> R {
        let Some(flag) = &self.stop else {
            return f();
        };
        let done = AtomicBool::new(false);
        let handle = ctx.handle();
        std::thread::scope(|s| {
            s.spawn(|| {
                while !done.load(Ordering::SeqCst) {
                    if flag.load(Ordering::SeqCst) {
                        handle.interrupt();
                        return;
                    }
                    std::thread::sleep(POLL);
                }
            });
            let r = f();
            done.store(true, Ordering::SeqCst);
            r
        })
    }
}
