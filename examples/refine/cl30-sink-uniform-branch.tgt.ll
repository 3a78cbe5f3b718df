; CLAIM: CL-30
; SOURCE: RFC21 "a convergent call can be sunk across a uniform (non-divergent) branch"
; ROLE: target
; PAIR: cl30-sink-uniform-branch.src.ll
; KERNEL: @example
; EXPECT: refines
; MODES: --observe auto
; EXPECT-IN: --observe sets => counterexample
; OPT-VERIFY: ok
;
; The uncontrolled @subgroupAdd sunk across the uniform branch on the kernel
; argument %u into the block that uses it.

target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @example(i1 %u) convergent {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br i1 %u, label %then, label %end

then:
  %sum = call i32 @subgroupAdd(i32 %tid)
  call void @use(i32 %sum)
  br label %end

end:
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @subgroupAdd(i32) convergent nounwind willreturn memory(none)
declare void @use(i32)
