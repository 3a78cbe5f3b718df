; CLAIM: CL-29
; SOURCE: RFC15 "A dominates B and B post-dominates A" (duplication, loop unrolling)
; ROLE: target
; PAIR: cl29-move-control-equivalent.src.ll
; KERNEL: @example
; EXPECT: refines
; OPT-VERIFY: ok
;
; The operation moved from the entry block to the join block, a
; control-equivalent position. All threads reach it, as they reached the
; original position.

target triple = "amdgcn-amd-amdhsa"

define void @example(i1 %c, i32 %x) convergent {
entry:
  br i1 %c, label %then, label %else

then:
  %v.then = add i32 %x, 1
  br label %join

else:
  %v.else = mul i32 %x, 3
  br label %join

join:
  %v = phi i32 [ %v.then, %then ], [ %v.else, %else ]
  call void @convergent.operation()
  call void @use(i32 %v)
  ret void
}

declare void @convergent.operation() convergent nounwind
declare void @use(i32)
