; CLAIM: CL-16
; SOURCE: CO "Hoisting and sinking"
; ROLE: source
; PAIR: cl16-anchor-sink.tgt.ll
; KERNEL: @example
; EXPECT: refines
; OPT-VERIFY: ok
;
; The document's anchor-sinking example: %tok is an anchor whose only use is
; the operation inside `if (condition)`; %condition is per-thread. The target
; sinks the anchor into the `if`. The document: "Assuming that %tok is only
; used inside the conditional block, the anchor can be sunk. The rationale is
; two-fold. First, the anchor has implementation-defined behavior, and the
; sinking is part of the implementation. Second, already in the original
; program, the set of threads that communicates in the @convergent.operation
; is automatically subset to the threads for which condition is true." Any
; partition of the branch-taking threads that the target's anchor may form is
; the restriction of a partition the source's anchor may form (D-ANCHOR), so
; the target refines the source.

target triple = "amdgcn-amd-amdhsa"

define void @example(i1 %condition) {
  %tok = call token @llvm.experimental.convergence.anchor()
  br i1 %condition, label %then, label %end

then:
  call void @convergent.operation() [ "convergencectrl"(token %tok) ]
  br label %end

end:
  ret void
}

declare token @llvm.experimental.convergence.anchor() convergent nounwind willreturn memory(none)
declare void @convergent.operation() convergent nounwind
