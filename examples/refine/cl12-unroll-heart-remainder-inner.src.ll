; CLAIM: CL-12
; SOURCE: CO "Loop unrolling examples"
; ROLE: source
; PAIR: cl12-unroll-heart-remainder-inner.tgt.ll
; KERNEL: @example
; EXPECT: counterexample
; WITNESS: 2 threads with converged %outer; %counter = 3 and 4
; DISTINGUISH: --threads 2 --arg counter=3,4 :: t0@convergent.operation[0] ~ t1@convergent.operation[0] && t0@convergent.operation[2] !~ t1@convergent.operation[2]
; FINDING: F-22 (needs more than 8 block visits per thread; a bound, not a disagreement)
; OPT-VERIFY: ok
;
; The CL-12 loop (heart controlled by the outer anchor, per-thread trip
; count) in header-test form: the heart %inner sits in the header %H that
; evaluates "counter > 0", the body %B holds the operation. This shape lets
; the target's remainder refer to %inner, the document's third alternative
; ("refer to either %inner (which is possible in SSA form) or directly to
; %outer"): %H dominates the loop exit, which the rotated form of the other
; CL-12 pairs does not allow.

target triple = "amdgcn-amd-amdhsa"

define void @example(i32 %counter) {
A:
  %outer = call token @llvm.experimental.convergence.anchor()
  br label %H

H:
  %c = phi i32 [ %counter, %A ], [ %c.next, %B ]
  %inner = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %outer) ]
  %more = icmp sgt i32 %c, 0
  br i1 %more, label %B, label %C

B:
  call void @convergent.operation() [ "convergencectrl"(token %inner) ]
  %c.next = sub i32 %c, 1
  br label %H

C:
  ret void
}

declare token @llvm.experimental.convergence.anchor() convergent nounwind willreturn memory(none)
declare token @llvm.experimental.convergence.loop() convergent nounwind willreturn memory(none)
declare void @convergent.operation() convergent nounwind
