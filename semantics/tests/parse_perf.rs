//! Parsing is linear enough for big functions: a 20,000-block function
//! (phis, compares, conditional branches, forward references to every
//! block) parses in well under a second with optimisations on (the test
//! profile uses opt-level 2).

use std::fmt::Write;
use std::time::Instant;

use semantics::parse::parse_module;

fn big_function(blocks: usize) -> String {
    let mut s = String::from("define i32 @big(i32 %n) {\nentry:\n  br label %b0\n");
    for i in 0..blocks {
        let pred = if i == 0 {
            "entry".to_string()
        } else {
            format!("b{}", i - 1)
        };
        let _ = write!(
            s,
            "b{i}:\n  %p{i} = phi i32 [ {i}, %{pred} ]\n  %c{i} = icmp slt i32 %p{i}, %n\n  br i1 %c{i}, label %b{}, label %exit\n",
            i + 1
        );
    }
    let _ = write!(s, "b{blocks}:\n  br label %exit\nexit:\n  ret i32 0\n}}\n");
    s
}

#[test]
fn twenty_thousand_blocks_parse_quickly() {
    let text = big_function(20_000);
    // Best of three: the machine is shared, wall time is noisy.
    let mut took = std::time::Duration::MAX;
    for _ in 0..3 {
        let start = Instant::now();
        let m = parse_module("big.ll", &text).expect("the big function is valid");
        took = took.min(start.elapsed());
        assert_eq!(m.functions[0].blocks.len(), 20_003);
    }
    eprintln!(
        "parse_perf: 20,003 blocks, {} bytes parsed in {took:?}",
        text.len()
    );
    assert!(took.as_secs_f64() < 1.0, "parsing took {took:?}");
}
