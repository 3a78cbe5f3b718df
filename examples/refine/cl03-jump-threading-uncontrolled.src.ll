; CLAIM: CL-03
; SOURCE: CO "Unstructured control flow"
; ROLE: source
; PAIR: cl03-jump-threading-uncontrolled.tgt.ll
; KERNEL: @example_original
; EXPECT: refines
; OPT-VERIFY: ok
;
; The document's first, un-augmented @example_original: the barrier is an
; uncontrolled convergent operation. The document says an implementation that
; reconverges at post-dominators would synchronize different sets before and
; after jump threading, while one with maximal reconvergence per basic block
; "would behave the same way in both versions", and takes the stance that
; "reconvergence in acyclic control flow must be maximal". Under
; `--uncontrolled maximal` (D-MAX) and `--uncontrolled inferred` (the inferred
; `entry` token gives cl03-jump-threading) the barrier's set is the set of
; threads that reach it, before and after the transform. The post-dominator
; reading is not a mode of the tool.

target triple = "amdgcn-amd-amdhsa"

define void @example_original(i1 %cond1, i32 %x) convergent {
entry:
  br i1 %cond1, label %then1, label %mid

then1:
  %cond2 = icmp ne i32 %x, 0
  br label %mid

mid:
  %flag = phi i1 [ true, %entry ], [ %cond2, %then1 ]
  br i1 %flag, label %then2, label %end

then2:
  call void @subgroupControlBarrier()
  br label %end

end:
  ret void
}

declare void @subgroupControlBarrier() convergent nounwind
