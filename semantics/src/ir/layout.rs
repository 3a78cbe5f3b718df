//! The module's data layout (rule P-MEM-LAYOUT): sizes, alignments, struct
//! field offsets and pointer widths per address space, from the `target
//! datalayout` string with LLVM's defaults for what it omits (LangRef "Data
//! Layout"; the defaults were checked against opt-22's constant folding:
//! `{i8, i64}` puts the `i64` at offset 4 without a datalayout).

use std::collections::BTreeMap;

use super::{Module, Type};

/// The parts of a data layout the memory rules read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataLayout {
    /// Pointer size and ABI alignment in bytes per address space (`p[n]:size:abi`);
    /// address spaces not listed use address space 0's.
    pointers: BTreeMap<u32, (u64, u64)>,
    /// Integer ABI alignments in bytes by bit width (`iN:abi`).
    ints: BTreeMap<u32, u64>,
    /// Float ABI alignments in bytes by bit width (`fN:abi`).
    floats: BTreeMap<u32, u64>,
    /// Vector ABI alignments in bytes by bit width (`vN:abi`).
    vectors: BTreeMap<u32, u64>,
    /// Aggregate ABI alignment in bytes (`a:abi`).
    aggregate: u64,
}

/// Why a layout cannot be computed (the interpreter reports it as an
/// unsupported construct).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutError(pub String);

impl Default for DataLayout {
    /// LLVM's defaults (LangRef "Data Layout").
    fn default() -> DataLayout {
        DataLayout {
            pointers: [(0, (8, 8))].into(),
            ints: [(1, 1), (8, 1), (16, 2), (32, 4), (64, 4)].into(),
            floats: [(16, 2), (32, 4), (64, 8), (128, 16)].into(),
            vectors: [(64, 8), (128, 16)].into(),
            aggregate: 1,
        }
    }
}

fn bytes(bits_text: &str) -> Result<u64, LayoutError> {
    let bits: u64 = bits_text
        .parse()
        .map_err(|_| LayoutError(format!("bad size `{bits_text}` in the datalayout")))?;
    Ok(bits.div_ceil(8))
}

impl DataLayout {
    /// The layout of `m`: its `target datalayout`, else LLVM's defaults.
    pub fn of_module(m: &Module) -> Result<DataLayout, LayoutError> {
        match &m.datalayout {
            Some(s) => DataLayout::parse(s),
            None => Ok(DataLayout::default()),
        }
    }

    /// Parses a datalayout string; specifications the memory rules do not
    /// read (`S`, `A`, `G`, `P`, `n`, `m`, `F`, `ni`, ...) are skipped.
    pub fn parse(s: &str) -> Result<DataLayout, LayoutError> {
        let mut dl = DataLayout::default();
        for spec in s.split('-').filter(|x| !x.is_empty()) {
            let parts: Vec<&str> = spec.split(':').collect();
            let head = parts[0];
            let abi = |i: usize| -> Result<Option<u64>, LayoutError> {
                parts.get(i).map(|x| bytes(x)).transpose()
            };
            match head.as_bytes().first() {
                Some(b'E') if head == "E" => {
                    return Err(LayoutError("big-endian data layout".into()))
                }
                Some(b'p') if head[1..].chars().all(|c| c.is_ascii_digit()) => {
                    let space = if head.len() > 1 {
                        head[1..]
                            .parse()
                            .map_err(|_| LayoutError(format!("bad `{spec}`")))?
                    } else {
                        0
                    };
                    let size = abi(1)?.ok_or_else(|| LayoutError(format!("bad `{spec}`")))?;
                    let align = abi(2)?.unwrap_or(size);
                    dl.pointers.insert(space, (size, align.max(1)));
                }
                Some(c @ (b'i' | b'f' | b'v')) if head.len() > 1 => {
                    let Ok(width) = head[1..].parse::<u32>() else {
                        continue;
                    };
                    let a = abi(1)?.unwrap_or(1).max(1);
                    match c {
                        b'i' => dl.ints.insert(width, a),
                        b'f' => dl.floats.insert(width, a),
                        _ => dl.vectors.insert(width, a),
                    };
                }
                Some(b'a') if head == "a" => dl.aggregate = abi(1)?.unwrap_or(1).max(1),
                _ => {}
            }
        }
        Ok(dl)
    }

