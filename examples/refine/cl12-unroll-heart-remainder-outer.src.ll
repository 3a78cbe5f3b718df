; CLAIM: CL-12
; SOURCE: CO "Loop unrolling examples"
; ROLE: source
; PAIR: cl12-unroll-heart-remainder-outer.tgt.ll
; KERNEL: @example
; EXPECT: counterexample
; WITNESS: 2 threads with converged %outer; %counter = 3 and 4
; DISTINGUISH: --threads 2 --arg counter=3,4 :: t0@convergent.operation[0] ~ t1@convergent.operation[0] && t0@convergent.operation[2] !~ t1@convergent.operation[2]
; OPT-VERIFY: ok
;
; The same source as cl12-unroll-heart-remainder (loop heart controlled by
; an outer anchor, per-thread trip count). The target differs in the
; remainder only: the document says it is "unclear whether the loop intrinsic
; ought to be duplicated in the remainder, or whether the final
; @convergent.operation in D should just refer to either %inner ... or
; directly to %outer ... it simply doesn't matter because the transform is
; incorrect either way." This pair checks the %outer alternative.

target triple = "amdgcn-amd-amdhsa"

define void @example(i32 %counter) {
A:
  %outer = call token @llvm.experimental.convergence.anchor()
  %guard = icmp sgt i32 %counter, 0
  br i1 %guard, label %B, label %C

B:
  %c = phi i32 [ %counter, %A ], [ %c.next, %B ]
  %inner = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %outer) ]
  call void @convergent.operation() [ "convergencectrl"(token %inner) ]
  %c.next = sub i32 %c, 1
  %more = icmp sgt i32 %c.next, 0
  br i1 %more, label %B, label %C

C:
  ret void
}

declare token @llvm.experimental.convergence.anchor() convergent nounwind willreturn memory(none)
declare token @llvm.experimental.convergence.loop() convergent nounwind willreturn memory(none)
declare void @convergent.operation() convergent nounwind
