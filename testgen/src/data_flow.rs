//! Kernels whose integer inputs feed data (M-DATA, issue 18 item 1): the
//! inputs `%a` and `%b` flow through arithmetic, casts, phis, select arms,
//! a defined helper (with an anchor and a convergent operation of its
//! own) and loops into observed calls and the returned value, while `%c`
//! (an `i1`) decides branches, loop trips and which threads communicate.
//! Data values are also the arguments of uninterpreted functions (key
//! uses: a `memory(none)` function of two arguments per thread, a
//! `nodivergencesource` one shared by the threads, an anchored convergent
//! operation), whose results are drawn per key, so that equal arguments
//! must give equal results in the instances.
//! Data values also move between threads through modelled operations
//! that only copy them (`readfirstlane`, `readlane` and a shuffle by a
//! lane or index from `%c`, `writelane`), whose results stay data.
//! One kernel in four also lets a data value reach a use that makes its
//! input *not* data (a comparison feeding a branch, the operand of a
//! modelled reduction, the lane operand of `readlane`, a division, a
//! store), so that the analysis's refusals are exercised too. For the interpreter's reductions oracle
//! (`semantics/tests/interp_reduce.rs`): the search that runs data inputs
//! as symbols must find exactly the plain search's behaviours.

use proptest::prelude::*;

/// One step of the kernel's body; operands index the values defined so
/// far (`%a`, `%b`, then each step's result).
#[derive(Clone, Debug)]
pub enum Step {
    /// `%vN = op [flags] i32 x, y-or-constant`
    Arith {
        op: &'static str,
        flags: &'static str,
        x: usize,
        y: Result<usize, i64>,
    },
    /// `trunc` to `i8` then `zext`/`sext` back to `i32`.
    Narrow { x: usize, signed: bool },
    /// `%vN = call i32 @f(i32 x)` (the helper anchors and communicates).
    Helper { x: usize },
    /// `call void @use(i32 x, i32 y)`; the result is `x`.
    Use { x: usize, y: usize },
    /// A diamond on `%c`: each side computes from its operand (the left
    /// side also calls a convergent operation on a constant); the join's
    /// phi is the result.
    Diamond {
        l: usize,
        r: usize,
        op: &'static str,
    },
    /// `%vN = select i1 %c, i32 x, i32 y`
    Select { x: usize, y: usize },
    /// A loop taken once or twice (by `%c`) accumulating `x` into `y`.
    Loop { x: usize, y: usize },
    /// A key use: `%vN = call i32 @pure(i32 x, i32 y)` (kind 0), `@uni(i32
    /// x)` (1, `nodivergencesource`), or `@op(i32 x)` under an anchor (2);
    /// each result is then observed.
    Key { x: usize, y: usize, kind: u8 },
    /// A move under an anchor: `readfirstlane(x)` (kind 0), `readlane(x,
    /// zext %c)` (1), `subgroupShuffle(x, zext %c + 1)` (2: lane 2 is
    /// outside a launch of 2 threads, poison), `writelane(x, 0, y)` (3);
    /// the result is then observed.
    Move { x: usize, y: usize, kind: u8 },
}

/// What makes an input not data, planted in one kernel in four.
#[derive(Clone, Debug)]
pub enum Breaker {
    /// `icmp eq x, 1` feeding a branch to an observed block.
    Branch(usize),
    /// `x` as the operand of a modelled convergent operation that
    /// computes from it (`subgroupAdd`, a reduction).
    Convergent(usize),
    /// `x` as the lane operand of `llvm.amdgcn.readlane`.
    Lane(usize),
    /// `udiv 7, x` (UB when `x` is 0).
    Divide(usize),
    /// `x` stored to a global.
    Store(usize),
}

#[derive(Clone, Debug)]
pub struct DataKernel {
    pub steps: Vec<Step>,
    pub breaker: Option<Breaker>,
    /// `amdgpu_kernel` (inputs uniform, returns void) instead of a plain
    /// function returning the last value.
    pub kernel_cc: bool,
}

