; CLAIM: CL-12
; SOURCE: CO "Loop unrolling examples"
; ROLE: source
; PAIR: cl12-unroll-heart-remainder.tgt.ll
; KERNEL: @example
; EXPECT: counterexample
; WITNESS: 2 threads with converged %outer; %counter = 3 and 4 (source traces A B B B C / A B B B B C; target A B C D E / A B B C E)
; DISTINGUISH: --threads 2 --arg counter=3,4 :: t0@convergent.operation[0] ~ t1@convergent.operation[0] && t0@convergent.operation[2] !~ t1@convergent.operation[2]
; OPT-VERIFY: ok
;
; The document's second unrolling example: the loop's heart %inner is
; controlled by the anchor %outer outside the loop (blocks named A, B, C as
; in the document), %counter is per-thread. Two threads that converge at the
; anchor and run 3 and 4 iterations execute converged instances of the heart
; and of the operation in iterations 1 to 3 (D-LOOP, D-CTRL). The target
; unrolls by 2 with a remainder; the document: "they execute different static
; calls to @convergent.operation for the 3rd iteration of the original loop
; ... Therefore, they execute non-converged dynamic instances ... This is why
; the unrolling is incorrect."

target triple = "amdgcn-amd-amdhsa"

define void @example(i32 %counter) {
A:
  %outer = call token @llvm.experimental.convergence.anchor()
  %guard = icmp sgt i32 %counter, 0
  br i1 %guard, label %B, label %C

B:
  %c = phi i32 [ %counter, %A ], [ %c.next, %B ]
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
