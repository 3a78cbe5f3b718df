; CLAIM: CL-18
; SOURCE: CO "Hoisting and sinking"
; ROLE: source
; PAIR: cl18-anchor-sink-loop.tgt.ll
; KERNEL: @example
; EXPECT: counterexample
; WITNESS: 2 threads, %counter = 2 in both, converged in the target's 1st-iteration anchor and not in its 2nd
; DISTINGUISH: --threads 2 --arg counter=2,2 :: t0@convergent.operation[0] ~ t1@convergent.operation[0] && t0@convergent.operation[1] !~ t1@convergent.operation[1]
; OPT-VERIFY: ok
;
; Second half of the document's loop example: %outer is an anchor before a
; loop whose heart %inner it controls (the CL-12 source: rotated loop,
; per-thread %counter). Threads converged at %outer stay converged iteration
; by iteration (D-LOOP). The target sinks the anchor into the loop. The
; document: "The program would stay valid if the anchor was sunk into the
; loop, but its behavior could end up being different. If the anchor is
; inside the loop, then each loop iteration has a new dynamic instance of the
; anchor, and the set of threads participating in those dynamic instances of
; the anchor could be different in arbitrary implementation-defined ways."
; Valid but not a refinement: the target may group threads together in one
; iteration and apart in the next, which the source cannot.

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
