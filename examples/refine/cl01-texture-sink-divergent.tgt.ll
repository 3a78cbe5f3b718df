; CLAIM: CL-01
; SOURCE: CO "Texture sampling in a pixel shader"
; ROLE: target
; PAIR: cl01-texture-sink-divergent.src.ll
; KERNEL: @example_shader
; EXPECT: counterexample
; WITNESS: 2 threads; %condition = true in one thread, false in the other
; DISTINGUISH: --threads 2 --arg condition=true,false --arg texture=0 --arg coordinates=0 :: size(t0@textureSample) == 1
; OPT-VERIFY: ok
;
; The source with @textureSample sunk into the `if` (the transform that
; "appears legal" from a single-threaded perspective). It still uses the
; `entry` token, but the call now has an additional control dependency on
; the divergent %condition, so it communicates only among the threads that
; take the branch. The document forbids this sinking.

target triple = "amdgcn-amd-amdhsa"

define void @example_shader(i1 %condition, i32 %texture, i32 %coordinates) convergent {
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
