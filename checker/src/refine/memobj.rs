//! R-MEM-SMT (docs/RULES.md §9): the static memory objects of one kernel as
//! the encoding sees them, laid out as the interpreter lays them out
//! (P-MEM-OBJ, P-MEM-PTR: `semantics::machine::memory` names the ids and
//! base addresses): one input buffer per pointer parameter, one object per
//! global (workgroup globals: the instance of launch group 0, the one group
//! refine launches), and per thread one private object per `alloca` of the
//! entry block (executed once per thread).

use rustc_hash::FxHashMap as HashMap;

use semantics::ir::layout::DataLayout;
use semantics::ir::{Attr, Const, Function, InstKind, Module, Type};
use semantics::machine::memory::{base_address, global_id, input_id, is_workgroup};

/// Largest object the encoding expresses (bytes are terms; a load at a
/// variable offset is a choice among every offset).
pub const MAX_OBJECT_BYTES: u64 = 512;

/// What an object is (R-MEM: inputs and globals outside workgroup memory
/// are observed; workgroup and private memory are not).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ObjKind {
    /// The `k`-th pointer parameter's buffer (P-INPUT): bytes are launch
    /// inputs shared by source and target.
    Input {
        param: usize,
    },
    Global,
    Workgroup,
    /// The thread's `n`-th allocation (an entry-block `alloca`).
    Private {
        n: u32,
    },
}

/// Initial bytes of a global: `None` is poison.
pub type InitBytes = Vec<Option<u8>>;

/// One object of the table. Pointers name objects by their position in the
/// table plus one (0 is null).
#[derive(Clone, Debug)]
pub struct Object {
    /// As the interpreter names it in final memory (`%buf`, `@g`).
    pub name: String,
    pub size: u64,
    pub kind: ObjKind,
    /// Base address (P-MEM-PTR) of non-private objects.
    pub base: u64,
    /// Initial bytes of globals (empty for inputs and allocas).
    pub init: InitBytes,
    /// Address space (P-MEM-PTR: integer bytes read as a pointer of
    /// address space `s` point into objects of `s` only).
    pub space: u32,
}

impl Object {
    /// R-MEM: its final contents are observed.
    pub fn observed(&self) -> bool {
        matches!(self.kind, ObjKind::Input { .. } | ObjKind::Global)
    }
    /// Other threads may access it (conflicts are checked, R-MEM-SMT).
    pub fn shared(&self) -> bool {
        !matches!(self.kind, ObjKind::Private { .. })
    }
}

/// The memory table of a kernel.
#[derive(Clone, Debug, Default)]
pub struct Objects {
    pub objects: Vec<Object>,
    /// Object index (table position) of each pointer parameter.
    pub param: HashMap<usize, usize>,
    /// Object index of each global with an object, by name.
    pub global: HashMap<String, usize>,
    /// Object index of each entry-block `alloca` (instruction index).
    pub alloca: HashMap<usize, usize>,
    pub layout: Option<DataLayout>,
    /// Some input buffer has the size the check chose (no
    /// `dereferenceable`): `--grow-buffers` may enlarge it.
    pub chosen_buffer_size: bool,
}

/// An input buffer's size given by its parameter: `dereferenceable(N)`
/// (else the check's `--buffer-bytes`, by default the interpreter's
/// `DEFAULT_BUFFER_BYTES`, 64).
fn declared_buffer_size(m: &Module, attrs: &[Attr]) -> Option<u64> {
    m.expand_attrs(attrs).iter().find_map(|a| match a {
        Attr::Paren { name, args }
            if name == "dereferenceable" || name == "dereferenceable_or_null" =>
        {
            args.trim().parse::<u64>().ok()
        }
        _ => None,
    })
}

/// The little-endian bytes of an initializer of type `ty` (P-MEM-OBJ:
/// `undef`/`poison` are poison bytes), or why they are not expressed.
fn init_bytes(
    dl: &DataLayout,
    m: &Module,
    ty: &Type,
    c: &Const,
    out: &mut InitBytes,
) -> Result<(), String> {
    let size = dl.alloc_size(ty, m).map_err(|e| e.0)? as usize;
    match (c, ty) {
        (Const::ZeroInit, _) => out.extend(std::iter::repeat_n(Some(0), size)),
        (Const::Undef | Const::Poison, _) => out.extend(std::iter::repeat_n(None, size)),
        (Const::Int { value, .. }, Type::Int(w)) => {
            let store = (*w as usize).div_ceil(8);
            let v = *value as u128;
            for i in 0..size {
                out.push(Some(if i < store && i < 16 {
                    (v >> (8 * i)) as u8
                } else {
                    0
                }));
            }
        }
        (Const::Array(xs), Type::Array(a)) => {
            for x in xs {
                init_bytes(dl, m, &a.elem, &x.value, out)?;
            }
        }
        (Const::CString(bs), Type::Array(_)) => out.extend(bs.iter().map(|b| Some(*b))),
        _ => return Err("a global initializer other than integers and arrays of them".into()),
    }
    Ok(())
}

