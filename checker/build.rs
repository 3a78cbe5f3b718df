//! Embeds the built-in claims (`proofs/`) and the examples they refer to
//! (`examples/`) in the binary, so that `convcheck demo` and `convcheck
//! prove` work from any directory (issue 17 item 6; see `builtin.rs`).

use std::fmt::Write;
use std::path::{Path, PathBuf};

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out);
        } else if std::fs::read_to_string(&p).is_ok() {
            out.push(p);
        }
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let root = manifest
        .parent()
        .expect("the workspace holds checker/")
        .to_path_buf();
    let mut files = Vec::new();
    for d in ["proofs", "examples"] {
        println!("cargo:rerun-if-changed={}", root.join(d).display());
        walk(&root.join(d), &mut files);
    }
    let mut s = String::from(
        "/// The built-in files: (path relative to the workspace root, text).\npub const FILES: &[(&str, &str)] = &[\n",
    );
    for f in &files {
        let rel = f.strip_prefix(&root).expect("under the root");
        let _ = writeln!(
            s,
            "    ({:?}, include_str!({:?})),",
            rel.display().to_string(),
            f.display().to_string()
        );
    }
    s.push_str("];\n");
    let out =
        PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo")).join("builtin_files.rs");
    std::fs::write(out, s).expect("OUT_DIR is writable");
}
