; CLAIM: CL-18
; SOURCE: CO "Hoisting and sinking"
; ROLE: target
; PAIR: cl18-anchor-hoist-loop.src.ll
; KERNEL: @example
; EXPECT: invalid(S-CYCLE-1)
; OPT-VERIFY: error "Convergence token used by an instruction other than llvm.experimental.convergence.loop in a cycle that does not contain the token's definition."
;
; The anchor hoisted out of the infinite loop into the entry block. The
; operation in the loop now uses a token defined outside the cycle without a
; `loop` heart in between, so every iteration would reuse one dynamic token:
; the closed path loop -> loop contains a use of %tok but not its definition
; (S-CYCLE-1). This file is deliberately invalid; LLVM's verifier rejects it.

target triple = "amdgcn-amd-amdhsa"

define void @example() {
entry:
  %tok = call token @llvm.experimental.convergence.anchor()
  br label %loop

loop:
  call void @convergent.operation() [ "convergencectrl"(token %tok) ]
  br label %loop
}

declare token @llvm.experimental.convergence.anchor() convergent nounwind willreturn memory(none)
declare void @convergent.operation() convergent nounwind
