//! Attribute lists (LangRef "Parameter Attributes", "Function
//! Attributes", "Attribute Groups"). The set is open: the semantics reads a
//! few by name (rule C-CONV reads `convergent`; P-LAUNCH reads `inreg`;
//! P-INPUT reads `readnone`/`memory(...)`), the rest are kept verbatim so
//! the printer can write them back.

use super::lexer::Tok;
use super::parser::Parser;
use super::ParseError;
use crate::ir::Attr;

/// Where an attribute list is written; decides which words are attributes
/// and how the list ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttrCtx {
    /// After a parameter or argument type.
    Param,
    /// Before a return type.
    Ret,
    /// After a function header's parameter list (`align N` there is the
    /// function's alignment, not an attribute).
    FnHeader,
    /// After a call's argument list.
    CallSite,
    /// Inside `attributes #N = { ... }`: every word is an attribute.
    Group,
}

/// Attribute keywords of LLVM 22 (plus `noconvergent`, the marker of the
/// 2021 "calls convergent by default" RFC mode of rule C-CONV, and
/// `alwaysuniform`, newer than LLVM 22 but in the corpus).
pub(super) const ATTR_WORDS: &[&str] = &[
    "align",
    "alignstack",
    "allocalign",
    "allockind",
    "allocptr",
    "allocsize",
    "alwaysinline",
    "alwaysuniform",
    "builtin",
    "byref",
    "byval",
    "captures",
    "cold",
    "convergent",
    "coro_elide_safe",
    "coro_only_destroy_when_complete",
    "dead_on_return",
    "dead_on_unwind",
    "dereferenceable",
    "dereferenceable_or_null",
    "disable_sanitizer_instrumentation",
    "elementtype",
    "fn_ret_thunk_extern",
    "hot",
    "hybrid_patchable",
    "immarg",
    "inalloca",
    "initializes",
    "inlinehint",
    "inreg",
    "jumptable",
    "memory",
    "minsize",
    "mustprogress",
    "naked",
    "nest",
    "noalias",
    "nobuiltin",
    "nocallback",
    "nocapture",
    "nocf_check",
    "noconvergent",
    "nocreateundeforpoison",
    "nodivergencesource",
    "noduplicate",
    "noext",
    "nofpclass",
    "nofree",
    "noimplicitfloat",
    "noinline",
    "nomerge",
    "nonlazybind",
    "nonnull",
    "noprofile",
    "norecurse",
    "noredzone",
    "noreturn",
    "nosanitize_bounds",
    "nosanitize_coverage",
    "nosync",
    "noundef",
    "nounwind",
    "null_pointer_is_valid",
    "optdebug",
    "optforfuzzing",
    "optnone",
    "optsize",
    "preallocated",
    "presplitcoroutine",
    "range",
    "readnone",
    "readonly",
    "returned",
    "returns_twice",
    "safestack",
    "sanitize_address",
    "sanitize_alloc_token",
    "sanitize_hwaddress",
    "sanitize_memory",
    "sanitize_memtag",
    "sanitize_numerical_stability",
    "sanitize_realtime",
    "sanitize_realtime_blocking",
    "sanitize_thread",
    "sanitize_type",
    "shadowcallstack",
    "signext",
    "skipprofile",
    "speculatable",
    "speculative_load_hardening",
    "ssp",
    "sspreq",
    "sspstrong",
    "sret",
    "strictfp",
    "swiftasync",
    "swifterror",
    "swiftself",
    "uwtable",
    "vscale_range",
    "willreturn",
    "writable",
    "writeonly",
    "zeroext",
];

impl Parser<'_> {
    /// An attribute list in context `ctx`; stops at the first token that is
    /// not an attribute there.
    pub fn attrs(&mut self, ctx: AttrCtx) -> Result<Vec<Attr>, ParseError> {
        let mut out = Vec::new();
        loop {
            match self.peek().clone() {
                Tok::Str(_) => {
                    let key = self.string()?;
                    let value = if self.eat_punct('=') {
                        Some(self.string()?)
                    } else {
                        None
                    };
                    out.push(Attr::Str { key, value });
                }
                Tok::AttrRef(n) if matches!(ctx, AttrCtx::FnHeader | AttrCtx::CallSite) => {
                    self.bump();
                    out.push(Attr::Group(n));
                }
                Tok::AttrRef(_) if ctx == AttrCtx::Group => {
                    return Err(self.err("attribute groups cannot refer to attribute groups"))
                }
                Tok::Word(w) => {
                    let known = ATTR_WORDS.contains(&w.as_str());
                    if !(known || ctx == AttrCtx::Group) {
                        return Ok(out);
                    }
                    if w == "align" && ctx == AttrCtx::FnHeader {
                        return Ok(out);
                    }
                    let next = self.peek_at(1).clone();
                    match next {
                        Tok::Punct('(') => {
                            self.bump();
                            let text = self.balanced_text()?;
                            let args = text
                                .strip_prefix('(')
                                .and_then(|t| t.strip_suffix(')'))
                                .unwrap_or(&text)
                                .to_string();
                            out.push(Attr::Paren {
                                name: w.into_string(),
                                args,
                            });
                        }
                        Tok::Punct('=') if ctx == AttrCtx::Group => {
                            self.bump();
                            self.bump();
                            let value: u64 = self.uint()?;
                            out.push(Attr::Int {
                                name: w.into_string(),
                                value,
                            });
                        }
                        Tok::Int(_) if w == "align" => {
                            self.bump();
                            let value: u64 = self.uint()?;
                            out.push(Attr::Int {
                                name: w.into_string(),
                                value,
                            });
                        }
                        _ => {
                            self.bump();
                            out.push(Attr::Word(w.into_string()));
                        }
                    }
                }
                _ => return Ok(out),
            }
        }
    }
}
