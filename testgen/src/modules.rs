//! Random well-formed LLVM IR modules as text, covering the whole P-PROG
//! subset the parser accepts: several functions, globals, named struct
//! types, attribute groups, random CFGs with `br`/`switch`/`ret`/
//! `unreachable`, phis with one entry per predecessor edge, named, quoted
//! and numbered values and blocks (with LLVM 22's allowed numbering gaps),
//! calls with tail kinds, calling conventions, attributes, explicit
//! function types, `metadata` arguments and operand bundles, and every
//! instruction kind of `semantics::ir::InstKind`.
//!
//! The generator is driven by a stream of random choices (a `Vec<u32>`
//! from proptest); an exhausted stream answers 0, which always selects the
//! simplest option, so proptest's shrinking of the vector shrinks modules.
//!
//! Validity argument (checked against `opt-22 -passes=verify` by the
//! round-trip test): a value is used only where it dominates the use:
//! arguments and entry-block values everywhere (the entry block has no
//! predecessors, so it dominates every reachable block, and LLVM treats
//! unreachable blocks as dominated by everything), values of the same block
//! after their definition, and in a phi the values available at the end of
//! the incoming block. Convergence tokens are used only in the block that
//! defines them, and a function either controls all its convergent calls
//! or none (the verifier rejects a mix).

use proptest::collection::vec;
use proptest::prelude::any;
use proptest::strategy::Strategy;

mod gen_fn;
mod gen_inst;
mod gen_types;

pub use gen_types::Choices;

/// Strategy: random modules as LLVM IR text.
pub fn module_text() -> impl Strategy<Value = String> {
    vec(any::<u32>(), 0..3000).prop_map(|data| render_module(&mut Choices::new(data)))
}

/// Renders one module from a choice stream.
pub fn render_module(c: &mut Choices) -> String {
    gen_fn::module(c)
}
