//! Metadata and debug records, kept so that printed modules mean what the
//! original meant to LLVM (rule P-PROG round trip; issue 17 item 6: the
//! printed module must be accepted by `opt` whenever the original is).
//!
//! No rule of the semantics reads debug information; the one structured
//! use is loop metadata (`br ..., !llvm.loop !N`), which
//! [`Module::loop_properties`](super::Module::loop_properties) resolves.
//! Generic tuples (`!{...}`) are structured; specialised nodes
//! (`!DILocation(...)`, `!DIExpression(...)`, ...) keep their argument list
//! as normalised text, since nothing interprets their fields.

use thin_vec::ThinVec;

/// One metadata value as written in an operand position.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum MdValue {
    /// `!5` or `!name`: a reference to a module-level definition (the name
    /// without `!`, escapes as written).
    Ref(String),
    /// `!"text"`.
    Str(Vec<u8>),
    /// `!{a, b}` / `distinct !{...}`.
    Tuple { distinct: bool, elems: Vec<MdValue> },
    /// `!DIKind(args)` / `distinct !DIKind(...)`: `args` is the normalised
    /// text of the parenthesised list, parentheses included.
    Special {
        distinct: bool,
        kind: String,
        args: String,
    },
    /// A value wrapped as metadata (`i32 1`, `ptr @g`): its type and the
    /// normalised text of the value.
    Typed { ty: super::Type, value: String },
    /// `null` inside a tuple.
    Null,
}

/// `!name = value` / `!5 = distinct !{...}` at module level (named
/// metadata `!llvm.module.flags = !{!0}` included), in textual order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MdDef {
    /// The name without `!`: `5`, `llvm.module.flags`.
    pub name: String,
    pub value: MdValue,
    pub span: super::Span,
}

/// `!kind value` attached to an instruction, function or global.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MdAttachment {
    /// `dbg`, `llvm.loop`, `tbaa`, ... (without `!`).
    pub kind: String,
    pub value: MdValue,
}

/// A debug record (`#dbg_value(...)`, `#dbg_declare(...)`, ...) written on
/// its own line before the instruction it is attached to.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DbgRecord {
    /// `dbg_value`, `dbg_declare`, `dbg_assign`, `dbg_label`.
    pub kind: String,
    /// The normalised text of the parenthesised arguments, parentheses
    /// included. Local values appear by name, as written.
    pub args: String,
}

/// The metadata of one instruction or terminator: its attachments and the
/// debug records written before it. Both lists are usually empty, so they
/// are kept behind one pointer, absent when both are empty (8 bytes, no
/// allocation): every instruction carries this record (issue 17 item 8,
/// memory linear in a small factor).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct InstMeta {
    /// `None` when both lists are empty (so that equality is structural).
    lists: Option<Box<MetaLists>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
struct MetaLists {
    attachments: ThinVec<MdAttachment>,
    dbg_records: ThinVec<DbgRecord>,
}

impl InstMeta {
    pub fn new(
        attachments: impl Into<ThinVec<MdAttachment>>,
        dbg_records: impl Into<ThinVec<DbgRecord>>,
    ) -> InstMeta {
        let lists = MetaLists {
            attachments: attachments.into(),
            dbg_records: dbg_records.into(),
        };
        let empty = lists.attachments.is_empty() && lists.dbg_records.is_empty();
        InstMeta {
            lists: (!empty).then(|| Box::new(lists)),
        }
    }
    /// `!kind value` attachments, in order.
    pub fn attachments(&self) -> &[MdAttachment] {
        self.lists.as_ref().map_or(&[], |l| &l.attachments)
    }
    /// The debug records written before the instruction, in order.
    pub fn dbg_records(&self) -> &[DbgRecord] {
        self.lists.as_ref().map_or(&[], |l| &l.dbg_records)
    }
    /// Drops the debug records, keeping the attachments.
    pub fn clear_dbg_records(&mut self) {
        *self = InstMeta::new(self.attachments().to_vec(), ThinVec::new());
    }
    /// The attachment of kind `kind` (`"llvm.loop"`), if any.
    pub fn attachment(&self, kind: &str) -> Option<&MdValue> {
        self.attachments()
            .iter()
            .find(|a| a.kind == kind)
            .map(|a| &a.value)
    }
}
