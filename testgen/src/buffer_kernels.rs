//! Kernels that read input buffers (pointer parameters, P-INPUT bytes
//! chosen when first read) at thread-dependent addresses: for the
//! interpreter's reductions oracle (`semantics/tests/interp_reduce.rs`),
//! which must find every behaviour of the plain search when input bytes
//! no continuation reads are left out of the fingerprints (M-LIVE-MEM).
//!
//! The words read are the thread's own (`in[tid]`), its neighbour's
//! (`in[tid ^ 1]`, `in[(tid + 1) & 3]`), a fixed one, or one chosen in a
//! loop (a `phi` index: the analysis gives up); loads come before and after
//! convergent operations (some inside a called function) and barriers,
//! under branches on loaded values,
//! and input words are overwritten by stores and `atomicrmw`, so that a
//! word one thread has finished with is still read by another.

use proptest::prelude::*;

/// Which word of `%in` (16 `i32` words) a step reads or writes.
#[derive(Clone, Copy, Debug)]
pub enum Idx {
    Tid,
    Xor1,
    Next,
    Fixed(u8),
}

#[derive(Clone, Debug)]
pub enum Step {
    /// `load i32` of the word; the value joins the pool.
    Load(Idx),
    /// `load <2 x i32>` of words `2 * idx` and `2 * idx + 1`, summed.
    LoadPair(Idx),
    /// `add`/`xor`/`mul` of two pool values.
    Arith(u8, usize, usize),
    /// A branch on a pool value's low bit; the taken side loads a word and
    /// observes it (`@use`), then the sides join.
    Branch(usize, Idx),
    /// `readfirstlane` of a pool value (convergent; a scheduling point).
    First(usize),
    /// A workgroup barrier.
    Barrier,
    /// `store` of a pool value over an input word.
    Store(Idx, usize),
    /// `atomicrmw add` of a pool value on an input word; the old value
    /// joins the pool.
    Atomic(Idx, usize),
    /// A loop of two iterations loading `in[i]` (a `phi` index).
    Loop,
    /// A call of a defined function that takes `readfirstlane` of a pool
    /// value (the thread waits inside it, its kernel frame below).
    Call(usize),
}

fn idx() -> impl Strategy<Value = Idx> {
    prop_oneof![
        3 => Just(Idx::Tid),
        2 => Just(Idx::Xor1),
        2 => Just(Idx::Next),
        1 => (0u8..4).prop_map(Idx::Fixed),
    ]
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => idx().prop_map(Step::Load),
        1 => idx().prop_map(Step::LoadPair),
        3 => (0u8..3, 0usize..8, 0usize..8).prop_map(|(o, a, b)| Step::Arith(o, a, b)),
        2 => (0usize..8, idx()).prop_map(|(a, i)| Step::Branch(a, i)),
        2 => (0usize..8).prop_map(Step::First),
        1 => Just(Step::Barrier),
        1 => (idx(), 0usize..8).prop_map(|(i, a)| Step::Store(i, a)),
        1 => (idx(), 0usize..8).prop_map(|(i, a)| Step::Atomic(i, a)),
        1 => Just(Step::Loop),
        2 => (0usize..8).prop_map(Step::Call),
    ]
}

/// A kernel of 2 to 7 steps that reads at most three input words on any
/// path (so that the plain search over a domain of two values stays
/// small at 3 threads).
pub fn arb_buffer_kernel() -> impl Strategy<Value = String> {
    proptest::collection::vec(step(), 2..=7).prop_map(|steps| render(&steps))
}

