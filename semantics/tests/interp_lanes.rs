//! The AMDGPU lane permutations and compare ballots in the interpreter
//! (C-OPS, `machine::lanes`): `update.dpp`/`mov.dpp` for the DPP controls,
//! row and bank masks, `bound_ctrl` and `old`; `ds.swizzle` (bitmask and
//! QDMode); `ds.permute`, `ds.bpermute`; `permlane16`/`permlanex16`/`permlane64`;
//! `amdgcn.icmp`/`fcmp`. Every expected value is worked out by hand from
//! the ISA's lane patterns in the comments. Lanes are positions in the
//! subgroup; an inactive source lane gives what the table of
//! `machine::lanes` says. opt-22's atomic optimizer with its DPP strategy
//! computes the right scan on 64 lanes.

use semantics::ir::Module;
use semantics::machine::launch::Exploration;
use semantics::machine::{explore, Options, RunError};
use semantics::parse_module;

fn module(text: &str) -> Module {
    parse_module("lanes.ll", text).unwrap_or_else(|e| panic!("test program parses: {e}"))
}

/// The single behaviour's results of every thread's convergent events, in
/// thread order (`-` for an event without a result).
fn thread_results(ex: &Exploration) -> Vec<Vec<String>> {
    assert_eq!(ex.behaviours.len(), 1, "deterministic program");
    ex.behaviours[0]
        .execution
        .threads
        .iter()
        .map(|t| {
            t.events
                .iter()
                .map(|e| e.result.as_ref().map_or("-".into(), |r| r.to_string()))
                .collect()
        })
        .collect()
}

/// The single behaviour's result of every thread's convergent event `k`.
fn results(ex: &Exploration, k: usize) -> Vec<String> {
    thread_results(ex)
        .into_iter()
        .map(|t| t[k].clone())
        .collect()
}

fn strs(v: impl IntoIterator<Item = i64>) -> Vec<String> {
    v.into_iter().map(|x| x.to_string()).collect()
}

fn wave(n: u32) -> Options {
    Options {
        threads: n,
        subgroup_size: Some(n),
        ..Options::default()
    }
}

const DECLS: &str = "
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.update.dpp.i32(i32, i32, i32 immarg, i32 immarg, i32 immarg, i1 immarg) convergent
declare i32 @llvm.amdgcn.mov.dpp.i32(i32, i32 immarg, i32 immarg, i32 immarg, i1 immarg) convergent
declare i32 @llvm.amdgcn.ds.swizzle(i32, i32 immarg) convergent
declare i32 @llvm.amdgcn.ds.permute(i32, i32) convergent
declare i32 @llvm.amdgcn.ds.bpermute(i32, i32) convergent
declare i32 @llvm.amdgcn.ds.bpermute.fi.b32(i32, i32) convergent
declare i32 @llvm.amdgcn.permlane16.i32(i32, i32, i32, i32, i1 immarg, i1 immarg) convergent
declare i32 @llvm.amdgcn.permlanex16.i32(i32, i32, i32, i32, i1 immarg, i1 immarg) convergent
declare i32 @llvm.amdgcn.permlane64.i32(i32) convergent
declare i32 @llvm.amdgcn.icmp.i32.i32(i32, i32, i32 immarg) convergent
declare i32 @llvm.amdgcn.fcmp.i32.f32(float, float, i32 immarg) convergent
";

