; CLAIM: CL-01
; SOURCE: CO "Texture sampling in a pixel shader"
; ROLE: source
; PAIR: cl01-texture-sink-divergent.tgt.ll
; KERNEL: @example_shader
; EXPECT: counterexample
; WITNESS: 2 threads; %condition = true in one thread, false in the other
; DISTINGUISH: --threads 2 --arg condition=true,false --arg texture=0 --arg coordinates=0 :: size(t0@textureSample) == 1
; OPT-VERIFY: ok
;
; The document's frontend output for the pixel shader: @textureSample is
; controlled by the token of `entry`, so it communicates among every thread
; that entered the shader together (the quad). The target sinks the call into
; the `if`, where only threads with %condition true execute it. The document:
; "sinking the @textureSample call is forbidden". %condition is a
; per-thread argument (P-LAUNCH), so it can be divergent: the sample in the
; target is computed over a smaller communicating set and its value (an
; uninterpreted function of that set, C-OPS) differs from every value the
; source can produce.

target triple = "amdgcn-amd-amdhsa"

define void @example_shader(i1 %condition, i32 %texture, i32 %coordinates) convergent {
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
