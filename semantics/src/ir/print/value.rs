//! Names, types, constants, operands and attributes in LLVM's spelling, in
//! one of two [`Style`]s. This is the only place that spells them: the
//! module printer (round trip), the verifier's messages and the uniformity
//! report all come through here.

use std::fmt::Write;

use super::super::{
    Atomic, Attr, Const, FuncType, Function, Name, Operand, Type, TypedConst, TypedOperand,
};

/// How the printer writes what LLVM can spell in more than one way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// What the parser kept, so that parse -> print -> parse is the
    /// identity (rule P-PROG): typed pointers as written, `i1` constants
    /// as written, float literals as written, `align` only where written.
    Source,
    /// LLVM's normalised form (`Value::print`), which `opt-22` shows after
    /// a verifier message (rule S-LLVM) and in `print<uniformity>` (rule
    /// U-LLVM): typed pointers read as `ptr`, `i1` constants as
    /// `true`/`false`, float literals as LLVM prints them, and the ABI
    /// `align` on memory operations written without one.
    Llvm,
}

/// Whether a name can be written without quotes after `%`/`@` or before
/// `:` (LLVM's `[-a-zA-Z$._][-a-zA-Z$._0-9]*`).
fn is_plain(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && !b[0].is_ascii_digit()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'$' | b'.' | b'_'))
}

/// `"..."` with LLVM's escapes: `\XX` for `"`, `\` and non-printable bytes.
pub fn quote_bytes(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len() + 2);
    out.push('"');
    for &c in b {
        if (0x20..0x7f).contains(&c) && c != b'"' && c != b'\\' {
            out.push(c as char);
        } else {
            let _ = write!(out, "\\{c:02X}");
        }
    }
    out.push('"');
    out
}

pub fn quote_str(s: &str) -> String {
    quote_bytes(s.as_bytes())
}

/// A local or label name without its sigil, quoted if needed.
pub fn quote_name(n: &Name) -> String {
    match n {
        Name::Numbered(k) => k.to_string(),
        Name::Named(s) if is_plain(s) => s.to_string(),
        Name::Named(s) => quote_str(s),
    }
}

/// `%name` / `%7`.
pub fn local_name(n: &Name) -> String {
    format!("%{}", quote_name(n))
}

/// A global name without `@`: numbered globals keep their digits.
pub fn quote_global(g: &str) -> String {
    if !g.is_empty() && g.bytes().all(|c| c.is_ascii_digit()) || is_plain(g) {
        g.to_string()
    } else {
        quote_str(g)
    }
}

impl Style {
    pub fn ty(self, t: &Type) -> String {
        let mut s = String::new();
        write_type(&mut s, t, self);
        s
    }

    /// A constant of type `t` (the type decides `i1` spelling and float
    /// literals in [`Style::Llvm`]).
    pub fn constant(self, c: &Const, t: &Type) -> String {
        let mut s = String::new();
        write_const(&mut s, c, t, self);
        s
    }

    /// `ty value`.
    pub fn typed(self, f: &Function, t: &TypedOperand) -> String {
        let mut s = String::new();
        write_typed(&mut s, f, t, self);
        s
    }
}

/// A type as written (the round-trip style).
pub fn type_str(t: &Type) -> String {
    Style::Source.ty(t)
}

pub(super) fn write_type(o: &mut String, t: &Type, style: Style) {
    let list = |o: &mut String, ts: &[Type]| {
        for (i, x) in ts.iter().enumerate() {
            if i > 0 {
                o.push_str(", ");
            }
            write_type(o, x, style);
        }
    };
    match t {
        Type::Void => o.push_str("void"),
        Type::Int(n) => {
            let _ = write!(o, "i{n}");
        }
        Type::Half => o.push_str("half"),
        Type::BFloat => o.push_str("bfloat"),
        Type::Float => o.push_str("float"),
        Type::Double => o.push_str("double"),
        Type::X86Fp80 => o.push_str("x86_fp80"),
        Type::Fp128 => o.push_str("fp128"),
        Type::Ptr(0) => o.push_str("ptr"),
        Type::Ptr(n) => {
            let _ = write!(o, "ptr addrspace({n})");
        }
        // LLVM 22 reads typed pointers as opaque ones.
        Type::TypedPtr { addrspace, .. } if style == Style::Llvm => {
            write_type(o, &Type::Ptr(*addrspace), style)
        }
        Type::Vector {
            len,
            scalable,
            elem,
        } => {
            o.push('<');
            if *scalable {
                o.push_str("vscale x ");
            }
            let _ = write!(o, "{len} x ");
            write_type(o, elem, style);
            o.push('>');
        }
        Type::Array(a) => {
            let _ = write!(o, "[{} x ", a.len);
            write_type(o, &a.elem, style);
            o.push(']');
        }
        Type::Struct { fields, packed } => {
            if *packed {
                o.push('<');
            }
            if fields.is_empty() {
                o.push_str("{}");
            } else {
                o.push_str("{ ");
                list(o, fields);
                o.push_str(" }");
            }
            if *packed {
                o.push('>');
            }
        }
        Type::Named(n) => {
            o.push('%');
            o.push_str(&quote_global(n));
        }
        Type::TypedPtr { pointee, addrspace } => {
            write_type(o, pointee, style);
            if *addrspace != 0 {
                let _ = write!(o, " addrspace({addrspace})");
            }
            o.push('*');
        }
        Type::Func(f) => {
            let FuncType {
                ret,
                params,
                varargs,
            } = &**f;
            write_type(o, ret, style);
            o.push_str(" (");
            list(o, params);
            if *varargs {
                o.push_str(if params.is_empty() { "..." } else { ", ..." });
            }
            o.push(')');
        }
        Type::Label => o.push_str("label"),
        Type::Token => o.push_str("token"),
        Type::Metadata => o.push_str("metadata"),
    }
}

