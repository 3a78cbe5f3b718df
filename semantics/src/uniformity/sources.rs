//! Rule U-SOURCE: the AMDGPU divergence sources and always-uniform
//! instructions, as LLVM's `GCNTTIImpl::isSourceOfDivergence` /
//! `isAlwaysUniform` (AMDGPUTargetTransformInfo.cpp) and the
//! `SourcesOfDivergence` / `AlwaysUniform` tables of
//! AMDGPUSearchableTables.td decide them for `-mtriple=amdgcn--`.
//!
//! Intrinsics are matched by their base name: an overloaded intrinsic
//! `llvm.amdgcn.readfirstlane.i32` is the intrinsic `llvm.amdgcn.readfirstlane`.
//! Since base names can be prefixes of one another (`llvm.amdgcn.if` and
//! `llvm.amdgcn.if.break`), the longest known base wins, as in LLVM's
//! intrinsic name lookup.

use crate::ir::{Call, Const, Function, Inst, InstKind, Module, Operand, Param, Type};

/// Intrinsics whose result differs between threads whatever their operands
/// (thread ids, lane counters, interpolation, lane shuffles, atomics on
/// buffers and images, wave-matrix operations).
const SOURCES_OF_DIVERGENCE: &[&str] = &[
    "workitem.id.x",
    "workitem.id.y",
    "workitem.id.z",
    "interp.mov",
    "interp.p1",
    "interp.p2",
    "interp.p1.f16",
    "interp.p2.f16",
    "interp.inreg.p10",
    "interp.inreg.p2",
    "interp.inreg.p10.f16",
    "interp.inreg.p2.f16",
    "lds.direct.load",
    "lds.param.load",
    "mbcnt.hi",
    "mbcnt.lo",
    "atomic.inc",
    "atomic.dec",
    "global.atomic.fmin.num",
    "global.atomic.fmax.num",
    "global.atomic.ordered.add.b64",
    "flat.atomic.fmin.num",
    "flat.atomic.fmax.num",
    "atomic.cond.sub.u32",
    "ds.fadd",
    "ds.fmin",
    "ds.fmax",
    "ds.swizzle",
    "ds.ordered.add",
    "ds.ordered.swap",
    "ds.bpermute",
    "ds.permute",
    "ds.bpermute.fi.b32",
    "ps.live",
    "live.mask",
    "wqm.helper",
    "inverse.ballot",
    "permlane16",
    "permlanex16",
    "permlane16.var",
    "permlanex16.var",
    "permlane16.swap",
    "permlane32.swap",
    "mov.dpp",
    "mov.dpp8",
    "update.dpp",
    "writelane",
    "set.inactive",
    "set.inactive.chain.arg",
    "if",
    "else",
    "loop",
    "buffer.atomic.swap",
    "buffer.atomic.add",
    "buffer.atomic.sub",
    "buffer.atomic.smin",
    "buffer.atomic.umin",
    "buffer.atomic.smax",
    "buffer.atomic.umax",
    "buffer.atomic.and",
    "buffer.atomic.or",
    "buffer.atomic.xor",
    "buffer.atomic.cmpswap",
    "buffer.atomic.csub",
];

/// Buffer/image atomic families: every `llvm.amdgcn.{raw,struct}[.ptr].buffer.atomic.*`
/// and `llvm.amdgcn.image.atomic.*` intrinsic is a source, as are the
/// MFMA/WMMA/SWMMAC matrix intrinsics (their results are spread across lanes).
const SOURCE_PREFIXES: &[&str] = &[
    "raw.buffer.atomic.",
    "raw.ptr.buffer.atomic.",
    "struct.buffer.atomic.",
    "struct.ptr.buffer.atomic.",
    "image.atomic.",
    "mfma.",
    "smfmac.",
    "wmma.",
    "swmmac.",
    "rts.",
    "swc.reorder",
];

/// Intrinsics whose result is uniform whatever their operands: the lane
/// readers (read-first-lane and kin) and whole-wave masks.
const ALWAYS_UNIFORM: &[&str] = &[
    "readfirstlane",
    "readlane",
    "icmp",
    "fcmp",
    "ballot",
    "if.break",
    "s.getpc",
];

