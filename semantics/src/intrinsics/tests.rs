//! The table's lookup (C-INTR, C-OPS, U-SOURCE).

use super::*;

#[test]
fn overloaded_names_resolve_to_the_longest_base() {
    assert_eq!(
        lookup("llvm.amdgcn.if.break.i64").unwrap().row.name,
        "llvm.amdgcn.if.break"
    );
    assert_eq!(
        lookup("llvm.amdgcn.if.i64").unwrap().row.name,
        "llvm.amdgcn.if"
    );
    assert_eq!(
        lookup("llvm.nvvm.shfl.sync.down.i32").unwrap().op,
        Op::Shuffle {
            val: 1,
            idx: 2,
            mode: Shfl::Down,
            scale: 1
        }
    );
    assert_eq!(
        lookup("llvm.amdgcn.raw.buffer.atomic.add.i32")
            .unwrap()
            .row
            .name,
        "llvm.amdgcn.raw.buffer.atomic."
    );
    assert_eq!(
        lookup("llvm.amdgcn.s.barrier.signal").unwrap().op,
        Op::Uninterpreted
    );
    assert_eq!(
        lookup("llvm.amdgcn.s.barrier").unwrap().op,
        Op::Barrier(Scope::Workgroup)
    );
    assert!(lookup("llvm.memcpy.p0.p0.i64").is_none());
    assert!(lookup("foo").is_none());
}

#[test]
fn opencl_builtins_resolve_by_mangled_name() {
    assert_eq!(
        demangle_simple("_Z12get_local_idj"),
        Some(("get_local_id", "j"))
    );
    assert_eq!(
        lookup("_Z12get_local_idj").unwrap().op,
        Op::Index(Index::LocalId, Dim::Arg(0))
    );
    let min = |n: &str| match lookup(n).unwrap().op {
        Op::Reduce { op, .. } => op,
        o => panic!("{o:?}"),
    };
    assert_eq!(min("_Z20sub_group_reduce_mini"), RedOp::Min);
    assert_eq!(min("_Z20sub_group_reduce_minj"), RedOp::UMin);
    assert_eq!(min("_Z20sub_group_reduce_maxm"), RedOp::UMax);
    assert!(lookup("_Z20sub_group_reduce_addi").unwrap().row.convergent);
    assert!(!lookup("_Z20sub_group_reduce_addi")
        .unwrap()
        .llvm_convergent());
    assert!(lookup("_Z3fooi").is_none());
}

#[test]
fn classes_are_per_target() {
    assert_eq!(
        class_on(Target::Amdgpu, "llvm.amdgcn.workitem.id.x"),
        Class::Source
    );
    assert_eq!(
        class_on(Target::Nvptx, "llvm.amdgcn.workitem.id.x"),
        Class::Neither
    );
    assert_eq!(
        class_on(Target::Nvptx, "llvm.nvvm.read.ptx.sreg.tid.x"),
        Class::Source
    );
    assert_eq!(
        class_on(Target::Amdgpu, "llvm.amdgcn.readfirstlane.i32"),
        Class::AlwaysUniform
    );
    assert_eq!(
        class_on(Target::Amdgpu, "llvm.amdgcn.workgroup.id.x"),
        Class::Neither
    );
    assert_eq!(
        Target::of_triple(Some("nvptx64-nvidia-cuda")),
        Target::Nvptx
    );
    assert_eq!(
        Target::of_triple(Some("spirv64-unknown-unknown")),
        Target::Spirv
    );
    assert_eq!(Target::of_triple(None), Target::Amdgpu);
}

#[test]
fn every_row_is_reachable_by_its_own_name() {
    for r in ROWS {
        let name = match r.form {
            Form::Mangled => format!("_Z{}{}i", r.name.len(), r.name),
            _ => r.name.to_string(),
        };
        let b = lookup(&name).unwrap_or_else(|| panic!("{} not found", r.name));
        assert_eq!(b.row.name, r.name);
    }
}

#[test]
fn geometry_splits_groups_and_subgroups() {
    let g = Geometry {
        threads: 8,
        groups: 2,
        subgroup: Some(2),
    };
    assert_eq!(g.index(5, Index::LocalId, 0), 1);
    assert_eq!(g.index(5, Index::GlobalId, 0), 5);
    assert_eq!(g.index(5, Index::GroupId, 0), 1);
    assert_eq!(g.index(5, Index::Lane, 0), 1);
    assert_eq!(g.index(6, Index::SubgroupId, 0), 1);
    assert_eq!(g.index(6, Index::NumSubgroups, 0), 2);
    assert_eq!(g.index(6, Index::LocalId, 1), 0);
    let one = Geometry {
        threads: 3,
        groups: 1,
        subgroup: None,
    };
    assert_eq!(one.index(2, Index::Lane, 0), 2);
    assert_eq!(one.index(2, Index::SubgroupSize, 0), 3);
    let partial = Geometry {
        threads: 6,
        groups: 1,
        subgroup: Some(4),
    };
    assert_eq!(partial.index(5, Index::SubgroupSize, 0), 2);
}
