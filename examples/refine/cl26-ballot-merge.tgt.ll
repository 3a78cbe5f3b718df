; CLAIM: CL-26
; SOURCE: RFC20 "if (cc) { result = ballot(true); } else { result = ballot(true); }"
; ROLE: target
; PAIR: cl26-ballot-merge.src.ll
; KERNEL: @example
; EXPECT: counterexample
; WITNESS: 2 threads; %cc = true in one thread, false in the other (source results 0b01 / 0b10, target 0b11 in both)
; DISTINGUISH: --threads 2 --arg cc=true,false :: t0@subgroupBallot == 3
; OPT-VERIFY: ok
;
; The if-statement with identical arms replaced by a single ballot, as a
; single-threaded view (branch folding / tail merging) would allow. The
; ballot now communicates among all threads, so its mask includes threads of
; the other arm.

target triple = "amdgcn-amd-amdhsa"

define i64 @example(i1 %cc) convergent {
entry:
  %result = call i64 @subgroupBallot(i1 true)
  ret i64 %result
}

declare i64 @subgroupBallot(i1) convergent nounwind willreturn memory(none)
