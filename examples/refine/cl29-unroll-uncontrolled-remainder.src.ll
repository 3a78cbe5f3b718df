; CLAIM: CL-29
; SOURCE: RFC15 "A dominates B and B post-dominates A" (duplication, loop unrolling)
; ROLE: source
; PAIR: cl29-unroll-uncontrolled-remainder.tgt.ll
; KERNEL: @example
; EXPECT: counterexample
; WITNESS: 2 threads; %counter = 3 and 4
; DISTINGUISH: --threads 2 --arg counter=3,4 :: t0@convergent.operation[0] ~ t1@convergent.operation[0] && t0@convergent.operation[2] !~ t1@convergent.operation[2]
; OPT-VERIFY: ok
;
; The same loop with an uncontrolled operation and an arbitrary per-thread
; trip count %counter, unrolled by 2 with a remainder. The remainder copy
; sits under `if (counter > 0)` after the loop: it is not control equivalent
; to the original (it does not post-dominate the loop body's operation, nor
; is it dominated by it in the RFC's sense), so the RFC's rule forbids it,
; and CO "Loop unrolling examples" agrees: "If the loop contains uncontrolled
; convergent operations, this kind of unrolling is forbidden." Under maximal
; convergence, threads with 3 and 4 iterations converge at their 3rd
; operation in the source, and execute it at different static calls in the
; target. This is CL-12 without tokens.

target triple = "amdgcn-amd-amdhsa"

define void @example(i32 %counter) convergent {
A:
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
