//! Intrinsic signatures (issue 11 "typeck", issue 12 item 9, issue 13 "bad
//! input"): the types LLVM's intrinsic definitions (`Intrinsics*.td`) give
//! the table's `llvm.*` rows, checked on every call and declaration by the
//! parser. As LLParser does, the overloaded types come from the call's own
//! types (LLVM re-mangles the name suffix), so only the constraints
//! between the types are checked: `llvm.ctpop` returns its operand's type,
//! `llvm.amdgcn.readlane` takes an `i32` lane, `llvm.amdgcn.if` returns
//! `{ i1, iN }`. A name without a template here is not checked.
//!
//! Template grammar: `RET; P1, P2, ...` where each type is a concrete type
//! (`i1`, `i32`, `i64`, `void`, `token`), a variable `T` or `U` bound at
//! its first use and equal at every other (`T:int` integer or integer
//! vector, `T:fp` floating point, `T:any` any first-class type), or
//! `{i1,T:int}` (the control-flow intrinsics' pair). Alternatives are
//! separated by ` | `.

use crate::ir::print::type_str;
use crate::ir::Type;

/// `llvm.*` base name -> template (see the module doc).
static SIGS: &[(&str, &str)] = &[
    // P-THREAD
    ("llvm.ctpop", "T:int; T"),
    ("llvm.bitreverse", "T:int; T"),
    ("llvm.bswap", "T:int; T"),
    ("llvm.umin", "T:int; T, T"),
    ("llvm.umax", "T:int; T, T"),
    ("llvm.smin", "T:int; T, T"),
    ("llvm.smax", "T:int; T, T"),
    ("llvm.uadd.sat", "T:int; T, T"),
    ("llvm.sadd.sat", "T:int; T, T"),
    ("llvm.usub.sat", "T:int; T, T"),
    ("llvm.ssub.sat", "T:int; T, T"),
    // The one-operand form is the old one LLVM's auto-upgrade still reads.
    ("llvm.cttz", "T:int; T, i1 | T:int; T"),
    ("llvm.ctlz", "T:int; T, i1 | T:int; T"),
    ("llvm.abs", "T:int; T, i1"),
    ("llvm.fshl", "T:int; T, T, T"),
    ("llvm.fshr", "T:int; T, T, T"),
    // C-INTR
    ("llvm.experimental.convergence.entry", "token;"),
    ("llvm.experimental.convergence.anchor", "token;"),
    ("llvm.experimental.convergence.loop", "token;"),
    // AMDGPU
    ("llvm.amdgcn.workitem.id.x", "i32;"),
    ("llvm.amdgcn.workitem.id.y", "i32;"),
    ("llvm.amdgcn.workitem.id.z", "i32;"),
    ("llvm.amdgcn.workgroup.id.x", "i32;"),
    ("llvm.amdgcn.workgroup.id.y", "i32;"),
    ("llvm.amdgcn.workgroup.id.z", "i32;"),
    ("llvm.amdgcn.mbcnt.lo", "i32; i32, i32"),
    ("llvm.amdgcn.mbcnt.hi", "i32; i32, i32"),
    ("llvm.amdgcn.ballot", "T:int; i1"),
    ("llvm.amdgcn.inverse.ballot", "i1; T:int"),
    ("llvm.amdgcn.icmp", "T:int; U:int, U, i32"),
    ("llvm.amdgcn.fcmp", "T:int; U:fp, U, i32"),
    ("llvm.amdgcn.readfirstlane", "T:any; T"),
    ("llvm.amdgcn.readlane", "T:any; T, i32"),
    ("llvm.amdgcn.writelane", "T:any; T, i32, T"),
    ("llvm.amdgcn.permlane16", "T:any; T, T, i32, i32, i1, i1"),
    ("llvm.amdgcn.permlanex16", "T:any; T, T, i32, i32, i1, i1"),
    ("llvm.amdgcn.permlane64", "T:any; T"),
    ("llvm.amdgcn.ds.bpermute", "i32; i32, i32"),
    ("llvm.amdgcn.ds.permute", "i32; i32, i32"),
    ("llvm.amdgcn.ds.swizzle", "i32; i32, i32"),
    ("llvm.amdgcn.mov.dpp", "T:int; T, i32, i32, i32, i1"),
    ("llvm.amdgcn.update.dpp", "T:any; T, T, i32, i32, i32, i1"),
    ("llvm.amdgcn.wave.reduce.umin", "T:int; T, i32"),
    ("llvm.amdgcn.wave.reduce.umax", "T:int; T, i32"),
    ("llvm.amdgcn.s.barrier", "void;"),
    ("llvm.amdgcn.wave.barrier", "void;"),
    ("llvm.amdgcn.set.inactive", "T:any; T, T"),
    ("llvm.amdgcn.wwm", "T:any; T"),
    ("llvm.amdgcn.strict.wwm", "T:any; T"),
    ("llvm.amdgcn.if", "{i1,T:int}; i1"),
    ("llvm.amdgcn.else", "{i1,T:int}; U:int"),
    ("llvm.amdgcn.if.break", "T:int; i1, T"),
    ("llvm.amdgcn.loop", "i1; T:int"),
    ("llvm.amdgcn.end.cf", "void; T:int"),
    // NVPTX
    ("llvm.nvvm.read.ptx.sreg.tid.x", "i32;"),
    ("llvm.nvvm.read.ptx.sreg.tid.y", "i32;"),
    ("llvm.nvvm.read.ptx.sreg.tid.z", "i32;"),
    ("llvm.nvvm.read.ptx.sreg.ntid.x", "i32;"),
    ("llvm.nvvm.read.ptx.sreg.ctaid.x", "i32;"),
    ("llvm.nvvm.read.ptx.sreg.laneid", "i32;"),
    ("llvm.nvvm.read.ptx.sreg.warpsize", "i32;"),
    ("llvm.nvvm.vote.all.sync", "i1; i32, i1"),
    ("llvm.nvvm.vote.any.sync", "i1; i32, i1"),
    ("llvm.nvvm.vote.uni.sync", "i1; i32, i1"),
    ("llvm.nvvm.vote.ballot.sync", "i32; i32, i1"),
    // Not overloaded: one intrinsic per type, the name's last component.
    ("llvm.nvvm.shfl.sync.idx.i32", "i32; i32, i32, i32, i32"),
    ("llvm.nvvm.shfl.sync.up.i32", "i32; i32, i32, i32, i32"),
    ("llvm.nvvm.shfl.sync.down.i32", "i32; i32, i32, i32, i32"),
    ("llvm.nvvm.shfl.sync.bfly.i32", "i32; i32, i32, i32, i32"),
    ("llvm.nvvm.shfl.sync.idx.f32", "float; i32, float, i32, i32"),
    (
        "llvm.nvvm.shfl.sync.bfly.f32",
        "float; i32, float, i32, i32",
    ),
    ("llvm.nvvm.redux.sync.add", "i32; i32, i32"),
    ("llvm.nvvm.activemask", "i32;"),
    ("llvm.nvvm.bar.warp.sync", "void; i32"),
];