/// DPP on a 32-lane wave where every lane holds its lane id (two rows of
/// 16 lanes, eight banks of 4).
#[test]
fn dpp_controls_masks_and_bound_ctrl() {
    let m = module(&format!(
        "define void @k() {{
entry:
  %x = call i32 @llvm.amdgcn.workitem.id.x()
  %shr1 = call i32 @llvm.amdgcn.update.dpp.i32(i32 100, i32 %x, i32 273, i32 15, i32 15, i1 false)
  %shl2 = call i32 @llvm.amdgcn.update.dpp.i32(i32 100, i32 %x, i32 258, i32 15, i32 15, i1 true)
  %quad = call i32 @llvm.amdgcn.update.dpp.i32(i32 100, i32 %x, i32 177, i32 1, i32 15, i1 false)
  %mirror = call i32 @llvm.amdgcn.update.dpp.i32(i32 100, i32 %x, i32 320, i32 15, i32 15, i1 false)
  %b15 = call i32 @llvm.amdgcn.update.dpp.i32(i32 100, i32 %x, i32 322, i32 10, i32 15, i1 false)
  %wshr = call i32 @llvm.amdgcn.update.dpp.i32(i32 100, i32 %x, i32 312, i32 15, i32 15, i1 false)
  %wror = call i32 @llvm.amdgcn.update.dpp.i32(i32 100, i32 %x, i32 316, i32 15, i32 15, i1 false)
  %xmask = call i32 @llvm.amdgcn.update.dpp.i32(i32 100, i32 %x, i32 357, i32 15, i32 15, i1 false)
  %share = call i32 @llvm.amdgcn.update.dpp.i32(i32 100, i32 %x, i32 339, i32 15, i32 5, i1 false)
  %ror3 = call i32 @llvm.amdgcn.mov.dpp.i32(i32 %x, i32 291, i32 15, i32 15, i1 false)
  %hmir = call i32 @llvm.amdgcn.mov.dpp.i32(i32 %x, i32 321, i32 15, i32 15, i1 false)
  %b31 = call i32 @llvm.amdgcn.mov.dpp.i32(i32 %x, i32 323, i32 15, i32 15, i1 true)
  ret void
}}
{DECLS}"
    ));
    let ex = explore(&m, &wave(32)).expect("explores");
    let row = |f: &dyn Fn(i64, i64) -> i64| -> Vec<String> {
        strs((0..32).map(|i| f(i - i % 16, i % 16)))
    };
    // row_shr:1 (0x111): lane i reads i-1 in its row; the first lane of
    // each row has no source and keeps old (bound_ctrl off).
    assert_eq!(
        results(&ex, 0),
        row(&|b, r| if r == 0 { 100 } else { b + r - 1 })
    );
    // row_shl:2 (0x102) with bound_ctrl: the last two lanes of a row read 0.
    assert_eq!(
        results(&ex, 1),
        row(&|b, r| if r >= 14 { 0 } else { b + r + 2 })
    );
    // quad_perm:[1,0,3,2] (0xB1 = 1 | 0<<2 | 3<<4 | 2<<6) in row 0 only
    // (row_mask 1): i ^ 1; row 1 is masked and keeps old.
    assert_eq!(
        results(&ex, 2),
        row(&|b, r| if b == 0 { r ^ 1 } else { 100 })
    );
    // row_mirror (0x140): lane 15 - r of the row.
    assert_eq!(results(&ex, 3), row(&|b, r| b + 15 - r));
    // row_bcast:15 (0x142) with row_mask 0b1010: row 1 reads lane 15, row 0
    // is masked.
    assert_eq!(results(&ex, 4), row(&|b, _| if b == 0 { 100 } else { 15 }));
    // wave_shr:1 (0x138): lane i reads i-1; lane 0 keeps old.
    assert_eq!(
        results(&ex, 5),
        strs((0..32).map(|i| if i == 0 { 100 } else { i - 1 }))
    );
    // wave_ror:1 (0x13C): lane i reads (i-1) mod 32.
    assert_eq!(results(&ex, 6), strs((0..32).map(|i| (i + 31) % 32)));
    // row_xmask:5 (0x165): lane r ^ 5 of the row.
    assert_eq!(results(&ex, 7), row(&|b, r| b + (r ^ 5)));
    // row_share:3 (0x153) with bank_mask 0b0101: banks 0 and 2 (lanes 0-3,
    // 8-11 of each row) read lane 3 of the row, the others keep old.
    assert_eq!(
        results(&ex, 8),
        row(&|b, r| if (r / 4) % 2 == 0 { b + 3 } else { 100 })
    );
    // mov.dpp row_ror:3 (0x123): lane (r - 3) mod 16 of the row.
    assert_eq!(results(&ex, 9), row(&|b, r| b + (r + 13) % 16));
    // mov.dpp row_half_mirror (0x141): lane 7 - (i mod 8) of the half row.
    assert_eq!(
        results(&ex, 10),
        strs((0..32).map(|i| (i & !7) + 7 - (i & 7)))
    );
    // mov.dpp row_bcast:31 (0x143) with bound_ctrl on a 32-lane wave: rows
    // 0 and 1 have no source and read 0.
    assert_eq!(results(&ex, 11), strs([0; 32]));
}

