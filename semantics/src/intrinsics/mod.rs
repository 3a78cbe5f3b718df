//! The intrinsic and builtin table (issue 13): one row per GPU intrinsic or
//! builtin family, read by every part of the tool.
//!
//! | column      | rule      | read by                                              |
//! |-------------|-----------|------------------------------------------------------|
//! | `convergent`| C-CONV    | verifier (`rules::facts`), interpreter, encoder      |
//! | `op`        | C-INTR, C-OPS, P-LAUNCH | interpreter (`machine`), encoder (`refine::prog`) |
//! | `class`     | U-SOURCE  | uniformity analysis (`uniformity::sources`)          |
//!
//! A name not in the table keeps the treatment of an unknown call: it is
//! convergent iff its declaration or call says so, and its result comes from
//! the thread's input (P-INPUT) or the communicating set (C-OPS).
//!
//! Intrinsics (`llvm.*`) are matched by their base name: an overloaded
//! `llvm.amdgcn.readfirstlane.i32` is the row `llvm.amdgcn.readfirstlane`, and
//! the longest base wins (`llvm.amdgcn.if.break.i64` is `if.break`, not
//! `if`), as in LLVM's intrinsic name lookup. A few rows are families (a
//! name prefix, `llvm.amdgcn.image.atomic.`), consulted only when no base
//! matches. OpenCL builtins are matched by their Itanium-mangled name as
//! clang emits it (`_Z20sub_group_reduce_addi`): the identifier selects the
//! row and the first parameter's type code decides the signedness of
//! `min`/`max`.

pub mod sig;
mod table;

use std::collections::HashMap;
use std::sync::OnceLock;

pub use table::ROWS;

/// The target whose conventions a row follows (U-SOURCE is per target).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// `amdgcn` (and the r600 thread-id reads LLVM's AMDGPU tables list).
    Amdgpu,
    /// `nvptx`/`nvptx64`.
    Nvptx,
    /// `spirv`/`spirv32`/`spirv64` (`llvm.spv.*`).
    Spirv,
    /// `dxil` (`llvm.dx.*`).
    DirectX,
    /// OpenCL C builtins by mangled name (any target).
    OpenCl,
    /// Target-independent names: LLVM's own intrinsics and the documents'
    /// vocabulary (`subgroupAdd`, `tid`, ...).
    Generic,
}

impl Target {
    /// The target of a module, from its `target triple` (U-SOURCE). No
    /// triple, or one the table does not know, is AMDGPU: the tool's
    /// uniformity analysis is `opt -mtriple=amdgcn--` unless the module
    /// names another GPU target.
    pub fn of_triple(triple: Option<&str>) -> Target {
        let arch = triple.unwrap_or("").split('-').next().unwrap_or("");
        if arch.starts_with("nvptx") {
            Target::Nvptx
        } else if arch.starts_with("spirv") {
            Target::Spirv
        } else if arch.starts_with("dxil") {
            Target::DirectX
        } else {
            Target::Amdgpu
        }
    }
}

/// A row's divergence class on its own target (U-SOURCE).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// The result differs between threads whatever the operands
    /// (`isSourceOfDivergence`).
    Source,
    /// The result is uniform whatever the operands (`isAlwaysUniform`).
    AlwaysUniform,
    /// Divergent iff an operand is (data dependence).
    Neither,
    /// `llvm.read_register`: divergent iff the register named in the
    /// metadata operand is a vector register (AMDGPU).
    ByRegister,
}

/// The convergence control intrinsics (C-INTR).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ctrl {
    Entry,
    Anchor,
    Loop,
}

