//! Running LLVM's `opt`: locating it, running a pipeline on a file with its
//! output kept, and reading a test file's `; RUN: opt ...` line.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The `opt` used when neither `--opt` nor `$OPT` names one.
pub const DEFAULT_OPT: &str = "opt-22";

/// Finds `opt`: `explicit` (`--opt PATH`), else `$OPT`, else [`DEFAULT_OPT`]
/// on `PATH`. The error says all three ways.
pub fn locate(explicit: Option<&Path>, env_opt: Option<&str>) -> Result<PathBuf, String> {
    let named = explicit
        .map(Path::to_path_buf)
        .or_else(|| env_opt.filter(|s| !s.is_empty()).map(PathBuf::from));
    if let Some(p) = named {
        return find_program(&p).ok_or_else(|| {
            format!(
                "opt `{}` (from {}) is not an executable file",
                p.display(),
                if explicit.is_some() { "--opt" } else { "$OPT" }
            )
        });
    }
    find_program(Path::new(DEFAULT_OPT)).ok_or_else(|| {
        format!("no opt found: pass --opt PATH, set $OPT, or put {DEFAULT_OPT} (LLVM 22) on PATH")
    })
}

/// `p` itself when it names a file (absolute or relative with a `/`), else
/// the first file of that name on `PATH`.
fn find_program(p: &Path) -> Option<PathBuf> {
    let is_exe = |q: &Path| {
        q.is_file() && {
            use std::os::unix::fs::PermissionsExt;
            q.metadata()
                .map(|m| m.permissions().mode() & 0o111 != 0)
                .unwrap_or(false)
        }
    };
    if p.components().count() > 1 || p.is_absolute() {
        return is_exe(p).then(|| p.to_path_buf());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(p))
        .find(|q| is_exe(q))
}

/// opt exited unsuccessfully (or could not be started, or was stopped).
#[derive(Debug)]
pub struct OptFailure {
    /// The command line, for the message.
    pub command: String,
    pub status: Option<i32>,
    pub stderr: String,
    /// The run was stopped (Ctrl-C) and opt killed.
    pub interrupted: bool,
}

impl std::fmt::Display for OptFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.interrupted {
            return write!(f, "`{}` interrupted (Ctrl-C)", self.command);
        }
        match self.status {
            Some(s) => write!(f, "`{}` failed with status {s}", self.command)?,
            None => write!(f, "`{}` failed", self.command)?,
        }
        if !self.stderr.trim().is_empty() {
            write!(f, "; its stderr:\n{}", self.stderr.trim_end())?;
        }
        Ok(())
    }
}

/// The argument vector given to opt: the user's arguments, then `-S`
/// (unless given), the input and `-o output`.
pub fn argv(opt: &Path, args: &[String], input: &Path, output: &Path) -> Vec<String> {
    let mut v = vec![opt.display().to_string()];
    v.extend(args.iter().cloned());
    if !args.iter().any(|a| a == "-S") {
        v.push("-S".into());
    }
    v.push(input.display().to_string());
    v.push("-o".into());
    v.push(output.display().to_string());
    v
}

/// Checks the user's OPT_ARGS: the output is ours to choose.
pub fn check_args(args: &[String]) -> Result<(), String> {
    for a in args {
        if a == "-o" || a.starts_with("-o=") || a == "--o" {
            return Err("OPT_ARGS must not contain -o: validate chooses opt's output (use --keep DIR to keep it)".into());
        }
        if a == "-disable-output" || a == "--disable-output" {
            return Err(
                "OPT_ARGS must not contain -disable-output: validate reads opt's output".into(),
            );
        }
    }
    Ok(())
}

/// Runs `argv` (from [`argv`]); `Ok` when opt exits with status 0.
pub fn run(argv: &[String]) -> Result<(), OptFailure> {
    run_until(argv, None)
}

/// [`run`], killing opt when `stop` becomes true (Ctrl-C): the failure is
/// then marked `interrupted`.
pub fn run_until(argv: &[String], stop: Option<&AtomicBool>) -> Result<(), OptFailure> {
    let command = argv.join(" ");
    let fail = |status, stderr, interrupted| OptFailure {
        command: command.clone(),
        status,
        stderr,
        interrupted,
    };
    // opt runs in a process group of its own: Ctrl-C at the terminal
    // reaches only us, and stopping kills opt with anything it started.
    let mut child = Command::new(&argv[0])
        .args(&argv[1..])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|e| fail(None, e.to_string(), false))?;
    // opt's stderr is read on a thread of its own, so that a chatty opt
    // never blocks on a full pipe while we wait for it.
    let mut pipe = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(p) = pipe.as_mut() {
            let _ = p.read_to_string(&mut text);
        }
        text
    });
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if stop.is_some_and(|s| s.load(Ordering::SeqCst)) => {
                kill_group(&mut child);
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => {
                kill_group(&mut child);
                return Err(fail(None, e.to_string(), false));
            }
        }
    };
    let stderr = reader.join().unwrap_or_default();
    match status {
        None => Err(fail(None, stderr, true)),
        Some(s) if s.success() => Ok(()),
        Some(s) => Err(fail(s.code(), stderr, false)),
    }
}

