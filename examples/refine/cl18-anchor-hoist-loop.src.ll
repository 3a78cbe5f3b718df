; CLAIM: CL-18
; SOURCE: CO "Hoisting and sinking"
; ROLE: source
; PAIR: cl18-anchor-hoist-loop.tgt.ll
; KERNEL: @example
; EXPECT: invalid(S-CYCLE-1)
; OPT-VERIFY: ok
;
; The document's "Hoisting and sinking anchors out of and into loops is
; forbidden" example, first half: an infinite loop ("for (;;)") whose body
; defines an anchor and uses it in the operation. This source is valid. The
; target hoists the anchor out of the loop; the document: "Hoisting the
; anchor would make the program invalid according to the static validity
; rules." The expected verdict is that of the pair: the target is rejected
; for S-CYCLE-1 (a closed path through a use of %tok other than by `loop`
; must contain its definition), and opt-22 rejects it with the same defect.
; The loop never exits, as in the document; only the static rules matter here.

target triple = "amdgcn-amd-amdhsa"

define void @example() {
entry:
  br label %loop

loop:
  %tok = call token @llvm.experimental.convergence.anchor()
  call void @convergent.operation() [ "convergencectrl"(token %tok) ]
  br label %loop
}

declare token @llvm.experimental.convergence.anchor() convergent nounwind willreturn memory(none)
declare void @convergent.operation() convergent nounwind
