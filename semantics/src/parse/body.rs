//! Function bodies: blocks and terminators of the subset (rule P-PROG),
//! and the operand helpers the instruction parsers in `inst` share.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::inst::{FLAG_WORDS, ORDERINGS};
use super::lexer::Tok;
use super::names::FnBuilder;
use super::parser::Parser;
use super::ParseError;
use crate::ir::{
    Atomic, Block, BlockId, Const, Function, Inst, InstMeta, Operand, TermKind, Terminator, Type,
    TypedOperand, ValueDef,
};

/// Instructions and terminators LLVM has but the subset does not.
pub(super) const UNSUPPORTED_OPS: &[&str] = &[
    "invoke",
    "callbr",
    "indirectbr",
    "resume",
    "catchswitch",
    "catchret",
    "cleanupret",
    "landingpad",
    "catchpad",
    "cleanuppad",
    "va_arg",
    "fence",
    "uselistorder",
    "uselistorder_bb",
];

/// Per-body state: the name table plus the current block.
pub(super) struct Body<'f> {
    pub fb: FnBuilder,
    pub f: &'f mut Function,
    /// The instructions of the block being read. One buffer reused by
    /// every block: each block's list is then allocated once at its exact
    /// length (a list grown by doubling from 4 and shrunk afterwards left
    /// a hole of up to three instructions per block in the heap, about
    /// 130 MB of resident memory at 1,000,000 blocks).
    insts: Vec<Inst>,
    /// The small constants of the body read so far, each allocated once
    /// and shared by its uses ([`Operand::Const`]; dropped with the body).
    consts: FxHashMap<Const, Arc<Const>>,
}

impl Body<'_> {
    /// The operand for constant `c`: an integer, a float, a global's
    /// address, `null`, `none`, `undef`, `poison` or `zeroinitializer` is
    /// shared with the equal ones of the body; aggregates and constant
    /// expressions get their own.
    fn constant(&mut self, c: Const) -> Operand {
        let small = matches!(
            c,
            Const::Int { .. }
                | Const::Float(_)
                | Const::Global(_)
                | Const::Null
                | Const::None
                | Const::Undef
                | Const::Poison
                | Const::ZeroInit
        );
        if !small {
            return Operand::constant(c);
        }
        let shared = self
            .consts
            .entry(c)
            .or_insert_with_key(|c| Arc::new(c.clone()));
        Operand::Const(Arc::clone(shared))
    }
}