    /// Pointer size in bytes in address space `space`.
    pub fn pointer_size(&self, space: u32) -> u64 {
        self.pointer(space).0
    }

    fn pointer(&self, space: u32) -> (u64, u64) {
        self.pointers
            .get(&space)
            .or_else(|| self.pointers.get(&0))
            .copied()
            .unwrap_or((8, 8))
    }

    /// LLVM's integer alignment lookup: the exact width, else the smallest
    /// larger one, else the largest.
    fn int_align(&self, bits: u32) -> u64 {
        self.ints
            .range(bits..)
            .next()
            .or_else(|| self.ints.iter().next_back())
            .map(|(_, a)| *a)
            .unwrap_or(1)
    }

    /// Store size in bytes (LangRef `getTypeStoreSize`): the bytes a load or
    /// store of `ty` touches.
    pub fn store_size(&self, ty: &Type, m: &Module) -> Result<u64, LayoutError> {
        Ok(match ty {
            Type::Int(bits) => (*bits as u64).div_ceil(8),
            Type::Vector { len, elem, .. } => {
                (u64::from(*len) * self.bit_size(elem, m)?).div_ceil(8)
            }
            _ => self.alloc_size(ty, m)?,
        })
    }

    fn bit_size(&self, ty: &Type, m: &Module) -> Result<u64, LayoutError> {
        Ok(match ty {
            Type::Int(bits) => *bits as u64,
            other => self.alloc_size(other, m)? * 8,
        })
    }

    /// Allocation size in bytes (`getTypeAllocSize`): the store size rounded
    /// up to the ABI alignment; the stride of arrays and of GEP indices.
    pub fn alloc_size(&self, ty: &Type, m: &Module) -> Result<u64, LayoutError> {
        let align = self.abi_align(ty, m)?;
        let raw = match ty {
            Type::Int(bits) => (*bits as u64).div_ceil(8),
            Type::Half | Type::BFloat => 2,
            Type::Float => 4,
            Type::Double => 8,
            Type::Fp128 => 16,
            Type::X86Fp80 => 10,
            Type::Ptr(s) | Type::TypedPtr { addrspace: s, .. } => self.pointer_size(*s),
            Type::Vector {
                len,
                scalable: false,
                elem,
            } => (u64::from(*len) * self.bit_size(elem, m)?).div_ceil(8),
            Type::Array(a) => a
                .len
                .checked_mul(self.alloc_size(&a.elem, m)?)
                .ok_or_else(|| LayoutError("array larger than 2^64 bytes".into()))?,
            Type::Struct { .. } | Type::Named(_) => {
                return self.struct_layout(ty, m).map(|(_, size, _)| size)
            }
            other => return Err(LayoutError(format!("no size for type {other:?}"))),
        };
        Ok(raw.div_ceil(align) * align)
    }

    /// ABI alignment in bytes.
    pub fn abi_align(&self, ty: &Type, m: &Module) -> Result<u64, LayoutError> {
        Ok(match ty {
            Type::Int(bits) => self.int_align(*bits),
            Type::Half | Type::BFloat => *self.floats.get(&16).unwrap_or(&2),
            Type::Float => *self.floats.get(&32).unwrap_or(&4),
            Type::Double => *self.floats.get(&64).unwrap_or(&8),
            Type::Fp128 | Type::X86Fp80 => *self.floats.get(&128).unwrap_or(&16),
            Type::Ptr(s) | Type::TypedPtr { addrspace: s, .. } => self.pointer(*s).1,
            Type::Vector {
                len,
                scalable: false,
                elem,
            } => {
                let bits = u64::from(*len) * self.bit_size(elem, m)?;
                match self.vectors.get(&(bits as u32)) {
                    Some(a) => *a,
                    // Natural alignment: the size rounded up to a power of two.
                    None => bits.div_ceil(8).max(1).next_power_of_two(),
                }
            }
            Type::Array(a) => self.abi_align(&a.elem, m)?,
            Type::Struct { .. } | Type::Named(_) => self.struct_layout(ty, m)?.2,
            other => return Err(LayoutError(format!("no alignment for type {other:?}"))),
        })
    }

