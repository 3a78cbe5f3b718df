; D-HIER evidence (issue 12 item 8): a reducible loop whose header tests a
; flag that is %c on entry and false on later iterations; an uncontrolled
; barrier in the latch. One cycle hierarchy (header %H).
define void @k(i32 %x) {
entry:
  %c = icmp slt i32 %x, 1
  br label %H

H:
  %i = phi i32 [ 0, %entry ], [ %i.next, %L ]
  %f = phi i1 [ %c, %entry ], [ false, %L ]
  br i1 %f, label %A, label %B

A:
  br label %L

B:
  br label %L

L:
  call void @barrier()
  %i.next = add i32 %i, 1
  %more = icmp ult i32 %i.next, 2
  br i1 %more, label %H, label %exit

exit:
  ret void
}

declare void @barrier() convergent