/// A type of a template.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pat<'a> {
    Exact(&'a str),
    /// Variable 0 (`T`) or 1 (`U`) with its class at the binding use.
    Var(usize, Option<&'a str>),
    /// `{ i1, T }`.
    Pair(usize, Option<&'a str>),
}

fn pat(word: &str) -> Pat<'_> {
    let w = word.trim();
    if let Some(inner) = w.strip_prefix("{i1,").and_then(|x| x.strip_suffix('}')) {
        match pat(inner) {
            Pat::Var(k, c) => return Pat::Pair(k, c),
            _ => return Pat::Exact(w),
        }
    }
    let (name, class) = match w.split_once(':') {
        Some((n, c)) => (n, Some(c)),
        None => (w, None),
    };
    match name {
        "T" => Pat::Var(0, class),
        "U" => Pat::Var(1, class),
        _ => Pat::Exact(name),
    }
}

fn in_class(t: &Type, class: &str) -> bool {
    let scalar = match t {
        Type::Vector { elem, .. } => &**elem,
        t => t,
    };
    match class {
        "int" => matches!(scalar, Type::Int(_)),
        "fp" => matches!(
            scalar,
            Type::Half | Type::BFloat | Type::Float | Type::Double
        ),
        _ => !matches!(t, Type::Void | Type::Label | Type::Metadata | Type::Token),
    }
}

/// Whether `t` fits `p`, binding variables in `vars`.
fn fits(p: Pat, t: &Type, vars: &mut [Option<Type>; 2]) -> bool {
    match p {
        Pat::Exact(name) => type_str(t) == name,
        Pat::Var(k, class) => match &vars[k] {
            Some(bound) => bound == t,
            None => {
                if class.is_some_and(|c| !in_class(t, c)) {
                    return false;
                }
                vars[k] = Some(t.clone());
                true
            }
        },
        Pat::Pair(k, class) => match t {
            Type::Struct {
                fields,
                packed: false,
            } if fields.len() == 2 && fields[0] == Type::Int(1) => {
                fits(Pat::Var(k, class), &fields[1], vars)
            }
            _ => false,
        },
    }
}

/// Every (name, template) pair: the names are the table's base names,
/// or whole names for intrinsics that are not overloaded but spelled
/// with a type (`llvm.nvvm.shfl.sync.idx.f32`).
pub fn templates() -> &'static [(&'static str, &'static str)] {
    SIGS
}

