; R-PREFIX evidence: the shape of a SimplifyCFG miscompile (issue 12 item 7).
; Source: every thread leaves the loop after two iterations, then all of
; them reach the barrier together.
define void @k(i32 %x) {
entry:
  %c = icmp eq i32 %x, 1
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
  %i.next = add i32 %i, 1
  br label %latch

latch:
  %done = icmp eq i32 %i.next, 2
  br i1 %done, label %exit, label %loop

exit:
  call void @barrier()
  ret void
}

declare void @barrier() convergent