/// `ds.swizzle`, `ds.permute`, `permlane16`/`permlanex16` and the compare
/// ballots on a 32-lane wave of lane ids.
#[test]
fn swizzle_permute_permlane_and_compare_ballots() {
    let m = module(&format!(
        "define void @k() {{
entry:
  %x = call i32 @llvm.amdgcn.workitem.id.x()
  %xor1 = call i32 @llvm.amdgcn.ds.swizzle(i32 %x, i32 1055)
  %qrev = call i32 @llvm.amdgcn.ds.swizzle(i32 %x, i32 32795)
  %or3 = call i32 @llvm.amdgcn.ds.swizzle(i32 %x, i32 112)
  %rev = sub i32 31, %x
  %addr = shl i32 %rev, 2
  %push = call i32 @llvm.amdgcn.ds.permute(i32 %addr, i32 %x)
  %even = and i32 %x, -2
  %eaddr = shl i32 %even, 2
  %coll = call i32 @llvm.amdgcn.ds.permute(i32 %eaddr, i32 %x)
  %pl = call i32 @llvm.amdgcn.permlane16.i32(i32 100, i32 %x, i32 19088743, i32 -1985229329, i1 false, i1 false)
  %px = call i32 @llvm.amdgcn.permlanex16.i32(i32 100, i32 %x, i32 0, i32 0, i1 false, i1 false)
  %ult = call i32 @llvm.amdgcn.icmp.i32.i32(i32 %x, i32 5, i32 36)
  %f = uitofp i32 %x to float
  %olt = call i32 @llvm.amdgcn.fcmp.i32.f32(float %f, float 2.5, i32 4)
  %badpred = call i32 @llvm.amdgcn.icmp.i32.i32(i32 %x, i32 5, i32 3)
  ret void
}}
{DECLS}"
    ));
    let ex = explore(&m, &wave(32)).expect("explores");
    // Bitmask mode, and 0x1F, or 0, xor 1 (offset 1<<10 | 0x1F): i ^ 1.
    assert_eq!(results(&ex, 0), strs((0..32).map(|i| i ^ 1)));
    // QDMode (offset 0x801B: quad_perm [3,2,1,0]): 4q + 3 - k.
    assert_eq!(
        results(&ex, 1),
        strs((0..32).map(|i| (i & !3) + 3 - (i & 3)))
    );
    // Bitmask mode, and 0x10, or 3 (offset 0x10 | 3<<5 = 112): lane
    // (i & 16) | 3.
    assert_eq!(results(&ex, 2), strs((0..32).map(|i| (i & 16) | 3)));
    // ds.permute pushes lane i's value to lane 31 - i.
    assert_eq!(results(&ex, 3), strs((0..32).map(|k| 31 - k)));
    // Lanes 2q and 2q+1 both push to lane 2q: the highest source (2q+1)
    // wins; odd lanes receive nothing and read 0.
    assert_eq!(
        results(&ex, 4),
        strs((0..32).map(|k| if k % 2 == 0 { k + 1 } else { 0 }))
    );
    // permlane16 with selectors 0x01234567 (lanes 0-7 of a row: nibble r
    // is 7 - r) and 0x89ABCDEF (lanes 8-15: nibble r - 8 is 23 - r): each
    // half row reversed.
    assert_eq!(
        results(&ex, 5),
        strs((0..32).map(|i| (i & !7) + 7 - (i & 7)))
    );
    // permlanex16 with selectors 0: lane 0 of the other row.
    assert_eq!(
        results(&ex, 6),
        strs((0..32).map(|i| if i < 16 { 16 } else { 0 }))
    );
    // icmp ult (36) x < 5: lanes 0-4, mask 0x1F in every lane.
    assert_eq!(results(&ex, 7), strs([0x1F; 32]));
    // fcmp olt (4) x < 2.5: lanes 0-2.
    assert_eq!(results(&ex, 8), strs([7; 32]));
    // Predicate 3 is a float predicate: the integer compare is poison.
    assert_eq!(results(&ex, 9), vec!["poison".to_string(); 32]);
}

