//! The claim-file format of `proofs/` (one file per claim of CLAIMS.md).
//!
//! A strict `key: value` format, parsed by hand so that every error names
//! `file:line`. Lines starting with `#` and blank lines are ignored; a line
//! starting with whitespace continues the previous value (joined with one
//! space). Keys, in any order except that each `expect` follows its `check`:
//!
//! | key | required | meaning |
//! |---|---|---|
//! | `claim` | once | the claim ID (`CL-NN` or `MC-NN`); must equal the file stem |
//! | `source` | once | document and section (CLAIMS.md's document keys) |
//! | `statement` | once | the claim in the project's own words |
//! | `verdict` | once | the verdict the document states, in words |
//! | `finding` | optional, repeatable | `F-NN`: a recorded finding in FINDINGS.md |
//! | `note` | optional, repeatable | free text printed with `--verbose` |
//! | `check` | at least once | `KIND ARGS...`: a `convcheck` command line without the program name |
//! | `expect` | once after each `check` | the verdict this check must produce |
//!
//! Kinds and their `expect` values (typed as [`Expect`] when the file is
//! read): `verify` (`valid` or `invalid RULE,...`, each RULE a rule ID the
//! verifier reports, misspelled IDs being format errors),
//! `run` with `--exists` (`always`, `sometimes`, `never`), `uniformity`
//! (`names`: values named `%uni.*` are uniform and `%div.*` divergent),
//! `refine` (`refines`, `counterexample`, `unknown`, `invalid`), `meta`
//! (`holds`).

use std::fmt;
use std::path::{Path, PathBuf};

use semantics::machine::query::Answer;
use semantics::rules::RuleId;

/// A claim file, validated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claim {
    pub path: PathBuf,
    pub id: String,
    pub source: String,
    pub statement: String,
    pub verdict: String,
    pub findings: Vec<String>,
    pub notes: Vec<String>,
    pub checks: Vec<Check>,
}

/// One check of a claim: the command line and the expected verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    /// 1-based line of the `check` key.
    pub line: usize,
    pub kind: Kind,
    /// The arguments after the kind, split like a shell would for the
    /// subset used here (whitespace, double quotes).
    pub args: Vec<String>,
    pub expect: Expect,
}

/// The verdict a check must produce, typed by its kind (parsed when the
/// claim file is read, so a misspelled verdict or rule ID is a format error
/// at `file:line`, not a silent disagreement).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expect {
    /// `verify`: `valid`.
    Valid,
    /// `verify`: `invalid R1,R2`: the verifier reports (at least) these
    /// rules; `invalid` alone: some rule.
    InvalidRules(Vec<RuleId>),
    /// `run --exists`: `always`, `sometimes` or `never`.
    Exists(Answer),
    /// `uniformity`: `names` (`%uni.*` uniform, `%div.*` divergent).
    Names,
    /// `refine`: the verdict.
    Refine(RefineExpect),
    /// `meta`: `holds`.
    Holds,
}

/// The verdicts of a `refine` check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefineExpect {
    Refines,
    Counterexample,
    Unknown,
    /// A side breaks a static rule (S-*).
    Invalid,
}

impl RefineExpect {
    pub fn as_str(self) -> &'static str {
        match self {
            RefineExpect::Refines => "refines",
            RefineExpect::Counterexample => "counterexample",
            RefineExpect::Unknown => "unknown",
            RefineExpect::Invalid => "invalid",
        }
    }
}

impl fmt::Display for Expect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expect::Valid => write!(f, "valid"),
            Expect::InvalidRules(rules) if rules.is_empty() => write!(f, "invalid"),
            Expect::InvalidRules(rules) => {
                let ids: Vec<&str> = rules.iter().map(|r| r.as_str()).collect();
                write!(f, "invalid {}", ids.join(","))
            }
            Expect::Exists(a) => write!(f, "{}", a.to_string().to_lowercase()),
            Expect::Names => write!(f, "names"),
            Expect::Refine(r) => write!(f, "{}", r.as_str()),
            Expect::Holds => write!(f, "holds"),
        }
    }
}

