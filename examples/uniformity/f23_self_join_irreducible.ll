; F-23 (proofs/FINDINGS.md): a divergent branch whose join is itself, in an
; irreducible cycle, breaks the diverged entry criterion, but LLVM 22 (and
; `convcheck uniformity`, which follows it, U-LLVM) does not assume the
; cycle divergent (rules U-MCONV, D-HIER; CR "Diverged Entry Criterion").
;
; `entry` branches uniformly to both `a` and `b`, so {a, b} is an
; irreducible cycle with two cycle hierarchies: LLVM's (outer header b,
; inner cycle {a}) and the other (one cycle with header a). The branch in
; `a` depends on the thread id (thread 1 takes the self-loop once more than
; thread 0): its diverged paths a -> a and a -> b -> a meet at a, and b is
; an entry of the closed path a -> b -> a on one of them. The document: the
; nodes of the cycle are m-converged only if no entry lies on a diverged
; path ("when J is the same as H or B, the trivial dominance is
; insufficient"), so %x is not known uniform. LLVM reports no cycle assumed
; divergent and prints %x uniform. In the hierarchy with header a, thread
; 0's visit of `a` after `b` (%x = 1) is converged with thread 1's visit of
; `a` after the self-loop (%x = 0).
;
;   convcheck run examples/uniformity/f23_self_join_irreducible.ll --arg uni.u=1
;   convcheck uniformity examples/uniformity/f23_self_join_irreducible.ll
;   opt-22 -mtriple=amdgcn-- -passes='print<uniformity>' -disable-output FILE

define amdgpu_kernel void @f(i1 %uni.u) {
entry:
  %div.tid = call i32 @llvm.amdgcn.workitem.id.x()
  br i1 %uni.u, label %a, label %b
a:
  %x = phi i32 [ 0, %entry ], [ %x, %a ], [ 1, %b ]
  %k = phi i32 [ 0, %entry ], [ 1, %a ], [ 0, %b ]
  %r = phi i32 [ 0, %entry ], [ %r, %a ], [ %r.b, %b ]
  call void @use(i32 %x)
  %stay = icmp slt i32 %k, %div.tid
  br i1 %stay, label %a, label %b
b:
  %r.in = phi i32 [ 0, %entry ], [ %r, %a ]
  %r.b = add i32 %r.in, 1
  %again = icmp slt i32 %r.b, 2
  br i1 %again, label %a, label %exit
exit:
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare void @use(i32)
