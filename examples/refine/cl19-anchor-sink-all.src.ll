; CLAIM: CL-19
; SOURCE: CO "Hoisting and sinking"
; ROLE: source
; PAIR: cl19-anchor-sink-all.tgt.ll
; KERNEL: @example
; EXPECT: refines
; MODES: --observe auto
; EXPECT-IN: --observe sets => counterexample
; OPT-VERIFY: ok
;
; The document's "Convergent operations can be sunk together with their
; anchor" example: an anchor %tok controls two pure convergent operations %a
; and %b (memory(none): their values are functions of their communicating
; sets, C-OPS), used only inside `if (condition)` with a per-thread
; %condition. In the source %a and %b always have the same communicating set.
; The target sinks the anchor, %a and %b together into the `if`. The
; document: "all can be sunk together ... the sinking will restrict the set
; of communicating threads to those for which condition is true, but that
; could have happened in the original program anyway for some arbitrary other
; reason." Under `--observe sets` the operations are events and the target
; drops them in threads that skip the branch, so the strict reading rejects
; the transform.

target triple = "amdgcn-amd-amdhsa"

define void @example(i1 %condition, i32 %x, i32 %y) {
  %tok = call token @llvm.experimental.convergence.anchor()
  %a = call i32 @pure.convergent.operation(i32 %x) [ "convergencectrl"(token %tok) ]
  %b = call i32 @pure.convergent.operation(i32 %y) [ "convergencectrl"(token %tok) ]
  br i1 %condition, label %then, label %end

then:
  call void @use(i32 %a, i32 %b)
  br label %end

end:
  ret void
}

declare token @llvm.experimental.convergence.anchor() convergent nounwind willreturn memory(none)
declare i32 @pure.convergent.operation(i32) convergent nounwind willreturn memory(none)
declare void @use(i32, i32)
