; CLAIM: CL-03
; SOURCE: CO "Unstructured control flow"
; ROLE: source
; PAIR: cl03-jump-threading.tgt.ll
; KERNEL: @example_original
; EXPECT: refines
; OPT-VERIFY: ok
;
; The document's @example_original as augmented by the frontend: the
; @subgroupControlBarrier is controlled by the `entry` token. %flag is true
; when %cond1 is false and equals %cond2 otherwise; threads reach %then2
; through %mid only. The target is @example_jumpthreaded (the %flag phi
; threaded away, %then2 now reached directly from %entry and from %then1) with
; the same token. The document: "If S is the set of threads that the entry
; intrinsic communicated with, then the @subgroupControlBarrier call
; communicates with the subset of S that actually reaches the call site. This
; set of threads doesn't change after jump-threading." %cond1 and the input of
; %cond2 are per-thread arguments. The document names the entry block
; `entry` and the token `%entry`, which LLVM rejects (one symbol table for
; blocks and values); the token is renamed %entry.token.

target triple = "amdgcn-amd-amdhsa"

define void @example_original(i1 %cond1, i32 %x) convergent {
entry:
  %entry.token = call token @llvm.experimental.convergence.entry()
  br i1 %cond1, label %then1, label %mid

then1:
  %cond2 = icmp ne i32 %x, 0
  br label %mid

mid:
  %flag = phi i1 [ true, %entry ], [ %cond2, %then1 ]
  br i1 %flag, label %then2, label %end

then2:
  call void @subgroupControlBarrier() [ "convergencectrl"(token %entry.token) ]
  br label %end

end:
  ret void
}

declare token @llvm.experimental.convergence.entry() convergent nounwind willreturn memory(none)
declare void @subgroupControlBarrier() convergent nounwind
