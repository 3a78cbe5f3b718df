//! The syntax of the accepted LLVM IR subset (rule P-PROG).
//!
//! The representation is deliberately close to the text: every field the
//! printer needs to write a module back is kept, so that parse -> print ->
//! parse is the identity (up to [`Span`], which is provenance, not meaning).
//! Names are resolved once, at parse time: blocks are [`BlockId`]s, local
//! values are [`ValueId`]s, so analyses never look strings up.
//!
//! Conventions
//! - `BlockId(i)` indexes `Function::blocks`; block 0 is the entry block.
//! - `ValueId(i)` indexes `Function::values`; arguments come first, then
//!   instruction results in textual order.
//! - Successor order is LLVM's (`br` true then false; `switch` default then
//!   cases in order), because LLVM's cycle analysis depends on it.

pub mod float;
pub mod layout;
pub mod metadata;
pub mod print;

pub use metadata::{DbgRecord, InstMeta, MdAttachment, MdDef, MdValue};

use std::fmt;

pub use compact_str::CompactString;
use thin_vec::ThinVec;

/// A source position: 1-based line and column in the file the module was
/// parsed from. Spans are provenance only: two spans always compare equal,
/// so structural equality of modules ignores where things were written.
#[derive(Clone, Copy, Debug, Default)]
pub struct Span {
    pub line: u32,
    pub col: u32,
}

impl PartialEq for Span {
    fn eq(&self, _other: &Span) -> bool {
        true
    }
}
impl Eq for Span {}

impl std::hash::Hash for Span {
    /// Consistent with `PartialEq`: spans do not contribute to identity.
    fn hash<H: std::hash::Hasher>(&self, _state: &mut H) {}
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// A local name as written: `%name` or `%N`. Quoted names (`%"a b"`) are
/// stored unquoted; the printer re-quotes when needed. Names of up to 24
/// bytes are stored inline ([`CompactString`]): a function holds one per
/// block and value, and a heap string each doubled the memory of long
/// functions (issue 17 item 8).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Name {
    Named(CompactString),
    Numbered(u32),
}

impl fmt::Display for Name {
    /// Without the sigil: `entry`, `7`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Name::Named(s) => f.write_str(s),
            Name::Numbered(n) => write!(f, "{n}"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(pub usize);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ValueId(pub usize);

/// First-class and other types of the subset. 16 bytes (issue 17: a
/// function of 1,000,000 blocks holds a type in every value and most
/// instructions): the rare large variants are boxed ([`ArrayType`],
/// [`FuncType`], a named type's name).
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum Type {
    Void,
    /// `iN`
    Int(u32),
    Half,
    BFloat,
    Float,
    Double,
    X86Fp80,
    Fp128,
    /// `ptr` / `ptr addrspace(N)`
    Ptr(u32),
    /// `<N x T>` or `<vscale x N x T>` (LLVM's element count is 32 bits:
    /// the parser rejects longer vectors, as opt does).
    Vector {
        len: u32,
        scalable: bool,
        elem: Box<Type>,
    },
    /// `[N x T]`
    Array(Box<ArrayType>),
    /// `{ T, ... }` or `<{ T, ... }>`
    Struct {
        fields: ThinVec<Type>,
        packed: bool,
    },
    /// `%name` referring to a `%name = type ...` definition (boxed twice,
    /// so that a type takes 16 bytes; build one with [`Type::named`]).
    Named(Box<Box<str>>),
    /// Legacy typed pointer `T addrspace(N)*`. The parser no longer makes
    /// it (it reads typed pointers as `ptr addrspace(N)`, as opt-22 does).
    TypedPtr {
        pointee: Box<Type>,
        addrspace: u32,
    },
    /// `ret (params) ` function type, as in an explicit call type.
    Func(Box<FuncType>),
    Label,
    Token,
    Metadata,
}

/// The derived form of the unboxed enum (`Array { len: 4, elem: Int(8) }`),
/// so that messages that show a type read as they did before the boxing.
impl fmt::Debug for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Void => f.write_str("Void"),
            Type::Int(n) => f.debug_tuple("Int").field(n).finish(),
            Type::Half => f.write_str("Half"),
            Type::BFloat => f.write_str("BFloat"),
            Type::Float => f.write_str("Float"),
            Type::Double => f.write_str("Double"),
            Type::X86Fp80 => f.write_str("X86Fp80"),
            Type::Fp128 => f.write_str("Fp128"),
            Type::Ptr(a) => f.debug_tuple("Ptr").field(a).finish(),
            Type::Vector {
                len,
                scalable,
                elem,
            } => f
                .debug_struct("Vector")
                .field("len", len)
                .field("scalable", scalable)
                .field("elem", elem)
                .finish(),
            Type::Array(a) => f
                .debug_struct("Array")
                .field("len", &a.len)
                .field("elem", &a.elem)
                .finish(),
            Type::Struct { fields, packed } => f
                .debug_struct("Struct")
                .field("fields", fields)
                .field("packed", packed)
                .finish(),
            Type::Named(n) => f.debug_tuple("Named").field(&**n).finish(),
            Type::TypedPtr { pointee, addrspace } => f
                .debug_struct("TypedPtr")
                .field("pointee", pointee)
                .field("addrspace", addrspace)
                .finish(),
            Type::Func(x) => f
                .debug_struct("Func")
                .field("ret", &x.ret)
                .field("params", &x.params)
                .field("varargs", &x.varargs)
                .finish(),
            Type::Label => f.write_str("Label"),
            Type::Token => f.write_str("Token"),
            Type::Metadata => f.write_str("Metadata"),
        }
    }
}

