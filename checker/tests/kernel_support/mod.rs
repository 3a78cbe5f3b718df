//! What the kernel tests share (`mod kernel_support;`): the `// CONVCHECK:`
//! expectations of examples/kernels (format in examples/kernels/README.md)
//! and running a compiled kernel on them with `convcheck run`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use testgen::oracle;

/// One `kernel ... threads N subgroup S` block of expectations.
#[derive(Debug)]
pub struct Launch {
    pub kernel: String,
    pub threads: usize,
    pub subgroup: usize,
    /// Argument index -> (buffer length or None for a scalar, initial values).
    pub args: BTreeMap<usize, (Option<usize>, Vec<String>)>,
    /// Argument index -> a buffer's element type (`i32`, or `f32` for
    /// buffers given as floats).
    pub elem: BTreeMap<usize, &'static str>,
    /// Argument index -> expected final contents.
    pub expect: BTreeMap<usize, Vec<String>>,
}

pub fn kernels_dir() -> PathBuf {
    oracle::workspace_root().join("examples").join("kernels")
}

pub fn sources() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(kernels_dir())
        .expect("examples/kernels exists")
        .map(|e| e.expect("readable directory entry").path())
        .filter(|p| {
            matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("cl" | "hip" | "cu")
            )
        })
        .collect();
    v.sort();
    v
}

fn value_ok(v: &str) -> bool {
    v == "?" || v.parse::<i64>().is_ok()
}

/// Parses the `// CONVCHECK:` lines of one kernel source; `Err` names the
/// line that is malformed.
pub fn parse_expectations(path: &Path) -> Result<Vec<Launch>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let mut launches: Vec<Launch> = Vec::new();
    for (lineno, line) in text.lines().enumerate() {
        let Some(rest) = line.trim().strip_prefix("// CONVCHECK:") else {
            continue;
        };
        let at = format!("{}:{}", path.display(), lineno + 1);
        let w: Vec<&str> = rest.split_whitespace().collect();
        match w.as_slice() {
            ["kernel", name, "threads", n, "subgroup", s] => {
                let threads = n.parse().map_err(|_| format!("{at}: bad thread count"))?;
                let subgroup = s.parse().map_err(|_| format!("{at}: bad subgroup size"))?;
                if subgroup == 0 || threads % subgroup != 0 {
                    return Err(format!("{at}: subgroup size must divide the thread count"));
                }
                launches.push(Launch {
                    kernel: name.to_string(),
                    threads,
                    subgroup,
                    args: BTreeMap::new(),
                    elem: BTreeMap::new(),
                    expect: BTreeMap::new(),
                });
            }
            ["arg", i, "buffer", ty @ ("i32" | "f32"), len, "=", vals @ ..] => {
                let float = *ty == "f32";
                let l = launches
                    .last_mut()
                    .ok_or(format!("{at}: arg before kernel"))?;
                let i: usize = i.parse().map_err(|_| format!("{at}: bad index"))?;
                let len: usize = len
                    .strip_prefix('x')
                    .and_then(|n| n.parse().ok())
                    .ok_or(format!("{at}: length must be xN"))?;
                let ok = |v: &str| {
                    if float {
                        v.parse::<f64>().is_ok()
                    } else {
                        value_ok(v)
                    }
                };
                if !(vals.len() == 1 || vals.len() == len) || !vals.iter().all(|v| ok(v)) {
                    return Err(format!(
                        "{at}: a buffer takes one fill value or {len} values"
                    ));
                }
                l.args
                    .insert(i, (Some(len), vals.iter().map(|s| s.to_string()).collect()));
                l.elem.insert(i, if float { "f32" } else { "i32" });
            }
            ["arg", i, "i32", "=", v] => {
                let l = launches
                    .last_mut()
                    .ok_or(format!("{at}: arg before kernel"))?;
                let i: usize = i.parse().map_err(|_| format!("{at}: bad index"))?;
                if !value_ok(v) {
                    return Err(format!("{at}: bad value {v}"));
                }
                l.args.insert(i, (None, vec![v.to_string()]));
            }
            ["expect", "arg", i, "=", vals @ ..] => {
                let l = launches
                    .last_mut()
                    .ok_or(format!("{at}: expect before kernel"))?;
                let i: usize = i.parse().map_err(|_| format!("{at}: bad index"))?;
                let Some((Some(len), _)) = l.args.get(&i) else {
                    return Err(format!("{at}: expect names arg {i}, which is not a buffer"));
                };
                if vals.len() != *len || !vals.iter().all(|v| value_ok(v)) {
                    return Err(format!("{at}: expected contents must list {len} values"));
                }
                l.expect
                    .insert(i, vals.iter().map(|s| s.to_string()).collect());
            }
            _ => {
                return Err(format!(
                    "{at}: unrecognised CONVCHECK line `{}`",
                    rest.trim()
                ))
            }
        }
    }
    for l in &launches {
        let n = l.args.len();
        if l.args.keys().copied().ne(0..n) {
            return Err(format!(
                "{}: kernel {}: args must be 0..{n}",
                path.display(),
                l.kernel
            ));
        }
        if l.expect.is_empty() {
            return Err(format!(
                "{}: kernel {}: nothing expected",
                path.display(),
                l.kernel
            ));
        }
    }
    if launches.is_empty() {
        return Err(format!("{}: no CONVCHECK launch", path.display()));
    }
    Ok(launches)
}