const OPS: &[&str] = &[
    "add", "sub", "mul", "and", "or", "xor", "shl", "lshr", "ashr",
];
const FLAGS: &[&str] = &["", "", "nsw ", "nuw "];

fn arb_step(k: usize) -> impl Strategy<Value = Step> {
    // Values available before step k: %a, %b and k results.
    let n = k + 2;
    prop_oneof![
        3 => (0..OPS.len(), 0..FLAGS.len(), 0..n, prop_oneof![(0..n).prop_map(Ok), (0i64..4).prop_map(Err)])
            .prop_map(|(o, f, x, y)| {
                let flags = if OPS[o] == "add" || OPS[o] == "sub" || OPS[o] == "mul" || OPS[o] == "shl" {
                    FLAGS[f]
                } else {
                    ""
                };
                Step::Arith { op: OPS[o], flags, x, y }
            }),
        1 => (0..n, any::<bool>()).prop_map(|(x, signed)| Step::Narrow { x, signed }),
        1 => (0..n).prop_map(|x| Step::Helper { x }),
        2 => (0..n, 0..n).prop_map(|(x, y)| Step::Use { x, y }),
        2 => (0..n, 0..n, 0..3usize).prop_map(|(l, r, o)| Step::Diamond { l, r, op: ["add", "mul", "xor"][o] }),
        1 => (0..n, 0..n).prop_map(|(x, y)| Step::Select { x, y }),
        1 => (0..n, 0..n).prop_map(|(x, y)| Step::Loop { x, y }),
        2 => (0..n, 0..n, 0..3u8).prop_map(|(x, y, kind)| Step::Key { x, y, kind }),
        2 => (0..n, 0..n, 0..4u8).prop_map(|(x, y, kind)| Step::Move { x, y, kind }),
    ]
}

/// Kernels of 1 to `max_steps` steps.
pub fn arb_data_kernel(max_steps: usize) -> impl Strategy<Value = DataKernel> {
    (1..=max_steps.max(1))
        .prop_flat_map(|len| {
            let steps: Vec<_> = (0..len).map(|k| arb_step(k).boxed()).collect();
            (
                steps,
                prop_oneof![
                    3 => Just(None),
                    1 => (0..5u8, 0..len + 2).prop_map(|(w, x)| Some(match w {
                        0 => Breaker::Branch(x),
                        1 => Breaker::Convergent(x),
                        2 => Breaker::Divide(x),
                        3 => Breaker::Lane(x),
                        _ => Breaker::Store(x),
                    })),
                ],
                prop::bool::weighted(0.25),
            )
        })
        .prop_map(|(steps, breaker, kernel_cc)| DataKernel {
            steps,
            breaker,
            kernel_cc,
        })
}

