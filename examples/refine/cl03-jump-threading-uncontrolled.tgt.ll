; CLAIM: CL-03
; SOURCE: CO "Unstructured control flow"
; ROLE: target
; PAIR: cl03-jump-threading-uncontrolled.src.ll
; KERNEL: @example_original
; EXPECT: refines
; OPT-VERIFY: ok
;
; The document's @example_jumpthreaded, with an uncontrolled barrier. Under
; maximal convergence in acyclic control flow all threads that reach %then2
; execute converged instances of the barrier, whichever edge they arrive on,
; exactly as in the source.

target triple = "amdgcn-amd-amdhsa"

define void @example_original(i1 %cond1, i32 %x) convergent {
entry:
  br i1 %cond1, label %then1, label %then2

then1:
  %cond2 = icmp ne i32 %x, 0
  br i1 %cond2, label %then2, label %end

then2:
  call void @subgroupControlBarrier()
  br label %end

end:
  ret void
}

declare void @subgroupControlBarrier() convergent nounwind
