; CLAIM: CL-02
; SOURCE: CO "Reductions inside divergent control flow"
; ROLE: target
; PAIR: cl02-reduction-merge-divergent.src.ll
; KERNEL: @example_kernel
; EXPECT: counterexample
; WITNESS: 2 threads; %delta = 1 in one thread, -1 in the other (total_gains is 1 in the source, 0 in the target)
; DISTINGUISH: --threads 2 --arg delta=1,-1 :: t0@subgroupAdd == 0
; OPT-VERIFY: ok
;
; The two @subgroupAdd calls of the source hoisted above the branch on the
; divergent %cc and merged into one call. Its only control dependency is now
; the `entry` token, so it communicates among all threads that entered the
; kernel together, and both arms see the sum over every thread.

target triple = "amdgcn-amd-amdhsa"

define void @example_kernel(i32 %delta) convergent {
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