impl DataKernel {
    /// The module as LLVM IR text.
    pub fn to_ll(&self) -> String {
        let mut body = String::new();
        let mut vals: Vec<String> = vec!["%a".into(), "%b".into()];
        let mut block = "entry".to_string();
        for (k, s) in self.steps.iter().enumerate() {
            let v = format!("%v{k}");
            match s {
                Step::Arith { op, flags, x, y } => {
                    let y = match y {
                        Ok(i) => vals[*i].clone(),
                        Err(c) => c.to_string(),
                    };
                    body += &format!("  {v} = {op} {flags}i32 {}, {y}\n", vals[*x]);
                }
                Step::Narrow { x, signed } => {
                    body += &format!("  {v}.t = trunc i32 {} to i8\n", vals[*x]);
                    let ext = if *signed { "sext" } else { "zext" };
                    body += &format!("  {v} = {ext} i8 {v}.t to i32\n");
                }
                Step::Helper { x } => {
                    body += &format!("  {v} = call i32 @f(i32 {})\n", vals[*x]);
                }
                Step::Use { x, y } => {
                    body += &format!("  call void @use(i32 {}, i32 {})\n", vals[*x], vals[*y]);
                    body += &format!("  {v} = or i32 {}, 0\n", vals[*x]);
                }
                Step::Diamond { l, r, op } => {
                    body += &format!(
                        "  br i1 %c, label %l{k}, label %r{k}\n\
                         l{k}:\n\
                         \x20 %t{k} = call token @llvm.experimental.convergence.anchor()\n\
                         \x20 %o{k} = call i32 @op(i32 {k}) [ \"convergencectrl\"(token %t{k}) ]\n\
                         \x20 %x{k} = {op} i32 {}, %o{k}\n\
                         \x20 br label %j{k}\n\
                         r{k}:\n\
                         \x20 %y{k} = {op} i32 {}, 3\n\
                         \x20 br label %j{k}\n\
                         j{k}:\n\
                         \x20 {v} = phi i32 [ %x{k}, %l{k} ], [ %y{k}, %r{k} ]\n",
                        vals[*l], vals[*r]
                    );
                    block = format!("j{k}");
                }
                Step::Select { x, y } => {
                    body += &format!("  {v} = select i1 %c, i32 {}, i32 {}\n", vals[*x], vals[*y]);
                }
                Step::Loop { x, y } => {
                    body += &format!(
                        "  br label %h{k}\n\
                         h{k}:\n\
                         \x20 %i{k} = phi i32 [ 0, %{block} ], [ %i{k}.n, %h{k} ]\n\
                         \x20 {v} = phi i32 [ {}, %{block} ], [ %acc{k}, %h{k} ]\n\
                         \x20 %acc{k} = add i32 {v}, {}\n\
                         \x20 call void @use(i32 %acc{k}, i32 %i{k})\n\
                         \x20 %i{k}.n = add i32 %i{k}, 1\n\
                         \x20 %ci{k} = zext i1 %c to i32\n\
                         \x20 %more{k} = icmp ult i32 %i{k}.n, %ci{k}\n\
                         \x20 br i1 %more{k}, label %h{k}, label %e{k}\n\
                         e{k}:\n",
                        vals[*y], vals[*x]
                    );
                    block = format!("e{k}");
                }
                Step::Key { x, y, kind } => {
                    body += &match kind {
                        0 => format!("  {v} = call i32 @pure(i32 {}, i32 {})\n", vals[*x], vals[*y]),
                        1 => format!("  {v} = call i32 @uni(i32 {})\n", vals[*x]),
                        _ => format!(
                            "  %kt{k} = call token @llvm.experimental.convergence.anchor()\n\
                             \x20 {v} = call i32 @op(i32 {}) [ \"convergencectrl\"(token %kt{k}) ]\n",
                            vals[*x]
                        ),
                    };
                    body += &format!("  call void @use(i32 {v}, i32 2)\n");
                }
                Step::Move { x, y, kind } => {
                    body += &format!(
                        "  %mt{k} = call token @llvm.experimental.convergence.anchor()\n\
                         \x20 %ml{k} = zext i1 %c to i32\n"
                    );
                    let (x, y) = (&vals[*x], &vals[*y]);
                    body += &match kind {
                        0 => format!("  {v} = call i32 @llvm.amdgcn.readfirstlane.i32(i32 {x})"),
                        1 => format!(
                            "  {v} = call i32 @llvm.amdgcn.readlane.i32(i32 {x}, i32 %ml{k})"
                        ),
                        2 => format!(
                            "  %mi{k} = add i32 %ml{k}, 1\n\
                             \x20 {v} = call i32 @subgroupShuffle(i32 {x}, i32 %mi{k})"
                        ),
                        _ => format!(
                            "  {v} = call i32 @llvm.amdgcn.writelane.i32(i32 {x}, i32 0, i32 {y})"
                        ),
                    };
                    body += &format!(
                        " [ \"convergencectrl\"(token %mt{k}) ]\n\
                         \x20 call void @use(i32 {v}, i32 3)\n"
                    );
                }
            }
            vals.push(v);
        }
        let last = vals.last().cloned().unwrap_or_else(|| "%a".into());
        match &self.breaker {
            None => {}
            Some(Breaker::Branch(x)) => {
                body += &format!(
                    "  %bq = icmp eq i32 {}, 1\n\
                     \x20 br i1 %bq, label %bt, label %bj\n\
                     bt:\n\
                     \x20 call void @use(i32 0, i32 0)\n\
                     \x20 br label %bj\n\
                     bj:\n",
                    vals[*x]
                );
            }
            Some(Breaker::Convergent(x)) => {
                body += &format!(
                    "  %bt = call token @llvm.experimental.convergence.anchor()\n\
                     \x20 %bo = call i32 @subgroupAdd(i32 {}) [ \"convergencectrl\"(token %bt) ]\n\
                     \x20 call void @use(i32 %bo, i32 0)\n",
                    vals[*x]
                );
            }
            Some(Breaker::Lane(x)) => {
                body += &format!(
                    "  %bt = call token @llvm.experimental.convergence.anchor()\n\
                     \x20 %bo = call i32 @llvm.amdgcn.readlane.i32(i32 5, i32 {}) [ \"convergencectrl\"(token %bt) ]\n\
                     \x20 call void @use(i32 %bo, i32 0)\n",
                    vals[*x]
                );
            }
            Some(Breaker::Divide(x)) => {
                body += &format!(
                    "  %bd = udiv i32 7, {}\n  call void @use(i32 %bd, i32 0)\n",
                    vals[*x]
                );
            }
            Some(Breaker::Store(x)) => {
                body += &format!("  store i32 {}, ptr @g\n", vals[*x]);
            }
        }
        let (head, ret) = if self.kernel_cc {
            (
                "define amdgpu_kernel void @k(i1 %c, i32 %a, i32 %b)",
                format!("  call void @use(i32 {last}, i32 1)\n  ret void\n"),
            )
        } else {
            (
                "define i32 @k(i1 %c, i32 %a, i32 %b)",
                format!("  ret i32 {last}\n"),
            )
        };
        format!(
            "target triple = \"amdgcn-amd-amdhsa\"\n\
             @g = global i32 0\n\
             {head} {{\n\
             entry:\n\
             {body}\
             {ret}\
             }}\n\
             define i32 @f(i32 %z) {{\n\
             \x20 %ft = call token @llvm.experimental.convergence.anchor()\n\
             \x20 %fy = call i32 @op(i32 1) [ \"convergencectrl\"(token %ft) ]\n\
             \x20 %fs = mul i32 %z, %fy\n\
             \x20 %fr = add nsw i32 %fs, 1\n\
             \x20 ret i32 %fr\n\
             }}\n\
             declare token @llvm.experimental.convergence.anchor() convergent nounwind willreturn memory(none)\n\
             declare i32 @op(i32) convergent nounwind willreturn memory(none)\n\
             declare void @use(i32, i32)\n\
             declare i32 @pure(i32, i32) nounwind willreturn memory(none)\n\
             declare i32 @uni(i32) nounwind willreturn memory(none) nodivergencesource\n\
             declare i32 @llvm.amdgcn.readfirstlane.i32(i32) convergent nounwind willreturn memory(none)\n\
             declare i32 @llvm.amdgcn.readlane.i32(i32, i32) convergent nounwind willreturn memory(none)\n\
             declare i32 @llvm.amdgcn.writelane.i32(i32, i32, i32) convergent nounwind willreturn memory(none)\n\
             declare i32 @subgroupShuffle(i32, i32) convergent nounwind willreturn memory(none)\n\
             declare i32 @subgroupAdd(i32) convergent nounwind willreturn memory(none)\n"
        )
    }
}
