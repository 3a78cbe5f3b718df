//! Rule P-PROG on what users hand the tool (issue 12 item 1): small GPU
//! kernels in `tests/kernels/` (OpenCL C for amdgcn and spirv64, HIP for
//! gfx90a, CUDA for sm_80) compiled by clang-22 at -O0 to -O3 parse, print
//! back to IR that opt-22 verifies, and round-trip. Functions the subset
//! cannot read are listed with their construct and pinned below, so a
//! change in coverage is seen (today: none; constant expressions, the last
//! gap, are read since issue 12 item 2). Skipped loudly without clang-22 or
//! opt-22; failing under `CI=true`.

use std::path::{Path, PathBuf};
use std::process::Command;

use semantics::ir::print::print_module;
use semantics::parse::parse_module;
use testgen::oracle::{opt_or_skip, skip_or_fail, verify_ll};

fn find_clang() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CLANG").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("clang-22"))
        .find(|c| c.is_file())
}

/// (name, source file, clang arguments before `-O<n>`).
const TARGETS: &[(&str, &str, &[&str])] = &[
    (
        "cl-amdgcn",
        "reduce.cl",
        &[
            "-x",
            "cl",
            "-target",
            "amdgcn-amd-amdhsa",
            "-mcpu=gfx90a",
            "-nogpulib",
            "-Xclang",
            "-finclude-default-header",
            "-cl-std=CL2.0",
        ],
    ),
    (
        "cl-spirv64",
        "reduce.cl",
        &[
            "-x",
            "cl",
            "-target",
            "spirv64",
            "-Xclang",
            "-finclude-default-header",
            "-cl-std=CL2.0",
        ],
    ),
    (
        "hip-gfx90a",
        "reduce.hip",
        &[
            "-x",
            "hip",
            "--offload-arch=gfx90a",
            "--cuda-device-only",
            "-nogpuinc",
            "-nogpulib",
        ],
    ),
    (
        "cuda-sm80",
        "reduce.cu",
        &[
            "-x",
            "cuda",
            "--cuda-gpu-arch=sm_80",
            "--cuda-device-only",
            "-nocudainc",
            "-nocudalib",
            "-Xclang",
            "-target-feature",
            "-Xclang",
            "+ptx70",
        ],
    ),
];

fn compile(clang: &Path, src: &Path, args: &[&str], opt_level: u32) -> Result<String, String> {
    let out = Command::new(clang)
        .args(["-S", "-emit-llvm", &format!("-O{opt_level}"), "-o", "-"])
        .args(args)
        .arg(src)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", clang.display()))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    String::from_utf8(out.stdout).map_err(|e| e.to_string())
}

#[test]
fn clang_kernels_parse_print_and_verify() {
    let Some(clang) = find_clang().or_else(|| {
        skip_or_fail(
            "clang_kernels",
            "clang-22 (set CLANG or put clang-22 on PATH)",
        )
    }) else {
        return;
    };
    let Some(opt) = opt_or_skip("clang_kernels") else {
        return;
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels");
    let mut failures = Vec::new();
    let mut unsupported = Vec::new();
    let mut modules = 0;
    for (name, file, args) in TARGETS {
        for o in 0..=3 {
            let label = format!("{name} -O{o}");
            let text = match compile(&clang, &dir.join(file), args, o) {
                Ok(t) => t,
                Err(e) => {
                    failures.push(format!("{label}: clang-22 failed: {e}"));
                    continue;
                }
            };
            let m = match parse_module(&label, &text) {
                Ok(m) => m,
                Err(e) => {
                    failures.push(format!("{label}: {e}"));
                    continue;
                }
            };
            modules += 1;
            for f in &m.functions {
                if let Some(u) = &f.unsupported {
                    unsupported.push(format!("{label}: @{}: {}", f.name, u.construct));
                }
            }
            let printed = print_module(&m);
            match parse_module("<printed>", &printed) {
                Ok(m2) if m2 == m => {
                    if print_module(&m2) != printed {
                        failures.push(format!("{label}: print is not a fixpoint"));
                    }
                }
                Ok(_) => failures.push(format!("{label}: reparse differs")),
                Err(e) => failures.push(format!("{label}: printed text fails: {e}")),
            }
            let v = verify_ll(&opt, &printed);
            if !v.success() {
                failures.push(format!(
                    "{label}: opt-22 rejects the printed module: {}",
                    v.stderr
                ));
            }
        }
    }
    eprintln!("clang_kernels: {modules} modules parsed");
    for u in &unsupported {
        eprintln!("  UNSUPPORTED FUNCTION {u}");
    }
    // Every module is read, printed, verified by opt-22 and round-trips:
    // the HIP modules' constant-expression `addrspacecast` of a global in
    // `@llvm.compiler.used` and the CUDA kernel's `addrspacecast` of its
    // `__shared__` array (the gaps pinned here until issue 12 item 2) are
    // constant expressions the parser reads.
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(modules, 16);
    assert!(unsupported.is_empty(), "{unsupported:?}");
}