/// Which thread-geometry value an index read returns (P-LAUNCH).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Index {
    /// Id within the workgroup (`get_local_id`, `workitem.id`, `tid`).
    LocalId,
    /// Id within the launch (`get_global_id`, `llvm.spv.thread.id`).
    GlobalId,
    /// Workgroup id (`get_group_id`, `workgroup.id`, `ctaid`).
    GroupId,
    /// Threads per workgroup (`get_local_size`, `ntid`).
    LocalSize,
    /// Threads in the launch (`get_global_size`).
    GlobalSize,
    /// Workgroups in the launch (`get_num_groups`, `nctaid`).
    NumGroups,
    /// Lane within the subgroup (`get_sub_group_local_id`, `laneid`).
    Lane,
    /// Threads in this thread's subgroup (`get_sub_group_size`).
    SubgroupSize,
    /// Subgroup size of the launch (`warpsize`, `get_max_sub_group_size`).
    MaxSubgroupSize,
    /// Subgroup within the workgroup (`get_sub_group_id`).
    SubgroupId,
    /// Subgroups in the workgroup (`get_num_sub_groups`).
    NumSubgroups,
}

/// The dimension an index read reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    /// Not dimensioned (lane, subgroup size).
    None,
    /// Fixed by the name (`workitem.id.y` is 1).
    Fixed(u8),
    /// Given by this (constant) argument (`get_local_id(0)`).
    Arg(u8),
}

/// A reduction operator of C-OPS.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RedOp {
    Add,
    /// Signed minimum.
    Min,
    /// Signed maximum.
    Max,
    UMin,
    UMax,
    And,
    Or,
    Xor,
}

/// Reduction or scan (C-OPS).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scan {
    /// Every member gets the reduction over the set.
    None,
    /// Member `l` gets the reduction over the members of lane `<= l`.
    Inclusive,
    /// Member `l` gets the reduction over the members of lane `< l`
    /// (the identity of the operator for the lowest).
    Exclusive,
}

/// Over which threads a collective communicates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    /// The members of the communicating set in the thread's subgroup.
    Subgroup,
    /// The whole communicating set (the workgroup, for a workgroup
    /// collective executed by all its threads).
    Workgroup,
}

/// A vote of C-OPS.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Vote {
    /// True iff the argument is true in every member.
    All,
    /// True iff it is true in some member.
    Any,
    /// True iff it has the same value in every member.
    Uni,
}

/// Which lane a shuffle reads (C-OPS).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shfl {
    /// Lane `idx / scale`.
    Idx,
    /// Lane `lane - idx`; the thread's own value below lane 0.
    Up,
    /// Lane `lane + idx`; the thread's own value past the subgroup.
    Down,
    /// Lane `lane ^ idx`; the thread's own value past the subgroup.
    Bfly,
}

/// An AMDGPU lane permutation (C-OPS), with the ISA's meaning; lanes are
/// positions in the subgroup (`--subgroup-size`, a wave of at most 64
/// lanes). Operand positions are those of LLVM's intrinsics
/// (`IntrinsicsAMDGPU.td`); the patterns are `machine::lanes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lanes {
    /// `permlane64(src)`: lane `i` reads lane `i ^ 32` (the two halves of a
    /// 64-lane wave swap).
    Permlane64,
    /// `permlane16(old, src, sel_lo, sel_hi, fi, bound_ctrl)`: lane `i`
    /// reads the lane of its row (`permlanex16`: of the other row of its
    /// pair) that the 4-bit selector of `i % 16` in `sel_hi:sel_lo` names.
    Permlane16 { cross: bool },
    /// `ds.swizzle(src, offset)`: the bitmask and quad-permute (QDMode)
    /// encodings of `offset`.
    Swizzle,
    /// `ds.permute(addr, data)`: the push form of `ds.bpermute`; lane
    /// `addr / 4` receives `data`.
    Permute,
    /// `ds.bpermute(addr, data)` (`fi`: `ds.bpermute.fi.b32`, fetch
    /// inactive): lane `i` reads `data` of lane `addr / 4` modulo the wave
    /// width; an inactive source lane gives 0 (`fi`: its register, poison).
    Bpermute { fi: bool },
    /// `update.dpp(old, src, ctrl, row_mask, bank_mask, bound_ctrl)`, and
    /// `mov.dpp(src, ctrl, row_mask, bank_mask, bound_ctrl)` (`old: false`,
    /// no `old` operand: poison where the result would keep it).
    Dpp { old: bool },
}

