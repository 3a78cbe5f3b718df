; R-PREFIX evidence: the shape of a SimplifyCFG miscompile (issue 12 item 7).
; Target: the latch was folded wrongly; threads with %x == 1 branch back to
; the loop forever (their counter is dead there), the others leave after
; two iterations and reach the barrier without them, a different set.
define void @k(i32 %x) {
entry:
  %c = icmp eq i32 %x, 1
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ], [ %i.next, %latch ]
  %i.next = add i32 %i, 1
  br i1 %c, label %loop, label %latch

latch:
  %done = icmp eq i32 %i.next, 2
  br i1 %done, label %exit, label %loop

exit:
  call void @barrier()
  ret void
}

declare void @barrier() convergent
