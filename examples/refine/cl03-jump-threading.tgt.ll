; CLAIM: CL-03
; SOURCE: CO "Unstructured control flow"
; ROLE: target
; PAIR: cl03-jump-threading.src.ll
; KERNEL: @example_original
; EXPECT: refines
; OPT-VERIFY: ok
;
; The document's @example_jumpthreaded with the `entry` token kept on the
; barrier (jump threading does not touch the bundle). Threads with %cond1
; false jump straight to %then2; threads with %cond1 true reach it through
; %then1 when %cond2 holds. The barrier is still controlled by the `entry`
; token with no loop in between, so it communicates among exactly the threads
; of the entry's set that reach it: the same set as in the source. (The
; function keeps the source's name so that both programs launch the same
; kernel.)

target triple = "amdgcn-amd-amdhsa"

define void @example_original(i1 %cond1, i32 %x) convergent {
entry:
  %entry.token = call token @llvm.experimental.convergence.entry()
  br i1 %cond1, label %then1, label %then2

then1:
  %cond2 = icmp ne i32 %x, 0
  br i1 %cond2, label %then2, label %end

then2:
  call void @subgroupControlBarrier() [ "convergencectrl"(token %entry.token) ]
  br label %end

end:
  ret void
}

declare token @llvm.experimental.convergence.entry() convergent nounwind willreturn memory(none)
declare void @subgroupControlBarrier() convergent nounwind
