//! The intrinsic table in the interpreter (issue 13): OpenCL builtins by
//! their mangled names compute over the communicating set split into
//! subgroups (C-OPS, P-LAUNCH `--subgroup-size`), NVPTX and SPIR-V
//! collectives compute what their rows say, a builtin with too few
//! operands is an ill-formed call naming the callee, and C-CONV reads the
//! table in both verifier modes.

use semantics::ir::{InstKind, Module};
use semantics::machine::launch::Exploration;
use semantics::machine::{explore, Options, RunError};
use semantics::parse_module;
use semantics::rules::facts::{is_convergent_doc, is_convergent_llvm};

fn module(text: &str) -> Module {
    parse_module("test.ll", text).unwrap_or_else(|e| panic!("test program parses: {e}"))
}

/// The single behaviour's result of every thread's convergent event `k`
/// (as signed integers), with its first argument.
fn events(ex: &Exploration, k: usize) -> Vec<(String, String)> {
    assert_eq!(ex.behaviours.len(), 1, "deterministic program");
    ex.behaviours[0]
        .execution
        .threads
        .iter()
        .map(|t| {
            let e = &t.events[k];
            (
                e.args.first().map_or("-".into(), |a| a.to_string()),
                e.result.as_ref().map_or("-".into(), |r| r.to_string()),
            )
        })
        .collect()
}

fn results(ex: &Exploration, k: usize) -> Vec<String> {
    events(ex, k).into_iter().map(|(_, r)| r).collect()
}

fn args(ex: &Exploration, k: usize) -> Vec<String> {
    events(ex, k).into_iter().map(|(a, _)| a).collect()
}

/// An OpenCL C kernel as clang-22 emits it for spir64 at -O2 (builtins
/// declared `convergent` where the language makes them collective).
const OPENCL: &str = "
define spir_kernel void @k() convergent {
entry:
  %lid = call i64 @_Z12get_local_idj(i32 0)
  %l = trunc i64 %lid to i32
  %sum = call i32 @_Z20sub_group_reduce_addi(i32 %l)
  %inc = call i32 @_Z28sub_group_scan_inclusive_addi(i32 %l)
  %exc = call i32 @_Z28sub_group_scan_exclusive_addi(i32 %l)
  %max = call i32 @_Z20sub_group_reduce_maxj(i32 %l)
  %b = call i32 @_Z19sub_group_broadcastij(i32 %l, i32 1)
  %any = call i32 @_Z13sub_group_anyi(i32 %l)
  %all = call i32 @_Z13sub_group_alli(i32 %l)
  %lane = call i32 @_Z22get_sub_group_local_idv()
  %lanes = call i32 @_Z20sub_group_reduce_addi(i32 %lane)
  call void @_Z7barrierj(i32 1)
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %g = trunc i64 %gid to i32
  %wg = call i32 @_Z21work_group_reduce_addi(i32 %g)
  ret void
}
declare i64 @_Z12get_local_idj(i32)
declare i64 @_Z13get_global_idj(i32)
declare i32 @_Z22get_sub_group_local_idv()
declare i32 @_Z20sub_group_reduce_addi(i32) convergent
declare i32 @_Z28sub_group_scan_inclusive_addi(i32) convergent
declare i32 @_Z28sub_group_scan_exclusive_addi(i32) convergent
declare i32 @_Z20sub_group_reduce_maxj(i32) convergent
declare i32 @_Z19sub_group_broadcastij(i32, i32) convergent
declare i32 @_Z13sub_group_anyi(i32) convergent
declare i32 @_Z13sub_group_alli(i32) convergent
declare void @_Z7barrierj(i32) convergent
declare i32 @_Z21work_group_reduce_addi(i32) convergent
";

