; CLAIM: CL-28
; SOURCE: RFC15 "r1 = texture2D(..., r0, ...) if (...) { ... } else { r2 = r1 + ... }"
; ROLE: source
; PAIR: cl28-texture2d-sink-else.tgt.ll
; KERNEL: @example
; EXPECT: counterexample
; WITNESS: 2 threads; %c = true in one thread, false in the other
; DISTINGUISH: --threads 2 --arg c=true,false --arg tex=0 --arg r0=0 --arg k=0 :: size(t1@texture2D) == 1
; OPT-VERIFY: ok
;
; The 2015 `convergent` RFC (spec/seeds/001_b3839f6f2d0f0f63.txt): a texture
; lookup that computes the gradient of r0 precedes an if/else; the then-arm
; reuses r0 as a temporary, the else-arm is the only use of r1. "various
; optimizations might try to sink the texture2D operation into the else block
; ... a problem can occur when two neighbor threads want to take different
; paths through the if-else construct." The call is uncontrolled (pre-token
; RFC; the function is `convergent` for `--uncontrolled inferred`); %c, %r0
; and %k are per-thread. In SSA the register reuse of r0 becomes a fresh
; value %r0.tmp; what remains is that the sample's gradient needs the
; neighbours of the thread, which the source provides (every thread executes
; it) and the target does not (only the else-threads do). Forbidden under
; both D-UNCTRL modes.

target triple = "amdgcn-amd-amdhsa"

define i32 @example(i1 %c, i32 %tex, i32 %r0, i32 %k) convergent {
entry:
  %r1 = call i32 @texture2D(i32 %tex, i32 %r0)
  br i1 %c, label %then, label %else

then:
  %r0.tmp = mul i32 %k, 3
  %r2.then = add i32 %r0.tmp, 1
  br label %end

else:
  %r2.else = add i32 %r1, 1
  br label %end

end:
  %r2 = phi i32 [ %r2.then, %then ], [ %r2.else, %else ]
  ret i32 %r2
}

declare i32 @texture2D(i32, i32) convergent nounwind willreturn memory(none)