/// `[len x elem]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ArrayType {
    pub len: u64,
    pub elem: Type,
}

/// `ret (params...)` or `ret (params..., ...)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FuncType {
    pub ret: Type,
    pub params: Vec<Type>,
    pub varargs: bool,
}

impl Type {
    /// `%name`.
    pub fn named(name: &str) -> Type {
        Type::Named(Box::new(name.into()))
    }
    /// `[len x elem]`.
    pub fn array(len: u64, elem: Type) -> Type {
        Type::Array(Box::new(ArrayType { len, elem }))
    }
    /// The element type of an array or vector.
    pub fn element(&self) -> Option<&Type> {
        match self {
            Type::Array(a) => Some(&a.elem),
            Type::Vector { elem, .. } => Some(elem),
            _ => None,
        }
    }
    pub fn is_token(&self) -> bool {
        matches!(self, Type::Token)
    }
    pub fn int_bits(&self) -> Option<u32> {
        match self {
            Type::Int(n) => Some(*n),
            _ => None,
        }
    }
}

/// A constant operand.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Const {
    /// Integer literal; `true`/`false` are `Int` of an `i1` with `bool_syntax`.
    Int {
        value: i128,
        bool_syntax: bool,
    },
    /// Floating literal kept as written (`1.0`, `0x3FF0000000000000`).
    Float(String),
    Null,
    None,
    Undef,
    Poison,
    ZeroInit,
    /// `<T a, T b>`
    Vector(Vec<TypedConst>),
    /// `[T a, T b]`
    Array(Vec<TypedConst>),
    /// `c"..."`, raw bytes.
    CString(Vec<u8>),
    /// `{ T a, T b }` / `<{ ... }>`
    Struct {
        fields: Vec<TypedConst>,
        packed: bool,
    },
    /// `@name`
    Global(String),
    /// A constant expression (`addrspacecast (ptr addrspace(3) @g to ptr)`).
    Expr(Box<ConstExpr>),
}