impl Lanes {
    /// Operands read (the highest index plus one).
    pub fn arity(self) -> u8 {
        match self {
            Lanes::Permlane64 => 1,
            Lanes::Swizzle | Lanes::Permute | Lanes::Bpermute { .. } => 2,
            Lanes::Permlane16 { .. } | Lanes::Dpp { old: true } => 6,
            Lanes::Dpp { old: false } => 5,
        }
    }
}

/// The AMDGPU structured control-flow intrinsics that
/// `si-annotate-control-flow` writes (C-OPS; exec-mask bookkeeping over the
/// communicating set, `machine::lanes`). A mask is a set of lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cf {
    /// `if(cond) -> {i1, iN}`: the thread takes the branch iff `cond`; the
    /// mask holds the members that do not (restored at `end.cf`).
    If,
    /// `else(saved) -> {i1, iN}`: the thread takes the else branch iff its
    /// lane is in `saved`; the mask holds the members that are not.
    Else,
    /// `if.break(cond, broken) -> iN`: `broken` plus the members whose
    /// `cond` is true.
    IfBreak,
    /// `loop(broken) -> i1`: true in a thread whose lane is in `broken`
    /// (it has left the loop; the wave branches back until every lane is
    /// done).
    Loop,
    /// `end.cf(mask)`: restores the lanes of `mask`; no value.
    EndCf,
}

/// A pure integer intrinsic of P-THREAD, with LangRef's meaning; poison in
/// any operand gives poison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PureOp {
    Ctpop,
    UMin,
    UMax,
    SMin,
    SMax,
    /// `llvm.cttz(x, is_zero_poison)`: trailing zeros; the width for 0, or
    /// poison when the flag is true.
    Cttz,
    /// `llvm.ctlz(x, is_zero_poison)`: leading zeros, likewise.
    Ctlz,
    /// `llvm.abs(x, is_int_min_poison)`: absolute value; the minimum
    /// signed value gives itself, or poison when the flag is true.
    Abs,
    /// `llvm.bitreverse(x)`.
    BitReverse,
    /// `llvm.bswap(x)`: bytes reversed (widths a multiple of 16).
    Bswap,
    /// `llvm.fshl(a, b, c)`: the high half of `a:b << (c mod width)`.
    Fshl,
    /// `llvm.fshr(a, b, c)`: the low half of `a:b >> (c mod width)`.
    Fshr,
    /// `llvm.uadd.sat`, `llvm.sadd.sat`, `llvm.usub.sat`, `llvm.ssub.sat`:
    /// saturating at the type's bounds.
    UAddSat,
    SAddSat,
    USubSat,
    SSubSat,
}

impl PureOp {
    /// Operands read. For cttz, ctlz and abs the last one is an `i1 immarg`
    /// flag; every other operand has the result's type.
    pub fn arity(self) -> u8 {
        match self {
            PureOp::Ctpop | PureOp::BitReverse | PureOp::Bswap => 1,
            PureOp::Fshl | PureOp::Fshr => 3,
            _ => 2,
        }
    }

    /// Whether the last operand is LangRef's `i1 immarg` flag rather than a
    /// value of the result's type.
    pub fn has_flag(self) -> bool {
        matches!(self, PureOp::Cttz | PureOp::Ctlz | PureOp::Abs)
    }
}

