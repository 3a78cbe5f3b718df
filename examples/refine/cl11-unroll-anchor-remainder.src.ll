; CLAIM: CL-11
; SOURCE: CO "Loop unrolling examples"
; ROLE: source
; PAIR: cl11-unroll-anchor-remainder.tgt.ll
; KERNEL: @example
; EXPECT: refines
; OPT-VERIFY: ok
;
; The document's first unrolling example: a loop whose convergent operation
; refers to an anchor *inside* the loop, with a per-thread trip count
; %counter. The loop is written in rotated form (guard in %A, body %B is the
; header and latch) so that block traces read like the document's. The
; target unrolls by 2 with a remainder loop. The document: "This change is
; allowed because the anchor intrinsic has implementation-defined convergence
; behavior and the loop unrolling transform is considered to be part of the
; implementation ... while the *likely* behavior of the code has changed, the
; *guarantees* about its behavior have remained the same." Every grouping of
; the target's anchors is a grouping the source's single anchor may choose
; (D-ANCHOR), so the target refines the source.

target triple = "amdgcn-amd-amdhsa"

define void @example(i32 %counter) {
A:
  %guard = icmp sgt i32 %counter, 0
  br i1 %guard, label %B, label %C

B:
  %c = phi i32 [ %counter, %A ], [ %c.next, %B ]
  %tok = call token @llvm.experimental.convergence.anchor()
  call void @convergent.operation() [ "convergencectrl"(token %tok) ]
  %c.next = sub i32 %c, 1
  %more = icmp sgt i32 %c.next, 0
  br i1 %more, label %B, label %C

C:
  ret void
}

declare token @llvm.experimental.convergence.anchor() convergent nounwind willreturn memory(none)
declare void @convergent.operation() convergent nounwind
