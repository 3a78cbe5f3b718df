//! `--explain` (issue 15): the chain of reasons for a divergent value.
//! - On generated programs (testgen::uniformity), every divergent value has
//!   a chain ending at a divergence source (U-SOURCE) and every uniform
//!   value has none; the first link names the value's own instruction.
//! - On small kernels, the chain names the sync dependence (branch and
//!   join, U-PHI) and the temporal divergence (cycle and divergent exit,
//!   U-EXIT / D-TEMPORAL).

use proptest::prelude::{prop_assert, proptest, ProptestConfig};
use semantics::ir::{Module, ValueDef};
use semantics::uniformity::explain::{explain, find_value};
use testgen::support::ugen;
use testgen::uniformity::arb_function;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn every_divergent_value_has_a_chain_to_a_source(u in arb_function()) {
        let mut m = Module::default();
        m.functions.push(ugen::build(&u));
        m.functions.extend(ugen::declarations());
        let f = &m.functions[0];
        let verdicts = semantics::uniformity::analyze_function(&m, f);
        for (i, v) in f.values.iter().enumerate() {
            let e = explain(&m, f, semantics::ir::ValueId(i));
            let divergent = match v.def {
                ValueDef::Arg(a) => verdicts.divergent_arguments.iter().any(|d| d.ends_with(&format!("%{}", f.value(semantics::ir::ValueId(i)).name)) && f.params.get(a).is_some()),
                ValueDef::Inst { block, index } => verdicts.blocks[block.0].definitions[index as usize].divergent,
            };
            prop_assert!(e.divergent == divergent, "--explain and print<uniformity> disagree on {}", e.value);
            if divergent {
                let last = e.chain.last().expect("a divergent value has a chain");
                prop_assert!(last.contains("U-SOURCE"), "chain of {} does not end at a source: {:?}", e.value, e.chain);
                prop_assert!(e.chain.len() <= f.values.len() + f.blocks.len(), "chain longer than the function");
                if let ValueDef::Inst { block, index } = v.def {
                    let own = &verdicts.blocks[block.0].definitions[index as usize].text;
                    prop_assert!(e.chain[0].contains(own.as_str()), "first link {} does not name {}", e.chain[0], own);
                }
            } else {
                prop_assert!(e.chain.is_empty(), "uniform {} has a chain {:?}", e.value, e.chain);
            }
        }
    }
}

const SMALL: &str = r#"
define amdgpu_kernel void @k(i32 %n, ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %c = icmp slt i32 %tid, 4
  br i1 %c, label %t, label %j
t:
  br label %j
j:
  %p = phi i32 [ 1, %t ], [ 2, %entry ]
  br label %h
h:
  %i = phi i32 [ 0, %j ], [ %i.n, %h ]
  %i.n = add i32 %i, 1
  %more = icmp slt i32 %i.n, %tid
  br i1 %more, label %h, label %x
x:
  %after = add i32 %i.n, %n
  %q = add i32 %p, %n
  store i32 %after, ptr addrspace(1) %out
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
"#;

fn explain_small(name: &str) -> Vec<String> {
    let m = semantics::parse::parse_module("small.ll", SMALL).expect("SMALL parses");
    let f = m.function("k").expect("SMALL defines @k");
    let v = find_value(f, name).expect("the value exists");
    let e = explain(&m, f, v);
    assert!(e.divergent, "{name} is divergent");
    e.chain
}

#[test]
fn sync_dependence_names_branch_and_join() {
    let chain = explain_small("%q");
    assert!(chain[0].contains("%p"), "{chain:?}");
    assert!(
        chain[1].contains("phi at %j")
            && chain[1].contains("branch in %entry")
            && chain[1].contains("U-PHI"),
        "{chain:?}"
    );
    assert!(
        chain
            .last()
            .is_some_and(|l| l.contains("workitem.id.x") && l.contains("U-SOURCE")),
        "{chain:?}"
    );
}

#[test]
fn temporal_divergence_names_cycle_and_exit() {
    let chain = explain_small("after");
    assert!(
        chain[0].contains("temporal divergence")
            && chain[0].contains("entries(h)")
            && chain[0].contains("branch in %h"),
        "{chain:?}"
    );
    assert!(
        chain.last().is_some_and(|l| l.contains("U-SOURCE")),
        "{chain:?}"
    );
}

#[test]
fn unknown_values_are_not_found() {
    let m = semantics::parse::parse_module("small.ll", SMALL).expect("SMALL parses");
    let f = m.function("k").expect("SMALL defines @k");
    assert!(find_value(f, "%nope").is_none());
    assert!(find_value(f, "%tid").is_some() && find_value(f, "tid").is_some());
}
