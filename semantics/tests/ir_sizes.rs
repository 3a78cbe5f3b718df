//! The sizes of the IR records, pinned so that they do not grow back
//! (issue 17 item 8: memory linear in the input with a small factor; a
//! 1,000,000-block function holds about a million of each). Rare, large
//! payloads are boxed (`Call`, atomic orderings, constants in operands
//! (shared by equal small constants of a body),
//! metadata operands, named types, array and function types (`Type` is
//! 16 bytes), the second and third typed operands
//! of memory and vector instructions, a switch's type), usually-empty
//! lists are `ThinVec`s (flags, struct fields, switch cases) and an
//! instruction's metadata is one pointer, absent when empty. A change that
//! makes a record larger must say why here.

use std::mem::size_of;

use semantics::ir::{
    Block, Inst, InstKind, InstMeta, Operand, Terminator, Type, TypedOperand, ValueInfo,
};

#[test]
fn ir_records_stay_small() {
    let sizes = [
        ("Operand", size_of::<Operand>(), 16),
        ("Type", size_of::<Type>(), 16),
        ("TypedOperand", size_of::<TypedOperand>(), 32),
        ("InstMeta", size_of::<InstMeta>(), 8),
        // At most 72 bytes with the tag: the second and third typed
        // operands of memory and vector instructions are boxed.
        ("InstKind", size_of::<InstKind>(), 72),
        ("Inst", size_of::<Inst>(), 104),
        ("Terminator", size_of::<Terminator>(), 56),
        ("Block", size_of::<Block>(), 120),
        ("ValueInfo", size_of::<ValueInfo>(), 56),
    ];
    let grown: Vec<String> = sizes
        .iter()
        .filter(|(_, got, max)| got > max)
        .map(|(name, got, max)| format!("{name}: {got} bytes (at most {max})"))
        .collect();
    assert!(grown.is_empty(), "IR records grew: {grown:?}");
}
