; CLAIM: CL-17
; SOURCE: CO "Hoisting and sinking"
; ROLE: source
; PAIR: cl17-anchor-hoist.tgt.ll
; KERNEL: @example
; EXPECT: refines
; OPT-VERIFY: ok
;
; The document's "Anchors can be hoisted in acyclic control flow" example:
; each arm of a branch on the per-thread %condition has its own anchor
; controlling its operation. The target hoists the two anchors into one above
; the branch, both operations now controlled by it. The document: "The
; behavior is unchanged, since each of the static convergent operations only
; ever communicates with threads that have the same condition value."

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