/// Inactive source lanes: only the even lanes of 8 execute the calls (the
/// odd lanes are inactive), so every source of lane i is lane i - 1, i ^ 1
/// or 15 of its row, an odd lane. `update.dpp` keeps old, or writes 0 with
/// bound_ctrl; `ds.swizzle` reads 0; `permlane16` keeps old, or reads
/// poison with fetch-inactive; `permlane64` reads lane i ^ 32, even and
/// active.
#[test]
fn inactive_source_lanes() {
    let m = module(&format!(
        "define void @k() {{
entry:
  %x = call i32 @llvm.amdgcn.workitem.id.x()
  %odd = and i32 %x, 1
  %c = icmp eq i32 %odd, 0
  br i1 %c, label %even, label %exit
even:
  %a = call i32 @llvm.amdgcn.update.dpp.i32(i32 100, i32 %x, i32 273, i32 15, i32 15, i1 false)
  %b = call i32 @llvm.amdgcn.update.dpp.i32(i32 100, i32 %x, i32 273, i32 15, i32 15, i1 true)
  %s = call i32 @llvm.amdgcn.ds.swizzle(i32 %x, i32 1055)
  %p = call i32 @llvm.amdgcn.permlane16.i32(i32 100, i32 %x, i32 -1, i32 -1, i1 false, i1 false)
  %q = call i32 @llvm.amdgcn.permlane16.i32(i32 100, i32 %x, i32 -1, i32 -1, i1 true, i1 false)
  %w = call i32 @llvm.amdgcn.permlane64.i32(i32 %x)
  br label %exit
exit:
  ret void
}}
{DECLS}"
    ));
    let ex = explore(&m, &wave(64)).expect("explores");
    let t = thread_results(&ex);
    for (k, ev) in t.iter().step_by(2).enumerate() {
        let lane = 2 * k;
        // Lane 0's row_shr:1 source is out of range: old / 0 as well.
        // Selector -1 sends every lane to lane 15 of its row (odd).
        let perm64 = (lane ^ 32).to_string();
        assert_eq!(
            ev,
            &["100", "0", "0", "100", "poison", perm64.as_str()],
            "lane {lane}"
        );
    }
    assert!(t.iter().skip(1).step_by(2).all(|th| th.is_empty()));
}

