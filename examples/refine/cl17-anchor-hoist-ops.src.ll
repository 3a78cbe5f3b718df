; CLAIM: CL-17
; SOURCE: CO "Hoisting and sinking"
; ROLE: source
; PAIR: cl17-anchor-hoist-ops.tgt.ll
; KERNEL: @example
; EXPECT: counterexample
; WITNESS: 2 threads; %condition = true in one thread, false in the other; the target's anchor groups both
; DISTINGUISH: --threads 2 --arg condition=true,false :: t0@convergent.operation ~ t1@convergent.operation
; OPT-VERIFY: ok
;
; The same source as cl17-anchor-hoist (one anchor and one operation per arm
; of a branch on the per-thread %condition). The target hoists the convergent
; operations themselves, together with the anchor, and merges them into one
; call above the branch. The document: "By contrast, hoisting the convergent
; operations themselves is forbidden." In the source no operation can
; communicate across the two arms; in the target threads with different
; %condition can share one instance.

target triple = "amdgcn-amd-amdhsa"

define void @example(i1 %condition) {
  br i1 %condition, label %then, label %else

then:
  %tok1 = call token @llvm.experimental.convergence.anchor()
  call void @convergent.operation() [ "convergencectrl"(token %tok1) ]
  br label %end

else:
  %tok2 = call token @llvm.experimental.convergence.anchor()
  call void @convergent.operation() [ "convergencectrl"(token %tok2) ]
  br label %end

end:
  ret void
}

declare token @llvm.experimental.convergence.anchor() convergent nounwind willreturn memory(none)
declare void @convergent.operation() convergent nounwind