/// Every base name the two tables and the overload matcher must tell apart
/// (so that `if.break` is not read as an overload of `if`).
fn known_bases() -> impl Iterator<Item = &'static str> {
    SOURCES_OF_DIVERGENCE
        .iter()
        .chain(ALWAYS_UNIFORM.iter())
        .copied()
}

/// The `llvm.amdgcn.` intrinsic base of a callee name, longest match first.
fn amdgcn_base(name: &str) -> Option<&'static str> {
    let rest = name.strip_prefix("llvm.amdgcn.")?;
    known_bases()
        .filter(|b| rest == *b || rest.starts_with(&format!("{b}.")))
        .max_by_key(|b| b.len())
}

/// Whether `name` is an intrinsic in the SourcesOfDivergence table.
fn is_intrinsic_source(name: &str) -> bool {
    if let Some(base) = amdgcn_base(name) {
        return SOURCES_OF_DIVERGENCE.contains(&base);
    }
    match name.strip_prefix("llvm.amdgcn.") {
        Some(rest) => SOURCE_PREFIXES.iter().any(|p| rest.starts_with(p)),
        None => {
            name.starts_with("llvm.r600.read.tidig.")
                || name == "llvm.r600.read.tidig.x"
                || name == "llvm.r600.read.tidig.y"
                || name == "llvm.r600.read.tidig.z"
        }
    }
}

/// Whether `name` is an intrinsic in the AlwaysUniform table.
fn is_intrinsic_always_uniform(name: &str) -> bool {
    amdgcn_base(name).is_some_and(|b| ALWAYS_UNIFORM.contains(&b))
}

/// Calling conventions whose arguments all live in scalar registers
/// (`AMDGPU::isArgPassedInSGPR` for kernels).
fn is_kernel_cc(cc: Option<&str>) -> bool {
    matches!(cc, Some("amdgpu_kernel") | Some("spir_kernel"))
}

/// Graphics shader calling conventions, whose `byval` arguments are also
/// passed in scalar registers.
fn is_shader_cc(cc: Option<&str>) -> bool {
    matches!(
        cc,
        Some(
            "amdgpu_vs"
                | "amdgpu_ls"
                | "amdgpu_hs"
                | "amdgpu_es"
                | "amdgpu_gs"
                | "amdgpu_ps"
                | "amdgpu_cs"
                | "amdgpu_cs_chain"
                | "amdgpu_cs_chain_preserve"
        )
    )
}

/// Rule U-SOURCE for arguments: an argument is divergent unless the target
/// passes it in a scalar register: every argument of a kernel, `inreg`
/// arguments of any function, and `byval` arguments of graphics shaders.
pub fn is_divergent_arg(m: &Module, f: &Function, p: &Param) -> bool {
    let cc = f.cconv.as_deref();
    if is_kernel_cc(cc) {
        return false;
    }
    let attrs = m.expand_attrs(&p.attrs);
    let inreg = attrs.iter().any(|a| a.name() == Some("inreg"));
    let byval = attrs.iter().any(|a| a.name() == Some("byval"));
    !(inreg || (byval && is_shader_cc(cc)))
}

/// The address space of a pointer operand's type.
fn addrspace(ty: &Type) -> Option<u32> {
    match ty {
        Type::Ptr(a) => Some(*a),
        Type::TypedPtr { addrspace, .. } => Some(*addrspace),
        _ => None,
    }
}

/// Whether a call carries `attr` as a call-site or callee function attribute
/// (`CallBase::hasFnAttr`).
fn call_has_fn_attr(m: &Module, call: &Call, attr: &str) -> bool {
    if m.has_attr(&call.fn_attrs, attr) {
        return true;
    }
    call.callee_name()
        .and_then(|n| m.function(n))
        .is_some_and(|callee| m.has_attr(&callee.fn_attrs, attr))
}

/// Rule U-SOURCE for instructions (`TTI::isSourceOfDivergence`): loads
/// from private (5) or flat (0) memory, atomics, divergence-source
/// intrinsics, and calls to anything that is not an intrinsic, unless the
/// call is `nodivergencesource`.
pub fn is_source_of_divergence(m: &Module, inst: &Inst) -> bool {
    match &inst.kind {
        InstKind::Load { ptr, .. } => matches!(addrspace(&ptr.ty), Some(0) | Some(5)),
        InstKind::AtomicRmw { .. } | InstKind::CmpXchg { .. } => true,
        InstKind::Call(call) => {
            if call_has_fn_attr(m, call, "nodivergencesource") {
                return false;
            }
            match call.callee_name() {
                Some(name) if name.starts_with("llvm.") => {
                    if name.starts_with("llvm.read_register.") {
                        return read_register_is_divergent(call);
                    }
                    is_intrinsic_source(name)
                }
                _ => true,
            }
        }
        _ => false,
    }
}