/// Kills `child`'s process group (the group [`run_until`] gave it) and
/// reaps the child.
fn kill_group(child: &mut std::process::Child) {
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: kill(2) with a negative pid signals that process group;
        // it touches no memory of ours.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Splits a shell command into words: whitespace separates, single and
/// double quotes group (and are removed), a backslash escapes the next
/// character outside single quotes. `|`, `<`, `>` outside quotes are words
/// of their own.
fn shell_words(s: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut has = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                has = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(x) => cur.push(x),
                        None => return Err("unterminated ' quote".into()),
                    }
                }
            }
            '"' => {
                has = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => cur.extend(chars.next()),
                        Some(x) => cur.push(x),
                        None => return Err("unterminated \" quote".into()),
                    }
                }
            }
            '\\' => {
                has = true;
                cur.extend(chars.next());
            }
            '>' if has && !cur.is_empty() && cur.chars().all(|d| d.is_ascii_digit()) => {
                // `2>&1`, `2> file`: the descriptor belongs to the redirection.
                cur.clear();
                has = false;
                out.push(c.to_string());
            }
            '|' | '<' | '>' => {
                if has {
                    out.push(std::mem::take(&mut cur));
                    has = false;
                }
                out.push(c.to_string());
            }
            c if c.is_whitespace() => {
                if has {
                    out.push(std::mem::take(&mut cur));
                    has = false;
                }
            }
            c => {
                has = true;
                cur.push(c);
            }
        }
    }
    if has {
        out.push(cur);
    }
    Ok(out)
}

/// AMDGPU triples opt-22 knows as written; any other `amdgcn`/`r600` triple
/// of a RUN line is replaced by `amdgcn-amd-amdhsa`.
const KNOWN_AMDGPU_TRIPLES: &[&str] = &[
    "amdgcn-amd-amdhsa",
    "amdgcn-amd-amdpal",
    "amdgcn-amd-mesa3d",
    "amdgcn--",
    "amdgcn",
    "amdgcn--amdhsa",
    "amdgcn--amdpal",
    "amdgcn-mesa-mesa3d",
];

fn map_triple(t: &str) -> String {
    let amd = t.starts_with("amdgcn") || t.starts_with("r600");
    if amd && !KNOWN_AMDGPU_TRIPLES.contains(&t) {
        "amdgcn-amd-amdhsa".to_string()
    } else {
        t.to_string()
    }
}

/// The options of `text`'s first `; RUN:` line that runs `opt` (continuation
/// lines ending in `\` joined): the words after `opt` up to the first pipe,
/// without `-S`, `%s`, input/output redirections and `-o FILE`, with unknown
/// AMDGPU triples mapped to `amdgcn-amd-amdhsa`. Errors name what cannot be
/// used (no such line, a lit substitution other than `%s`).
pub fn run_line_args(text: &str) -> Result<Vec<String>, String> {
    let mut commands = Vec::new();
    let mut pending = String::new();
    for line in text.lines() {
        let t = line.trim_start();
        let Some(rest) = t
            .strip_prefix(';')
            .map(|r| r.trim_start_matches(';').trim_start())
            .and_then(|r| r.strip_prefix("RUN:"))
        else {
            continue;
        };
        let rest = rest.trim();
        if let Some(cont) = rest.strip_suffix('\\') {
            pending.push_str(cont);
            pending.push(' ');
        } else {
            pending.push_str(rest);
            commands.push(std::mem::take(&mut pending));
        }
    }
    for cmd in commands {
        let words = shell_words(&cmd)?;
        let Some(at) = words.iter().position(|w| w == "opt" || w == "%opt") else {
            continue;
        };
        let mut out = Vec::new();
        let mut it = words[at + 1..].iter().peekable();
        while let Some(w) = it.next() {
            match w.as_str() {
                "|" => break,
                "-S" | "%s" | "-disable-output" | "--disable-output" => {}
                "<" | ">" | "-o" | "2>" => {
                    it.next();
                }
                "-mtriple" | "--mtriple" => {
                    out.push(w.clone());
                    if let Some(t) = it.next() {
                        out.push(map_triple(t));
                    }
                }
                _ if w.starts_with("-mtriple=") || w.starts_with("--mtriple=") => {
                    let (k, t) = w.split_once('=').expect("the guard saw `=`");
                    out.push(format!("{k}={}", map_triple(t)));
                }
                _ if w.starts_with("2>") || w.starts_with('>') => {}
                _ if w.contains('%') && !w.contains("%%") => {
                    return Err(format!(
                        "the RUN line uses the lit substitution `{w}`, which validate cannot \
                         supply: give the options after `--` instead"
                    ))
                }
                _ => out.push(w.clone()),
            }
        }
        return Ok(out);
    }
    Err("no `; RUN:` line runs opt".into())
}

/// Whether `args` name a pipeline the new pass manager's way (`-passes=`,
/// `-p`, an `-O` level).
fn names_pipeline(args: &[String]) -> bool {
    args.iter().any(|a| {
        let a = a.trim_start_matches('-');
        a.starts_with("passes=")
            || a == "passes"
            || a == "p"
            || a.starts_with("p=")
            || (a.starts_with('O') && a.len() == 2)
    })
}

