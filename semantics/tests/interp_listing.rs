//! `run`'s text listing (M-OPER's behaviours as the spec's tables): two
//! distinct behaviours never print alike. A behaviour is its traces,
//! communicating sets, results, ends, final memory *and* observations (the
//! calls of unknown functions and the stores to globals and input buffers,
//! in thread order); the listing printed everything but the observations,
//! so that cl04-caller-merge's behaviours that differ only in what
//! `@writeRecord` receives looked identical.

use std::collections::HashSet;

use semantics::machine::{explore, Options};
use semantics::parse_module;

fn example(name: &str) -> String {
    let path = format!("{}/../examples/refine/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Each behaviour's text without its header line and its inputs (the
/// inputs printed are those of the first execution found, not part of the
/// behaviour).
fn bodies(listing: &str) -> Vec<String> {
    listing
        .split("\n\n")
        .filter(|b| b.starts_with("behaviour "))
        .map(|b| {
            b.lines()
                .skip(1)
                .filter(|l| !l.starts_with("  %"))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect()
}

#[test]
fn distinct_behaviours_print_distinctly() {
    for (file, entry, threads) in [
        ("cl04-caller-merge.src.ll", Some("append"), 2),
        ("cl04-caller-split.tgt.ll", Some("append"), 2),
        ("cl19-anchor-sink-all.src.ll", None, 2),
        ("cl20-entry-sink.src.ll", None, 2),
    ] {
        let m = parse_module(file, &example(file)).unwrap_or_else(|e| panic!("{e}"));
        let ex = explore(
            &m,
            &Options {
                threads,
                entry: entry.map(str::to_string),
                ..Options::default()
            },
        )
        .unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(ex.complete, "{file}");
        let shown = semantics::machine::render::text(&m, &ex);
        let bodies = bodies(&shown);
        assert_eq!(bodies.len(), ex.behaviours.len(), "{file}");
        let unique: HashSet<&String> = bodies.iter().collect();
        assert_eq!(
            unique.len(),
            bodies.len(),
            "{file}: {} behaviours print alike",
            bodies.len() - unique.len()
        );
    }
}

#[test]
fn observations_are_listed_in_thread_order() {
    let text = "declare void @use(i32)\n\
                define void @k(i32 %x) {\n  call void @use(i32 %x)\n  %y = add i32 %x, 1\n  call void @use(i32 %y)\n  ret void\n}\n";
    let m = parse_module("obs.ll", text).unwrap_or_else(|e| panic!("{e}"));
    let ex = explore(
        &m,
        &Options {
            threads: 1,
            ..Options::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let shown = semantics::machine::render::text(&m, &ex);
    for x in 0..3 {
        let want = format!("  t0: call @use({x})\n  t0: call @use({})\n", x + 1);
        assert!(shown.contains(&want), "{want:?} not in\n{shown}");
    }
}