/// P-MEM-OBJ: the objects of `func` in module `m`. Globals whose type or
/// initializer the encoding does not express get no object (a use of one
/// is reported unsupported); so do entry-block `alloca`s of unsized types.
/// An input buffer without `dereferenceable(N)` has `buffer_bytes` bytes.
pub fn objects(m: &Module, func: &Function, buffer_bytes: u64) -> Result<Objects, String> {
    let mut t = Objects::default();
    let uses_memory = func.params.iter().any(|p| matches!(p.ty, Type::Ptr(_)))
        || func.blocks.iter().flat_map(|b| &b.insts).any(|i| {
            matches!(
                i.kind,
                InstKind::Load { .. }
                    | InstKind::Store { .. }
                    | InstKind::Alloca { .. }
                    | InstKind::Gep { .. }
            ) || matches!(&i.kind, InstKind::Call(c)
                if c.callee_name().is_some_and(semantics::machine::access::is_mem_intrinsic))
        });
    if !uses_memory {
        return Ok(t);
    }
    let dl = DataLayout::of_module(m).map_err(|e| format!("target datalayout ({})", e.0))?;
    let mut k = 0u32;
    for (i, p) in func.params.iter().enumerate() {
        if matches!(p.ty, Type::Ptr(_)) {
            let name = p
                .value
                .map(|v| func.value(v).name.to_string())
                .unwrap_or_else(|| format!("arg{i}"));
            t.param.insert(i, t.objects.len());
            let declared = declared_buffer_size(m, &p.attrs);
            t.chosen_buffer_size |= declared.is_none();
            t.objects.push(Object {
                name: format!("%{name}"),
                size: declared.unwrap_or(buffer_bytes),
                kind: ObjKind::Input { param: i },
                base: base_address(input_id(k)),
                init: Vec::new(),
                space: match p.ty {
                    Type::Ptr(s) => s,
                    _ => 0,
                },
            });
            k += 1;
        }
    }
    for (i, g) in m.globals.iter().enumerate() {
        let Some(c) = &g.init else { continue };
        if g.keywords.iter().any(|k| k == "externally_initialized") {
            continue;
        }
        let mut bytes = Vec::new();
        if init_bytes(&dl, m, &g.ty, c, &mut bytes).is_err() {
            continue;
        }
        let size = bytes.len() as u64;
        if size > MAX_OBJECT_BYTES {
            continue;
        }
        t.global.insert(g.name.clone(), t.objects.len());
        t.objects.push(Object {
            name: format!("@{}", g.name),
            size,
            kind: if is_workgroup(g) {
                ObjKind::Workgroup
            } else {
                ObjKind::Global
            },
            base: base_address(global_id(m, i, 0)),
            init: bytes,
            space: g
                .keywords
                .iter()
                .find_map(|k| {
                    k.strip_prefix("addrspace(")?
                        .strip_suffix(')')?
                        .parse()
                        .ok()
                })
                .unwrap_or(0),
        });
    }
    let mut n = 0u32;
    for (bi, b) in func.blocks.iter().enumerate() {
        for (ii, inst) in b.insts.iter().enumerate() {
            let InstKind::Alloca {
                ty,
                count,
                addrspace,
                ..
            } = &inst.kind
            else {
                continue;
            };
            if bi != 0 {
                return Err("alloca outside the entry block".into());
            }
            let count = match count {
                None => 1,
                Some(c) => match c.value.as_int() {
                    Some(value) if value >= 0 => value as u64,
                    _ => return Err("alloca with a variable count".into()),
                },
            };
            let size = dl
                .alloc_size(ty, m)
                .map_err(|e| format!("alloca ({})", e.0))?
                * count;
            t.alloca.insert(ii, t.objects.len());
            t.objects.push(Object {
                name: "alloca".into(),
                size,
                kind: ObjKind::Private { n },
                base: 0,
                init: Vec::new(),
                space: addrspace.unwrap_or(0),
            });
            n += 1;
        }
    }
    if let Some(o) = t.objects.iter().find(|o| o.size > MAX_OBJECT_BYTES) {
        return Err(format!(
            "memory object {} of {} bytes (the encoding expresses at most {MAX_OBJECT_BYTES})",
            o.name, o.size
        ));
    }
    if t.objects.len() >= 250 {
        return Err("more than 250 memory objects".into());
    }
    t.layout = Some(dl);
    Ok(t)
}