/// What a call computes (C-INTR, C-OPS, P-LAUNCH, P-THREAD). Argument
/// positions are call operand indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// A convergence control intrinsic (C-INTR).
    Ctrl(Ctrl),
    /// A read of the thread geometry (P-LAUNCH).
    Index(Index, Dim),
    /// Bit `lane` set iff the member of that lane has `arg` true.
    Ballot {
        arg: u8,
    },
    Vote {
        vote: Vote,
        arg: u8,
    },
    /// How many members have `arg` true.
    CountBits {
        arg: u8,
    },
    /// The value of `arg` in the member of the lowest lane.
    First {
        arg: u8,
    },
    /// Whether this is the member of the lowest lane.
    IsFirst,
    /// The value of `val` in the member whose lane is `lane`.
    Broadcast {
        val: u8,
        lane: u8,
    },
    /// The value of `val` in the member whose lane the mode computes from
    /// `idx` (divided by `scale` for byte addresses).
    Shuffle {
        val: u8,
        idx: u8,
        mode: Shfl,
        scale: u8,
    },
    Reduce {
        op: RedOp,
        arg: u8,
        scan: Scan,
        scope: Scope,
    },
    /// Mask of the lanes of the members whose `arg` equals this one's.
    MatchAny {
        arg: u8,
    },
    /// Mask of the lanes of the members.
    ActiveMask,
    /// No value; the communicating set is the synchronisation.
    Barrier(Scope),
    /// `llvm.amdgcn.mbcnt.{lo,hi}(mask, acc)`: `acc` plus the bits of `mask`
    /// below this thread's lane in the low or high 32 lanes (per thread).
    Mbcnt {
        hi: bool,
    },
    /// Bit `lane` of the (uniform) mask `arg` (per thread).
    InverseBallot {
        arg: u8,
    },
    /// `val` in the thread whose lane is `lane`, `old` in the others.
    WriteLane {
        val: u8,
        lane: u8,
        old: u8,
    },
    /// The thread's own `arg` (`set.inactive`, `wwm`: active threads see
    /// their own value).
    PassThrough {
        arg: u8,
    },
    /// An AMDGPU lane permutation.
    Lanes(Lanes),
    /// `llvm.amdgcn.icmp`/`fcmp(a, b, pred)`: the ballot of `a pred b`
    /// (`pred` an LLVM `CmpInst` predicate number).
    CmpBallot {
        float: bool,
    },
    /// An AMDGPU control-flow intrinsic.
    Cf(Cf),
    /// A convergent operation without a model: an uninterpreted function of
    /// the communicating set (C-OPS).
    Uninterpreted,
    /// A known name without a model of its result: treated as an unknown
    /// call per its declaration (P-INPUT), listed for its class.
    Opaque,
    Pure(PureOp),
    /// No semantic effect here (`llvm.assume`, `llvm.lifetime.*`).
    Ignored,
}

impl Op {
    /// Whether the result depends on the communicating set, so that the
    /// thread waits for the set to fire (M-OPER).
    pub fn needs_set(&self) -> bool {
        matches!(
            self,
            Op::Ballot { .. }
                | Op::Vote { .. }
                | Op::CountBits { .. }
                | Op::First { .. }
                | Op::IsFirst
                | Op::Broadcast { .. }
                | Op::Shuffle { .. }
                | Op::Reduce { .. }
                | Op::MatchAny { .. }
                | Op::ActiveMask
                | Op::Lanes(_)
                | Op::CmpBallot { .. }
                | Op::Cf(_)
                | Op::Uninterpreted
        )
    }

    /// Whether the result depends on which lane a thread is (so renumbering
    /// threads changes the program's meaning).
    pub fn reads_lane(&self) -> bool {
        match self {
            Op::Index(..)
            | Op::Ballot { .. }
            | Op::First { .. }
            | Op::IsFirst
            | Op::Broadcast { .. }
            | Op::Shuffle { .. }
            | Op::MatchAny { .. }
            | Op::ActiveMask
            | Op::Mbcnt { .. }
            | Op::InverseBallot { .. }
            | Op::WriteLane { .. }
            | Op::Lanes(_)
            | Op::CmpBallot { .. }
            | Op::Cf(_) => true,
            Op::Reduce { scan, .. } => *scan != Scan::None,
            _ => false,
        }
    }