/// A constant as written (the round-trip style; `i1` and floats as the
/// parser kept them).
pub fn const_str(c: &Const) -> String {
    Style::Source.constant(c, &Type::Void)
}

fn write_typed_consts(o: &mut String, items: &[TypedConst], style: Style) {
    for (i, tc) in items.iter().enumerate() {
        if i > 0 {
            o.push_str(", ");
        }
        write_type(o, &tc.ty, style);
        o.push(' ');
        write_const(o, &tc.value, &tc.ty, style);
    }
}

/// How LLVM's AsmWriter prints a vector constant whose elements are all
/// one value (P-VEC): `poison`/`undef` when every element is, the
/// aggregate zero as `zeroinitializer` (integer 0, float +0.0), and a splat
/// of an integer or float as `splat (T v)`; `None` otherwise.
fn llvm_vector_form(items: &[TypedConst], style: Style) -> Option<String> {
    let first = items.first()?;
    let bits = |tc: &TypedConst| match &tc.value {
        Const::Int { value, .. } => Some(*value as u128),
        Const::Float(text) => crate::ir::float::FloatTy::of(&tc.ty)
            .and_then(|f| crate::ir::float::parse_literal(text, f).ok())
            .map(u128::from),
        _ => None,
    };
    if items.iter().all(|x| x.value == Const::Poison) {
        return Some("poison".into());
    }
    if items.iter().all(|x| x.value == Const::Undef) {
        return Some("undef".into());
    }
    let b = bits(first)?;
    if !items.iter().all(|x| x.ty == first.ty && bits(x) == Some(b)) {
        return None;
    }
    if b == 0 {
        return Some("zeroinitializer".into());
    }
    let mut out = String::from("splat (");
    write_type(&mut out, &first.ty, style);
    out.push(' ');
    write_const(&mut out, &first.value, &first.ty, style);
    out.push(')');
    Some(out)
}

pub(super) fn write_const(o: &mut String, c: &Const, t: &Type, style: Style) {
    match c {
        Const::Int { value, bool_syntax } => {
            let as_bool = match style {
                Style::Source => *bool_syntax,
                Style::Llvm => t.int_bits() == Some(1),
            };
            if as_bool {
                o.push_str(if *value != 0 { "true" } else { "false" });
            } else {
                let _ = write!(o, "{value}");
            }
        }
        Const::Float(s) => match style {
            Style::Source => o.push_str(s),
            Style::Llvm => o.push_str(&float_lit(s, t)),
        },
        Const::Null => o.push_str("null"),
        Const::None => o.push_str("none"),
        Const::Undef => o.push_str("undef"),
        Const::Poison => o.push_str("poison"),
        Const::ZeroInit => o.push_str("zeroinitializer"),
        Const::Vector(items) => {
            if style == Style::Llvm {
                if let Some(short) = llvm_vector_form(items, style) {
                    o.push_str(&short);
                    return;
                }
            }
            o.push('<');
            write_typed_consts(o, items, style);
            o.push('>');
        }
        Const::Array(items) => {
            o.push('[');
            write_typed_consts(o, items, style);
            o.push(']');
        }
        Const::CString(b) => {
            o.push('c');
            o.push_str(&quote_bytes(b));
        }
        Const::Struct { fields, packed } => {
            if *packed {
                o.push('<');
            }
            if fields.is_empty() {
                o.push_str("{}");
            } else {
                o.push_str("{ ");
                write_typed_consts(o, fields, style);
                o.push_str(" }");
            }
            if *packed {
                o.push('>');
            }
        }
        Const::Global(g) => {
            o.push('@');
            o.push_str(&quote_global(g));
        }
        Const::Expr(e) => e.write_with(o, &|t| style.ty(t), &|tc| {
            let mut s = style.ty(&tc.ty);
            s.push(' ');
            write_const(&mut s, &tc.value, &tc.ty, style);
            s
        }),
    }
}

