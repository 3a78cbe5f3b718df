; CLAIM: CL-29
; SOURCE: RFC15 "A dominates B and B post-dominates A" (duplication, loop unrolling)
; ROLE: source
; PAIR: cl29-unroll-uncontrolled-even.tgt.ll
; KERNEL: @example
; EXPECT: refines
; OPT-VERIFY: ok
;
; The 2015 RFC thread defines `convergent` by control equivalence: an
; operation "may be transformed or moved within the program if and only the
; post-transform placement of the convergent operation is control equivalent
; (A dominated B, B post-dominates A, or vice-versa) to its original
; position"; duplicating A into B is legal when A dominates B and B
; post-dominates A, and the example given is "Loop unrolling." This pair
; unrolls by 2 a loop with an uncontrolled operation and a trip count known
; to be even (%counter = 2 * %n, per-thread %n): the two copies in the
; unrolled body are control equivalent. Under D-MAX (and under the inferred
; tokens: a heart in the loop header controlled by `entry`) the k-th
; operation of every thread is in the same unrolled iteration and the same
; copy, so the sets are unchanged. Compare with CL-13 (same transform with
; explicit tokens) and cl29-unroll-uncontrolled-remainder.

target triple = "amdgcn-amd-amdhsa"

define void @example(i32 %n) convergent {
A:
  %counter = shl i32 %n, 1
  %guard = icmp sgt i32 %counter, 0
  br i1 %guard, label %B, label %C

B:
  %c = phi i32 [ %counter, %A ], [ %c.next, %B ]
  call void @convergent.operation()
  %c.next = sub i32 %c, 1
  %more = icmp sgt i32 %c.next, 0
  br i1 %more, label %B, label %C

C:
  ret void
}

declare void @convergent.operation() convergent nounwind
