//! The sizes of the IR records, pinned so that they do not grow back
//! (issue 17 item 8: memory linear in the input with a small factor; a
//! 1,000,000-block function holds about a million of each). Rare, large
//! payloads are boxed (`Call`, atomic orderings, constants in operands,
//! metadata operands, named types, the second and third typed operands
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
        ("Type", size_of::<Type>(), 24),
        ("TypedOperand", size_of::<TypedOperand>(), 40),
        ("InstMeta", size_of::<InstMeta>(), 8),
        // At most 72 bytes of payload a variant: the second and third
        // typed operands of memory and vector instructions are boxed.
        ("InstKind", size_of::<InstKind>(), 80),
        ("Inst", size_of::<Inst>(), 112),
        ("Terminator", size_of::<Terminator>(), 64),
        ("Block", size_of::<Block>(), 128),
        ("ValueInfo", size_of::<ValueInfo>(), 72),
    ];
    let grown: Vec<String> = sizes
        .iter()
        .filter(|(_, got, max)| got > max)
        .map(|(name, got, max)| format!("{name}: {got} bytes (at most {max})"))
        .collect();
    assert!(grown.is_empty(), "IR records grew: {grown:?}");
}