fn strs(v: &[i64]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

/// C-OPS over subgroups of 4 in one workgroup of 8: every builtin gets the
/// value worked out by hand.
#[test]
fn opencl_builtins_compute_over_subgroups() {
    let m = module(OPENCL);
    let opts = Options {
        threads: 8,
        subgroup_size: Some(4),
        ..Options::default()
    };
    let ex = explore(&m, &opts).expect("explores");
    // get_local_id(0) gives each thread its id (it was one input for all).
    assert_eq!(args(&ex, 0), strs(&[0, 1, 2, 3, 4, 5, 6, 7]));
    assert_eq!(results(&ex, 0), strs(&[6, 6, 6, 6, 22, 22, 22, 22]));
    assert_eq!(results(&ex, 1), strs(&[0, 1, 3, 6, 4, 9, 15, 22]));
    assert_eq!(results(&ex, 2), strs(&[0, 0, 1, 3, 0, 4, 9, 15]));
    assert_eq!(results(&ex, 3), strs(&[3, 3, 3, 3, 7, 7, 7, 7]));
    assert_eq!(results(&ex, 4), strs(&[1, 1, 1, 1, 5, 5, 5, 5]));
    assert_eq!(results(&ex, 5), strs(&[1; 8]));
    assert_eq!(results(&ex, 6), strs(&[0, 0, 0, 0, 1, 1, 1, 1]));
    assert_eq!(args(&ex, 7), strs(&[0, 1, 2, 3, 0, 1, 2, 3]));
    assert_eq!(results(&ex, 7), strs(&[6; 8]));
    // The barrier (event 8) has no value; the workgroup reduction spans
    // both subgroups.
    assert_eq!(results(&ex, 9), strs(&[28; 8]));
}

/// P-LAUNCH default: all threads form one subgroup (as before subgroups
/// existed); two workgroups of 4 with subgroups of 2 keep local and global
/// ids apart.
#[test]
fn default_geometry_and_two_workgroups() {
    let m = module(OPENCL);
    let ex = explore(
        &m,
        &Options {
            threads: 4,
            ..Options::default()
        },
    )
    .expect("explores");
    assert_eq!(results(&ex, 0), strs(&[6; 4]));
    let ex = explore(
        &m,
        &Options {
            threads: 8,
            groups: 2,
            subgroup_size: Some(2),
            ..Options::default()
        },
    )
    .expect("explores");
    assert_eq!(args(&ex, 0), strs(&[0, 1, 2, 3, 0, 1, 2, 3]));
    assert_eq!(results(&ex, 0), strs(&[1, 1, 5, 5, 1, 1, 5, 5]));
    // work_group_reduce_add of the global ids, per workgroup.
    assert_eq!(results(&ex, 9), strs(&[6, 6, 6, 6, 22, 22, 22, 22]));
}

/// C-OPS on NVPTX and SPIR-V rows: thread ids, `shfl.sync.down` (own value
/// past the subgroup), `vote.all.sync`, `match.any.sync`, and SPIR-V's
/// `wave.reduce.umax` and `wave.prefix.sum` (exclusive).
#[test]
fn nvptx_and_spirv_collectives() {
    let m = module(
        "
define ptx_kernel void @k() {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %d = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %t, i32 1, i32 31)
  %p = icmp ult i32 %t, 3
  %all = call i1 @llvm.nvvm.vote.all.sync(i32 -1, i1 %p)
  %h = lshr i32 %t, 1
  %mm = call i32 @llvm.nvvm.match.any.sync.i32(i32 -1, i32 %h)
  %u = call i32 @llvm.spv.wave.reduce.umax.i32(i32 %t)
  %s = call i32 @llvm.spv.wave.prefix.sum.i32(i32 %t)
  %lane = call i32 @llvm.nvvm.read.ptx.sreg.laneid()
  %w = call i32 @llvm.nvvm.read.ptx.sreg.warpsize()
  %e = call i32 @llvm.nvvm.redux.sync.add(i32 %lane, i32 -1)
  %f = call i32 @llvm.nvvm.redux.sync.add(i32 %w, i32 -1)
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.laneid()
declare i32 @llvm.nvvm.read.ptx.sreg.warpsize()
declare i32 @llvm.nvvm.shfl.sync.down.i32(i32, i32, i32, i32)
declare i1 @llvm.nvvm.vote.all.sync(i32, i1)
declare i32 @llvm.nvvm.match.any.sync.i32(i32, i32)
declare i32 @llvm.spv.wave.reduce.umax.i32(i32)
declare i32 @llvm.spv.wave.prefix.sum.i32(i32)
declare i32 @llvm.nvvm.redux.sync.add(i32, i32)
",
    );
    let ex = explore(
        &m,
        &Options {
            threads: 4,
            subgroup_size: Some(4),
            ..Options::default()
        },
    )
    .expect("explores");
    assert_eq!(results(&ex, 0), strs(&[1, 2, 3, 3]));
    assert_eq!(results(&ex, 1), vec!["false"; 4]);
    assert_eq!(results(&ex, 2), strs(&[3, 3, 12, 12]));
    assert_eq!(results(&ex, 3), strs(&[3; 4]));
    assert_eq!(results(&ex, 4), strs(&[0, 0, 1, 3]));
    assert_eq!(results(&ex, 5), strs(&[6; 4]));
    assert_eq!(results(&ex, 6), strs(&[16; 4]));
}

/// Bad input: a builtin called with fewer operands than its row reads is
/// an ill-formed call naming the callee (C-OPS), not a panic.
#[test]
fn a_builtin_with_too_few_operands_is_a_precise_error() {
    let m = module(
        "
define void @k() {
entry:
  %s = call i32 @_Z19sub_group_broadcastij(i32 1)
  ret void
}
declare i32 @_Z19sub_group_broadcastij(i32) convergent
",
    );
    match explore(&m, &Options::default()) {
        Err(RunError::IllFormed { rule, message, .. }) => {
            assert_eq!(rule, "C-OPS");
            assert!(message.contains("@_Z19sub_group_broadcastij"), "{message}");
        }
        other => panic!("expected an ill-formed call, got {other:?}"),
    }
}

/// C-CONV from the table: LLVM marks `redux.sync`, `ds.bpermute` and
/// `wave.barrier` convergent whatever the declaration says (the verifier's
/// old list missed them); an OpenCL builtin is convergent for LLVM only
/// through its declaration.
#[test]
fn convergence_comes_from_the_table() {
    let m = module(
        "
define void @k(i32 %x) {
entry:
  %a = call i32 @llvm.nvvm.redux.sync.add(i32 %x, i32 -1)
  %b = call i32 @llvm.amdgcn.ds.bpermute(i32 %x, i32 %x)
  call void @llvm.amdgcn.wave.barrier()
  %c = call i32 @_Z20sub_group_reduce_addi(i32 %x)
  %d = call i32 @_Z20sub_group_reduce_addj(i32 %x)
  %e = call i32 @llvm.amdgcn.workitem.id.x()
  ret void
}
declare i32 @llvm.nvvm.redux.sync.add(i32, i32)
declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)
declare void @llvm.amdgcn.wave.barrier()
declare i32 @_Z20sub_group_reduce_addi(i32)
declare i32 @_Z20sub_group_reduce_addj(i32) convergent
declare i32 @llvm.amdgcn.workitem.id.x()
",
    );
    let f = &m.functions[0];
    let calls: Vec<_> = f.blocks[0]
        .insts
        .iter()
        .filter_map(|i| match &i.kind {
            InstKind::Call(c) => Some(c),
            _ => None,
        })
        .collect();
    let llvm: Vec<bool> = calls.iter().map(|c| is_convergent_llvm(&m, c)).collect();
    let doc: Vec<bool> = calls.iter().map(|c| is_convergent_doc(&m, c)).collect();
    assert_eq!(llvm, vec![true, true, true, false, true, false]);
    assert_eq!(doc, llvm);
    let interp: Vec<bool> = calls
        .iter()
        .map(|c| semantics::machine::program::is_convergent_call(&m, c))
        .collect();
    // The interpreter knows the OpenCL collective is convergent by name.
    assert_eq!(interp, vec![true, true, true, true, true, false]);
}
