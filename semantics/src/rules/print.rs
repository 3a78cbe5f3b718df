//! Printing values the way LLVM's verifier prints them after a message
//! (`Value::print`: the instruction with two spaces of indentation, `label
//! %B` for blocks, `GenericCycle::print` for cycles), so that our text
//! output can be compared with `opt-22 -passes=verify` line for line (rule
//! S-LLVM). Instructions, operands and names come from the one printer in
//! [`Style::Llvm`]. Call-site attribute groups are printed as written: LLVM
//! renumbers them, which is the one known difference.

use crate::cfg::{CycleId, CycleInfo};
use crate::ir::print::{local_name, Style};
use crate::ir::{BlockId, Function, Name, TypedOperand, ValueId};

/// `label %B`
pub fn print_block_operand(f: &Function, b: BlockId) -> String {
    format!("label {}", print_local_name(&f.blocks[b.0].name))
}

/// `depth=1: entries(B C) D E`: entries in order, then the other blocks in
/// the cycle's block order.
pub fn print_cycle(f: &Function, ci: &CycleInfo, c: CycleId) -> String {
    let cy = ci.cycle(c);
    let entries: Vec<String> = cy.entries.iter().map(|b| f.block_name(*b)).collect();
    let mut s = format!("depth={}: entries({})", cy.depth, entries.join(" "));
    for b in &cy.blocks {
        if !cy.entries.contains(b) {
            s.push(' ');
            s.push_str(&f.block_name(*b));
        }
    }
    s
}

/// `%name`, quoted when LLVM would quote it.
pub fn print_local_name(n: &Name) -> String {
    local_name(n)
}

pub fn print_value(f: &Function, v: ValueId) -> String {
    print_local_name(&f.value(v).name)
}

/// A value as LLVM prints it as an operand: `token none`, `token %t`.
pub fn print_typed_operand(f: &Function, t: &TypedOperand) -> String {
    Style::Llvm.typed(f, t)
}

/// Instruction `i` of block `b` as `Value::print` prints it, with two
/// spaces of indentation; `i == insts.len()` is the terminator.
pub fn print_inst_at(f: &Function, b: BlockId, i: usize) -> String {
    let block = f.block(b);
    let text = match block.insts.get(i) {
        Some(inst) => Style::Llvm.inst(f, inst),
        None => Style::Llvm.term(f, &block.term),
    };
    format!("  {text}")
}
