//! `--bisect`: the first pass of a pipeline after which a function stops
//! refining the original (issue 14). The pipeline is opt's own text
//! (`-print-pipeline-passes`, so `-O2` works too), split at its top-level
//! commas; each element runs on the previous element's output, and a binary
//! search over these outputs finds the first one the original's function
//! is not refined by (a counterexample). An adaptor element
//! (`function<...>(a,b,...)`, `cgscc(...)`, `loop(...)`) is then split the
//! same way, each child wrapped in its adaptors, down to a single pass.
//!
//! Running the elements one by one is not always the same as running the
//! whole pipeline (a CGSCC adaptor interleaves its passes per SCC); when
//! the split run does not reproduce the counterexample, bisection says so.

use std::path::{Path, PathBuf};

use semantics::ir::Module;

use super::adapter::{check_function, Pair};
use super::opt;
use super::{FnResult, FnVerdict};
use crate::refine::Options;

/// Splits a pipeline at the commas outside `(...)` and `<...>`.
pub fn split_top(p: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for c in p.chars() {
        match c {
            '(' | '<' => depth += 1,
            ')' | '>' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// `adaptor<opts>(a,b)` -> (`adaptor<opts>`, [a, b]); `None` for a pass.
pub fn children(elem: &str) -> Option<(String, Vec<String>)> {
    let inner = elem.strip_suffix(')')?;
    let mut depth = 0i32;
    for (i, c) in inner.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            '(' if depth == 0 => {
                return Some((inner[..i].to_string(), split_top(&inner[i + 1..])));
            }
            _ => {}
        }
    }
    None
}

/// The user's opt arguments without those that choose the pipeline
/// (`-passes`, `-O0`..`-O3`, `-Os`, `-Oz`) or print it.
pub fn base_args(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let pipeline = a.starts_with("-passes=")
            || a.starts_with("--passes=")
            || matches!(
                a.as_str(),
                "-O0" | "-O1" | "-O2" | "-O3" | "-Os" | "-Oz" | "-print-pipeline-passes"
            );
        if a == "-passes" || a == "--passes" {
            it.next();
        } else if !pipeline {
            out.push(a.clone());
        }
    }
    out
}

