; CLAIM: CL-02
; SOURCE: CO "Reductions inside divergent control flow"
; ROLE: target
; PAIR: cl02-reduction-merge-uniform.src.ll
; KERNEL: @example_kernel
; EXPECT: refines
; OPT-VERIFY: ok
;
; The two @subgroupAdd calls hoisted above the branch on the uniform %cc and
; merged into one. Since all threads of the group take the same arm in the
; source, the merged call communicates among the same set of threads.

target triple = "amdgcn-amd-amdhsa"

define void @example_kernel(i32 inreg %delta) convergent {
  %entry = call token @llvm.experimental.convergence.entry()
  %cc = icmp sgt i32 %delta, 0
  %total = call i32 @subgroupAdd(i32 %delta) [ "convergencectrl"(token %entry) ]
  br i1 %cc, label %then, label %else

then:
  call void @use(i32 %total)
  br label %end

else:
  call void @use(i32 %total)
  br label %end

end:
  ret void
}

declare token @llvm.experimental.convergence.entry() convergent nounwind willreturn memory(none)
declare i32 @subgroupAdd(i32) convergent nounwind willreturn memory(none)
declare void @use(i32)
