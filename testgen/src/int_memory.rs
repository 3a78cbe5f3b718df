//! Integer kernels with memory, for MC-07 (M-AGREE) on the refine
//! encoding's memory (R-MEM-SMT, `checker/tests/refine_memory_agree.rs`):
//! an input buffer `%in`, an observed output buffer `%out`, a private
//! `alloca` and a constant global `@tab`; each thread works on its slot
//! (thread id modulo 4) of `%out`, reads any slot of `%in` (read-only), and
//! some steps touch another thread's slot of `%out` (threads then
//! communicate through memory, which the encoding reports unsupported).
//! Programs are step lists; [`mutate`] derives targets (a step dropped,
//! two steps swapped, a step moved into the branch arm, an operand changed).
//! [`arb_steps_memintr`] adds the memory intrinsics (P-MEM-ACCESS,
//! R-MEM-SMT): `llvm.memcpy`/`memset` on the thread's slot, `memmove` and
//! overlapping `memcpy` within it, `memcpy` into the `alloca`, with
//! constant and argument-dependent lengths.

use proptest::prelude::{any, prop_oneof, Just, Strategy};

/// One step of a kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// `v = op a, b` over earlier values (indices modulo the count).
    Arith(&'static str, usize, usize),
    /// Load `%in[slot]` (`other`: the next thread's slot).
    LoadIn {
        other: bool,
    },
    /// Store a value to `%out[slot]` (`other`: the next thread's slot);
    /// `byte`: an `i8` store of its low byte at byte `k` of the slot.
    StoreOut {
        other: bool,
        v: usize,
        byte: Option<u8>,
    },
    /// Load `%out[slot]` (own slot).
    LoadOut,
    /// Store to / load from the private `alloca`.
    StorePriv(usize),
    LoadPriv,
    /// Load `@tab[v mod 4]` (a constant global).
    LoadTab(usize),
    /// A barrier (`@barrier`, convergent).
    Barrier,
    /// `if (%x == c) { steps }`.
    If(u8, Vec<Step>),
    /// P-MEM-ACCESS: `llvm.memcpy` of `len` bytes from `%in[slot]`
    /// (`other`: the next thread's slot) to `%out[slot]`.
    Copy {
        other: bool,
        len: Len,
    },
    /// `llvm.memset` of `len` bytes of `%out[slot]` to the low byte of
    /// value `v`.
    Set {
        v: usize,
        len: Len,
    },
    /// `len` bytes of `%out[slot]` copied one byte up, within the slot
    /// (`mv`: `llvm.memmove`; else `llvm.memcpy`, UB when the ranges
    /// overlap: lengths of 2 and more).
    Shift {
        mv: bool,
        len: Len,
    },
    /// `llvm.memcpy` of `len` bytes from `%in[slot]` to the 4-byte
    /// `alloca` (UB past 4 bytes).
    CopyPriv {
        len: Len,
    },
}

/// The length of a memory intrinsic: `k`, or with `arg` the
/// argument-dependent `zext(%x) + k` (an `i64`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Len {
    pub k: u8,
    pub arg: bool,
}

/// A length of at most `most` bytes for `%x` in `0..=2` (the agreement
/// tests' domain): a constant `0..=most`, or `zext(%x) + k` with
/// `k <= most - 2`.
fn arb_len(most: u8) -> impl Strategy<Value = Len> {
    (0..=most, any::<bool>()).prop_map(move |(k, arg)| Len {
        k: if arg { k % (most - 1) } else { k },
        arg,
    })
}

/// The memory-intrinsic steps (P-MEM-ACCESS): copies, sets, shifts with
/// constant and argument-dependent lengths, mostly inside the thread's
/// 4-byte slot (a mutation may make one a byte longer, reaching the next
/// thread's slot); copies into the `alloca` of up to 5 bytes (5: UB).
fn mem_leaf() -> impl Strategy<Value = Step> {
    prop_oneof![
        (any::<bool>(), arb_len(4)).prop_map(|(o, len)| Step::Copy { other: o, len }),
        (0usize..8, arb_len(4)).prop_map(|(v, len)| Step::Set { v, len }),
        (any::<bool>(), arb_len(3)).prop_map(|(mv, len)| Step::Shift { mv, len }),
        arb_len(5).prop_map(|len| Step::CopyPriv { len }),
    ]
}