/// `llvm.read_register` is divergent for vector registers (`v*`, `a*`);
/// the register name is only visible when written inline, otherwise it is
/// assumed scalar (LLVM reads it from a named metadata node the subset does
/// not keep).
fn read_register_is_divergent(call: &Call) -> bool {
    call.args.iter().any(|a| match &a.value {
        Operand::Metadata(text) => {
            let t = text.trim_start_matches("!{").trim_start_matches('!');
            let t = t.trim_start_matches('"');
            (t.starts_with('v') && !t.starts_with("vcc")) || t.starts_with('a')
        }
        _ => false,
    })
}

/// Rule U-SOURCE, always-uniform side (`TTI::isAlwaysUniform`): the
/// always-uniform intrinsics, calls marked `nodivergencesource` (as LLVM 22
/// observably treats them), and `extractvalue ..., 1` of
/// `llvm.amdgcn.if` / `llvm.amdgcn.else` (the uniform mask half of a
/// struct that is divergent as a whole).
pub fn is_always_uniform(m: &Module, f: &Function, inst: &Inst) -> bool {
    match &inst.kind {
        InstKind::Call(call) => {
            // LLVM 22 treats a `nodivergencesource` call as uniform whatever
            // its arguments (proofs/FINDINGS.md: an approximation).
            call_has_fn_attr(m, call, "nodivergencesource")
                || call
                    .callee_name()
                    .is_some_and(|n| n.starts_with("llvm.") && is_intrinsic_always_uniform(n))
        }
        InstKind::ExtractValue { agg, indices } => {
            let Some(v) = agg.value.as_local() else {
                return false;
            };
            let Some(def) = f.def_inst(v) else {
                return false;
            };
            let InstKind::Call(call) = &def.kind else {
                return false;
            };
            let is_if_else = call
                .callee_name()
                .and_then(amdgcn_base)
                .is_some_and(|b| b == "if" || b == "else");
            is_if_else && indices.as_slice() == [1]
        }
        _ => false,
    }
}

/// Whether [`is_always_uniform`] holds for `inst` only because it is a call
/// marked `nodivergencesource` (not an always-uniform intrinsic). The
/// attribute says the call introduces no divergence of its own, not that
/// its result is uniform whatever its arguments: the sound mode (U-SOUND)
/// lets divergence flow through such calls.
pub fn uniform_only_by_attribute(m: &Module, inst: &Inst) -> bool {
    let InstKind::Call(call) = &inst.kind else {
        return false;
    };
    call_has_fn_attr(m, call, "nodivergencesource")
        && !call
            .callee_name()
            .is_some_and(|n| n.starts_with("llvm.") && is_intrinsic_always_uniform(n))
}

/// Whether the operand is a constant (`isa<Constant>`), never divergent.
pub fn is_constant(op: &Operand) -> bool {
    matches!(op, Operand::Const(_) | Operand::Metadata(_))
}

/// Whether the operand is `undef` or `poison` (`isa<UndefValue>`).
pub fn is_undef(op: &Operand) -> bool {
    matches!(
        op,
        Operand::Const(Const::Undef) | Operand::Const(Const::Poison)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rule U-SOURCE: overloaded names resolve to the longest base.
    #[test]
    fn intrinsic_bases_resolve_longest_first() {
        assert_eq!(amdgcn_base("llvm.amdgcn.if.break.i64"), Some("if.break"));
        assert_eq!(amdgcn_base("llvm.amdgcn.if.i64"), Some("if"));
        assert!(is_intrinsic_always_uniform("llvm.amdgcn.readfirstlane.i32"));
        assert!(!is_intrinsic_source("llvm.amdgcn.if.break.i64"));
        assert!(is_intrinsic_source("llvm.amdgcn.workitem.id.x"));
        assert!(is_intrinsic_source("llvm.amdgcn.raw.buffer.atomic.add.i32"));
        assert!(!is_intrinsic_source("llvm.amdgcn.workgroup.id.x"));
    }
}
