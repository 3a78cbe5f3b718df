; CLAIM: CL-12
; SOURCE: CO "Loop unrolling examples"
; ROLE: target
; PAIR: cl12-unroll-heart-remainder.src.ll
; KERNEL: @example
; EXPECT: counterexample
; WITNESS: 2 threads with converged %outer; %counter = 3 and 4 (source traces A B B B C / A B B B B C; target A B C D E / A B B C E)
; DISTINGUISH: --threads 2 --arg counter=3,4 :: t0@convergent.operation[0] ~ t1@convergent.operation[0] && t0@convergent.operation[2] !~ t1@convergent.operation[2]
; OPT-VERIFY: ok
;
; The document's unrolled program: the heart %inner is not duplicated, the
; unrolled body B executes the operation twice per iteration, and the
; remainder D (taken when one iteration is left) has its own loop intrinsic
; %remainder controlled by %outer, the document's choice. A thread with 3
; iterations runs its 3rd operation in D, a thread with 4 runs it as the first
; call of B's second iteration: different static instructions, so the 3rd
; operations are never converged, while in the source they always are when the
; threads converge at %outer. (The document prints the second thread's
; unrolled trace as "A B B C D E"; with 4 iterations the remainder is not
; taken, so it is A B B C E.)

target triple = "amdgcn-amd-amdhsa"

define void @example(i32 %counter) {
A:
  %outer = call token @llvm.experimental.convergence.anchor()
  %guard = icmp sge i32 %counter, 2
  br i1 %guard, label %B, label %C

B:
  %c = phi i32 [ %counter, %A ], [ %c.next, %B ]
  %inner = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %outer) ]
  call void @convergent.operation() [ "convergencectrl"(token %inner) ]
  call void @convergent.operation() [ "convergencectrl"(token %inner) ]
  %c.next = sub i32 %c, 2
  %more = icmp sge i32 %c.next, 2
  br i1 %more, label %B, label %C

C:
  %c.rem = phi i32 [ %counter, %A ], [ %c.next, %B ]
  %guard.rem = icmp sgt i32 %c.rem, 0
  br i1 %guard.rem, label %D, label %E

D:
  %remainder = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %outer) ]
  call void @convergent.operation() [ "convergencectrl"(token %remainder) ]
  br label %E

E:
  ret void
}

declare token @llvm.experimental.convergence.anchor() convergent nounwind willreturn memory(none)
declare token @llvm.experimental.convergence.loop() convergent nounwind willreturn memory(none)
declare void @convergent.operation() convergent nounwind
