; D-HIER evidence (issue 12 item 8): jump threading of the source's entry
; edge (%f is %c there): entry branches to %A or %B directly, so the cycle
; {A, B, L, H} has two entries and is irreducible; its hierarchies take %A
; or %B as header, and the barrier's D-MAX keys differ between them.
define void @k(i32 %x) {
entry:
  %c = icmp slt i32 %x, 1
  br i1 %c, label %A, label %B

H:
  br label %B

A:
  %i.a = phi i32 [ 0, %entry ]
  br label %L

B:
  %i.b = phi i32 [ 0, %entry ], [ %i.next, %H ]
  br label %L

L:
  %i = phi i32 [ %i.a, %A ], [ %i.b, %B ]
  call void @barrier()
  %i.next = add i32 %i, 1
  %more = icmp ult i32 %i.next, 2
  br i1 %more, label %H, label %exit

exit:
  ret void
}

declare void @barrier() convergent
