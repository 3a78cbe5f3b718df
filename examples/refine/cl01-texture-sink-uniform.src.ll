; CLAIM: CL-01
; SOURCE: CO "Texture sampling in a pixel shader"
; ROLE: source
; PAIR: cl01-texture-sink-uniform.tgt.ll
; KERNEL: @example_shader
; EXPECT: refines
; MODES: --observe auto
; EXPECT-IN: --observe sets => counterexample
; OPT-VERIFY: ok
;
; The same shader as cl01-texture-sink-divergent, except that %condition is
; an `inreg` argument and therefore the same in every thread (P-LAUNCH).
; The document: "A program transform can still sink the call if it can prove
; somehow ... that %condition is always uniform across the threads
; referenced by the convergence token %entry." With a uniform condition either
; every thread executes the sunk call (same communicating set as in the
; source) or none does (the value is then unused). The verdict holds when
; @textureSample (memory(none)) is observed through its value only; under
; `--observe sets` every convergent call is an event, and the target drops the
; event when the condition is false everywhere, so the strict reading rejects
; the transform.

target triple = "amdgcn-amd-amdhsa"

define void @example_shader(i1 inreg %condition, i32 %texture, i32 %coordinates) convergent {
  %entry = call token @llvm.experimental.convergence.entry()
  %color = call i32 @textureSample(i32 %texture, i32 %coordinates) [ "convergencectrl"(token %entry) ]
  br i1 %condition, label %then, label %end

then:
  call void @use(i32 %color)
  br label %end

end:
  ret void
}

declare token @llvm.experimental.convergence.entry() convergent nounwind willreturn memory(none)
declare i32 @textureSample(i32, i32) convergent nounwind willreturn memory(none)
declare void @use(i32)