pub fn convcheck(args: &[&str], file: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_convcheck"))
        .args(args)
        .arg(file)
        .output()
        .expect("convcheck runs")
}

/// Which source a compiled module came from: `<stem>.<target>.O<n>.ll`.
pub fn stem_of(module: &Path) -> String {
    let name = module
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    name.split('.').next().unwrap_or_default().to_string()
}

/// The `--buffer`/`--arg` flags of a launch: numbered parameters are named
/// by their number (`%0`), as clang's output has them.
pub fn launch_flags(l: &Launch) -> Vec<String> {
    let mut v = vec![
        "--kernel".to_string(),
        l.kernel.clone(),
        "--threads".to_string(),
        l.threads.to_string(),
    ];
    for (i, (len, vals)) in &l.args {
        match len {
            Some(len) => {
                let vals: Vec<String> = if vals.len() == 1 {
                    vec![vals[0].clone(); *len]
                } else {
                    vals.clone()
                };
                v.push("--buffer".into());
                let ty = l.elem.get(i).copied().unwrap_or("i32");
                v.push(format!("{i}={ty}:{}", vals.join(",")));
            }
            None => {
                v.push("--arg".into());
                v.push(format!("{i}={}", vals[0]));
            }
        }
    }
    v
}

/// Why one launch does not give the expected buffers (`None`: it does).
pub fn run_mismatch(m: &Path, l: &Launch) -> Option<String> {
    let mut args = vec![
        "run".to_string(),
        "--json".into(),
        "--time-limit".into(),
        "60".into(),
    ];
    if l.subgroup != l.threads {
        args.push("--subgroup-size".into());
        args.push(l.subgroup.to_string());
    }
    args.extend(launch_flags(l));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = convcheck(&args, m);
    if o.status.code() != Some(0) {
        return Some(format!(
            "exit {:?}: {}",
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).trim()
        ));
    }
    let j: serde_json::Value = match serde_json::from_slice(&o.stdout) {
        Ok(j) => j,
        Err(e) => return Some(format!("bad JSON: {e}")),
    };
    if j["complete"] != serde_json::json!(true) {
        return Some("enumeration incomplete".into());
    }
    let execs = j["executions"].as_array().cloned().unwrap_or_default();
    for (b, e) in execs.iter().enumerate() {
        let outcome = e["outcome"].as_str().unwrap_or_default();
        if outcome != "finished" {
            return Some(format!("behaviour {}: {outcome}", b + 1));
        }
        for (i, want) in &l.expect {
            let got: Vec<String> = e["memory"][format!("%{i}")]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|x| x.as_str().unwrap_or("").to_string())
                        .collect()
                })
                .unwrap_or_default();
            let ok =
                got.len() == want.len() && got.iter().zip(want).all(|(g, w)| w == "?" || g == w);
            if !ok {
                return Some(format!(
                    "behaviour {}: arg {i} = {} (expected {})",
                    b + 1,
                    got.join(" "),
                    want.join(" ")
                ));
            }
        }
    }
    if execs.is_empty() {
        return Some("no behaviour".into());
    }
    None
}
