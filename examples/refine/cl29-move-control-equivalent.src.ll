; CLAIM: CL-29
; SOURCE: RFC15 "A dominates B and B post-dominates A" (duplication, loop unrolling)
; ROLE: source
; PAIR: cl29-move-control-equivalent.tgt.ll
; KERNEL: @example
; EXPECT: refines
; OPT-VERIFY: ok
;
; The RFC's rule in its simplest form: an uncontrolled operation in the entry
; block, before a divergent if/else on the per-thread %c, is moved to the
; join block. The entry block dominates the join and the join post-dominates
; the entry, so the new position is control equivalent. In acyclic code D-MAX
; converges every thread that reaches the operation (and `--uncontrolled
; inferred` controls it by `entry` in both places), so the set is the whole
; group before and after. The arms contain no observable events, so the order
; of each thread's events is unchanged; the value computed in the arms is
; observed through @use after the operation.

target triple = "amdgcn-amd-amdhsa"

define void @example(i1 %c, i32 %x) convergent {
entry:
  call void @convergent.operation()
  br i1 %c, label %then, label %else

then:
  %v.then = add i32 %x, 1
  br label %join

else:
  %v.else = mul i32 %x, 3
  br label %join

join:
  %v = phi i32 [ %v.then, %then ], [ %v.else, %else ]
  call void @use(i32 %v)
  ret void
}

declare void @convergent.operation() convergent nounwind
declare void @use(i32)