/// A step list with at least one memory intrinsic ([`mem_leaf`]) among 2 to
/// 7 steps (memory-intrinsic steps one in three), one of which may be a
/// branch.
pub fn arb_steps_memintr() -> impl Strategy<Value = Vec<Step>> {
    let step = || prop_oneof![2 => leaf(), 1 => mem_leaf()];
    (
        mem_leaf(),
        proptest::collection::vec(step(), 1..=5),
        0usize..6,
        any::<bool>(),
        0u8..3,
        proptest::collection::vec(step(), 1..=3),
        0usize..7,
    )
        .prop_map(|(m, mut steps, mat, branch, c, arm, at)| {
            steps.insert(mat % (steps.len() + 1), m);
            if branch {
                let at = at % (steps.len() + 1);
                steps.insert(at, Step::If(c, arm));
            }
            steps
        })
}

fn leaf() -> impl Strategy<Value = Step> {
    prop_oneof![
        (
            prop_oneof![Just("add"), Just("xor"), Just("mul"), Just("sub")],
            0usize..8,
            0usize..8
        )
            .prop_map(|(o, a, b)| Step::Arith(o, a, b)),
        (0u8..4).prop_map(|k| Step::LoadIn { other: k == 0 }),
        (0u8..8, 0usize..8, 0u8..6).prop_map(|(k, v, b)| Step::StoreOut {
            other: k == 0,
            v,
            byte: (b < 4 && k > 4).then_some(b),
        }),
        Just(Step::LoadOut),
        (0usize..8).prop_map(Step::StorePriv),
        Just(Step::LoadPriv),
        (0usize..8).prop_map(Step::LoadTab),
        Just(Step::Barrier),
    ]
}

/// A step list of 2 to 7 steps, one of which may be a branch.
pub fn arb_steps() -> impl Strategy<Value = Vec<Step>> {
    (
        proptest::collection::vec(leaf(), 2..=6),
        any::<bool>(),
        0u8..3,
        proptest::collection::vec(leaf(), 1..=3),
        0usize..7,
    )
        .prop_map(|(mut steps, branch, c, arm, at)| {
            if branch {
                let at = at % (steps.len() + 1);
                steps.insert(at, Step::If(c, arm));
            }
            steps
        })
}

/// A mutation: (kind, position, operand).
pub fn arb_mutation() -> impl Strategy<Value = (u8, usize, usize)> {
    // The identity (kind 4) once in nine.
    (0u8..9, 0usize..8, 0usize..8).prop_map(|(k, i, x)| (if k < 8 { k % 4 } else { 4 }, i, x))
}

/// The target of mutation `(kind, i, x)`: 0 drops step i, 1 swaps steps
/// i and i+1, 2 moves step i into the branch arm (if any), 3 changes an
/// operand of step i, 4 keeps the program (an identical pair).
pub fn mutate(steps: &[Step], (kind, i, x): (u8, usize, usize)) -> Vec<Step> {
    let mut s = steps.to_vec();
    if s.is_empty() {
        return s;
    }
    let i = i % s.len();
    match kind {
        0 => {
            s.remove(i);
        }
        1 if i + 1 < s.len() => s.swap(i, i + 1),
        2 => {
            if let Some(b) = s.iter().position(|x| matches!(x, Step::If(..))) {
                if b != i && !matches!(s[i], Step::If(..)) {
                    let st = s.remove(i);
                    let b = if i < b { b - 1 } else { b };
                    if let Step::If(_, arm) = &mut s[b] {
                        arm.push(st);
                    }
                }
            }
        }
        3 => {
            s[i] = match s[i].clone() {
                Step::Arith(o, a, _) => Step::Arith(o, a, x),
                Step::StoreOut { other, byte, .. } => Step::StoreOut { other, v: x, byte },
                Step::StorePriv(_) => Step::StorePriv(x),
                Step::LoadTab(_) => Step::LoadTab(x),
                Step::If(c, arm) => Step::If((c + 1) % 3, arm),
                Step::Copy { other, len } => Step::Copy {
                    other,
                    len: other_len(len, x),
                },
                Step::Set { v, len } if x % 2 == 0 => Step::Set { v: v + 1, len },
                Step::Set { v, len } => Step::Set {
                    v,
                    len: other_len(len, x),
                },
                Step::Shift { mv, len } if x % 3 == 0 => Step::Shift { mv: !mv, len },
                Step::Shift { mv, len } => Step::Shift {
                    mv,
                    len: other_len(len, x),
                },
                Step::CopyPriv { len } => Step::CopyPriv {
                    len: other_len(len, x),
                },
                other => other,
            }
        }
        _ => {}
    }
    s
}

