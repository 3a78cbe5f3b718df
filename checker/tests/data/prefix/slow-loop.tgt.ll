; R-PREFIX: a target whose threads with %x == 1 stay 20 iterations in a
; loop before the barrier (the counter decides the exit, so the thread is
; not stuck): cut by the bound, but it does end, so it must not be reported
; as a counterexample (the barrier's set is complete in the real run).
define void @k(i32 %x) {
entry:
  %c = icmp eq i32 %x, 1
  %n = select i1 %c, i32 20, i32 2
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %i.next = add i32 %i, 1
  %done = icmp eq i32 %i.next, %n
  br i1 %done, label %exit, label %loop

exit:
  call void @barrier()
  ret void
}

declare void @barrier() convergent
