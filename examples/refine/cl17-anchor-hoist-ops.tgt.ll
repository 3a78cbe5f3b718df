; CLAIM: CL-17
; SOURCE: CO "Hoisting and sinking"
; ROLE: target
; PAIR: cl17-anchor-hoist-ops.src.ll
; KERNEL: @example
; EXPECT: counterexample
; WITNESS: 2 threads; %condition = true in one thread, false in the other; the target's anchor groups both
; DISTINGUISH: --threads 2 --arg condition=true,false :: t0@convergent.operation ~ t1@convergent.operation
; OPT-VERIFY: ok
;
; Anchor and operation hoisted above the branch and the two operations merged
; into one. The arms are left without convergent operations. The single
; operation may communicate among threads of both arms, which the source
; forbids.

target triple = "amdgcn-amd-amdhsa"

define void @example(i1 %condition) {
  %tok = call token @llvm.experimental.convergence.anchor()
  call void @convergent.operation() [ "convergencectrl"(token %tok) ]
  br i1 %condition, label %then, label %else

then:
  br label %end

else:
  br label %end

end:
  ret void
}

declare token @llvm.experimental.convergence.anchor() convergent nounwind willreturn memory(none)
declare void @convergent.operation() convergent nounwind