    /// A struct's field offsets, allocation size and alignment (fields at
    /// their ABI alignment unless packed, the size rounded up to the
    /// struct's alignment).
    pub fn struct_layout(
        &self,
        ty: &Type,
        m: &Module,
    ) -> Result<(Vec<u64>, u64, u64), LayoutError> {
        let (fields, packed) = match ty {
            Type::Struct { fields, packed } => (fields.clone(), *packed),
            Type::Named(n) => match m.types.iter().find(|t| *t.name == ***n) {
                Some(super::TypeDef { ty: Some(t), .. }) => return self.struct_layout(t, m),
                _ => return Err(LayoutError(format!("opaque type %{n}"))),
            },
            other => return Err(LayoutError(format!("{other:?} is not a struct"))),
        };
        let mut offsets = Vec::with_capacity(fields.len());
        let mut off = 0u64;
        let mut align = if packed { 1 } else { self.aggregate };
        for f in &fields {
            let a = if packed { 1 } else { self.abi_align(f, m)? };
            off = off.div_ceil(a) * a;
            offsets.push(off);
            off = off
                .checked_add(self.alloc_size(f, m)?)
                .ok_or_else(|| LayoutError("struct larger than 2^64 bytes".into()))?;
            align = align.max(a);
        }
        Ok((offsets, off.div_ceil(align) * align, align))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m() -> Module {
        Module::default()
    }

    /// P-MEM-LAYOUT: LLVM's defaults (checked with opt-22's folding of
    /// `ptrtoint (gep ...)` on a module without datalayout).
    #[test]
    fn defaults_match_llvm() {
        let dl = DataLayout::default();
        let s = |fields: Vec<Type>| Type::Struct {
            fields: fields.into(),
            packed: false,
        };
        let (off, size, _) = dl
            .struct_layout(&s(vec![Type::Int(8), Type::Int(64)]), &m())
            .unwrap();
        assert_eq!((off, size), (vec![0, 4], 12));
        let (off, _, _) = dl
            .struct_layout(&s(vec![Type::Int(8), Type::Int(128)]), &m())
            .unwrap();
        assert_eq!(off, vec![0, 4]);
        let v3 = Type::Vector {
            len: 3,
            scalable: false,
            elem: Box::new(Type::Int(32)),
        };
        let (off, size, _) = dl.struct_layout(&s(vec![Type::Int(8), v3]), &m()).unwrap();
        assert_eq!((off, size), (vec![0, 16], 32));
        assert_eq!(dl.alloc_size(&Type::Int(1), &m()).unwrap(), 1);
        assert_eq!(dl.alloc_size(&Type::Ptr(0), &m()).unwrap(), 8);
    }

    /// P-MEM-LAYOUT: AMDGPU's layout gives 32-bit pointers in address
    /// spaces 3 and 5 and 8-byte-aligned `i64`.
    #[test]
    fn amdgpu_layout() {
        let dl = DataLayout::parse("e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128:128:48-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9").unwrap();
        assert_eq!(dl.pointer_size(3), 4);
        assert_eq!(dl.pointer_size(5), 4);
        assert_eq!(dl.pointer_size(1), 8);
        assert_eq!(dl.pointer_size(7), 20);
        let s = Type::Struct {
            fields: vec![Type::Int(8), Type::Int(64)].into(),
            packed: false,
        };
        assert_eq!(dl.struct_layout(&s, &m()).unwrap().0, vec![0, 8]);
        assert!(DataLayout::parse("E-p:32:32").is_err());
    }
}
