//! The in-tree fuzzer of `convcheck` (issue 11 item 3; `make fuzz`).
//!
//! Seeds are the LLVM test files of `../shared/corpus`, the examples, the
//! refine pairs (whose targets are mutated, the source kept) and the claim
//! files. Each input is a mutation of a seed ([`mutate`]) and goes through
//! every subcommand in-process ([`targets`]), through the library entry
//! points the subcommands use, under `catch_unwind`; the driver
//! (`convcheck-fuzz`) adds a watchdog for hangs, a supervisor process for
//! crashes that cannot be caught (stack overflow, abort), and a slice of
//! inputs run through the real binary to check its exit statuses.

pub mod mutate;
pub mod stats;
pub mod targets;

use std::path::{Path, PathBuf};

use crate::mutate::{mutate, Mutation, Rng};

/// What a seed is, which decides the subcommands its mutants go through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeedKind {
    /// An LLVM IR file: parse, verify (both modes), cycles, uniformity, run.
    Module,
    /// The target of a refine pair (index into [`Seeds::pairs`]): also
    /// `refine` against the unmutated source.
    RefineTarget(usize),
    /// A claim file: `prove --check-format`.
    Claim,
}

/// The seed files of a campaign.
#[derive(Debug, Default)]
pub struct Seeds {
    pub modules: Vec<(PathBuf, Vec<u8>)>,
    /// (source path, source text, target text).
    pub pairs: Vec<(PathBuf, String, Vec<u8>)>,
    pub claims: Vec<(PathBuf, Vec<u8>)>,
    /// proofs/FINDINGS.md, which `prove --check-format` checks links against.
    pub findings: String,
}

fn walk(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, ext, out);
        } else if p.to_string_lossy().ends_with(ext) {
            out.push(p);
        }
    }
}

impl Seeds {
    /// The seeds under the workspace `root` (examples/, proofs/) and the
    /// shared corpus `corpus` (when present), in a fixed order.
    pub fn load(root: &Path, corpus: Option<&Path>) -> Seeds {
        let mut s = Seeds::default();
        let mut lls = Vec::new();
        if let Some(c) = corpus {
            walk(c, ".ll", &mut lls);
        }
        walk(&root.join("examples"), ".ll", &mut lls);
        for p in lls {
            let Ok(bytes) = std::fs::read(&p) else {
                continue;
            };
            let name = p.to_string_lossy().to_string();
            if let Some(stem) = name.strip_suffix(".src.ll") {
                let tgt = PathBuf::from(format!("{stem}.tgt.ll"));
                if let (Ok(src), Ok(t)) = (String::from_utf8(bytes.clone()), std::fs::read(&tgt)) {
                    s.pairs.push((p.clone(), src, t));
                }
            }
            s.modules.push((p, bytes));
        }
        s.findings = std::fs::read_to_string(root.join("proofs/FINDINGS.md")).unwrap_or_default();
        let mut claims = Vec::new();
        walk(&root.join("proofs"), ".claim", &mut claims);
        for p in claims {
            if let Ok(b) = std::fs::read(&p) {
                s.claims.push((p, b));
            }
        }
        s
    }
}

/// One generated input.
#[derive(Clone, Debug)]
pub struct Input {
    pub index: u64,
    pub kind: SeedKind,
    /// The seed it was mutated from.
    pub seed: PathBuf,
    pub bytes: Vec<u8>,
    pub mutations: Vec<Mutation>,
}

/// Input `index` of campaign `seed`: a seed chosen (modules 75%, refine
/// targets 15%, claim files 10%) and mutated.
pub fn generate(seeds: &Seeds, seed: u64, index: u64) -> Input {
    let mut rng = Rng::for_input(seed, index);
    let roll = rng.below(100);
    let (kind, path, base): (SeedKind, &Path, &[u8]) = if roll < 15 && !seeds.pairs.is_empty() {
        let i = rng.below(seeds.pairs.len());
        let (p, _, t) = &seeds.pairs[i];
        (SeedKind::RefineTarget(i), p.as_path(), t.as_slice())
    } else if roll < 25 && !seeds.claims.is_empty() {
        let (p, b) = rng.pick(&seeds.claims);
        (SeedKind::Claim, p.as_path(), b.as_slice())
    } else {
        let (p, b) = rng.pick(&seeds.modules);
        (SeedKind::Module, p.as_path(), b.as_slice())
    };
    let other = &rng.pick(&seeds.modules).1;
    let (bytes, mutations) = mutate(&mut rng, base, other);
    Input {
        index,
        kind,
        seed: path.to_path_buf(),
        bytes,
        mutations,
    }
}