/// Another length for mutation 3: one more or one less byte, or the
/// argument-dependent form toggled.
fn other_len(l: Len, x: usize) -> Len {
    match x % 3 {
        0 => Len {
            k: (l.k + 1).min(5),
            ..l
        },
        1 => Len {
            k: l.k.saturating_sub(1),
            ..l
        },
        _ => Len { arg: !l.arg, ..l },
    }
}

struct R {
    b: String,
    vals: Vec<String>,
    fresh: usize,
    blocks: usize,
}

impl R {
    fn name(&mut self, p: &str) -> String {
        self.fresh += 1;
        format!("%{p}{}", self.fresh)
    }
    fn pick(&self, k: usize) -> String {
        self.vals[k % self.vals.len()].clone()
    }
    /// The operand of a length.
    fn len(&mut self, l: Len) -> String {
        if !l.arg {
            return l.k.to_string();
        }
        let (z, n) = (self.name("z"), self.name("n"));
        self.b.push_str(&format!(
            "  {z} = zext i32 %x to i64\n  {n} = add i64 {z}, {}\n",
            l.k
        ));
        n
    }
    fn steps(&mut self, steps: &[Step]) {
        for s in steps {
            self.step(s);
        }
    }
    fn step(&mut self, s: &Step) {
        match s {
            Step::Arith(op, a, c) => {
                let r = self.name("v");
                let (x, y) = (self.pick(*a), self.pick(*c));
                self.b.push_str(&format!("  {r} = {op} i32 {x}, {y}\n"));
                self.vals.push(r);
            }
            Step::LoadIn { other } => {
                let r = self.name("v");
                let p = if *other { "%pin_nx" } else { "%pin" };
                self.b
                    .push_str(&format!("  {r} = load i32, ptr {p}, align 4\n"));
                self.vals.push(r);
            }
            Step::StoreOut { other, v, byte } => {
                let p = if *other { "%pout_nx" } else { "%pout" };
                let x = self.pick(*v);
                match byte {
                    None => self
                        .b
                        .push_str(&format!("  store i32 {x}, ptr {p}, align 4\n")),
                    Some(k) => {
                        let (q, lo) = (self.name("q"), self.name("lo"));
                        self.b.push_str(&format!(
                            "  {q} = getelementptr inbounds i8, ptr {p}, i64 {k}\n  \
                             {lo} = trunc i32 {x} to i8\n  store i8 {lo}, ptr {q}, align 1\n"
                        ));
                    }
                }
            }
            Step::LoadOut => {
                let r = self.name("v");
                self.b
                    .push_str(&format!("  {r} = load i32, ptr %pout, align 4\n"));
                self.vals.push(r);
            }
            Step::StorePriv(v) => {
                let x = self.pick(*v);
                self.b
                    .push_str(&format!("  store i32 {x}, ptr %a, align 4\n"));
            }
            Step::LoadPriv => {
                let r = self.name("v");
                self.b
                    .push_str(&format!("  {r} = load i32, ptr %a, align 4\n"));
                self.vals.push(r);
            }
            Step::LoadTab(v) => {
                let (i, q, r) = (self.name("i"), self.name("q"), self.name("v"));
                let x = self.pick(*v);
                self.b.push_str(&format!(
                    "  {i} = and i32 {x}, 3\n  \
                     {q} = getelementptr inbounds [4 x i32], ptr @tab, i32 0, i32 {i}\n  \
                     {r} = load i32, ptr {q}, align 4\n"
                ));
                self.vals.push(r);
            }
            Step::Barrier => self.b.push_str("  call void @barrier()\n"),
            Step::Copy { other, len } => {
                let n = self.len(*len);
                let p = if *other { "%pin_nx" } else { "%pin" };
                self.b.push_str(&format!(
                    "  call void @llvm.memcpy.p0.p0.i64(ptr %pout, ptr {p}, i64 {n}, i1 false)\n"
                ));
            }
            Step::Set { v, len } => {
                let n = self.len(*len);
                let (x, b) = (self.pick(*v), self.name("b"));
                self.b.push_str(&format!(
                    "  {b} = trunc i32 {x} to i8\n  \
                     call void @llvm.memset.p0.i64(ptr %pout, i8 {b}, i64 {n}, i1 false)\n"
                ));
            }
            Step::Shift { mv, len } => {
                let n = self.len(*len);
                let d = self.name("d");
                let f = if *mv { "memmove" } else { "memcpy" };
                self.b.push_str(&format!(
                    "  {d} = getelementptr inbounds i8, ptr %pout, i64 1\n  \
                     call void @llvm.{f}.p0.p0.i64(ptr {d}, ptr %pout, i64 {n}, i1 false)\n"
                ));
            }
            Step::CopyPriv { len } => {
                let n = self.len(*len);
                self.b.push_str(&format!(
                    "  call void @llvm.memcpy.p0.p0.i64(ptr %a, ptr %pin, i64 {n}, i1 false)\n"
                ));
            }
            Step::If(c, arm) => {
                self.blocks += 1;
                let n = self.blocks;
                let cc = self.name("c");
                self.b.push_str(&format!(
                    "  {cc} = icmp eq i32 %x, {c}\n  br i1 {cc}, label %then{n}, label %join{n}\nthen{n}:\n"
                ));
                let keep = self.vals.len();
                self.steps(arm);
                self.vals.truncate(keep);
                self.b.push_str(&format!("  br label %join{n}\njoin{n}:\n"));
            }
        }
    }
}

