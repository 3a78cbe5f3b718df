; CLAIM: CL-01
; SOURCE: CO "Texture sampling in a pixel shader"
; ROLE: target
; PAIR: cl01-texture-sink-uniform.src.ll
; KERNEL: @example_shader
; EXPECT: refines
; MODES: --observe auto
; EXPECT-IN: --observe sets => counterexample
; OPT-VERIFY: ok
;
; @textureSample sunk into the `if` whose condition is the uniform (`inreg`)
; argument %condition. Because every thread takes the same direction, the
; threads that execute the sunk call are exactly the threads that executed it
; in the source, so the communicating set and the sampled value are unchanged
; wherever the value is used.

target triple = "amdgcn-amd-amdhsa"

define void @example_shader(i1 inreg %condition, i32 %texture, i32 %coordinates) convergent {
  %entry = call token @llvm.experimental.convergence.entry()
  br i1 %condition, label %then, label %end

then:
  %color = call i32 @textureSample(i32 %texture, i32 %coordinates) [ "convergencectrl"(token %entry) ]
  call void @use(i32 %color)
  br label %end

end:
  ret void
}

declare token @llvm.experimental.convergence.entry() convergent nounwind willreturn memory(none)
declare i32 @textureSample(i32, i32) convergent nounwind willreturn memory(none)
declare void @use(i32)
