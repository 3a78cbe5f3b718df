; CLAIM: CL-11
; SOURCE: CO "Loop unrolling examples"
; ROLE: target
; PAIR: cl11-unroll-anchor-remainder.src.ll
; KERNEL: @example
; EXPECT: refines
; OPT-VERIFY: ok
;
; The document's unrolled form: "while (counter >= 2)" with two copies of
; anchor + operation per iteration (%tok.1, %tok.2: the document reuses the
; name %tok, which SSA does not allow), then a remainder loop "while (counter
; > 0)" with its own anchor (%D). Threads whose trip counts differ in parity
; now execute their last operation in different static loops, which the
; document calls a likely change of behaviour but an allowed one, since each
; operation's set is chosen by an anchor in the same iteration.

target triple = "amdgcn-amd-amdhsa"

define void @example(i32 %counter) {
A:
  %guard = icmp sge i32 %counter, 2
  br i1 %guard, label %B, label %C

B:
  %c = phi i32 [ %counter, %A ], [ %c.next, %B ]
  %tok.1 = call token @llvm.experimental.convergence.anchor()
  call void @convergent.operation() [ "convergencectrl"(token %tok.1) ]
  %tok.2 = call token @llvm.experimental.convergence.anchor()
  call void @convergent.operation() [ "convergencectrl"(token %tok.2) ]
  %c.next = sub i32 %c, 2
  %more = icmp sge i32 %c.next, 2
  br i1 %more, label %B, label %C

C:
  %c.rem = phi i32 [ %counter, %A ], [ %c.next, %B ]
  %guard.rem = icmp sgt i32 %c.rem, 0
  br i1 %guard.rem, label %D, label %E

D:
  %d = phi i32 [ %c.rem, %C ], [ %d.next, %D ]
  %tok.3 = call token @llvm.experimental.convergence.anchor()
  call void @convergent.operation() [ "convergencectrl"(token %tok.3) ]
  %d.next = sub i32 %d, 1
  %more.d = icmp sgt i32 %d.next, 0
  br i1 %more.d, label %D, label %E

E:
  ret void
}

declare token @llvm.experimental.convergence.anchor() convergent nounwind willreturn memory(none)
declare void @convergent.operation() convergent nounwind
