; R-PREFIX-REC evidence: threads with %x == 1 call @rec, which calls itself
; with the same arguments forever (no event, nothing changes: stuck); the
; others return from it and reach the barrier. Like LLVM's
; FunctionAttrs/convergent.ll @recursive1 and Inline/convergence-inline.ll
; @recurse, but only for some inputs.
define void @k(i32 %x) {
entry:
  call void @rec(i32 %x, i32 7)
  call void @barrier()
  ret void
}

define void @rec(i32 %a, i32 %b) {
entry:
  %stay = icmp eq i32 %a, 1
  br i1 %stay, label %again, label %done

again:
  %b.same = add i32 %b, 0
  call void @rec(i32 %a, i32 %b.same)
  ret void

done:
  ret void
}

declare void @barrier() convergent