/// What a check runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Verify,
    Run,
    Uniformity,
    Refine,
    Meta,
}

impl Kind {
    fn parse(s: &str) -> Option<Kind> {
        Some(match s {
            "verify" => Kind::Verify,
            "run" => Kind::Run,
            "uniformity" => Kind::Uniformity,
            "refine" => Kind::Refine,
            "meta" => Kind::Meta,
            _ => return None,
        })
    }

    /// The `expect` value `e` of a check of this kind.
    fn expect(self, e: &str) -> Result<Expect, String> {
        let not = || format!("`{e}` is not a verdict of a `{}` check", self.as_str());
        Ok(match (self, e) {
            (Kind::Verify, "valid") => Expect::Valid,
            (Kind::Verify, _) if e == "invalid" || e.starts_with("invalid ") => {
                let rules = e["invalid".len()..]
                    .split(',')
                    .map(str::trim)
                    .filter(|w| !w.is_empty())
                    .map(|w| w.parse::<RuleId>().map_err(|u| format!("`{e}`: {u}")))
                    .collect::<Result<Vec<_>, _>>()?;
                Expect::InvalidRules(rules)
            }
            (Kind::Run, "always") => Expect::Exists(Answer::Always),
            (Kind::Run, "sometimes") => Expect::Exists(Answer::Sometimes),
            (Kind::Run, "never") => Expect::Exists(Answer::Never),
            (Kind::Uniformity, "names") => Expect::Names,
            (Kind::Refine, "refines") => Expect::Refine(RefineExpect::Refines),
            (Kind::Refine, "counterexample") => Expect::Refine(RefineExpect::Counterexample),
            (Kind::Refine, "unknown") => Expect::Refine(RefineExpect::Unknown),
            (Kind::Refine, "invalid") => Expect::Refine(RefineExpect::Invalid),
            (Kind::Meta, "holds") => Expect::Holds,
            _ => return Err(not()),
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Verify => "verify",
            Kind::Run => "run",
            Kind::Uniformity => "uniformity",
            Kind::Refine => "refine",
            Kind::Meta => "meta",
        }
    }
}

/// A format error at `file:line`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatError {
    pub path: PathBuf,
    pub line: usize,
    pub message: String,
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.path.display(), self.line, self.message)
    }
}

/// Splits a command line on whitespace, keeping double-quoted parts
/// together (no escapes: the claim files need none).
pub fn split_words(s: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_quotes = false;
    let mut has = false;
    for c in s.chars() {
        match c {
            '"' => {
                in_quotes = !in_quotes;
                has = true;
            }
            c if c.is_whitespace() && !in_quotes => {
                if has {
                    out.push(std::mem::take(&mut cur));
                    has = false;
                }
            }
            c => {
                cur.push(c);
                has = true;
            }
        }
    }
    if in_quotes {
        return Err("unterminated double quote".into());
    }
    if has {
        out.push(cur);
    }
    Ok(out)
}

fn valid_id(id: &str) -> bool {
    let (p, n) = match id.split_once('-') {
        Some(x) => x,
        None => return false,
    };
    matches!(p, "CL" | "MC") && n.len() == 2 && n.chars().all(|c| c.is_ascii_digit())
}

