; CLAIM: CL-17
; SOURCE: CO "Hoisting and sinking"
; ROLE: target
; PAIR: cl17-anchor-hoist.src.ll
; KERNEL: @example
; EXPECT: refines
; OPT-VERIFY: ok
;
; One anchor %tok above the branch controls the operations of both arms. Each
; operation still communicates only among threads of its own arm, in a
; grouping the anchor chooses, which the per-arm anchors of the source could
; also choose.

target triple = "amdgcn-amd-amdhsa"

define void @example(i1 %condition) {
  %tok = call token @llvm.experimental.convergence.anchor()
  br i1 %condition, label %then, label %else

then:
  call void @convergent.operation() [ "convergencectrl"(token %tok) ]
  br label %end

else:
  call void @convergent.operation() [ "convergencectrl"(token %tok) ]
  br label %end

end:
  ret void
}

declare token @llvm.experimental.convergence.anchor() convergent nounwind willreturn memory(none)
declare void @convergent.operation() convergent nounwind
