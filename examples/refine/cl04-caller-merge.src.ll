; CLAIM: CL-04
; SOURCE: CO "Opportunistic convergent operations"
; ROLE: source
; PAIR: cl04-caller-merge.tgt.ll
; KERNEL: @append
; EXPECT: refines
; FINDING: F-24 (CEGIS times out on this pair within the test's bounds; open)
; OPT-VERIFY: ok
;
; The reverse move: the caller calls @reserveSpaceInBuffer in both arms of a
; divergent if/else, and the target merges the two calls into one after the
; join (tail merging / hoisting into the common successor). The document lets
; callers "move call sites of the function as they see fit" because the
; function is not convergent. The target's single anchor may group threads of
; both arms together; this refines the source only if the anchor of a called
; function may put threads that entered through *different* call sites into
; one dynamic instance. D-ANCHOR allows any grouping consistent with D-CW and
; D-ORDER and no rule ties an anchor to its caller's call site, so the
; expected verdict is "refines"; a counterexample here would show that the
; tool ties anchor instances to call sites (see INDEX.md).

target triple = "amdgcn-amd-amdhsa"

@bufferAllocationCount = global i32 0

define void @append(i1 %cond, i32 %a, i32 %b) {
entry:
  br i1 %cond, label %left, label %right

left:
  %record.l = add i32 %a, 1
  %offset.l = call i32 @reserveSpaceInBuffer()
  br label %join

right:
  %record.r = mul i32 %b, 3
  %offset.r = call i32 @reserveSpaceInBuffer()
  br label %join

join:
  %record = phi i32 [ %record.l, %left ], [ %record.r, %right ]
  %offset = phi i32 [ %offset.l, %left ], [ %offset.r, %right ]
  call void @writeRecord(i32 %offset, i32 %record)
  ret void
}

define i32 @reserveSpaceInBuffer() {    ; NOTE: _not_ a convergent function!
entry:
  %anchor = call token @llvm.experimental.convergence.anchor()

  %ballot = call i64 @subgroupBallot(i1 true) [ "convergencectrl"(token %anchor) ]
  %numThreads.p = call i64 @llvm.ctpop.i64(i64 %ballot)
  %numThreads = trunc i64 %numThreads.p to i32

  %absoluteThreadIdx = call i32 @getSubgroupLocalInvocationId()
  %absoluteThreadIdx.ext = zext i32 %absoluteThreadIdx to i64
  %mask.p = shl i64 1, %absoluteThreadIdx.ext
  %mask = sub i64 %mask.p, 1

  %maskedBallot = and i64 %ballot, %mask
  %relativeThreadIdx.p = call i64 @llvm.ctpop.i64(i64 %maskedBallot)
  %relativeThreadIdx = trunc i64 %relativeThreadIdx.p to i32

  %isFirstThread = icmp eq i32 %relativeThreadIdx, 0
  br i1 %isFirstThread, label %then, label %end

then:
  %baseOffset.1 = atomicrmw add ptr @bufferAllocationCount, i32 %numThreads monotonic
  br label %end

end:
  %baseOffset.2 = phi i32 [ undef, %entry ], [ %baseOffset.1, %then ]
  %baseOffset = call i32 @subgroupBroadcastFirst(i32 %baseOffset.2) [ "convergencectrl"(token %anchor) ]
  %offset = add i32 %baseOffset, %relativeThreadIdx
  ret i32 %offset
}

; The spec calls an external @getSubgroupLocalInvocationId; here it is the
; thread's id within the launch (P-LAUNCH), so that the mask is meaningful.
define i32 @getSubgroupLocalInvocationId() {
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  ret i32 %id
}

declare token @llvm.experimental.convergence.anchor() convergent nounwind willreturn memory(none)
declare i64 @subgroupBallot(i1) convergent nounwind willreturn memory(none)
declare i32 @subgroupBroadcastFirst(i32) convergent nounwind willreturn memory(none)
declare i64 @llvm.ctpop.i64(i64)
declare i32 @llvm.amdgcn.workitem.id.x()
declare void @writeRecord(i32, i32)
