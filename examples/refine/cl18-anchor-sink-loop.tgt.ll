; CLAIM: CL-18
; SOURCE: CO "Hoisting and sinking"
; ROLE: target
; PAIR: cl18-anchor-sink-loop.src.ll
; KERNEL: @example
; EXPECT: counterexample
; WITNESS: 2 threads, %counter = 2 in both, converged in the target's 1st-iteration anchor and not in its 2nd
; DISTINGUISH: --threads 2 --arg counter=2,2 :: t0@convergent.operation[0] ~ t1@convergent.operation[0] && t0@convergent.operation[1] !~ t1@convergent.operation[1]
; OPT-VERIFY: ok
;
; The anchor sunk into the loop. A `loop` intrinsic must precede every other
; convergent operation of its block (S-LOOP-PLACE; LLVM: "Loop intrinsic
; cannot be preceded by a convergent operation in the same basic block"), so
; the sunk anchor gets the loop header %B to itself and the former heart, now
; controlled by a token defined in the same iteration (no longer a heart),
; moves to the new block %B.body. Each iteration creates a fresh anchor
; instance whose grouping is implementation-defined, so the operation's set
; may change from one iteration to the next.

target triple = "amdgcn-amd-amdhsa"

define void @example(i32 %counter) {
A:
  %guard = icmp sgt i32 %counter, 0
  br i1 %guard, label %B, label %C

B:
  %c = phi i32 [ %counter, %A ], [ %c.next, %B.body ]
  %outer = call token @llvm.experimental.convergence.anchor()
  br label %B.body

B.body:
  %inner = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %outer) ]
  call void @convergent.operation() [ "convergencectrl"(token %inner) ]
  %c.next = sub i32 %c, 1
  %more = icmp sgt i32 %c.next, 0
  br i1 %more, label %B, label %C

C:
  ret void
}

declare token @llvm.experimental.convergence.anchor() convergent nounwind willreturn memory(none)
declare token @llvm.experimental.convergence.loop() convergent nounwind willreturn memory(none)
declare void @convergent.operation() convergent nounwind
