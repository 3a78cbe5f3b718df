; CLAIM: CL-12
; SOURCE: CO "Loop unrolling examples"
; ROLE: target
; PAIR: cl12-unroll-heart-remainder-inner.src.ll
; KERNEL: @example
; EXPECT: counterexample
; WITNESS: 2 threads with converged %outer; %counter = 3 and 4
; DISTINGUISH: --threads 2 --arg counter=3,4 :: t0@convergent.operation[0] ~ t1@convergent.operation[0] && t0@convergent.operation[2] !~ t1@convergent.operation[2]
; OPT-VERIFY: ok
;
; Unrolled by 2 ("while (counter >= 2)") with a remainder %D whose operation
; uses the last %inner token of the loop. A thread with 3 iterations executes
; its 3rd operation in %D with the token of the 2nd header instance; a thread
; with 4 executes it as the first call of %B in the 2nd iteration. Different
; static instructions are never converged, so the 3rd operations that the
; source converges are split.

target triple = "amdgcn-amd-amdhsa"

define void @example(i32 %counter) {
A:
  %outer = call token @llvm.experimental.convergence.anchor()
  br label %H

H:
  %c = phi i32 [ %counter, %A ], [ %c.next, %B ]
  %inner = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %outer) ]
  %more = icmp sge i32 %c, 2
  br i1 %more, label %B, label %C

B:
  call void @convergent.operation() [ "convergencectrl"(token %inner) ]
  call void @convergent.operation() [ "convergencectrl"(token %inner) ]
  %c.next = sub i32 %c, 2
  br label %H

C:
  %guard.rem = icmp sgt i32 %c, 0
  br i1 %guard.rem, label %D, label %E

D:
  call void @convergent.operation() [ "convergencectrl"(token %inner) ]
  br label %E

E:
  ret void
}

declare token @llvm.experimental.convergence.anchor() convergent nounwind willreturn memory(none)
declare token @llvm.experimental.convergence.loop() convergent nounwind willreturn memory(none)
declare void @convergent.operation() convergent nounwind
