//! The launch (P-LAUNCH, P-INPUT: the inputs shared by the source and the
//! target encodings, thread ids included) and the static reachability of
//! blocks per step that the encoding prunes with.

use super::super::prog::Prepared;
use crate::vc::{Sort, TermId, Terms};

/// Inputs of a launch shared by the source and target encodings.
#[derive(Clone, Debug)]
pub struct Launch {
    pub n: usize,
    /// [param][thread]: the argument's value in each thread.
    pub args: Vec<Vec<TermId>>,
    /// The distinct input variables with a readable name.
    pub vars: Vec<(String, TermId)>,
    /// [thread]: the thread's id (P-LAUNCH), 32 bits: the constant `t`, or
    /// under [`Launch::free_ids`] an input (C-PAIR's two-thread check).
    pub tids: Vec<TermId>,
    /// Constraints on the inputs (free ids: distinct and below the wave
    /// width); every query over this launch asserts them.
    pub side: Vec<TermId>,
    /// P-INPUT / P-MEM-OBJ: each pointer parameter's buffer (parameter
    /// position, name, one `i8` input per byte), shared by source and
    /// target.
    pub buffers: Vec<(usize, String, Vec<TermId>)>,
    /// R-FLOAT-SMT: the input variables of float parameters (their bit
    /// patterns) and their formats, for `--input-domain`-style bounds
    /// (P-INPUT: a float input ranges over the integer domain converted).
    pub floats: Vec<(TermId, semantics::ir::float::FloatTy)>,
    /// R-FREEZE-SMT: the values a `freeze` of poison may take when inputs
    /// are bounded to a domain (as the interpreter's `int_domain`);
    /// `None`: every value.
    pub freeze_domain: Option<Vec<i128>>,
    /// Theorem C-VAL's pair check (proofs/CUTOFF.md): the result of every
    /// convergent operation is an input, a function of (thread id, callee,
    /// the event's ordinal, its arguments) shared by source and target,
    /// instead of its C-OPS value over the communicating set; observed
    /// events' arguments must then match exactly (poison only with poison).
    pub free_results: bool,
}

impl Launch {
    /// P-LAUNCH / P-INPUT: one variable per uniform parameter, one per
    /// thread for the others.
    pub fn new(terms: &mut Terms, p: &Prepared, n: usize) -> Launch {
        let mut args = Vec::new();
        let mut vars = Vec::new();
        let mut buffers = Vec::new();
        let mut floats = Vec::new();
        for (i, param) in p.func.params.iter().enumerate() {
            if let Some(&j) = p.mem.param.get(&i) {
                // The parameter points at its buffer (every thread).
                let x = terms.bv_const(super::PW, (j as u128 + 1) << 64);
                args.push(vec![x; n]);
                let o = &p.mem.objects[j];
                let name = o.name.trim_start_matches('%').to_string();
                let bytes = (0..o.size)
                    .map(|c| terms.var(&format!("in.{name}.b{c}"), Sort::BitVec(8)))
                    .collect();
                buffers.push((i, name, bytes));
                continue;
            }
            let w = super::width(&param.ty);
            let fmt = semantics::ir::float::FloatTy::of(&param.ty);
            let name = match param.value {
                Some(v) => p.func.value(v).name.to_string(),
                None => format!("arg{i}"),
            };
            if p.uniform_param[i] {
                let x = terms.var(&format!("in.{name}"), Sort::BitVec(w));
                vars.push((name.clone(), x));
                floats.extend(fmt.map(|f| (x, f)));
                args.push(vec![x; n]);
            } else {
                let xs: Vec<TermId> = (0..n)
                    .map(|t| {
                        let x = terms.var(&format!("in.{name}.t{t}"), Sort::BitVec(w));
                        vars.push((format!("{name}[t{t}]"), x));
                        floats.extend(fmt.map(|f| (x, f)));
                        x
                    })
                    .collect();
                args.push(xs);
            }
        }
        let tids = (0..n).map(|t| terms.bv_const(32, t as u128)).collect();
        Launch {
            n,
            args,
            vars,
            tids,
            side: Vec::new(),
            buffers,
            floats,
            freeze_domain: None,
            free_results: false,
        }
    }

    /// Theorem C-PAIR (proofs/CUTOFF.md, side 6): a launch of `n` threads
    /// whose ids are distinct inputs in `0..wave` rather than `0..n`, so that
    /// a check over it covers every pair (or single thread) of a launch of
    /// up to `wave` threads.
    pub fn free_ids(terms: &mut Terms, p: &Prepared, n: usize, wave: usize) -> Launch {
        let mut l = Launch::new(terms, p, n);
        let w = terms.bv_const(32, wave as u128);
        l.tids = (0..n)
            .map(|t| {
                let x = terms.var(&format!("in.tid.t{t}"), Sort::BitVec(32));
                l.vars.push((format!("tid[t{t}]"), x));
                let below = terms.bv_ult(x, w);
                l.side.push(below);
                x
            })
            .collect();
        if n > 1 {
            let d = terms.distinct(&l.tids);
            l.side.push(d);
        }
        l
    }

    /// Thread `t`'s id at width `w` (truncated or zero-extended).
    pub(super) fn tid(&self, terms: &mut Terms, t: usize, w: u32) -> TermId {
        let x = self.tids[t];
        match w.cmp(&32) {
            std::cmp::Ordering::Equal => x,
            std::cmp::Ordering::Less => terms.extract(w - 1, 0, x),
            std::cmp::Ordering::Greater => terms.zero_ext(w - 32, x),
        }
    }
}

/// `[s][b]`: whether some CFG path from the entry block reaches block `b`
/// in exactly `s` steps (`s < k`). Step `s`'s current block is one of these
/// or none (the thread ended), so the encoding may treat the others as
/// absent: an exact pruning of impossible (step, block) pairs.
pub(super) fn possible_blocks(f: &semantics::ir::Function, k: usize) -> Vec<Vec<bool>> {
    let cfg = semantics::cfg::Cfg::from_function(f);
    let nb = f.blocks.len();
    let mut out = vec![vec![false; nb]; k.max(1)];
    if nb > 0 {
        out[0][0] = true;
    }
    for s in 1..k {
        for b in 0..nb {
            if out[s - 1][b] {
                for x in &cfg.succs[b] {
                    out[s][x.0] = true;
                }
            }
        }
    }
    out
}
