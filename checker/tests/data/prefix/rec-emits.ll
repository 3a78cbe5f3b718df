; R-PREFIX-REC evidence: a recursion with the same arguments at every
; level that calls an external function at each level: it never returns
; but emits an event per level, so it is not stuck (not quiet).
define void @k(i32 %x) {
entry:
  call void @loud(i32 %x)
  ret void
}

define void @loud(i32 %a) {
entry:
  call void @ext(i32 %a)
  call void @loud(i32 %a)
  ret void
}

declare void @ext(i32)
