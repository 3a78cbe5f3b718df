//! What `print<uniformity>` shows beside LLVM's `Value::print` form of
//! instructions (rule U-LLVM; instructions and terminators come from the
//! one printer, [`crate::ir::print::Style::Llvm`]).

use crate::ir::print::{local_name, quote_name, Style};
use crate::ir::{Block, Function};

/// An argument as `Argument::print` writes it: `i32 %a`.
pub fn argument(f: &Function, idx: usize) -> String {
    let p = &f.params[idx];
    match p.value {
        Some(v) => format!("{} {}", Style::Llvm.ty(&p.ty), local_name(&f.value(v).name)),
        None => Style::Llvm.ty(&p.ty),
    }
}

/// Block name as the analysis prints it (`entry`, `7`).
pub fn block_name(b: &Block) -> String {
    quote_name(&b.name)
}
