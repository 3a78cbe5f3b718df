//! Rule P-PROG: our name resolution agrees with LLVM's. For every module
//! that `opt-22` accepts (the corpus and a sample of generated modules),
//! parsing the original and parsing `opt-22 -S`'s rewrite of it (renumbered
//! values, attributes moved into groups, `splat` vectors, opaque pointers)
//! give the same shape: the same blocks, instruction kinds, results,
//! local operands (by `ValueId`, which is positional) and successors.

use std::path::Path;

use semantics::ir::{Function, InstKind, Module};
use semantics::parse::parse_module;
use testgen::modules::module_text;
use testgen::oracle::{corpus_dir, opt_or_skip, run_opt};

/// The ids mentioned by a Debug rendering, in order: `ValueId(n)` and
/// `BlockId(n)` are the resolved names; everything else (constants, types,
/// attributes, spelling) may legitimately differ after `opt -S`.
fn ids(debug: &str) -> Vec<String> {
    let mut out = Vec::new();
    let b = debug.as_bytes();
    let mut i = 0;
    while i < b.len() {
        for key in ["ValueId(", "BlockId("] {
            if debug[i..].starts_with(key) {
                let rest = &debug[i + key.len()..];
                let end = rest.find(')').unwrap_or(rest.len());
                out.push(format!("{}{}", &key[..1], &rest[..end]));
            }
        }
        i += 1;
    }
    out
}

fn kind_name(debug: &str) -> &str {
    debug.split([' ', '(', '{']).next().unwrap_or("")
}

/// One line per block, instruction and terminator; the flag marks calls
/// of `llvm.*` intrinsics, which LLVM may upgrade to other instructions.
fn shape(f: &Function) -> Vec<(String, bool)> {
    let mut out = vec![(format!("params {}", f.params.len()), false)];
    for (b, blk) in f.blocks.iter().enumerate() {
        out.push((format!("block {b}"), false));
        for inst in &blk.insts {
            let d = format!("{:?}", inst.kind);
            let intrinsic = matches!(&inst.kind, InstKind::Call(c) if c.callee_name().is_some_and(|n| n.starts_with("llvm.")));
            out.push((
                format!("{:?} {} {:?}", inst.result, kind_name(&d), ids(&d)),
                intrinsic,
            ));
        }
        let d = format!("{:?}", blk.term.kind);
        out.push((format!("term {} {:?}", kind_name(&d), ids(&d)), false));
    }
    out
}

/// Compares the shapes of the definitions; returns how many functions were
/// left out because LLVM upgraded an intrinsic call in them.
fn compare(name: &str, ours: &Module, theirs: &Module) -> Result<usize, String> {
    let mut upgraded = 0;
    for f in ours.functions.iter().filter(|f| f.is_definition) {
        let g = theirs
            .function(&f.name)
            .ok_or_else(|| format!("{name}: @{} missing after opt -S", f.name))?;
        let (a, b) = (shape(f), shape(g));
        let a_lines: Vec<&String> = a.iter().map(|(l, _)| l).collect();
        let b_lines: Vec<&String> = b.iter().map(|(l, _)| l).collect();
        if a_lines != b_lines {
            let at = a_lines
                .iter()
                .zip(&b_lines)
                .position(|(x, y)| x != y)
                .unwrap_or(a.len().min(b.len()));
            if a.get(at).is_some_and(|(_, intrinsic)| *intrinsic) {
                upgraded += 1;
                continue;
            }
            return Err(format!(
                "{name}: @{} differs from LLVM's reading at line {at} of the shape: ours {:?}, LLVM {:?}",
                f.name,
                a_lines.get(at),
                b_lines.get(at)
            ));
        }
    }
    Ok(upgraded)
}

fn check(opt: &Path, name: &str, text: &str, upgraded: &mut usize) -> Result<bool, String> {
    let Ok(ours) = parse_module(name, text) else {
        return Ok(false);
    };
    let dis = run_opt(opt, &["-S"], text);
    if !dis.success() {
        return Ok(false);
    }
    let theirs = parse_module("<opt -S>", &dis.stdout)
        .map_err(|e| format!("{name}: opt -S output rejected: {e}"))?;
    *upgraded += compare(name, &ours, &theirs)?;
    Ok(true)
}

#[test]
fn name_resolution_agrees_with_llvm() {
    let Some(opt) = opt_or_skip("name_resolution_agrees_with_llvm") else {
        return;
    };
    let mut failures = Vec::new();
    let mut compared = 0;
    let mut upgraded = 0;
    for (i, text) in testgen::sample(&module_text(), 24, 11).iter().enumerate() {
        match check(&opt, &format!("generated #{i}"), text, &mut upgraded) {
            Ok(true) => compared += 1,
            Ok(false) => failures.push(format!("generated #{i} not accepted\n{text}")),
            Err(e) => failures.push(format!("{e}\n{text}")),
        }
    }
    if let Some(corpus) = corpus_dir() {
        let files = testgen::oracle::ll_files(&corpus);
        for p in &files {
            let text = std::fs::read_to_string(p).expect("corpus files are UTF-8");
            match check(&opt, &p.display().to_string(), &text, &mut upgraded) {
                Ok(true) => compared += 1,
                Ok(false) => {}
                Err(e) => failures.push(e),
            }
        }
    } else {
        eprintln!(
            "*** name_resolution_agrees_with_llvm: corpus not found, generated modules only ***"
        );
    }
    eprintln!(
        "llvm_agreement: {compared} modules compared with opt -S ({upgraded} functions skipped: LLVM upgraded an intrinsic call)"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