    /// The largest operand index the operation reads, if any (arity check).
    pub fn max_arg(&self) -> Option<u8> {
        match *self {
            Op::Index(_, Dim::Arg(a)) => Some(a),
            Op::Ballot { arg }
            | Op::Vote { arg, .. }
            | Op::CountBits { arg }
            | Op::First { arg }
            | Op::MatchAny { arg }
            | Op::InverseBallot { arg }
            | Op::PassThrough { arg }
            | Op::Reduce { arg, .. } => Some(arg),
            Op::Broadcast { val, lane } => Some(val.max(lane)),
            Op::Shuffle { val, idx, .. } => Some(val.max(idx)),
            Op::WriteLane { val, lane, old } => Some(val.max(lane).max(old)),
            Op::Mbcnt { .. } => Some(1),
            Op::Lanes(l) => Some(l.arity() - 1),
            Op::CmpBallot { .. } => Some(2),
            Op::Cf(Cf::If | Cf::Else | Cf::Loop | Cf::EndCf) => Some(0),
            Op::Cf(Cf::IfBreak) => Some(1),
            Op::Pure(p) => Some(p.arity() - 1),
            _ => None,
        }
    }
}

/// How a row's name matches a callee.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// The name, or the name followed by `.` and overload suffixes.
    Base,
    /// Any callee starting with the name (a family of intrinsics).
    Family,
    /// An OpenCL builtin: the identifier inside an Itanium-mangled name.
    Mangled,
}

/// One row of the table.
#[derive(Clone, Copy, Debug)]
pub struct Row {
    pub name: &'static str,
    pub form: Form,
    pub target: Target,
    /// C-CONV: the operation communicates (LLVM marks the intrinsic
    /// `convergent`; clang declares the builtin `convergent`).
    pub convergent: bool,
    pub op: Op,
    /// U-SOURCE on `target`.
    pub class: Class,
}

/// A callee resolved through the table.
#[derive(Clone, Copy, Debug)]
pub struct Builtin {
    pub row: &'static Row,
    /// The row's operation, specialised to the call (signedness of an
    /// OpenCL `min`/`max` from its mangled parameter type).
    pub op: Op,
}

impl Builtin {
    /// Whether LLVM itself treats every call of this callee as convergent
    /// (an intrinsic LLVM declares `convergent` whatever the module says).
    /// OpenCL builtins and the documents' names are convergent only through
    /// their declarations as far as LLVM is concerned.
    pub fn llvm_convergent(&self) -> bool {
        self.row.convergent && self.row.name.starts_with("llvm.")
    }
}

struct Lookup {
    bases: HashMap<&'static str, &'static Row>,
    mangled: HashMap<&'static str, &'static Row>,
    families: Vec<&'static Row>,
}

fn index() -> &'static Lookup {
    static IDX: OnceLock<Lookup> = OnceLock::new();
    IDX.get_or_init(|| {
        let mut bases = HashMap::new();
        let mut mangled = HashMap::new();
        let mut families = Vec::new();
        for r in ROWS {
            match r.form {
                Form::Base => {
                    let old = bases.insert(r.name, r);
                    debug_assert!(old.is_none(), "duplicate row {}", r.name);
                }
                Form::Mangled => {
                    mangled.insert(r.name, r);
                }
                Form::Family => families.push(r),
            }
        }
        // Longest prefix first.
        families.sort_by_key(|r| std::cmp::Reverse(r.name.len()));
        Lookup {
            bases,
            mangled,
            families,
        }
    })
}

/// The identifier and parameter codes of an Itanium-mangled function name
/// (`_Z12get_local_idj` is `get_local_id` with parameters `j`).
pub fn demangle_simple(name: &str) -> Option<(&str, &str)> {
    let rest = name.strip_prefix("_Z")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let len: usize = rest[..digits].parse().ok()?;
    let ident = rest.get(digits..digits + len)?;
    Some((ident, &rest[digits + len..]))
}

/// Whether the first parameter of a mangled name is an unsigned integer
/// (`h` uchar, `t` ushort, `j` uint, `m` ulong).
fn first_param_unsigned(params: &str) -> bool {
    matches!(params.bytes().next(), Some(b'h' | b't' | b'j' | b'm'))
}

