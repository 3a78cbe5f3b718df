//! The built-in claims and examples (issue 17 item 6): `convcheck demo`
//! and `convcheck prove` without a directory use `./proofs` when the
//! current directory is the repository, and otherwise a copy of the
//! claims and examples embedded in the binary at build time
//! (`checker/build.rs`), written once to a directory under the system's
//! temporary directory (claims name examples by paths relative to the
//! parent of their directory, so the copy keeps the layout).

use std::path::{Path, PathBuf};

use crate::cli::CliError;

mod files {
    include!(concat!(env!("OUT_DIR"), "/builtin_files.rs"));
}
pub use files::FILES;

/// The claims directory to use: `given`, else `./proofs` when it holds the
/// suite, else the embedded copy.
pub fn claims_dir(given: Option<&Path>) -> Result<PathBuf, CliError> {
    if let Some(d) = given {
        return Ok(d.to_path_buf());
    }
    let here = Path::new("proofs");
    if here.join("FINDINGS.md").is_file() {
        return Ok(here.to_path_buf());
    }
    Ok(extract()?.join("proofs"))
}

/// FNV-1a over the embedded files, naming the extracted copy (a binary
/// with other built-in files gets another directory).
fn fingerprint() -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (p, t) in FILES {
        for b in p.bytes().chain([0]).chain(t.bytes()) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// Writes the embedded files under the temporary directory (once per
/// content) and returns the root of the copy.
pub fn extract() -> Result<PathBuf, CliError> {
    let root = std::env::temp_dir().join(format!(
        "convcheck-builtin-{}-{:016x}",
        env!("CARGO_PKG_VERSION"),
        fingerprint()
    ));
    let done = root.join(".complete");
    if done.is_file() {
        return Ok(root);
    }
    let err = |p: &Path, e: std::io::Error| {
        CliError::internal(format!(
            "cannot write the built-in claims to {}: {e}",
            p.display()
        ))
    };
    for (rel, text) in FILES {
        let p = root.join(rel);
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d).map_err(|e| err(d, e))?;
        }
        // Write then rename, so that a concurrent run never reads half a file.
        let tmp = p.with_extension(format!("tmp{}", std::process::id()));
        std::fs::write(&tmp, text).map_err(|e| err(&tmp, e))?;
        std::fs::rename(&tmp, &p).map_err(|e| err(&p, e))?;
    }
    std::fs::write(&done, "").map_err(|e| err(&done, e))?;
    Ok(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_suite_is_embedded() {
        assert!(FILES.iter().any(|(p, _)| *p == "proofs/FINDINGS.md"));
        assert!(FILES.iter().filter(|(p, _)| p.ends_with(".claim")).count() >= 30);
        assert!(FILES
            .iter()
            .any(|(p, _)| p.starts_with("examples/refine/") && p.ends_with(".src.ll")));
    }

    #[test]
    fn the_copy_has_the_layout_of_the_repository() {
        let root = extract().expect("extracts");
        for (rel, text) in FILES {
            assert_eq!(
                std::fs::read_to_string(root.join(rel)).ok().as_deref(),
                Some(*text),
                "{rel}"
            );
        }
    }
}
