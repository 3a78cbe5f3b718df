//! Rule U-SOURCE: the divergence sources and always-uniform instructions
//! of the module's target, as LLVM 22's `TTI::isSourceOfDivergence` /
//! `isAlwaysUniform` decide them: for AMDGPU (`GCNTTIImpl`, the
//! `SourcesOfDivergence` / `AlwaysUniform` tables of
//! AMDGPUSearchableTables.td) and NVPTX (`NVPTXTTIImpl`). The per-intrinsic
//! classes live in the intrinsic table ([`crate::intrinsics`], column
//! `class`); this module adds the target rules for arguments, loads,
//! atomics and calls in general. The target comes from the module's
//! `target triple` ([`Target::of_triple`]; none: AMDGPU). SPIR-V and
//! DirectX have no branch divergence in LLVM 22 (`hasBranchDivergence` is
//! false), so nothing is computed for them (see `has_branch_divergence`).

use crate::intrinsics::{self, Class, Target};
use crate::ir::{Call, Const, Function, Inst, InstKind, Module, Operand, Param, Type};

/// The target the module's uniformity follows (U-SOURCE).
pub fn target_of(m: &Module) -> Target {
    Target::of_triple(m.triple.as_deref())
}

/// Whether `name` is an intrinsic the table classes as a source on `t`.
fn is_intrinsic_source(t: Target, name: &str) -> bool {
    intrinsics::class_on(t, name) == Class::Source
}

/// Whether `name` is an intrinsic the table classes as always uniform on `t`.
fn is_intrinsic_always_uniform(t: Target, name: &str) -> bool {
    intrinsics::class_on(t, name) == Class::AlwaysUniform
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

/// Rule U-SOURCE for arguments. AMDGPU: an argument is divergent unless
/// the target passes it in a scalar register: every argument of a kernel,
/// `inreg` arguments of any function, and `byval` arguments of graphics
/// shaders. NVPTX: every argument of a non-kernel (`ptx_kernel`) function.
pub fn is_divergent_arg(m: &Module, f: &Function, p: &Param) -> bool {
    let cc = f.cconv.as_deref();
    if target_of(m) == Target::Nvptx {
        return cc != Some("ptx_kernel");
    }
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

/// Rule U-SOURCE for instructions (`TTI::isSourceOfDivergence`). AMDGPU:
/// loads from private (5) or flat (0) memory, atomics, divergence-source
/// intrinsics, and calls to anything that is not an intrinsic. NVPTX: loads
/// from generic (0) or local (5) memory, atomics, thread and lane id reads,
/// and every other call too (`NVPTXTTIImpl` treats any call's result as
/// divergent). On both, not a call marked `nodivergencesource`.
pub fn is_source_of_divergence(m: &Module, inst: &Inst) -> bool {
    let target = target_of(m);
    match &inst.kind {
        InstKind::Load { ptr, .. } => matches!(addrspace(&ptr.ty), Some(0) | Some(5)),
        InstKind::AtomicRmw { .. } | InstKind::CmpXchg { .. } => true,
        InstKind::Call(call) => {
            if call_has_fn_attr(m, call, "nodivergencesource") {
                return false;
            }
            match call.callee_name() {
                _ if target == Target::Nvptx => true,
                Some(name) if name.starts_with("llvm.") => {
                    if intrinsics::class_on(target, name) == Class::ByRegister {
                        return intrinsics::reads_vector_register(call);
                    }
                    is_intrinsic_source(target, name)
                }
                _ => true,
            }
        }
        _ => false,
    }
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
                || call.callee_name().is_some_and(|n| {
                    n.starts_with("llvm.") && is_intrinsic_always_uniform(target_of(m), n)
                })
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
                .and_then(intrinsics::lookup)
                .is_some_and(|b| matches!(b.row.name, "llvm.amdgcn.if" | "llvm.amdgcn.else"));
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
            .is_some_and(|n| n.starts_with("llvm.") && is_intrinsic_always_uniform(target_of(m), n))
}

/// Whether the operand is a constant (`isa<Constant>`), never divergent.
pub fn is_constant(op: &Operand) -> bool {
    matches!(op, Operand::Const(_) | Operand::Metadata(_))
}

/// Whether the operand is `undef` or `poison` (`isa<UndefValue>`).
pub fn is_undef(op: &Operand) -> bool {
    matches!(
        op,
        Operand::Const(c) if matches!(**c, Const::Undef | Const::Poison)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rule U-SOURCE: overloaded names resolve to the longest base.
    #[test]
    fn intrinsic_bases_resolve_longest_first() {
        let a = Target::Amdgpu;
        assert!(is_intrinsic_always_uniform(
            a,
            "llvm.amdgcn.readfirstlane.i32"
        ));
        assert!(is_intrinsic_always_uniform(a, "llvm.amdgcn.if.break.i64"));
        assert!(!is_intrinsic_source(a, "llvm.amdgcn.if.break.i64"));
        assert!(is_intrinsic_source(a, "llvm.amdgcn.if.i64"));
        assert!(is_intrinsic_source(a, "llvm.amdgcn.workitem.id.x"));
        assert!(is_intrinsic_source(
            a,
            "llvm.amdgcn.raw.buffer.atomic.add.i32"
        ));
        assert!(!is_intrinsic_source(a, "llvm.amdgcn.workgroup.id.x"));
        assert!(is_intrinsic_source(a, "llvm.r600.read.tidig.x"));
    }
}
