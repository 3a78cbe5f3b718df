//! Integer kernels with memory, for MC-07 (M-AGREE) on the refine
//! encoding's memory (R-MEM-SMT, `checker/tests/refine_memory_agree.rs`):
//! an input buffer `%in`, an observed output buffer `%out`, a private
//! `alloca` and a constant global `@tab`; each thread works on its slot
//! (thread id modulo 4) of `%out`, reads any slot of `%in` (read-only), and
//! some steps touch another thread's slot of `%out` (threads then
//! communicate through memory, which the encoding reports unsupported).
//! Programs are step lists; [`mutate`] derives targets (a step dropped,
//! two steps swapped, a step moved into the branch arm, an operand changed).

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
                other => other,
            }
        }
        _ => {}
    }
    s
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
         declare void @barrier() convergent nounwind\n",
        r.b
    )
}
