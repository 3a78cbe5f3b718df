; CLAIM: CL-04
; SOURCE: CO "Opportunistic convergent operations"
; ROLE: module
; PAIR: -
; KERNEL: @append
; EXPECT: valid
; PROPERTY: in every execution, the @subgroupBallot and the @subgroupBroadcastFirst of one dynamic call of @reserveSpaceInBuffer have the same communicating set
; OPT-VERIFY: ok
;
; The document's "append buffer" helper @reserveSpaceInBuffer, verbatim: it
; is *not* convergent, uses an `anchor` to capture whatever set of threads
; the implementation groups together, counts them with a ballot, lets the
; first of them bump @bufferAllocationCount once with an atomic, and
; broadcasts the base offset to the group. The document: "What the
; implementation of the function cares about is that the initial
; @subgroupBallot ... executes with the same set of threads as the final
; @subgroupBroadcastFirst." Both use %anchor (D-CTRL), so their sets agree in
; every execution. The module must pass every static rule: the function has
; no `entry` intrinsic, so it needs no `convergent` attribute, and its call
; sites are ordinary, uncontrolled-free calls. @append is a caller that
; conditionally writes one record per thread (the write is the observable
; event @writeRecord(offset, record)).

target triple = "amdgcn-amd-amdhsa"

@bufferAllocationCount = global i32 0

define void @append(i1 %cond, i32 %record) {
entry:
  br i1 %cond, label %write, label %done

write:
  %offset = call i32 @reserveSpaceInBuffer()
  call void @writeRecord(i32 %offset, i32 %record)
  br label %done

done:
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