impl Parser<'_> {
    /// `{ blocks }` after the header; fills `f.blocks` and `f.values`
    /// (the builder holds the blocks until then).
    pub fn body(&mut self, f: &mut Function, fb: FnBuilder) -> Result<(), ParseError> {
        let mut st = Body {
            fb,
            f,
            insts: Vec::new(),
            consts: FxHashMap::default(),
        };
        loop {
            if self.is_punct('}') {
                if st.fb.blocks.is_empty() {
                    return Err(self.err("function body requires at least one basic block"));
                }
                self.bump();
                break;
            }
            self.block(&mut st)?;
        }
        let Body { fb, f, .. } = st;
        fb.finish(self, f)
    }

    fn block(&mut self, st: &mut Body<'_>) -> Result<(), ParseError> {
        let span = self.span();
        let label = match self.peek().clone() {
            Tok::Label(n) => {
                self.bump();
                Some(n)
            }
            _ => None,
        };
        let explicit_label = label.is_some();
        let id = st.fb.def_block(self, label, span)?;
        st.insts.clear();
        let mut dbg_records = thin_vec::ThinVec::new();
        loop {
            let at = self.span();
            match self.peek().clone() {
                Tok::DbgRecord(_) => {
                    dbg_records.push(self.dbg_record()?);
                    continue;
                }
                Tok::Eof => return Err(self.err("end of file inside a function body")),
                Tok::Punct('}') | Tok::Label(_) => {
                    return Err(self.err_at(at, "expected a terminator at the end of the block"))
                }
                _ => {}
            }
            let written = match (self.peek().clone(), self.peek_at(1)) {
                (Tok::Local(n), Tok::Punct('=')) => {
                    self.bump();
                    self.bump();
                    Some(n)
                }
                _ => None,
            };
            let op_at = self.span();
            let Some(op) = self.word().map(crate::ir::CompactString::from) else {
                return Err(self.expected("an instruction opcode"));
            };
            if let Some(kind) = self.terminator(st, &op)? {
                if written.is_some() {
                    return Err(self.err_at(at, "terminators do not produce a named value"));
                }
                let meta = InstMeta::new(self.md_attachments()?, dbg_records);
                // Exactly as long as the block (memory on long functions).
                let insts: Vec<Inst> = st.insts.drain(..).collect();
                let name = st.fb.take_open_name();
                st.fb.blocks.push(Block {
                    name,
                    explicit_label,
                    insts,
                    term: Terminator {
                        kind,
                        meta,
                        span: at,
                    },
                    span,
                });
                debug_assert_eq!(st.fb.blocks.len() - 1, id.0);
                return Ok(());
            }
            let (kind, rty) = self.instruction(st, &op, op_at)?;
            let meta = InstMeta::new(self.md_attachments()?, std::mem::take(&mut dbg_records));
            let result = match rty {
                Some(ty) if ty != Type::Void => {
                    let def = ValueDef::inst(id, st.insts.len());
                    Some(st.fb.def_value(self, written, ty, def, "instruction", at)?)
                }
                _ => {
                    if let Some(n) = written {
                        return Err(self.err_at(
                            at,
                            format!(
                                "instructions returning void cannot have a name ('%{}')",
                                crate::ir::print::quote_name(&n)
                            ),
                        ));
                    }
                    None
                }
            };
            st.insts.push(Inst {
                result,
                kind,
                meta,
                span: at,
            });
        }
    }

    /// A terminator, or `None` if `op` is not one.
    fn terminator(&mut self, st: &mut Body<'_>, op: &str) -> Result<Option<TermKind>, ParseError> {
        let kind = match op {
            "ret" => {
                self.bump();
                let at = self.span();
                let v = if self.eat_word("void") {
                    None
                } else {
                    Some(self.typed_operand(st)?)
                };
                let written = v.as_ref().map_or(&Type::Void, |v| &v.ty);
                if !super::types::same_type(written, &st.f.ret_ty) {
                    return Err(self.err_at(
                        at,
                        format!(
                            "value doesn't match function result type '{}'",
                            crate::ir::print::type_str(&st.f.ret_ty)
                        ),
                    ));
                }
                TermKind::Ret(v)
            }
            "br" => {
                self.bump();
                if self.is_word("label") {
                    TermKind::Br(self.label_ref(st)?)
                } else {
                    let cty_at = self.span();
                    let cty = self.parse_type()?;
                    if cty != Type::Int(1) {
                        return Err(self.err_at(cty_at, "branch condition must have type 'i1'"));
                    }
                    let cond = self.operand_of(st, &cty, true)?;
                    self.expect_punct(',')?;
                    let on_true = self.label_ref(st)?;
                    self.expect_punct(',')?;
                    let on_false = self.label_ref(st)?;
                    TermKind::CondBr {
                        cond,
                        on_true,
                        on_false,
                    }
                }
            }
            "switch" => {
                self.bump();
                let ty = self.parse_type()?;
                let cond = self.operand_of(st, &ty, false)?;
                self.expect_punct(',')?;
                let default = self.label_ref(st)?;
                self.expect_punct('[')?;
                let mut cases = Vec::new();
                while !self.eat_punct(']') {
                    let cty = self.parse_type()?;
                    let c = self.parse_const(&cty)?;
                    self.expect_punct(',')?;
                    let b = self.label_ref(st)?;
                    cases.push((c, b));
                }
                TermKind::Switch {
                    ty: Box::new(ty),
                    cond,
                    default,
                    cases: cases.into(),
                }
            }
            "unreachable" => {
                self.bump();
                TermKind::Unreachable
            }
            _ if UNSUPPORTED_OPS.contains(&op) && op != "va_arg" && op != "fence" => {
                if matches!(
                    op,
                    "invoke"
                        | "callbr"
                        | "indirectbr"
                        | "resume"
                        | "catchswitch"
                        | "catchret"
                        | "cleanupret"
                ) {
                    return Err(self.unsupported(op));
                }
                return Ok(None);
            }
            _ => return Ok(None),
        };
        Ok(Some(kind))
    }

    /// `label %name`.
    pub(super) fn label_ref(&mut self, st: &mut Body<'_>) -> Result<BlockId, ParseError> {
        self.expect_word("label")?;
        self.block_ref(st)
    }

    pub(super) fn block_ref(&mut self, st: &mut Body<'_>) -> Result<BlockId, ParseError> {
        let at = self.span();
        match self.peek().clone() {
            Tok::Local(n) => {
                self.bump();
                st.fb.use_block(self, n, at)
            }
            _ => Err(self.expected("a block name '%name'")),
        }
    }

    /// A value of type `ty`: a local (checked against its definition) or a
    /// constant.
    pub(super) fn operand_of(
        &mut self,
        st: &mut Body<'_>,
        ty: &Type,
        _is_cond: bool,
    ) -> Result<Operand, ParseError> {
        let at = self.span();
        match self.peek().clone() {
            Tok::Local(n) => {
                self.bump();
                st.fb.use_value(self, n, ty, at)
            }
            _ => {
                let c = self.parse_const(ty)?;
                Ok(st.constant(c))
            }
        }
    }

    pub(super) fn typed_operand(&mut self, st: &mut Body<'_>) -> Result<TypedOperand, ParseError> {
        let ty = self.parse_type()?;
        let value = self.operand_of(st, &ty, false)?;
        Ok(TypedOperand { ty, value })
    }

    /// The address operand of a memory access: a typed operand whose type
    /// is a pointer, else `message` (LLParser's words) at its type.
    pub(super) fn pointer_operand(
        &mut self,
        st: &mut Body<'_>,
        message: &str,
    ) -> Result<TypedOperand, ParseError> {
        let at = self.span();
        let ty = self.parse_type()?;
        if !matches!(ty, Type::Ptr(_) | Type::TypedPtr { .. }) {
            return Err(self.err_at(at, message));
        }
        let value = self.operand_of(st, &ty, false)?;
        Ok(TypedOperand { ty, value })
    }

    pub(super) fn flags(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        while let Some(w) = self.word() {
            if FLAG_WORDS.contains(&w) {
                out.push(w.to_string());
                self.bump();
            } else {
                break;
            }
        }
        out
    }

    pub(super) fn opt_align(&mut self) -> Result<Option<u64>, ParseError> {
        if self.eat_comma_word("align") {
            Ok(Some(self.uint()?))
        } else {
            Ok(None)
        }
    }

    /// `[syncscope("x")] ordering`.
    pub(super) fn atomic(&mut self, two: bool) -> Result<Atomic, ParseError> {
        let syncscope = if self.eat_word("syncscope") {
            self.expect_punct('(')?;
            let s = self.string()?;
            self.expect_punct(')')?;
            Some(s)
        } else {
            None
        };
        let ordering = self.ordering()?;
        let failure = if two { Some(self.ordering()?) } else { None };
        Ok(Atomic {
            syncscope,
            ordering,
            failure,
        })
    }

    pub(super) fn ordering(&mut self) -> Result<String, ParseError> {
        match self.word() {
            Some(w) if ORDERINGS.contains(&w) => {
                let w = w.to_string();
                self.bump();
                Ok(w)
            }
            _ => Err(self.expected("an atomic ordering")),
        }
    }

    pub(super) fn indices(&mut self) -> Result<Vec<u32>, ParseError> {
        let mut out = Vec::new();
        while self.is_punct(',') && matches!(self.peek_at(1), Tok::Int(_)) {
            self.bump();
            out.push(self.uint()?);
        }
        if out.is_empty() {
            return Err(self.expected("an index"));
        }
        Ok(out)
    }
}
