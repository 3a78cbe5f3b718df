; CLAIM: CL-27
; SOURCE: RFC20 "bool flag = false; if (cc1) { ... if (cc2) flag = true; } if (flag) { result = ballot(true); }"
; ROLE: target
; PAIR: cl27-jump-threading-uncontrolled.src.ll
; KERNEL: @example
; EXPECT: refines
; OPT-VERIFY: ok
;
; The jump-threaded program: the value of %flag is known on every incoming
; edge of %join, so threads with %cc1 false go straight to %end, threads with
; %cc2 false from %if1 to %end, and %set jumps to the ballot. The ballot is
; now reached through the nested branches, but by exactly the threads that
; reached it in the source. (opt-22 -passes=jump-threading leaves the source
; unchanged; adding simplifycfg folds it further into one branch on %cc1 and
; %cc2.)

target triple = "amdgcn-amd-amdhsa"

define void @example(i1 %cc1, i1 %cc2) convergent {
entry:
  br i1 %cc1, label %if1, label %end

if1:
  br i1 %cc2, label %set, label %end

set:
  br label %then

then:
  %result = call i64 @subgroupBallot(i1 true)
  call void @use(i64 %result)
  br label %end

end:
  ret void
}

declare i64 @subgroupBallot(i1) convergent nounwind willreturn memory(none)
declare void @use(i64)
