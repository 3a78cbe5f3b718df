//! Executable semantics of GPU convergence in LLVM.
//!
//! Index: concept -> module, with the rule IDs of `../shared/SEMANTICS.md`
//! each one implements.
//!
//! | concept                                   | module            | rules            |
//! |-------------------------------------------|-------------------|------------------|
//! | IR syntax of the accepted subset, printer | [`ir`]            | P-PROG           |
//! | textual LLVM IR parser                    | [`parse`]         | P-PROG           |
//! | CFG, dominators, post-dominators, cycles (LLVM's GenericCycleInfo), all cycle hierarchies | [`cfg`] | D-HIER (hierarchies) |
//! | token inference (CO "Inferring Tokens")   | [`infer`]         | D-UNCTRL `inferred` |
//! | inlining of defined functions (CO "Function inlining") | [`inline`] | D-ENTRY-CALL |
//! | reference interpreter (M-OPER)            | [`machine`]       | P-LAUNCH, P-INPUT, C-OPS, D-* |
//! | intrinsic and builtin table (issue 13)    | [`intrinsics`]    | C-CONV, C-INTR, C-OPS, U-SOURCE |
//! | static rules (the verifier)               | [`rules`]         | S-*, P-PROG (SSA), S-LLVM |
//! | uniformity analysis (LLVM-compatible)     | [`uniformity`]    | U-*              |
//!

pub mod cfg;
pub mod infer;
pub mod inline;
pub mod intrinsics;
pub mod ir;
pub mod machine;
pub mod parse;
pub mod rules;
pub mod uniformity;

pub use parse::{parse_module, ParseError};