/// A float literal as LLVM prints it: `%e` with six digits when that
/// round-trips, otherwise the 64-bit hex form.
fn float_lit(text: &str, t: &Type) -> String {
    if text.starts_with("0x") || text.starts_with("0X") {
        return text.to_string();
    }
    let Ok(v) = text.parse::<f64>() else {
        return text.to_string();
    };
    let exact_in_type = match t {
        Type::Float => (v as f32) as f64 == v,
        _ => true,
    };
    let e = format!("{v:.6e}");
    // Rust writes `1.000000e0`; LLVM writes `1.000000e+00`.
    let (mant, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let llvm = format!("{mant}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
    if exact_in_type && llvm.parse::<f64>().ok() == Some(v) {
        llvm
    } else {
        format!("0x{:016X}", v.to_bits())
    }
}

/// One attribute; `in_group` selects the `name=N` spelling of integer
/// attributes used inside `attributes #N = { ... }`.
pub fn attr_str(a: &Attr, in_group: bool) -> String {
    match a {
        Attr::Word(w) => w.clone(),
        Attr::Str { key, value: None } => quote_str(key),
        Attr::Str {
            key,
            value: Some(v),
        } => format!("{}={}", quote_str(key), quote_str(v)),
        Attr::Int { name, value } if in_group => format!("{name}={value}"),
        Attr::Int { name, value } => format!("{name} {value}"),
        Attr::Paren { name, args } => format!("{name}({args})"),
        Attr::Group(n) => format!("#{n}"),
    }
}

pub(super) fn write_attrs(o: &mut String, attrs: &[Attr], lead_space: bool) {
    for (i, a) in attrs.iter().enumerate() {
        if i > 0 || lead_space {
            o.push(' ');
        }
        o.push_str(&attr_str(a, false));
    }
}

/// An operand of type `t`, without the type.
pub(super) fn write_operand(o: &mut String, f: &Function, op: &Operand, t: &Type, style: Style) {
    match op {
        Operand::Local(v) => match f.values.get(v.0) {
            Some(vi) => {
                o.push('%');
                o.push_str(&quote_name(&vi.name));
            }
            None => {
                let _ = write!(o, "%<invalid value {}>", v.0);
            }
        },
        Operand::Const(c) => write_const(o, c, t, style),
        Operand::Metadata(m) => o.push_str(m),
    }
}

pub(super) fn write_typed(o: &mut String, f: &Function, t: &TypedOperand, style: Style) {
    write_type(o, &t.ty, style);
    o.push(' ');
    write_operand(o, f, &t.value, &t.ty, style);
}

pub(super) fn write_flags(o: &mut String, flags: &[String]) {
    for fl in flags {
        o.push(' ');
        o.push_str(fl);
    }
}

pub(super) fn write_atomic(o: &mut String, a: &Atomic) {
    if let Some(s) = &a.syncscope {
        let _ = write!(o, " syncscope({})", quote_str(s));
    }
    o.push(' ');
    o.push_str(&a.ordering);
    if let Some(fl) = &a.failure {
        o.push(' ');
        o.push_str(fl);
    }
}

/// `, align N` of a memory operation on a value of type `t`: as written in
/// [`Style::Source`]; in [`Style::Llvm`] the ABI alignment LLVM adds when
/// the source has none.
pub(super) fn write_align(o: &mut String, a: Option<u64>, t: &Type, style: Style) {
    let a = match style {
        Style::Source => a,
        Style::Llvm => Some(a.unwrap_or_else(|| abi_align(t))),
    };
    if let Some(n) = a {
        let _ = write!(o, ", align {n}");
    }
}

/// ABI alignment in bytes under the AMDGPU data layout, used for the
/// `align` LLVM prints on memory operations written without one.
pub fn abi_align(t: &Type) -> u64 {
    match t {
        Type::Int(n) => match *n {
            0..=8 => 1,
            9..=16 => 2,
            17..=32 => 4,
            33..=64 => 8,
            _ => 16,
        },
        Type::Half | Type::BFloat => 2,
        Type::Float => 4,
        Type::Double => 8,
        Type::X86Fp80 | Type::Fp128 => 16,
        Type::Ptr(a) | Type::TypedPtr { addrspace: a, .. } => match a {
            2 | 3 | 5 | 6 => 4,
            7 | 9 => 32,
            8 => 16,
            _ => 8,
        },
        Type::Vector { len, elem, .. } => {
            let bytes = u64::from(*len) * type_store_size(elem);
            bytes.max(1).next_power_of_two()
        }
        Type::Array(a) => abi_align(&a.elem),
        Type::Struct { fields, packed } => {
            if *packed {
                1
            } else {
                fields.iter().map(abi_align).max().unwrap_or(1)
            }
        }
        _ => 1,
    }
}

fn type_store_size(t: &Type) -> u64 {
    match t {
        Type::Int(n) => (*n as u64).div_ceil(8),
        Type::Half | Type::BFloat => 2,
        Type::Float => 4,
        Type::Double => 8,
        Type::Ptr(2 | 3 | 5 | 6) => 4,
        _ => 8,
    }
}
