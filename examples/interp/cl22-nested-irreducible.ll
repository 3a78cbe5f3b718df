; CL-22: ConvergenceAndUniformity.rst, "Dependence on Cycles Headers",
; example "two nested irreducible cycles with headers R and S" (figure
; convergence-both-diverged-nested) and its table. The figure is not in the
; text; this CFG has the edges the table's paths need:
;   Entry -> R | P,  P -> Q,  Q -> S | R,  S -> P | Exit,  R -> S.
; LLVM's DFS explores successors last-first, so Entry names P first: R is
; then visited first and LLVM's hierarchy has the document's headers, R
; outer and S inner (checked with opt-22 -passes='print<cycles>':
; "depth=1: entries(R P) ... depth=2: entries(S P)"). Other DFS orders give
; other hierarchies; the interpreter explores all of them (D-HIER).
;   thread 0: Entry P Q S P Q R S Exit
;   thread 1: Entry P Q R S Exit
;   thread 2: Entry R S Exit
; The document's verdicts: P2!~P3, Q2!~Q3, S1!~S3, S1!~S4 and R1~R2~R3.
; Run: convcheck run examples/interp/cl22-nested-irreducible.ll --threads 3

define void @kernel() {
Entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %qc = alloca i32
  %sc = alloca i32
  store i32 0, ptr %qc
  store i32 0, ptr %sc
  %is0 = icmp eq i32 %tid, 0
  %not2 = icmp ne i32 %tid, 2
  br i1 %not2, label %P, label %R

P:
  br label %Q

Q:
  ; thread 0 goes to S on its first visit of Q; every other visit goes to R
  %q = load i32, ptr %qc
  %q.next = add i32 %q, 1
  store i32 %q.next, ptr %qc
  %qfirst = icmp eq i32 %q, 0
  %toS = and i1 %is0, %qfirst
  br i1 %toS, label %S, label %R

R:
  br label %S

S:
  ; thread 0 goes back to P on its first visit of S; every other visit exits
  %s = load i32, ptr %sc
  %s.next = add i32 %s, 1
  store i32 %s.next, ptr %sc
  %sfirst = icmp eq i32 %s, 0
  %toP = and i1 %is0, %sfirst
  br i1 %toP, label %P, label %Exit

Exit:
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
