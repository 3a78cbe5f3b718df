//! Shared proptest generators (CFGs, later token placements and thread
//! inputs) rendered as LLVM IR, and helpers that tests of every crate use.
pub mod uniformity;