/// The (key, template) of an `llvm.*` callee: its whole name, or its base
/// name (overload suffixes dropped as the table's lookup drops them).
fn template(name: &str) -> Option<(&'static str, &'static str)> {
    if let Some(e) = SIGS.iter().find(|(n, _)| *n == name) {
        return Some(*e);
    }
    let row = super::lookup(name)?;
    SIGS.iter().find(|(n, _)| *n == row.row.name).copied()
}

/// The signature `name` must have, as LLVM writes it with its overloaded
/// types named (`T (T, i32)`), if the table knows one.
pub fn expected(name: &str) -> Option<String> {
    let (_, t) = template(name)?;
    let shown: Vec<String> = t
        .split(" | ")
        .map(|alt| {
            let (ret, params) = alt.split_once(';').unwrap_or((alt, ""));
            format!("{} ({})", ret.trim(), split_params(params).join(", "))
        })
        .collect();
    Some(shown.join(" or "))
}

fn split_params(params: &str) -> Vec<&str> {
    params
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect()
}

/// Checks a call or declaration of `name` with result `ret` and parameter
/// types `params` against its template: `Err` says what was expected and
/// what was found (the caller adds the location). A variadic or unknown
/// name passes.
pub fn check(name: &str, ret: &Type, params: &[Type]) -> Result<(), String> {
    let Some((key, t)) = template(name) else {
        return Ok(());
    };
    // A type suffix on an intrinsic that is not overloaded names no
    // intrinsic (LLParser: "unknown intrinsic").
    if key != name && !t.contains('T') && !t.contains('U') {
        return Err(format!("unknown intrinsic '{name}'"));
    }
    let fits_alt = |alt: &str| {
        let (r, ps) = alt.split_once(';').unwrap_or((alt, ""));
        let ps = split_params(ps);
        let mut vars: [Option<Type>; 2] = [None, None];
        ps.len() == params.len()
            && fits(pat(r), ret, &mut vars)
            && ps
                .iter()
                .zip(params)
                .all(|(p, t)| fits(pat(p), t, &mut vars))
    };
    if t.split(" | ").any(fits_alt) {
        return Ok(());
    }
    let found: Vec<String> = params.iter().map(type_str).collect();
    Err(format!(
        "invalid intrinsic signature: @{name} is {}, called as {} ({})",
        expected(name).unwrap_or_default(),
        type_str(ret),
        found.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_parse_and_name_table_rows() {
        for (name, t) in SIGS {
            assert!(super::super::lookup(name).is_some(), "{name} has a row");
            assert!(t.contains(';'), "{name}: {t}");
        }
        assert!(check("llvm.ctpop.i32", &Type::Int(32), &[Type::Int(32)]).is_ok());
        // LLVM re-mangles the suffix: the types decide.
        assert!(check("llvm.ctpop.i32", &Type::Int(64), &[Type::Int(64)]).is_ok());
        let e = check("llvm.ctpop.i32", &Type::Int(32), &[Type::Int(64)]).unwrap_err();
        assert!(
            e.contains("@llvm.ctpop.i32 is T:int (T), called as i32 (i64)"),
            "{e}"
        );
        assert!(check("llvm.ctpop.i32", &Type::Float, &[Type::Float]).is_err());
        let pair = Type::Struct {
            fields: vec![Type::Int(1), Type::Int(64)].into(),
            packed: false,
        };
        assert!(check("llvm.amdgcn.if.i64", &pair, &[Type::Int(1)]).is_ok());
        assert!(check("llvm.amdgcn.if.i64", &Type::Int(64), &[Type::Int(1)]).is_err());
        assert!(check("llvm.amdgcn.readlane.i32", &Type::Int(32), &[Type::Int(32)]).is_err());
        assert!(check("llvm.unknown.thing", &Type::Void, &[]).is_ok());
        let e = check("llvm.amdgcn.workitem.id.x.i32", &Type::Int(32), &[]).unwrap_err();
        assert_eq!(e, "unknown intrinsic 'llvm.amdgcn.workitem.id.x.i32'");
    }
}
