//! Printer: writes a [`Module`](super::Module) back as LLVM IR text that
//! [`crate::parse::parse_module`] reads back to the same module.
