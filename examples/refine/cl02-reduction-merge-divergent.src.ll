; CLAIM: CL-02
; SOURCE: CO "Reductions inside divergent control flow"
; ROLE: source
; PAIR: cl02-reduction-merge-divergent.tgt.ll
; KERNEL: @example_kernel
; EXPECT: counterexample
; WITNESS: 2 threads; %delta = 1 in one thread, -1 in the other (total_gains is 1 in the source, 0 in the target)
; DISTINGUISH: --threads 2 --arg delta=1,-1 :: t0@subgroupAdd == 0
; OPT-VERIFY: ok
;
; The document's frontend output: both @subgroupAdd calls use the `entry`
; token but are control dependent on %cc = (%delta > 0), so total_gains sums
; %delta over the threads with positive %delta and total_losses over the
; others. %delta is a per-thread argument. The target hoists and merges the
; two calls above the branch; the document: "it would sum up the delta across
; *all* threads instead", so the transform is forbidden.

target triple = "amdgcn-amd-amdhsa"

define void @example_kernel(i32 %delta) convergent {
  %entry = call token @llvm.experimental.convergence.entry()
  %cc = icmp sgt i32 %delta, 0
  br i1 %cc, label %then, label %else

then:
  %total_gains = call i32 @subgroupAdd(i32 %delta) [ "convergencectrl"(token %entry) ]
  call void @use(i32 %total_gains)
  br label %end

else:
  %total_losses = call i32 @subgroupAdd(i32 %delta) [ "convergencectrl"(token %entry) ]
  call void @use(i32 %total_losses)
  br label %end

end:
  ret void
}

declare token @llvm.experimental.convergence.entry() convergent nounwind willreturn memory(none)
declare i32 @subgroupAdd(i32) convergent nounwind willreturn memory(none)
declare void @use(i32)
