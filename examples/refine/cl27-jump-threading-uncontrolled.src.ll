; CLAIM: CL-27
; SOURCE: RFC20 "bool flag = false; if (cc1) { ... if (cc2) flag = true; } if (flag) { result = ballot(true); }"
; ROLE: source
; PAIR: cl27-jump-threading-uncontrolled.tgt.ll
; KERNEL: @example
; EXPECT: refines
; OPT-VERIFY: ok
;
; The convergence-intrinsics RFC's jump-threading example
; (spec/seeds/004_b0d572e3198739da.txt), with the uncontrolled ballot of the
; RFC. The RFC: "the jump threading pass currently does not honor the
; convergent attribute correctly in cases such as: ... Since the convergent
; ballot operation is at a distance from the part of the code inspected by
; the jump threading pass, the pass will decide to transform the code in an
; incorrect way." That verdict belongs to the old reading of `convergent` (no
; new control dependencies, RFC15's control equivalence): the threaded ballot
; becomes control dependent on %cc1 and %cc2. Under the project's semantics
; the question is whether the set of threads that execute the ballot together
; changes: in acyclic code D-MAX converges all threads that reach the ballot
; (and `--uncontrolled inferred` gives the `entry` token of
; cl27-jump-threading-entry), and those are the threads with %cc1 and %cc2
; true in both programs. Expected: refines in both modes; the RFC's
; "incorrect" is not a semantic difference (see INDEX.md). The result is
; observed through @use.

target triple = "amdgcn-amd-amdhsa"

define void @example(i1 %cc1, i1 %cc2) convergent {
entry:
  br i1 %cc1, label %if1, label %join

if1:
  br i1 %cc2, label %set, label %if1.end

set:
  br label %if1.end

if1.end:
  %flag.1 = phi i1 [ false, %if1 ], [ true, %set ]
  br label %join

join:
  %flag = phi i1 [ false, %entry ], [ %flag.1, %if1.end ]
  br i1 %flag, label %then, label %end

then:
  %result = call i64 @subgroupBallot(i1 true)
  call void @use(i64 %result)
  br label %end

end:
  ret void
}

declare i64 @subgroupBallot(i1) convergent nounwind willreturn memory(none)
declare void @use(i64)
