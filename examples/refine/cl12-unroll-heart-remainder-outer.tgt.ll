; CLAIM: CL-12
; SOURCE: CO "Loop unrolling examples"
; ROLE: target
; PAIR: cl12-unroll-heart-remainder-outer.src.ll
; KERNEL: @example
; EXPECT: counterexample
; WITNESS: 2 threads with converged %outer; %counter = 3 and 4
; DISTINGUISH: --threads 2 --arg counter=3,4 :: t0@convergent.operation[0] ~ t1@convergent.operation[0] && t0@convergent.operation[2] !~ t1@convergent.operation[2]
; OPT-VERIFY: ok
;
; Unrolled by 2 with a remainder whose operation refers directly to %outer
; instead of a duplicated loop intrinsic. The 3rd operation of a thread with 3
; iterations (in D) and of a thread with 4 iterations (first call in B) are
; still different static instructions, so they are not converged, whereas the
; source converges them.

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
  call void @convergent.operation() [ "convergencectrl"(token %outer) ]
  br label %E

E:
  ret void
}

declare token @llvm.experimental.convergence.anchor() convergent nounwind willreturn memory(none)
declare token @llvm.experimental.convergence.loop() convergent nounwind willreturn memory(none)
declare void @convergent.operation() convergent nounwind
