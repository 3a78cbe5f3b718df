; CLAIM: CL-29
; SOURCE: RFC15 "A dominates B and B post-dominates A" (duplication, loop unrolling)
; ROLE: target
; PAIR: cl29-unroll-uncontrolled-even.src.ll
; KERNEL: @example
; EXPECT: refines
; OPT-VERIFY: ok
;
; Unrolled by 2 without a remainder: two copies of the uncontrolled operation
; per iteration, "counter -= 2". The second copy is dominated by the first
; and post-dominates it (control equivalent), and the even trip count means
; no thread leaves between them.

target triple = "amdgcn-amd-amdhsa"

define void @example(i32 %n) convergent {
A:
  %counter = shl i32 %n, 1
  %guard = icmp sgt i32 %counter, 0
  br i1 %guard, label %B, label %C

B:
  %c = phi i32 [ %counter, %A ], [ %c.next, %B ]
  call void @convergent.operation()
  call void @convergent.operation()
  %c.next = sub i32 %c, 2
  %more = icmp sgt i32 %c.next, 0
  br i1 %more, label %B, label %C

C:
  ret void
}

declare void @convergent.operation() convergent nounwind