/// `ds.bpermute` (C-OPS, `machine::lanes`): lane i reads the data of lane
/// addr / 4 modulo the wave width; a disabled source lane reads as zero
/// (`DS_BPERMUTE_B32`), and with `.fi` (fetch inactive) as the inactive
/// lane's register, which the model does not hold: poison. On a 64-lane
/// wave only the even lanes execute the calls.
#[test]
fn bpermute_pulls_wraps_and_reads_inactive_lanes_as_zero() {
    let m = module(&format!(
        "define void @k() {{
entry:
  %x = call i32 @llvm.amdgcn.workitem.id.x()
  %odd = and i32 %x, 1
  %c = icmp eq i32 %odd, 0
  br i1 %c, label %even, label %exit
even:
  %rev = sub i32 63, %x
  %arev = shl i32 %rev, 2
  %pull = call i32 @llvm.amdgcn.ds.bpermute(i32 %arev, i32 %x)
  %next = add i32 %x, 66
  %anext = shl i32 %next, 2
  %wrap = call i32 @llvm.amdgcn.ds.bpermute(i32 %anext, i32 %x)
  %succ = add i32 %x, 1
  %asucc = shl i32 %succ, 2
  %zero = call i32 @llvm.amdgcn.ds.bpermute(i32 %asucc, i32 %x)
  %fi = call i32 @llvm.amdgcn.ds.bpermute.fi.b32(i32 %asucc, i32 %x)
  br label %exit
exit:
  ret void
}}
{DECLS}"
    ));
    let ex = explore(&m, &wave(64)).expect("explores");
    for (lane, got) in thread_results(&ex).into_iter().enumerate() {
        if lane % 2 == 1 {
            assert!(got.is_empty(), "lane {lane} is inactive: {got:?}");
            continue;
        }
        // 63 - lane is odd (inactive): 0. (lane + 66) mod 64 = lane + 2
        // wrapped, even and active. lane + 1 is odd: 0, or poison with fi.
        let wrapped = ((lane + 2) % 64).to_string();
        assert_eq!(got, ["0", wrapped.as_str(), "0", "poison"], "lane {lane}");
    }
}

/// permlane64 swaps the halves of a 64-lane wave; on a narrower subgroup
/// lane i ^ 32 does not exist, and when only the low half is active the
/// high half is inactive: poison (the register of an inactive lane).
#[test]
fn permlane64_swaps_halves() {
    let text = format!(
        "define void @k() {{
entry:
  %x = call i32 @llvm.amdgcn.workitem.id.x()
  %y = call i32 @llvm.amdgcn.permlane64.i32(i32 %x)
  %low = icmp ult i32 %x, 32
  br i1 %low, label %l, label %exit
l:
  %z = call i32 @llvm.amdgcn.permlane64.i32(i32 %x)
  br label %exit
exit:
  ret void
}}
{DECLS}"
    );
    let ex = explore(&module(&text), &wave(64)).expect("explores");
    assert_eq!(ex.behaviours.len(), 1);
    let t = &ex.behaviours[0].execution.threads;
    let ev = |i: usize, k: usize| {
        t[i].events[k]
            .result
            .as_ref()
            .map_or("-".into(), |r| r.to_string())
    };
    for i in 0..64 {
        assert_eq!(ev(i, 0), (i ^ 32).to_string(), "lane {i}");
    }
    for i in 0..32 {
        assert_eq!(ev(i, 1), "poison", "lane {i}");
    }
    let ex = explore(&module(&text), &wave(4)).expect("explores");
    assert_eq!(results(&ex, 0), vec!["poison".to_string(); 4]);
}

/// A DPP control, a swizzle mode outside the model, and a subgroup wider
/// than a wave are unsupported, named with the call's location.
#[test]
fn unmodelled_patterns_are_named() {
    let run = |call: &str, opts: &Options| {
        let m = module(&format!(
            "define void @k() {{
entry:
  %x = call i32 @llvm.amdgcn.workitem.id.x()
  %y = {call}
  ret void
}}
{DECLS}"
        ));
        match explore(&m, opts) {
            Err(RunError::Unsupported { construct, at }) => format!("{construct} at {at}"),
            other => panic!("{call}: {other:?}"),
        }
    };
    let e = run(
        "call i32 @llvm.amdgcn.update.dpp.i32(i32 0, i32 %x, i32 256, i32 15, i32 15, i1 false)",
        &wave(4),
    );
    assert!(
        e.contains("DPP control 0x100") && e.contains("(line 4:3)"),
        "{e}"
    );
    let e = run(
        "call i32 @llvm.amdgcn.ds.swizzle(i32 %x, i32 57375)",
        &wave(4),
    );
    assert!(e.contains("ds.swizzle FFT mode (offset 0xe01f)"), "{e}");
    let e = run(
        "call i32 @llvm.amdgcn.ds.swizzle(i32 %x, i32 49152)",
        &wave(4),
    );
    assert!(e.contains("ds.swizzle rotate mode"), "{e}");
    let e = run("call i32 @llvm.amdgcn.permlane64.i32(i32 %x)", &wave(65));
    assert!(e.contains("subgroup of 65 lanes"), "{e}");
}