/// opt's pipeline text for `args` on `file`.
pub fn pipeline_text(opt_path: &Path, args: &[String], file: &Path) -> Result<String, String> {
    let out = std::process::Command::new(opt_path)
        .args(args)
        .args(["-print-pipeline-passes", "-disable-output"])
        .arg(file)
        .output()
        .map_err(|e| format!("{}: {e}", opt_path.display()))?;
    if !out.status.success() {
        return Err(format!(
            "opt -print-pipeline-passes failed: {}",
            String::from_utf8_lossy(&out.stderr).trim_end()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// What bisection found for one function.
#[derive(Clone, Debug)]
pub struct Found {
    /// The pass (wrapped in its adaptors) after which the function stops
    /// refining the original.
    pub pass: String,
    pub before: PathBuf,
    pub after: PathBuf,
    /// That pass's before/after pair checked on its own.
    pub pair: Box<FnResult>,
}

/// Everything bisection needs besides the function.
pub struct Bisector<'a> {
    pub opt: &'a Path,
    /// Arguments that do not choose the pipeline ([`base_args`]).
    pub base: Vec<String>,
    pub original: &'a Module,
    pub original_path: &'a str,
    pub opts: &'a Options,
    pub replay: bool,
    pub time_limit: Option<std::time::Duration>,
    /// Where the intermediate modules are written.
    pub dir: PathBuf,
}

struct Step {
    path: PathBuf,
    module: Option<Module>,
}

impl Bisector<'_> {
    fn run_element(&self, input: &Path, pass: &str, n: &mut usize) -> Result<Step, String> {
        *n += 1;
        let out = self.dir.join(format!("step-{n:03}.ll"));
        let mut args = self.base.clone();
        args.push(format!("-passes={pass}"));
        let argv = opt::argv(self.opt, &args, input, &out);
        // The run's Ctrl-C flag (the checks' interrupt) also stops opt.
        opt::run_until(&argv, self.opts.interrupt.as_deref()).map_err(|f| f.to_string())?;
        let text = std::fs::read_to_string(&out).map_err(|e| e.to_string())?;
        let module = semantics::parse_module(&out.display().to_string(), &text).ok();
        Ok(Step { path: out, module })
    }

    /// The original's `kernel` is not refined by `step`'s (a counterexample).
    fn fails(&self, step: &Step, kernel: &str) -> bool {
        let Some(m) = &step.module else { return false };
        if m.function(kernel).is_none_or(|f| !f.is_definition) {
            return false;
        }
        let pair = Pair {
            src: self.original,
            tgt: m,
            src_path: self.original_path,
            tgt_path: &step.path.display().to_string(),
        };
        check_function(&pair, kernel, self.opts, false, self.time_limit).verdict
            == FnVerdict::Counterexample
    }

    /// Bisects `pipeline` (run on the file `input`) for `kernel`.
    pub fn bisect(&self, input: &Path, pipeline: &str, kernel: &str) -> Result<Found, String> {
        std::fs::create_dir_all(&self.dir).map_err(|e| format!("{}: {e}", self.dir.display()))?;
        let mut n = 0;
        let found = self.level(
            input,
            &split_top(pipeline),
            &|p| p.to_string(),
            kernel,
            &mut n,
        )?;
        let Some((pass, before, after)) = found else {
            return Err(
                "the pipeline run pass by pass does not reproduce the counterexample \
                 (passes interleave per function or SCC when run together)"
                    .into(),
            );
        };
        let read = |p: &Path| -> Result<Module, String> {
            let t = std::fs::read_to_string(p).map_err(|e| e.to_string())?;
            semantics::parse_module(&p.display().to_string(), &t).map_err(|e| e.to_string())
        };
        let (b, a) = (read(&before)?, read(&after)?);
        let (bp, ap) = (before.display().to_string(), after.display().to_string());
        let pair = Pair {
            src: &b,
            tgt: &a,
            src_path: &bp,
            tgt_path: &ap,
        };
        let r = check_function(&pair, kernel, self.opts, self.replay, self.time_limit);
        Ok(Found {
            pass,
            before,
            after,
            pair: Box::new(r),
        })
    }

    /// One level: run `elems` in turn from `input`, find the first output
    /// that fails, and descend into it when it is an adaptor.
    fn level(
        &self,
        input: &Path,
        elems: &[String],
        wrap: &dyn Fn(&str) -> String,
        kernel: &str,
        n: &mut usize,
    ) -> Result<Option<(String, PathBuf, PathBuf)>, String> {
        let mut steps = Vec::new();
        let mut cur = input.to_path_buf();
        for e in elems {
            let s = self.run_element(&cur, &wrap(e), n)?;
            cur = s.path.clone();
            steps.push(s);
        }
        // Binary search for the first failing output (the last one fails
        // when the split run reproduces the counterexample).
        if steps.last().is_none_or(|s| !self.fails(s, kernel)) {
            return Ok(None);
        }
        let (mut lo, mut hi) = (0usize, steps.len() - 1);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.fails(&steps[mid], kernel) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        let before = if lo == 0 {
            input.to_path_buf()
        } else {
            steps[lo - 1].path.clone()
        };
        let elem = &elems[lo];
        if let Some((adaptor, kids)) = children(elem) {
            if kids.len() > 1 || kids.first().is_some_and(|k| children(k).is_some()) {
                let inner = |k: &str| wrap(&format!("{adaptor}({k})"));
                if let Some(found) = self.level(&before, &kids, &inner, kernel, n)? {
                    return Ok(Some(found));
                }
            }
        }
        Ok(Some((wrap(elem), before, steps[lo].path.clone())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipelines_split() {
        let p = "a,function<eager-inv>(b<x;y>,c),cgscc(devirt<4>(inline,function(d)))";
        assert_eq!(
            split_top(p),
            vec![
                "a",
                "function<eager-inv>(b<x;y>,c)",
                "cgscc(devirt<4>(inline,function(d)))"
            ]
        );
        assert_eq!(
            children("function<eager-inv>(b<x;y>,c)"),
            Some((
                "function<eager-inv>".to_string(),
                vec!["b<x;y>".into(), "c".into()]
            ))
        );
        assert_eq!(children("simplifycfg<a;b>"), None);
        assert_eq!(
            base_args(&[
                "-O2".into(),
                "-mtriple=amdgcn-amd-amdhsa".into(),
                "-passes".into(),
                "x".into()
            ]),
            vec!["-mtriple=amdgcn-amd-amdhsa"]
        );
    }
}
