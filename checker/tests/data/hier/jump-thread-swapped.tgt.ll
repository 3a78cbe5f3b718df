; D-HIER evidence (issue 12 item 8): jump-thread.tgt.ll with the entry
; branch written the other way round. The cycle {A, B, L, H} is irreducible
; with two hierarchies (header %A or %B); LLVM's DFS takes %A, under which
; the barrier's sets are the source's, so `--hierarchy llvm` says refines;
; under header %B they are not, so `--hierarchy all` finds the difference.
define void @k(i32 %x) {
entry:
  %c = icmp slt i32 %x, 1
  %nc = xor i1 %c, true
  br i1 %nc, label %B, label %A

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
