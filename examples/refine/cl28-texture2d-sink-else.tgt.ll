; CLAIM: CL-28
; SOURCE: RFC15 "r1 = texture2D(..., r0, ...) if (...) { ... } else { r2 = r1 + ... }"
; ROLE: target
; PAIR: cl28-texture2d-sink-else.src.ll
; KERNEL: @example
; EXPECT: counterexample
; WITNESS: 2 threads; %c = true in one thread, false in the other
; DISTINGUISH: --threads 2 --arg c=true,false --arg tex=0 --arg r0=0 --arg k=0 :: size(t1@texture2D) == 1
; OPT-VERIFY: ok
;
; The texture2D call sunk into the else-arm, next to its only use. Only
; threads with %c false execute it, so it is computed over a smaller set of
; threads than in the source and its value (an uninterpreted function of that
; set, C-OPS) can differ from every value the source produces.

target triple = "amdgcn-amd-amdhsa"

define i32 @example(i1 %c, i32 %tex, i32 %r0, i32 %k) convergent {
entry:
  br i1 %c, label %then, label %else

then:
  %r0.tmp = mul i32 %k, 3
  %r2.then = add i32 %r0.tmp, 1
  br label %end

else:
  %r1 = call i32 @texture2D(i32 %tex, i32 %r0)
  %r2.else = add i32 %r1, 1
  br label %end

end:
  %r2 = phi i32 [ %r2.then, %then ], [ %r2.else, %else ]
  ret i32 %r2
}

declare i32 @texture2D(i32, i32) convergent nounwind willreturn memory(none)
