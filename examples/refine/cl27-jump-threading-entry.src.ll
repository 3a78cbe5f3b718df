; CLAIM: CL-27
; SOURCE: RFC20 "bool flag = false; if (cc1) { ... if (cc2) flag = true; } if (flag) { result = ballot(true); }"
; ROLE: source
; PAIR: cl27-jump-threading-entry.tgt.ll
; KERNEL: @example
; EXPECT: refines
; OPT-VERIFY: ok
;
; The RFC's jump-threading example in the final token design: the ballot is
; controlled by the `entry` token (the RFC's own proposal used an anchor and
; a `join` intrinsic that did not survive into the final design; CO
; "Unstructured control flow" makes the same point with `entry`). By D-CTRL
; the ballot communicates among the threads of the entry's set that reach it,
; which jump threading does not change: the target refines the source. Side
; by side with cl27-jump-threading-uncontrolled, which gives the same verdict
; under D-MAX.

target triple = "amdgcn-amd-amdhsa"

define void @example(i1 %cc1, i1 %cc2) convergent {
entry:
  %entry.token = call token @llvm.experimental.convergence.entry()
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
  %result = call i64 @subgroupBallot(i1 true) [ "convergencectrl"(token %entry.token) ]
  call void @use(i64 %result)
  br label %end

end:
  ret void
}

declare token @llvm.experimental.convergence.entry() convergent nounwind willreturn memory(none)
declare i64 @subgroupBallot(i1) convergent nounwind willreturn memory(none)
declare void @use(i64)
