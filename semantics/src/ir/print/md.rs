//! Printing of metadata values, attachments and debug records (the
//! inverse of `parse::metadata`).

use std::fmt::Write;

use super::super::{DbgRecord, InstMeta, MdAttachment, MdDef, MdValue};
use super::value::{quote_bytes, write_type, Style};

/// One metadata value as LLVM writes it in an operand position.
pub fn md_str(v: &MdValue) -> String {
    let mut o = String::new();
    write_md(&mut o, v);
    o
}

pub(super) fn write_md(o: &mut String, v: &MdValue) {
    match v {
        MdValue::Ref(n) => {
            o.push('!');
            o.push_str(n);
        }
        MdValue::Str(s) => {
            o.push('!');
            o.push_str(&quote_bytes(s));
        }
        MdValue::Tuple { distinct, elems } => {
            if *distinct {
                o.push_str("distinct ");
            }
            o.push_str("!{");
            for (i, e) in elems.iter().enumerate() {
                if i > 0 {
                    o.push_str(", ");
                }
                write_md(o, e);
            }
            o.push('}');
        }
        MdValue::Special {
            distinct,
            kind,
            args,
        } => {
            if *distinct {
                o.push_str("distinct ");
            }
            let _ = write!(o, "!{kind}{args}");
        }
        MdValue::Typed { ty, value } => {
            write_type(o, ty, Style::Source);
            o.push(' ');
            o.push_str(value);
        }
        MdValue::Null => o.push_str("null"),
    }
}

/// `!name = value` followed by a newline.
pub(super) fn write_md_def(o: &mut String, d: &MdDef) {
    let _ = write!(o, "!{} = ", d.name);
    write_md(o, &d.value);
    o.push('\n');
}

/// ` !kind value` for each attachment, `sep` before each (`", "` after
/// instructions and globals, `" "` in function headers).
pub(super) fn write_attachments(o: &mut String, md: &[MdAttachment], sep: &str) {
    for a in md {
        let _ = write!(o, "{sep}!{} ", a.kind);
        write_md(o, &a.value);
    }
}

/// The debug records of `meta`, one per line, indented as LLVM does.
pub(super) fn write_dbg_records(o: &mut String, meta: &InstMeta) {
    for DbgRecord { kind, args } in meta.dbg_records() {
        let _ = writeln!(o, "    #{kind}{args}");
    }
}
