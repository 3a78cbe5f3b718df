; CLAIM: CL-19
; SOURCE: CO "Hoisting and sinking"
; ROLE: target
; PAIR: cl19-anchor-sink-all.src.ll
; KERNEL: @example
; EXPECT: refines
; MODES: --observe auto
; EXPECT-IN: --observe sets => counterexample
; OPT-VERIFY: ok
;
; Anchor, %a and %b sunk together into the conditional block. The two
; operations still share one communicating set, chosen by the anchor among
; the threads that take the branch; the source's anchor could choose the same
; grouping for those threads.

target triple = "amdgcn-amd-amdhsa"

define void @example(i1 %condition, i32 %x, i32 %y) {
  br i1 %condition, label %then, label %end

then:
  %tok = call token @llvm.experimental.convergence.anchor()
  %a = call i32 @pure.convergent.operation(i32 %x) [ "convergencectrl"(token %tok) ]
  %b = call i32 @pure.convergent.operation(i32 %y) [ "convergencectrl"(token %tok) ]
  call void @use(i32 %a, i32 %b)
  br label %end

end:
  ret void
}

declare token @llvm.experimental.convergence.anchor() convergent nounwind willreturn memory(none)
declare i32 @pure.convergent.operation(i32) convergent nounwind willreturn memory(none)
declare void @use(i32, i32)
