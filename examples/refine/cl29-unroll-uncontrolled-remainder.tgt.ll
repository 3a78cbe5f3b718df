; CLAIM: CL-29
; SOURCE: RFC15 "A dominates B and B post-dominates A" (duplication, loop unrolling)
; ROLE: target
; PAIR: cl29-unroll-uncontrolled-remainder.src.ll
; KERNEL: @example
; EXPECT: counterexample
; WITNESS: 2 threads; %counter = 3 and 4
; DISTINGUISH: --threads 2 --arg counter=3,4 :: t0@convergent.operation[0] ~ t1@convergent.operation[0] && t0@convergent.operation[2] !~ t1@convergent.operation[2]
; OPT-VERIFY: ok
;
; Unrolled by 2 ("while (counter >= 2)") with a one-iteration remainder %D. A
; thread with 3 iterations executes its 3rd operation in %D, a thread with 4
; iterations as the first copy in %B: different static instructions, never
; converged.

target triple = "amdgcn-amd-amdhsa"

define void @example(i32 %counter) convergent {
A:
  %guard = icmp sge i32 %counter, 2
  br i1 %guard, label %B, label %C

B:
  %c = phi i32 [ %counter, %A ], [ %c.next, %B ]
  call void @convergent.operation()
  call void @convergent.operation()
  %c.next = sub i32 %c, 2
  %more = icmp sge i32 %c.next, 2
  br i1 %more, label %B, label %C

C:
  %c.rem = phi i32 [ %counter, %A ], [ %c.next, %B ]
  %guard.rem = icmp sgt i32 %c.rem, 0
  br i1 %guard.rem, label %D, label %E

D:
  call void @convergent.operation()
  br label %E

E:
  ret void
}

declare void @convergent.operation() convergent nounwind
