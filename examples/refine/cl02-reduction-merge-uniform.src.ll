; CLAIM: CL-02
; SOURCE: CO "Reductions inside divergent control flow"
; ROLE: source
; PAIR: cl02-reduction-merge-uniform.tgt.ll
; KERNEL: @example_kernel
; EXPECT: refines
; OPT-VERIFY: ok
;
; The reduction example with %delta an `inreg` (uniform) argument, so %cc is
; the same in every thread. The document: "hoisting is allowed if it can be
; proven that %cc is always uniform among the relevant set of threads: in
; that case, the @subgroupAdd already communicates among the full set of
; threads in the original program." Every thread executes the same arm, so
; the hoisted, merged call has the same communicating set (and sum). The
; verdict holds under `--observe sets` too: every thread executes exactly one
; @subgroupAdd in both programs, with the same set.

target triple = "amdgcn-amd-amdhsa"

define void @example_kernel(i32 inreg %delta) convergent {
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
