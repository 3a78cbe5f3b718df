//! The refinement checker (SMT-backed) and the command-line front end of
//! `convcheck`.
//!
//! | concept | module |
//! | --- | --- |
//! | conditions: solver-independent terms, evaluation, SMT-LIB text | [`vc`] |
//! | the one Z3 user: queries, answers, models, dumps | [`smt`] |
//! | the built-in claims and examples, embedded (demo/prove from anywhere) | [`builtin`] |
//! | conventions every subcommand follows (exit status, loading, panic hook) | [`cli`] |
//! | LLVM-style diagnostics: `file:line:col: error:`, source line, caret | [`diag`] |
//! | one module per subcommand | [`cmd`] |
//! | self-contained HTML reports (CFG as SVG, thread paths) | [`html`] |
//! | the spec-validation suite: claim files, checks, meta-claims | [`prove`] |
//! | interpreter and SMT checker agree (M-AGREE, MC-07) | [`agree`] |
//! | refinement checker: axiomatic encoding (M-AXIOM); the exists-forall question of R-REF by counterexample-guided iteration (`refine::check_threads`'s loop) | [`refine`] |
//! | translation validation of opt pipelines (issue 14) | [`validate`] |

pub mod agree;
pub mod builtin;
pub mod cli;
pub mod cmd;
pub mod diag;
pub mod html;
pub mod prove;
pub mod refine;
pub mod smt;
pub mod validate;
pub mod vc;
