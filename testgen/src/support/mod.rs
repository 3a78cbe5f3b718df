//! Test-only helpers that build `semantics` IR directly (feature
//! `test-support`, enabled by the dev-dependencies of `semantics` and
//! `checker`; the product's generators, used by the meta-claims of
//! `checker::prove::meta`, are the modules outside `support`). Folded
//! here from `semantics/tests/{common,support,unif_support}` (issue 11
//! item 7: one place for generators).
//!
//! - [`small_cfg`]: small CFGs with every terminator shape, as text.
//! - [`token_prog`]: token programs for the verifier's tests, rendered as
//!   LLVM IR for opt-22 and directly as our IR.
//! - [`ugen`]: the IR of generated uniformity programs, and running opt-22
//!   on batches of them.

pub mod parse_diff;
pub mod small_cfg;
pub mod token_prog;
pub mod ugen;