/// The text of the kernel of `steps`, its loads cut at three per path.
pub fn render(steps: &[Step]) -> String {
    let mut b = String::new();
    b.push_str(
        "  %t = call i32 @llvm.amdgcn.workitem.id.x()\n  %x1 = xor i32 %t, 1\n  %n0 = add i32 %t, 1\n  %n1 = and i32 %n0, 3\n",
    );
    let mut pool = vec!["%t".to_string()];
    let mut fresh = 0usize;
    let mut loads = 0usize;
    let mut name = |p: &str| {
        fresh += 1;
        format!("%{p}{fresh}")
    };
    let index = |i: Idx| -> String {
        match i {
            Idx::Tid => "%t".into(),
            Idx::Xor1 => "%x1".into(),
            Idx::Next => "%n1".into(),
            Idx::Fixed(k) => k.to_string(),
        }
    };
    for s in steps {
        let pick = |k: usize| pool[k % pool.len()].clone();
        match s {
            Step::Load(_) | Step::LoadPair(_) | Step::Branch(..) | Step::Loop if loads >= 3 => {}
            Step::Load(i) => {
                loads += 1;
                let (p, v) = (name("p"), name("v"));
                b.push_str(&format!(
                    "  {p} = getelementptr inbounds i32, ptr addrspace(1) %in, i32 {}\n  {v} = load i32, ptr addrspace(1) {p}, align 4\n",
                    index(*i)
                ));
                pool.push(v);
            }
            Step::LoadPair(i) => {
                loads += 1;
                let (p, v, a, c, s) = (name("p"), name("w"), name("a"), name("c"), name("s"));
                b.push_str(&format!(
                    "  {p} = getelementptr inbounds <2 x i32>, ptr addrspace(1) %in, i32 {}\n  {v} = load <2 x i32>, ptr addrspace(1) {p}, align 8\n  {a} = extractelement <2 x i32> {v}, i32 0\n  {c} = extractelement <2 x i32> {v}, i32 1\n  {s} = add i32 {a}, {c}\n",
                    index(*i)
                ));
                pool.push(s);
            }
            Step::Arith(o, x, y) => {
                let r = name("r");
                let op = ["add", "xor", "mul"][*o as usize % 3];
                b.push_str(&format!("  {r} = {op} i32 {}, {}\n", pick(*x), pick(*y)));
                pool.push(r);
            }
            Step::Branch(x, i) => {
                loads += 1;
                let (c, bit, then, join, p, v) = (
                    name("c"),
                    name("bit"),
                    name("then"),
                    name("join"),
                    name("p"),
                    name("v"),
                );
                let (then, join) = (&then[1..], &join[1..]);
                b.push_str(&format!(
                    "  {bit} = and i32 {}, 1\n  {c} = icmp eq i32 {bit}, 1\n  br i1 {c}, label %{then}, label %{join}\n{then}:\n  {p} = getelementptr inbounds i32, ptr addrspace(1) %in, i32 {}\n  {v} = load i32, ptr addrspace(1) {p}, align 4\n  call void @use(i32 {v})\n  br label %{join}\n{join}:\n",
                    pick(*x),
                    index(*i)
                ));
            }
            Step::First(x) => {
                let r = name("f");
                b.push_str(&format!(
                    "  {r} = call i32 @llvm.amdgcn.readfirstlane.i32(i32 {})\n",
                    pick(*x)
                ));
                pool.push(r);
            }
            Step::Call(x) => {
                let r = name("h");
                b.push_str(&format!("  {r} = call i32 @helper(i32 {})\n", pick(*x)));
                pool.push(r);
            }
            Step::Barrier => b.push_str("  call void @llvm.amdgcn.s.barrier()\n"),
            Step::Store(i, x) => {
                let p = name("p");
                b.push_str(&format!(
                    "  {p} = getelementptr inbounds i32, ptr addrspace(1) %in, i32 {}\n  store i32 {}, ptr addrspace(1) {p}, align 4\n",
                    index(*i),
                    pick(*x)
                ));
            }
            Step::Atomic(i, x) => {
                let (p, r) = (name("p"), name("o"));
                b.push_str(&format!(
                    "  {p} = getelementptr inbounds i32, ptr addrspace(1) %in, i32 {}\n  {r} = atomicrmw add ptr addrspace(1) {p}, i32 {} monotonic, align 4\n",
                    index(*i),
                    pick(*x)
                ));
                pool.push(r);
            }
            Step::Loop => {
                loads += 1;
                let (head, body, exit) = (name("head"), name("body"), name("exit"));
                let (i, p, v, acc, acc2, i2, more) = (
                    name("i"),
                    name("p"),
                    name("v"),
                    name("acc"),
                    name("acc"),
                    name("i"),
                    name("more"),
                );
                let pre = name("pre");
                let (head, body, exit, pre) = (&head[1..], &body[1..], &exit[1..], &pre[1..]);
                b.push_str(&format!(
                    "  br label %{pre}\n{pre}:\n  br label %{head}\n{head}:\n  {i} = phi i32 [ 0, %{pre} ], [ {i2}, %{body} ]\n  {acc} = phi i32 [ 0, %{pre} ], [ {acc2}, %{body} ]\n  {more} = icmp ult i32 {i}, 2\n  br i1 {more}, label %{body}, label %{exit}\n{body}:\n  {p} = getelementptr inbounds i32, ptr addrspace(1) %in, i32 {i}\n  {v} = load i32, ptr addrspace(1) {p}, align 4\n  {acc2} = add i32 {acc}, {v}\n  {i2} = add i32 {i}, 1\n  br label %{head}\n{exit}:\n"
                ));
                pool.push(acc);
            }
        }
    }
    let last = pool.last().cloned().unwrap_or_else(|| "%t".into());
    b.push_str(&format!(
        "  %po = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %t\n  store i32 {last}, ptr addrspace(1) %po, align 4\n  ret void\n"
    ));
    format!(
        "target datalayout = \"e-p:64:64-p1:64:64-p3:32:32-p5:32:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9\"\ntarget triple = \"amdgcn-amd-amdhsa\"\n\ndefine amdgpu_kernel void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) {{\nentry:\n{b}}}\n\ndefine i32 @helper(i32 %a) convergent {{\n  %f = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %a)\n  %g = add i32 %f, 1\n  ret i32 %g\n}}\n\ndeclare i32 @llvm.amdgcn.workitem.id.x()\ndeclare i32 @llvm.amdgcn.readfirstlane.i32(i32) convergent\ndeclare void @llvm.amdgcn.s.barrier() convergent\ndeclare void @use(i32)\n"
    )
}