/// The constant expressions LLVM 22 still has (LangRef "Constant
/// Expressions"; the others were removed from the IR and are rejected by
/// the parser as unsupported). Rule P-PROG: they are values like any
/// other constant; the interpreter evaluates them with the memory rules
/// (P-MEM-PTR, P-MEM-LAYOUT).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ConstExpr {
    /// `trunc`, `ptrtoint`, `inttoptr`, `bitcast`, `addrspacecast`:
    /// `op (T c to T2)`.
    Cast {
        op: CastOp,
        from: TypedConst,
        to: Type,
    },
    /// `getelementptr [inbounds|nuw|nusw|inrange(a, b)] (T, ptr c, idx...)`;
    /// `flags` as written, `inrange(-8, 8)` spelled that way.
    Gep {
        flags: Vec<String>,
        source_ty: Type,
        base: TypedConst,
        indices: Vec<TypedConst>,
    },
    /// `add`, `sub`, `xor` with their flags: `op [flags] (T a, T b)`.
    Binary {
        op: BinOp,
        flags: Vec<String>,
        lhs: TypedConst,
        rhs: TypedConst,
    },
}

impl ConstExpr {
    /// The opcode as LLVM spells it.
    pub fn opcode(&self) -> &'static str {
        match self {
            ConstExpr::Cast { op, .. } => op.mnemonic(),
            ConstExpr::Gep { .. } => "getelementptr",
            ConstExpr::Binary { op, .. } => op.mnemonic(),
        }
    }
    /// The printed form, LLVM's (`AsmWriter`: `op [flags] (operands)`),
    /// with the caller's spelling of types and nested constants so that every
    /// printer of the crate writes constant expressions the same way.
    pub fn write_with(
        &self,
        o: &mut String,
        ty: &dyn Fn(&Type) -> String,
        c: &dyn Fn(&TypedConst) -> String,
    ) {
        o.push_str(self.opcode());
        let flags: &[String] = match self {
            ConstExpr::Cast { .. } => &[],
            ConstExpr::Gep { flags, .. } | ConstExpr::Binary { flags, .. } => flags,
        };
        for f in flags {
            o.push(' ');
            o.push_str(f);
        }
        o.push_str(" (");
        match self {
            ConstExpr::Cast { from, to, .. } => {
                o.push_str(&c(from));
                o.push_str(" to ");
                o.push_str(&ty(to));
            }
            ConstExpr::Gep {
                source_ty,
                base,
                indices,
                ..
            } => {
                o.push_str(&ty(source_ty));
                o.push_str(", ");
                o.push_str(&c(base));
                for i in indices {
                    o.push_str(", ");
                    o.push_str(&c(i));
                }
            }
            ConstExpr::Binary { lhs, rhs, .. } => {
                o.push_str(&c(lhs));
                o.push_str(", ");
                o.push_str(&c(rhs));
            }
        }
        o.push(')');
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TypedConst {
    pub ty: Type,
    pub value: Const,
}

/// An instruction operand.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// An argument or instruction result of the enclosing function.
    Local(ValueId),
    /// A constant, boxed so that an operand takes 16 bytes (most operands
    /// are locals; issue 17 item 8). Build one with [`Operand::constant`].
    ///
    /// Shared (`Arc`): the parser gives equal small constants of a body
    /// (integers, `null`, `undef`, ...) one allocation (issue 17: one per
    /// use took 48 bytes with the allocator's overhead, 0.75 a block on a
    /// 1,000,000-block function).
    Const(std::sync::Arc<Const>),
    /// Inline metadata as a call argument (`metadata !"x"`, `metadata i32 0`),
    /// kept as raw text; only intrinsics take it. Boxed twice (rare) so
    /// that an operand takes 16 bytes.
    Metadata(Box<String>),
}

