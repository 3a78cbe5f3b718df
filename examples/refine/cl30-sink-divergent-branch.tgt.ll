; CLAIM: CL-30
; SOURCE: RFC21 "a convergent call can be sunk across a uniform (non-divergent) branch"
; ROLE: target
; PAIR: cl30-sink-divergent-branch.src.ll
; KERNEL: @example
; EXPECT: counterexample
; WITNESS: 3 threads (ids 0, 1, 2); only thread 1 takes the branch: source sum 0+1+2 = 3, target sum 1 (with 2 threads both sums are 1)
; DISTINGUISH: --threads 3 --arg u=false :: t1@subgroupAdd == 1
; OPT-VERIFY: ok
;
; The uncontrolled @subgroupAdd sunk across the divergent branch on %odd: it
; now sums the thread ids of the odd threads only.

target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @example(i1 %u) convergent {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %odd = trunc i32 %tid to i1
  br i1 %odd, label %then, label %end

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
