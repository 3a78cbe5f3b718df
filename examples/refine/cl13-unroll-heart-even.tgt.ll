; CLAIM: CL-13
; SOURCE: CO "Loop unrolling examples"
; ROLE: target
; PAIR: cl13-unroll-heart-even.src.ll
; KERNEL: @example
; EXPECT: refines
; OPT-VERIFY: ok
;
; The document's unrolling without a tail: "while (counter > 0)" with two
; operations per iteration, both controlled by the single heart %inner ("Note
; again that the loop intrinsic is not duplicated"), and "counter -= 2".
; Correct because %counter = 2 * %n is even (also after i32 wrap-around), so
; no thread ever needs a single remaining iteration.

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
  call void @convergent.operation() [ "convergencectrl"(token %inner) ]
  %c.next = sub i32 %c, 2
  %more = icmp sgt i32 %c.next, 0
  br i1 %more, label %B, label %C

C:
  ret void
}

declare token @llvm.experimental.convergence.anchor() convergent nounwind willreturn memory(none)
declare token @llvm.experimental.convergence.loop() convergent nounwind willreturn memory(none)
declare void @convergent.operation() convergent nounwind