/// The text of the kernel `@k` of `steps`; the private slot starts with
/// `%x` (a load before any store would read poison: allowed, but it makes
/// most programs vacuous).
pub fn render(steps: &[Step]) -> String {
    let mut r = R {
        b: String::new(),
        vals: vec!["%x".into(), "%t".into()],
        fresh: 0,
        blocks: 0,
    };
    r.steps(steps);
    format!(
        "@tab = internal constant [4 x i32] [i32 3, i32 5, i32 7, i32 11]\n\n\
         define void @k(ptr %in, ptr %out, i32 %x) {{\n\
         entry:\n  %a = alloca i32, align 4\n  \
         %t = call i32 @tid()\n  %me = and i32 %t, 3\n  %t1 = add i32 %t, 1\n  %nx = and i32 %t1, 3\n  \
         %pin = getelementptr inbounds i32, ptr %in, i32 %me\n  \
         %pin_nx = getelementptr inbounds i32, ptr %in, i32 %nx\n  \
         %pout = getelementptr inbounds i32, ptr %out, i32 %me\n  \
         %pout_nx = getelementptr inbounds i32, ptr %out, i32 %nx\n  \
         store i32 %x, ptr %a, align 4\n{}  ret void\n}}\n\n\
         declare i32 @tid() nounwind readnone\n\
         declare void @barrier() convergent nounwind\n\
         declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n\
         declare void @llvm.memmove.p0.p0.i64(ptr, ptr, i64, i1)\n\
         declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)\n",
        r.b
    )
}