/// The row of a callee name, if the table has one.
pub fn lookup(name: &str) -> Option<Builtin> {
    let idx = index();
    if let Some((ident, params)) = demangle_simple(name) {
        let row = *idx.mangled.get(ident)?;
        let op = match row.op {
            Op::Reduce {
                op,
                arg,
                scan,
                scope,
            } if first_param_unsigned(params) => Op::Reduce {
                op: match op {
                    RedOp::Min => RedOp::UMin,
                    RedOp::Max => RedOp::UMax,
                    o => o,
                },
                arg,
                scan,
                scope,
            },
            o => o,
        };
        return Some(Builtin { row, op });
    }
    if let Some(row) = idx.mangled.get(name) {
        // OpenCL C++ or C with `overloadable` off: the plain identifier.
        return Some(Builtin { row, op: row.op });
    }
    let mut base = name;
    loop {
        if let Some(row) = idx.bases.get(base) {
            return Some(Builtin { row, op: row.op });
        }
        match base.rfind('.') {
            Some(i) if base.starts_with("llvm.") && is_type_suffix(&base[i + 1..]) => {
                base = &base[..i]
            }
            _ => break,
        }
    }
    idx.families
        .iter()
        .find(|r| name.starts_with(r.name))
        .map(|row| Builtin { row, op: row.op })
}

/// Whether a name component is an overload suffix LLVM mangles into an
/// intrinsic's name (`i32`, `f16`, `bf16`, `p0`, `v4i32`, `nxv2i32`,
/// `a2i32`, `sl_...`, `s_...`), so that `llvm.amdgcn.s.barrier.signal` is
/// not read as an overload of `llvm.amdgcn.s.barrier`.
fn is_type_suffix(c: &str) -> bool {
    let b = c.as_bytes();
    let digit_after = |n: usize| b.get(n).is_some_and(u8::is_ascii_digit);
    match b.first() {
        Some(b'i' | b'f' | b'p' | b'v' | b'a') => digit_after(1),
        _ => {
            c == "bf16"
                || c == "isVoid"
                || c.starts_with("nxv")
                || c.starts_with("sl_")
                || c.starts_with("s_")
        }
    }
}

/// `llvm.read_register` (class [`Class::ByRegister`]): whether the call
/// reads a vector register (`v*`, `a*`), whose value differs per thread,
/// rather than a scalar one, the same in every thread of the wave. The
/// register name is only visible when the metadata is written inline;
/// otherwise the register is taken as scalar (the subset does not keep
/// named metadata nodes). One reading for the uniformity analysis
/// (U-SOURCE), the interpreter and the encoder (P-INPUT).
pub fn reads_vector_register(call: &crate::ir::Call) -> bool {
    call.args.iter().any(|a| match &a.value {
        crate::ir::Operand::Metadata(text) => {
            let t = text.trim_start_matches("!{").trim_start_matches('!');
            let t = t.trim_start_matches('"');
            (t.starts_with('v') && !t.starts_with("vcc")) || t.starts_with('a')
        }
        _ => false,
    })
}

/// Whether `name` is a register read (`llvm.read_register`, class
/// [`Class::ByRegister`]).
pub fn is_register_read(name: &str) -> bool {
    lookup(name).is_some_and(|b| b.row.class == Class::ByRegister)
}

/// The control intrinsic a callee is, if any (C-INTR).
pub fn ctrl_of(name: &str) -> Option<Ctrl> {
    match lookup(name)?.op {
        Op::Ctrl(c) => Some(c),
        _ => None,
    }
}

/// U-SOURCE: the class of an intrinsic or builtin callee on `target`. A
/// name of another target, or not in the table, is `Neither` (the target's
/// rules for calls in general decide, see `uniformity::sources`).
pub fn class_on(target: Target, name: &str) -> Class {
    match lookup(name) {
        Some(b) if b.row.target == target || b.row.class == Class::ByRegister => b.row.class,
        _ => Class::Neither,
    }
}