/// Parses and validates the text of one claim file.
pub fn parse_claim(path: &Path, text: &str) -> Result<Claim, FormatError> {
    let err = |line: usize, message: String| FormatError {
        path: path.to_path_buf(),
        line,
        message,
    };
    // (line, key, value) with continuation lines folded in.
    let mut entries: Vec<(usize, String, String)> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        if raw.trim().is_empty() || raw.trim_start().starts_with('#') {
            continue;
        }
        if raw.starts_with([' ', '\t']) {
            match entries.last_mut() {
                Some(e) => {
                    e.2.push(' ');
                    e.2.push_str(raw.trim());
                }
                None => return Err(err(n, "continuation line before any key".into())),
            }
            continue;
        }
        let (k, v) = raw
            .split_once(':')
            .ok_or_else(|| err(n, format!("expected `key: value`, found `{}`", raw.trim())))?;
        let k = k.trim();
        if k.is_empty() || !k.chars().all(|c| c.is_ascii_lowercase()) {
            return Err(err(n, format!("malformed key `{k}`")));
        }
        entries.push((n, k.to_string(), v.trim().to_string()));
    }
    let mut id = None;
    let mut source = None;
    let mut statement = None;
    let mut verdict = None;
    let mut findings = Vec::new();
    let mut notes = Vec::new();
    let mut checks: Vec<Check> = Vec::new();
    let mut pending: Option<(usize, Kind, Vec<String>)> = None;
    for (n, k, v) in entries {
        if v.is_empty() {
            return Err(err(n, format!("`{k}` has an empty value")));
        }
        let once = |slot: &mut Option<String>, v: String| -> Result<(), FormatError> {
            if slot.is_some() {
                return Err(err(n, format!("`{k}` given twice")));
            }
            *slot = Some(v);
            Ok(())
        };
        match k.as_str() {
            "claim" => {
                if !valid_id(&v) {
                    return Err(err(n, format!("bad claim ID `{v}` (CL-NN or MC-NN)")));
                }
                once(&mut id, v)?
            }
            "source" => once(&mut source, v)?,
            "statement" => once(&mut statement, v)?,
            "verdict" => once(&mut verdict, v)?,
            "finding" => {
                let ok = v
                    .strip_prefix("F-")
                    .is_some_and(|d| d.len() == 2 && d.chars().all(|c| c.is_ascii_digit()));
                if !ok {
                    return Err(err(n, format!("bad finding ID `{v}` (F-NN)")));
                }
                findings.push(v)
            }
            "note" => notes.push(v),
            "check" => {
                if let Some((l, _, _)) = pending {
                    return Err(err(n, format!("the check of line {l} has no `expect`")));
                }
                let words = split_words(&v).map_err(|e| err(n, e))?;
                let kind = Kind::parse(&words[0]).ok_or_else(|| {
                    err(
                        n,
                        format!(
                            "unknown check kind `{}` (verify, run, uniformity, refine, meta)",
                            words[0]
                        ),
                    )
                })?;
                if kind == Kind::Run && !words.iter().any(|w| w == "--exists") {
                    return Err(err(n, "a `run` check needs `--exists CONDITION`".into()));
                }
                pending = Some((n, kind, words[1..].to_vec()));
            }
            "expect" => {
                let (line, kind, args) = pending
                    .take()
                    .ok_or_else(|| err(n, "`expect` without a preceding `check`".into()))?;
                let expect = kind.expect(&v).map_err(|e| err(n, e))?;
                checks.push(Check {
                    line,
                    kind,
                    args,
                    expect,
                });
            }
            other => return Err(err(n, format!("unknown field `{other}`"))),
        }
    }
    let last = text.lines().count().max(1);
    if let Some((l, _, _)) = pending {
        return Err(err(l, "this check has no `expect`".into()));
    }
    let need =
        |slot: Option<String>, k: &str| slot.ok_or_else(|| err(last, format!("missing `{k}`")));
    let id = need(id, "claim")?;
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    if stem != id {
        return Err(err(1, format!("claim `{id}` is in a file named `{stem}`")));
    }
    let claim = Claim {
        path: path.to_path_buf(),
        id,
        source: need(source, "source")?,
        statement: need(statement, "statement")?,
        verdict: need(verdict, "verdict")?,
        findings,
        notes,
        checks,
    };
    if claim.checks.is_empty() {
        return Err(err(last, "no `check`".into()));
    }
    Ok(claim)
}

/// Reads every `*.claim` file of `dir`, sorted by name.
pub fn load_dir(dir: &Path) -> Result<Vec<Claim>, FormatError> {
    let io = |e: std::io::Error| FormatError {
        path: dir.to_path_buf(),
        line: 0,
        message: e.to_string(),
    };
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "claim"))
        .collect();
    paths.sort();
    let mut out = Vec::new();
    for p in paths {
        let text = std::fs::read_to_string(&p).map_err(|e| FormatError {
            path: p.clone(),
            line: 0,
            message: e.to_string(),
        })?;
        out.push(parse_claim(&p, &text)?);
    }
    Ok(out)
}
