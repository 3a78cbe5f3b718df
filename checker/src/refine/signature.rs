//! P-LAUNCH: source and target are launched with the same arguments, so
//! both must define the kernel with one signature (parameter types, which
//! parameters are uniform, return type). A difference is invalid input
//! (exit 3) naming both signatures and the difference, not a verdict.

use semantics::ir::print::type_str;
use semantics::ir::{Function, Module};

use super::prog::Prepared;
use super::{RefineError, Side};

/// The kernel `@kernel` of `m`, or invalid input naming the role.
fn kernel_of<'m>(m: &'m Module, kernel: &str, role: Side) -> Result<&'m Function, RefineError> {
    m.function(kernel)
        .filter(|f| f.is_definition)
        .ok_or_else(|| {
            RefineError::Signature(format!(
                "the {role} defines no function @{kernel} (the kernel to compare)"
            ))
        })
}

/// `ret @name(T %a, ...)` as written.
fn shown(f: &Function) -> String {
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| match p.value {
            Some(v) => format!("{} %{}", type_str(&p.ty), f.value(v).name),
            None => type_str(&p.ty),
        })
        .collect();
    format!("{} @{}({})", type_str(&f.ret_ty), f.name, params.join(", "))
}

/// Both modules define `@kernel` with the same parameter and return types.
pub fn same_kernel(src: &Module, tgt: &Module, kernel: &str) -> Result<(), RefineError> {
    let s = kernel_of(src, kernel, Side::Source)?;
    let t = kernel_of(tgt, kernel, Side::Target)?;
    let diff = if s.params.len() != t.params.len() {
        Some(format!(
            "{} parameters in the source, {} in the target",
            s.params.len(),
            t.params.len()
        ))
    } else if let Some(i) = (0..s.params.len()).find(|&i| s.params[i].ty != t.params[i].ty) {
        Some(format!(
            "parameter {} is {} in the source, {} in the target",
            i + 1,
            type_str(&s.params[i].ty),
            type_str(&t.params[i].ty)
        ))
    } else if s.ret_ty != t.ret_ty {
        Some(format!(
            "the source returns {}, the target {}",
            type_str(&s.ret_ty),
            type_str(&t.ret_ty)
        ))
    } else {
        None
    };
    match diff {
        Some(d) => Err(RefineError::Signature(format!(
            "the kernels' signatures differ: source `{}`, target `{}`: {d}",
            shown(s),
            shown(t)
        ))),
        None => Ok(()),
    }
}

/// P-LAUNCH: the same parameters are uniform (`inreg`, kernel calling
/// convention) in both prepared kernels.
pub fn same_uniform_params(s: &Prepared, t: &Prepared) -> Result<(), RefineError> {
    match (0..s.uniform_param.len()).find(|&i| s.uniform_param.get(i) != t.uniform_param.get(i)) {
        Some(i) => {
            let u = |b: bool| if b { "uniform" } else { "per thread" };
            Err(RefineError::Signature(format!(
                "the kernels' signatures differ: source `{}`, target `{}`: parameter {} is {} in \
                 the source, {} in the target \
                 (inreg or the kernel calling convention)",
                shown(s.func),
                shown(t.func),
                i + 1,
                u(s.uniform_param[i]),
                u(t.uniform_param.get(i).copied().unwrap_or(false))
            )))
        }
        None => Ok(()),
    }
}