impl Operand {
    /// The operand for constant `c`.
    pub fn constant(c: Const) -> Operand {
        Operand::Const(std::sync::Arc::new(c))
    }
    /// The integer, when the operand is an integer constant.
    pub fn as_int(&self) -> Option<i128> {
        match self.as_const() {
            Some(Const::Int { value, .. }) => Some(*value),
            _ => None,
        }
    }
    /// The constant, when the operand is one.
    pub fn as_const(&self) -> Option<&Const> {
        match self {
            Operand::Const(c) => Some(c),
            _ => None,
        }
    }
    pub fn as_local(&self) -> Option<ValueId> {
        match self {
            Operand::Local(v) => Some(*v),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TypedOperand {
    pub ty: Type,
    pub value: Operand,
}

/// One attribute as written. The set is open: LLVM has hundreds; the
/// semantics inspects a few by name (`convergent`, `noconvergent`,
/// `readnone`, `memory(...)`, `inreg`, ...).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Attr {
    /// `convergent`, `nounwind`, `inreg`, ...
    Word(String),
    /// `"key"` or `"key"="value"`.
    Str { key: String, value: Option<String> },
    /// `align 4` (parameter/return position).
    Int { name: String, value: u64 },
    /// `memory(argmem: readwrite)`, `dereferenceable(8)`, `byval(i32)`,
    /// `range(i32 0, 4)`: the text between the parentheses, whitespace
    /// normalised.
    Paren { name: String, args: String },
    /// `#N`: a reference to an attribute group.
    Group(u32),
}

impl Attr {
    /// The attribute's name (`memory` for `memory(none)`); `None` for groups
    /// and string attributes.
    pub fn name(&self) -> Option<&str> {
        match self {
            Attr::Word(n) | Attr::Int { name: n, .. } | Attr::Paren { name: n, .. } => Some(n),
            Attr::Str { .. } | Attr::Group(_) => None,
        }
    }
}

/// An operand bundle, e.g. `"convergencectrl"(token %t)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Bundle {
    pub tag: String,
    pub inputs: Vec<TypedOperand>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CallArg {
    pub ty: Type,
    pub attrs: Vec<Attr>,
    pub value: Operand,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    UDiv,
    SDiv,
    URem,
    SRem,
    Shl,
    LShr,
    AShr,
    And,
    Or,
    Xor,
    FAdd,
    FSub,
    FMul,
    FDiv,
    FRem,
}

impl BinOp {
    /// The opcode as LLVM spells it.
    pub fn mnemonic(self) -> &'static str {
        match self {
            BinOp::Add => "add",
            BinOp::Sub => "sub",
            BinOp::Mul => "mul",
            BinOp::UDiv => "udiv",
            BinOp::SDiv => "sdiv",
            BinOp::URem => "urem",
            BinOp::SRem => "srem",
            BinOp::Shl => "shl",
            BinOp::LShr => "lshr",
            BinOp::AShr => "ashr",
            BinOp::And => "and",
            BinOp::Or => "or",
            BinOp::Xor => "xor",
            BinOp::FAdd => "fadd",
            BinOp::FSub => "fsub",
            BinOp::FMul => "fmul",
            BinOp::FDiv => "fdiv",
            BinOp::FRem => "frem",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CastOp {
    Trunc,
    ZExt,
    SExt,
    FPTrunc,
    FPExt,
    FPToUI,
    FPToSI,
    UIToFP,
    SIToFP,
    PtrToInt,
    IntToPtr,
    BitCast,
    AddrSpaceCast,
}

impl CastOp {
    /// The opcode as LLVM spells it.
    pub fn mnemonic(self) -> &'static str {
        match self {
            CastOp::Trunc => "trunc",
            CastOp::ZExt => "zext",
            CastOp::SExt => "sext",
            CastOp::FPTrunc => "fptrunc",
            CastOp::FPExt => "fpext",
            CastOp::FPToUI => "fptoui",
            CastOp::FPToSI => "fptosi",
            CastOp::UIToFP => "uitofp",
            CastOp::SIToFP => "sitofp",
            CastOp::PtrToInt => "ptrtoint",
            CastOp::IntToPtr => "inttoptr",
            CastOp::BitCast => "bitcast",
            CastOp::AddrSpaceCast => "addrspacecast",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ICmpPred {
    Eq,
    Ne,
    Ugt,
    Uge,
    Ult,
    Ule,
    Sgt,
    Sge,
    Slt,
    Sle,
}

/// `fcmp` predicates, kept by their LLVM spelling (`oeq`, `une`, `true`, ...).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FCmpPred(pub String);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RmwOp {
    Xchg,
    Add,
    Sub,
    And,
    Nand,
    Or,
    Xor,
    Max,
    Min,
    UMax,
    UMin,
    FAdd,
    FSub,
    FMax,
    FMin,
    UIncWrap,
    UDecWrap,
    USubCond,
    USubSat,
}

/// Atomic ordering and optional `syncscope("...")`, as written.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Atomic {
    pub syncscope: Option<String>,
    /// `monotonic`, `acquire`, `seq_cst`, ...; for cmpxchg the success
    /// ordering, with `failure` holding the second.
    pub ordering: String,
    pub failure: Option<String>,
}

/// Non-terminator instructions. Payloads stay within 72 bytes (issue 17
/// item 8, `tests/ir_sizes.rs`): rarer operands are boxed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum InstKind {
    /// `add nuw nsw i32 %a, %b`; `flags` holds the words between the opcode
    /// and the type (`nuw`, `nsw`, `exact`, `disjoint`, fast-math flags).
    Binary {
        op: BinOp,
        flags: ThinVec<String>,
        ty: Type,
        lhs: Operand,
        rhs: Operand,
    },
    /// `fneg [fmf] T %x`
    FNeg {
        flags: ThinVec<String>,
        ty: Type,
        value: Operand,
    },
    ICmp {
        samesign: bool,
        pred: ICmpPred,
        ty: Type,
        lhs: Operand,
        rhs: Operand,
    },
    FCmp {
        flags: ThinVec<String>,
        pred: Box<FCmpPred>,
        ty: Type,
        lhs: Operand,
        rhs: Operand,
    },
    Cast {
        op: CastOp,
        flags: ThinVec<String>,
        from: TypedOperand,
        to: Type,
    },
    Select {
        flags: ThinVec<String>,
        cond: TypedOperand,
        on_true: Box<TypedOperand>,
        on_false: Box<TypedOperand>,
    },
    Freeze(TypedOperand),
    Phi {
        flags: ThinVec<String>,
        ty: Type,
        incoming: Vec<(Operand, BlockId)>,
    },
    /// Boxed: a call site is large and most instructions are not calls.
    Call(Box<Call>),
    Alloca {
        ty: Type,
        count: Option<Box<TypedOperand>>,
        align: Option<u64>,
        addrspace: Option<u32>,
    },
    Load {
        volatile: bool,
        ty: Type,
        ptr: Box<TypedOperand>,
        atomic: Option<Box<Atomic>>,
        align: Option<u64>,
    },
    Store {
        volatile: bool,
        value: TypedOperand,
        ptr: Box<TypedOperand>,
        atomic: Option<Box<Atomic>>,
        align: Option<u64>,
    },
    AtomicRmw {
        volatile: bool,
        op: RmwOp,
        ptr: TypedOperand,
        value: Box<TypedOperand>,
        atomic: Box<Atomic>,
        align: Option<u64>,
    },
    CmpXchg {
        weak: bool,
        volatile: bool,
        ptr: Box<TypedOperand>,
        cmp: Box<TypedOperand>,
        new: Box<TypedOperand>,
        atomic: Box<Atomic>,
        align: Option<u64>,
    },
    /// `getelementptr [inbounds|nuw|nusw ...] T, ptr %p, i64 %i, ...`
    Gep {
        flags: ThinVec<String>,
        source_ty: Type,
        base: Box<TypedOperand>,
        indices: Vec<TypedOperand>,
    },
    ExtractValue {
        agg: TypedOperand,
        indices: Vec<u32>,
    },
    InsertValue {
        agg: TypedOperand,
        value: Box<TypedOperand>,
        indices: Vec<u32>,
    },
    ExtractElement {
        vector: TypedOperand,
        index: Box<TypedOperand>,
    },
    InsertElement {
        vector: TypedOperand,
        value: Box<TypedOperand>,
        index: Box<TypedOperand>,
    },
    ShuffleVector {
        a: TypedOperand,
        b: Box<TypedOperand>,
        mask: Box<TypedOperand>,
    },
}

/// A call site (rule C-CONV reads `fn_attrs`, the callee's attributes and
/// `bundles`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Call {
    /// `tail`, `musttail`, `notail`.
    pub tail: Option<String>,
    /// Fast-math flags written after `call`.
    pub flags: Vec<String>,
    /// Calling convention keyword (`spir_func`, `amdgpu_gfx`, `cc 12`).
    pub cconv: Option<String>,
    pub ret_attrs: Vec<Attr>,
    /// The return type, or the whole function type when written explicitly
    /// (`call i32 (i32, ...) @f(...)`).
    pub ty: Type,
    pub callee: Operand,
    pub args: Vec<CallArg>,
    /// Call-site function attributes, including `#N` group references.
    pub fn_attrs: Vec<Attr>,
    pub bundles: Vec<Bundle>,
}

impl Call {
    /// The callee's name when it is a direct call `@name`.
    pub fn callee_name(&self) -> Option<&str> {
        match self.callee.as_const() {
            Some(Const::Global(n)) => Some(n),
            _ => None,
        }
    }
    /// The operands of the `"convergencectrl"` bundles.
    pub fn convergence_bundles(&self) -> impl Iterator<Item = &Bundle> {
        self.bundles.iter().filter(|b| b.tag == "convergencectrl")
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Inst {
    /// The result value, for instructions that define one.
    pub result: Option<ValueId>,
    pub kind: InstKind,
    /// Metadata attachments and the debug records written before it.
    pub meta: InstMeta,
    pub span: Span,
}

/// Block terminators. Successor order is LLVM's (see [`Terminator::successors`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TermKind {
    Br(BlockId),
    CondBr {
        cond: Operand,
        on_true: BlockId,
        on_false: BlockId,
    },
    /// `ty` boxed: terminators stay small (issue 17 item 8).
    Switch {
        ty: Box<Type>,
        cond: Operand,
        default: BlockId,
        cases: ThinVec<(Const, BlockId)>,
    },
    Ret(Option<TypedOperand>),
    Unreachable,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Terminator {
    pub kind: TermKind,
    /// Metadata attachments (`!llvm.loop` on loop latches) and the debug
    /// records written before it.
    pub meta: InstMeta,
    pub span: Span,
}

impl Terminator {
    /// Successors in LLVM's order, duplicates kept (`br i1 %c, label %a,
    /// label %a` has two).
    pub fn successors(&self) -> Vec<BlockId> {
        match &self.kind {
            TermKind::Br(b) => vec![*b],
            TermKind::CondBr {
                on_true, on_false, ..
            } => vec![*on_true, *on_false],
            TermKind::Switch { default, cases, .. } => std::iter::once(*default)
                .chain(cases.iter().map(|(_, b)| *b))
                .collect(),
            TermKind::Ret(_) | TermKind::Unreachable => Vec::new(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Block {
    pub name: Name,
    /// Whether the label was written (`entry:`), as opposed to an implicit
    /// numbered entry block.
    pub explicit_label: bool,
    pub insts: Vec<Inst>,
    pub term: Terminator,
    pub span: Span,
}

/// Where a local value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueDef {
    Arg(usize),
    /// Instruction `index` of block `block` (32 bits, so that a value's
    /// record takes 64 bytes; [`ValueDef::inst`] builds one).
    Inst {
        block: BlockId,
        index: u32,
    },
}

impl ValueDef {
    /// Instruction `index` of block `block`.
    pub fn inst(block: BlockId, index: usize) -> ValueDef {
        ValueDef::Inst {
            block,
            index: u32::try_from(index).expect("P-PROG: a block has fewer than 2^32 instructions"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ValueInfo {
    pub name: Name,
    pub ty: Type,
    pub def: ValueDef,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Param {
    pub ty: Type,
    pub attrs: Vec<Attr>,
    /// The parameter's value (`None` in declarations without names).
    pub value: Option<ValueId>,
    /// The name written in a declaration (`declare void @f(i32 %x)`).
    pub decl_name: Option<Name>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Function {
    pub name: String,
    /// `define` (with a body) or `declare`.
    pub is_definition: bool,
    /// Linkage, visibility, `dso_local`, ... written before the calling
    /// convention, in order.
    pub linkage: Vec<String>,
    pub cconv: Option<String>,
    pub ret_attrs: Vec<Attr>,
    pub ret_ty: Type,
    pub params: Vec<Param>,
    pub varargs: bool,
    /// `unnamed_addr` / `local_unnamed_addr`.
    pub unnamed_addr: Option<String>,
    /// Function attributes written after the parameter list, including `#N`.
    pub fn_attrs: Vec<Attr>,
    /// Everything between the attributes and `{` that the semantics ignores
    /// but the printer keeps (`section "x"`, `align 4`, `comdat`, ...), as
    /// normalised text.
    pub trailer: Vec<String>,
    pub blocks: Vec<Block>,
    pub values: Vec<ValueInfo>,
    /// Function metadata attachments (`!dbg !3` before the body).
    pub md: Vec<MdAttachment>,
    /// A definition whose body uses a construct outside the subset (rule
    /// P-PROG): `blocks` is empty, `values` holds only the arguments, and
    /// the original text is kept for printing. Analyses skip it (see
    /// [`Function::has_body`]); the rest of the module is unaffected.
    pub unsupported: Option<Box<UnsupportedBody>>,
    pub span: Span,
}

/// Why a definition's body was not read, and its text (rule P-PROG:
/// unsupported constructs are named, never silently ignored).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct UnsupportedBody {
    /// `inline asm`, `invoke`, `callbr`, `personality`, ...
    pub construct: String,
    pub message: String,
    /// Where the construct is.
    pub span: Span,
    /// The definition as written, from `define` to its closing `}`.
    pub text: String,
}

impl Function {
    /// A definition whose body was read: the functions analyses look into.
    /// Declarations and definitions with an [`UnsupportedBody`] have none.
    pub fn has_body(&self) -> bool {
        self.is_definition && self.unsupported.is_none()
    }
    /// A kernel calling convention (`amdgpu_kernel`, `spir_kernel`,
    /// `ptx_kernel`): the entry of a launch, whose arguments are uniform.
    pub fn has_kernel_cc(&self) -> bool {
        self.cconv
            .as_deref()
            .is_some_and(|c| c.ends_with("_kernel"))
    }
    pub fn block(&self, b: BlockId) -> &Block {
        &self.blocks[b.0]
    }
    pub fn value(&self, v: ValueId) -> &ValueInfo {
        &self.values[v.0]
    }
    pub fn block_ids(&self) -> impl Iterator<Item = BlockId> {
        (0..self.blocks.len()).map(BlockId)
    }
    /// The instruction that defines `v`, if it is not an argument.
    pub fn def_inst(&self, v: ValueId) -> Option<&Inst> {
        match self.values[v.0].def {
            ValueDef::Arg(_) => None,
            ValueDef::Inst { block, index } => Some(&self.blocks[block.0].insts[index as usize]),
        }
    }
    /// The block's printable name: `entry`, or `%7` style numbers as LLVM
    /// prints them in analyses (`7`).
    pub fn block_name(&self, b: BlockId) -> String {
        self.blocks[b.0].name.to_string()
    }
}

/// A global variable (`@g = global i32 0`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Global {
    pub name: String,
    /// Linkage, visibility, `dso_local`, `unnamed_addr`, `addrspace(N)`,
    /// `externally_initialized`, ... as written before `global`/`constant`.
    pub keywords: Vec<String>,
    pub is_constant: bool,
    pub ty: Type,
    pub init: Option<Const>,
    /// `, align 4`, `, section "x"` ... as normalised text.
    pub trailer: Vec<String>,
    /// Metadata attachments (`, !dbg !0`).
    pub md: Vec<MdAttachment>,
    pub span: Span,
}

/// `attributes #N = { ... }`
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AttrGroup {
    pub id: u32,
    pub attrs: Vec<Attr>,
    pub span: Span,
}

/// `%T = type { ... }` / `%T = type opaque`
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TypeDef {
    pub name: String,
    /// `None` for `opaque`.
    pub ty: Option<Type>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Module {
    pub source_filename: Option<String>,
    pub datalayout: Option<String>,
    pub triple: Option<String>,
    pub types: Vec<TypeDef>,
    pub globals: Vec<Global>,
    pub functions: Vec<Function>,
    pub attr_groups: Vec<AttrGroup>,
    /// Module-level metadata definitions, named and numbered, in textual
    /// order.
    pub metadata: Vec<MdDef>,
}

impl Module {
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }

    /// The function a launch runs when none is named (P-LAUNCH): the
    /// module's only definition, else its only definition with a kernel
    /// calling convention (`amdgpu_kernel`, `spir_kernel`, `ptx_kernel`):
    /// clang-22's OpenCL output defines each kernel twice, the kernel and
    /// the `__clang_ocl_kern_imp_` body it calls. `Err(n)`: the module has
    /// n definitions and none is singled out.
    pub fn default_entry(&self) -> Result<usize, usize> {
        let defs: Vec<usize> = (0..self.functions.len())
            .filter(|&i| self.functions[i].has_body())
            .collect();
        if let [one] = defs[..] {
            return Ok(one);
        }
        let kernels: Vec<usize> = defs
            .iter()
            .copied()
            .filter(|&i| self.functions[i].has_kernel_cc())
            .collect();
        match kernels[..] {
            [one] => Ok(one),
            _ => Err(defs.len()),
        }
    }
    pub fn attr_group(&self, id: u32) -> Option<&AttrGroup> {
        self.attr_groups.iter().find(|g| g.id == id)
    }
    /// The attributes in `attrs` with `#N` references expanded through the
    /// module's attribute groups.
    pub fn expand_attrs<'a>(&'a self, attrs: &'a [Attr]) -> Vec<&'a Attr> {
        let mut out = Vec::new();
        for a in attrs {
            match a {
                Attr::Group(id) => {
                    if let Some(g) = self.attr_group(*id) {
                        out.extend(g.attrs.iter());
                    }
                }
                other => out.push(other),
            }
        }
        out
    }
    /// The definition of metadata `!name` (`name` without `!`).
    pub fn md_def(&self, name: &str) -> Option<&MdValue> {
        self.metadata
            .iter()
            .find(|d| d.name == name)
            .map(|d| &d.value)
    }
    /// The loop properties attached to block `b`'s terminator through
    /// `!llvm.loop`: for each property node `!{!"llvm.loop.unroll.count",
    /// i32 4}`, its name and the remaining operands. The loop ID's
    /// self-reference and non-tuple operands (debug locations) are skipped.
    /// Empty when the terminator has no loop metadata.
    pub fn loop_properties<'a>(
        &'a self,
        f: &'a Function,
        b: BlockId,
    ) -> Vec<(String, &'a [MdValue])> {
        let mut out = Vec::new();
        let Some(id) = f
            .blocks
            .get(b.0)
            .and_then(|bl| bl.term.meta.attachment("llvm.loop"))
        else {
            return out;
        };
        let resolve = |v: &'a MdValue| -> Option<&'a MdValue> {
            match v {
                MdValue::Ref(n) => self.md_def(n),
                other => Some(other),
            }
        };
        let Some(MdValue::Tuple { elems, .. }) = resolve(id) else {
            return out;
        };
        for e in elems {
            if let Some(MdValue::Tuple { elems: prop, .. }) = resolve(e) {
                if let Some(MdValue::Str(name)) = prop.first() {
                    out.push((String::from_utf8_lossy(name).into_owned(), &prop[1..]));
                }
            }
        }
        out
    }
    /// Whether the expanded attribute list has the word attribute `word`.
    pub fn has_attr(&self, attrs: &[Attr], word: &str) -> bool {
        self.expand_attrs(attrs)
            .iter()
            .any(|a| matches!(a, Attr::Word(w) if w == word))
    }
}