/// An `atomicrmw add` of each lane's id whose old value each lane stores.
const ATOMIC: &str = "target triple = \"amdgcn-amd-amdhsa\"
define amdgpu_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %res) {
entry:
  %x = call i32 @llvm.amdgcn.workitem.id.x()
  %old = atomicrmw add ptr addrspace(1) %out, i32 %x syncscope(\"agent\") monotonic
  %g = getelementptr i32, ptr addrspace(1) %res, i32 %x
  store i32 %old, ptr addrspace(1) %g
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
";

/// The final `out` and `res` words of a 64-lane run of `text`.
fn atomic_memory(text: &str) -> (Vec<String>, Vec<String>) {
    use semantics::machine::memory::words;
    let mut opts = wave(64);
    opts.buffers.insert("out".into(), vec![0; 4]);
    opts.buffers.insert("res".into(), vec![0; 256]);
    let ex = explore(&module(text), &opts).expect("explores");
    assert_eq!(ex.ub, 0, "no UB");
    assert_eq!(ex.behaviours.len(), 1, "one final memory");
    let mem = &ex.behaviours[0].execution.memory;
    let get = |n: &str| {
        words(
            &mem.iter()
                .find(|(name, _)| name == n)
                .unwrap_or_else(|| panic!("buffer {n} in {mem:?}"))
                .1,
        )
    };
    (get("%out"), get("%res"))
}

/// opt-22's `amdgpu-atomic-optimizer` with the DPP strategy (as llc runs it
/// for gfx90a) replaces the 64 atomics by a wave scan: `set.inactive`,
/// `update.dpp` row_shr:1,2,4,8 (0x111-0x118), row_bcast:15 with row mask
/// 0b1010, row_bcast:31 with row mask 0b1100, then wave_shr:1 for the
/// exclusive scan and `readlane 63` for the total, which one lane adds.
/// On 64 lanes holding 0..63 the interpreter gives what the source gives:
/// `out` = 0 + ... + 63 = 2016 and each lane its old value, the exclusive
/// prefix sum x(x-1)/2 (the source's atomics run in every order; the scan
/// is the order of the lanes, and the source has that order among its
/// behaviours). A scan with row_shr:2 for its first step is caught.
#[test]
fn atomic_optimizer_dpp_scan_computes_the_prefix_sums() {
    let Some(opt) = testgen::oracle::opt_or_skip("atomic_optimizer_dpp_scan") else {
        return;
    };
    let out = testgen::oracle::run_opt(
        &opt,
        &[
            "-passes=amdgpu-atomic-optimizer<strategy=dpp>",
            "-mtriple=amdgcn-amd-amdhsa",
            "-mcpu=gfx90a",
            "-S",
        ],
        ATOMIC,
    );
    assert!(out.success(), "{}", out.stderr);
    for ctrl in [
        "i32 273,",
        "i32 322, i32 10,",
        "i32 323, i32 12,",
        "i32 312,",
    ] {
        assert!(
            out.stdout.contains(ctrl),
            "the pass wrote its DPP scan ({ctrl}):\n{}",
            out.stdout
        );
    }
    let (total, res) = atomic_memory(&out.stdout);
    assert_eq!(total, vec!["2016".to_string()]);
    assert_eq!(res, strs((0..64).map(|x| x * (x - 1) / 2)));
    // The source's own behaviours include this memory (lanes in order).
    let broken = out.stdout.replacen("i32 273,", "i32 274,", 1);
    let (total, res) = atomic_memory(&broken);
    assert_ne!(
        (total, res),
        (
            vec!["2016".to_string()],
            strs((0..64).map(|x| x * (x - 1) / 2))
        ),
        "a wrong first scan step changes the sums"
    );
}