/// The thread geometry of a launch (P-LAUNCH): `threads` threads split into
/// `groups` contiguous workgroups of equal size (the last may be smaller),
/// each split into subgroups of `subgroup` threads (None: all threads form
/// one subgroup, whose lanes are the thread ids, as before subgroups
/// existed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub threads: u32,
    pub groups: u32,
    pub subgroup: Option<u32>,
}

impl Geometry {
    /// Threads per workgroup.
    pub fn group_size(&self) -> u32 {
        let groups = self.groups.clamp(1, self.threads.max(1));
        self.threads.div_ceil(groups).max(1)
    }
    pub fn group_of(&self, tid: u32) -> u32 {
        tid / self.group_size()
    }
    /// Threads in the workgroup of `tid`.
    pub fn size_of_group(&self, tid: u32) -> u32 {
        let start = self.group_of(tid) * self.group_size();
        self.group_size().min(self.threads.saturating_sub(start))
    }
    pub fn local_id(&self, tid: u32) -> u32 {
        tid % self.group_size()
    }
    /// The subgroup size of the launch.
    pub fn max_subgroup(&self) -> u32 {
        match self.subgroup {
            Some(s) if s >= 1 => s.min(self.group_size()),
            _ => self.threads.max(1),
        }
    }
    /// The thread's lane: its position in its subgroup (the thread id when
    /// all threads form one subgroup).
    pub fn lane(&self, tid: u32) -> u32 {
        match self.subgroup {
            Some(_) => self.local_id(tid) % self.max_subgroup(),
            None => tid,
        }
    }
    pub fn subgroup_id(&self, tid: u32) -> u32 {
        match self.subgroup {
            Some(_) => self.local_id(tid) / self.max_subgroup(),
            None => 0,
        }
    }
    pub fn num_subgroups(&self, tid: u32) -> u32 {
        match self.subgroup {
            Some(_) => self.size_of_group(tid).div_ceil(self.max_subgroup()),
            None => 1,
        }
    }
    /// Threads in the subgroup of `tid` (the last may be partial).
    pub fn subgroup_size(&self, tid: u32) -> u32 {
        match self.subgroup {
            Some(_) => {
                let start = self.subgroup_id(tid) * self.max_subgroup();
                self.max_subgroup()
                    .min(self.size_of_group(tid).saturating_sub(start))
            }
            None => self.threads,
        }
    }
    /// The (workgroup, subgroup) a thread belongs to; every thread is in
    /// the same one when all threads form one subgroup.
    pub fn subgroup_key(&self, tid: u32) -> (u32, u32) {
        match self.subgroup {
            Some(_) => (self.group_of(tid), self.subgroup_id(tid)),
            None => (0, 0),
        }
    }

    /// P-LAUNCH: the value of an index read in thread `tid`, dimension `dim`
    /// (dimensions other than 0 are of extent 1: launches are 1-D).
    pub fn index(&self, tid: u32, what: Index, dim: u32) -> u64 {
        let id = |v: u32| if dim == 0 { v } else { 0 };
        let size = |v: u32| if dim == 0 { v } else { 1 };
        let v = match what {
            Index::LocalId => id(self.local_id(tid)),
            Index::GlobalId => id(tid),
            Index::GroupId => id(self.group_of(tid)),
            Index::LocalSize => size(self.size_of_group(tid)),
            Index::GlobalSize => size(self.threads),
            Index::NumGroups => size(self.threads.div_ceil(self.group_size())),
            Index::Lane => self.lane(tid),
            Index::SubgroupSize => self.subgroup_size(tid),
            Index::MaxSubgroupSize => self.max_subgroup(),
            Index::SubgroupId => self.subgroup_id(tid),
            Index::NumSubgroups => self.num_subgroups(tid),
        };
        v as u64
    }
}

#[cfg(test)]
mod tests;
