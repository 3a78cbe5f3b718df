; CLAIM: CL-13
; SOURCE: CO "Loop unrolling examples"
; ROLE: source
; PAIR: cl13-unroll-heart-even.tgt.ll
; KERNEL: @example
; EXPECT: refines
; OPT-VERIFY: ok
;
; The CL-12 loop (heart %inner controlled by the outer anchor %outer) with a
; trip count known to be a multiple of 2: %counter = 2 * %n for a per-thread
; %n. The document: "unrolling without 'tail' is allowed. For example,
; assuming that the trip counter is known to be a multiple of 2, we can unroll
; the loop". Two threads converged at %outer with 2a and 2b iterations
; converge in the first 2*min(a,b) operations in both programs: the k-th
; operation of a thread is in unrolled iteration ceil(k/2), at the same call
; (first or second) in every thread.

target triple = "amdgcn-amd-amdhsa"

define void @example(i32 %n) {
A:
  %outer = call token @llvm.experimental.convergence.anchor()
  %counter = shl i32 %n, 1
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
