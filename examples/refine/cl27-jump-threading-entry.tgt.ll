; CLAIM: CL-27
; SOURCE: RFC20 "bool flag = false; if (cc1) { ... if (cc2) flag = true; } if (flag) { result = ballot(true); }"
; ROLE: target
; PAIR: cl27-jump-threading-entry.src.ll
; KERNEL: @example
; EXPECT: refines
; OPT-VERIFY: ok
;
; The jump-threaded program with the ballot still controlled by the `entry`
; token. The threads that execute it are those with %cc1 and %cc2 true, the
; same as in the source, and no cycle separates them from the entry: same
; communicating sets.

target triple = "amdgcn-amd-amdhsa"

define void @example(i1 %cc1, i1 %cc2) convergent {
entry:
  %entry.token = call token @llvm.experimental.convergence.entry()
  br i1 %cc1, label %if1, label %end

if1:
  br i1 %cc2, label %set, label %end

set:
  br label %then

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
