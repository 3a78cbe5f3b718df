; CLAIM: CL-16
; SOURCE: CO "Hoisting and sinking"
; ROLE: target
; PAIR: cl16-anchor-sink.src.ll
; KERNEL: @example
; EXPECT: refines
; OPT-VERIFY: ok
;
; The anchor sunk into the conditional block, next to its only use. Only
; threads with %condition true execute it; they may be grouped in any way, as
; they could be at the operation in the source.

target triple = "amdgcn-amd-amdhsa"

define void @example(i1 %condition) {
  br i1 %condition, label %then, label %end

then:
  %tok = call token @llvm.experimental.convergence.anchor()
  call void @convergent.operation() [ "convergencectrl"(token %tok) ]
  br label %end

end:
  ret void
}

declare token @llvm.experimental.convergence.anchor() convergent nounwind willreturn memory(none)
declare void @convergent.operation() convergent nounwind