/// The pass names `opt -print-passes` lists (parameters `<...>` dropped).
fn new_pm_passes(opt: &Path) -> Result<std::collections::HashSet<String>, String> {
    let out = Command::new(opt)
        .arg("-print-passes")
        .output()
        .map_err(|e| format!("`{} -print-passes`: {e}", opt.display()))?;
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix("  "))
        .map(|l| l.split('<').next().unwrap_or(l).trim().to_string())
        .filter(|n| !n.is_empty())
        .collect())
}

/// A RUN line of an older LLVM test names passes the legacy way
/// (`opt -loop-distribute ...`), which opt-22 rejects: when `args` name no
/// pipeline, every flag `-NAME` (no `=`) whose NAME is a pass `opt
/// -print-passes` lists is taken out and the pipeline `-passes=NAME,...`
/// (in their order) put where the first one was. Returns the arguments and
/// the names moved (empty: unchanged).
pub fn legacy_pass_flags(
    args: &[String],
    opt: &Path,
) -> Result<(Vec<String>, Vec<String>), String> {
    if names_pipeline(args) {
        return Ok((args.to_vec(), Vec::new()));
    }
    let known = new_pm_passes(opt)?;
    let mut out = Vec::new();
    let mut moved = Vec::new();
    let mut at = None;
    for a in args {
        let name = a.trim_start_matches('-');
        if a.starts_with('-') && !name.contains('=') && known.contains(name) {
            at.get_or_insert(out.len());
            moved.push(name.to_string());
        } else {
            out.push(a.clone());
        }
    }
    if let Some(i) = at {
        out.insert(i, format!("-passes={}", moved.join(",")));
    }
    Ok((out, moved))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_line_is_cleaned() {
        let t = "; RUN: opt -S -passes='simplifycfg<hoist-common-insts>' \\\n\
                 ; RUN:   -mtriple=amdgcn-- < %s | FileCheck %s\n\
                 ; RUN: opt -passes=licm %s\n";
        assert_eq!(
            run_line_args(t).unwrap(),
            vec![
                "-passes=simplifycfg<hoist-common-insts>",
                "-mtriple=amdgcn--"
            ]
        );
        let t = "; RUN: llvm-as %s -o /dev/null\n; RUN: opt -mtriple amdgcn-unknown-amdhsa -passes=sink -o %t %s\n";
        assert_eq!(
            run_line_args(t).unwrap(),
            vec!["-mtriple", "amdgcn-amd-amdhsa", "-passes=sink"]
        );
        let t = "; RUN: opt -S -passes=loop-fusion -pass-remarks-analysis=loop-fusion \\\n\
                 ; RUN:   -disable-output < %s 2>&1 | FileCheck %s\n";
        assert_eq!(
            run_line_args(t).unwrap(),
            vec!["-passes=loop-fusion", "-pass-remarks-analysis=loop-fusion"]
        );
        assert!(run_line_args("; RUN: llc %s\n").is_err());
        assert!(run_line_args("; RUN: opt -load %p/x.so %s\n").is_err());
    }

    /// Legacy pass flags become a `-passes=` pipeline (opt-22 on PATH;
    /// skipped without it).
    #[test]
    fn legacy_pass_flags_become_a_pipeline() {
        let Ok(opt) = locate(None, None) else {
            eprintln!("SKIPPED legacy_pass_flags_become_a_pipeline: no {DEFAULT_OPT}");
            return;
        };
        let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let (args, moved) = legacy_pass_flags(
            &v(&[
                "-loop-distribute",
                "-enable-loop-distribute",
                "-verify-loop-info",
                "-licm",
            ]),
            &opt,
        )
        .unwrap();
        assert_eq!(
            args,
            v(&[
                "-passes=loop-distribute,licm",
                "-enable-loop-distribute",
                "-verify-loop-info"
            ])
        );
        assert_eq!(moved, v(&["loop-distribute", "licm"]));
        let same = v(&["-passes=sink", "-licm"]);
        assert_eq!(legacy_pass_flags(&same, &opt).unwrap(), (same, Vec::new()));
        let o2 = v(&["-O2", "-mtriple=amdgcn-amd-amdhsa"]);
        assert_eq!(legacy_pass_flags(&o2, &opt).unwrap(), (o2, Vec::new()));
    }

    #[test]
    fn locate_reports_every_way() {
        let e = locate(Some(Path::new("/nonexistent/opt")), None).unwrap_err();
        assert!(e.contains("--opt"), "{e}");
        let e = locate(None, Some("/nonexistent/opt")).unwrap_err();
        assert!(e.contains("$OPT"), "{e}");
    }

    #[test]
    fn argv_adds_output() {
        let v = argv(
            Path::new("opt"),
            &["-passes=sink".into()],
            Path::new("a.ll"),
            Path::new("b.ll"),
        );
        assert_eq!(v, vec!["opt", "-passes=sink", "-S", "a.ll", "-o", "b.ll"]);
        assert!(check_args(&["-o".into(), "x".into()]).is_err());
    }
}
