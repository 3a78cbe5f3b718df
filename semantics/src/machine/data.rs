//! M-DATA (issue 18 item 1: "inputs that cannot influence control flow,
//! communicating sets or observations except by renaming values are
//! enumerated once"): kernel inputs that only feed data are run once, as
//! symbols, and each execution found is then instantiated at every value
//! of the inputs it shows.
//!
//! **Data inputs.** An enumerated integer parameter of the kernel is a
//! *data input* when every use of every value in its forward slice (the
//! values computed from it: through SSA operands, into the parameters of
//! defined functions it is passed to, out of their returns into the calls'
//! results) is one of:
//! - an operand of an integer `add`, `sub`, `mul`, `shl`, `lshr`, `ashr`,
//!   `and`, `or`, `xor` (their flags give poison, never UB), whose result
//!   joins the slice;
//! - the operand of `trunc`, `zext` or `sext` between integer types
//!   (result in the slice);
//! - an incoming value of a `phi`, or an arm (not the condition) of a
//!   `select`, of integer type (result in the slice);
//! - an argument of a direct call of a defined, non-variadic function
//!   (the parameter joins the slice), whose returned value then joins the
//!   slice at every call of that function;
//! - an argument of a direct call of an unknown function that draws its
//!   result from the thread's input stream (`UnknownStream`, not
//!   convergent at the call site: the result does not depend on the
//!   arguments, which are observed);
//! - the moved operand of a modelled operation that only moves a value
//!   between threads or passes it through (a shuffle's or `readlane`'s
//!   value, `readfirstlane`, `subgroupBroadcastFirst`, `writelane`'s
//!   value and old value, `set.inactive`, `wwm`; `moved_operands`), with
//!   an integer result, which joins the slice: the result is a copy of
//!   one member's operand, or poison, or UB, chosen by the other operands
//!   (not in the slice), the set and the geometry alone;
//! - an argument of a direct call of an *uninterpreted* function (a *key
//!   use*): a pure or uniform unknown function (P-INPUT) or an unknown
//!   convergent one (C-OPS), whose result is drawn once per key (callee,
//!   arguments, and the thread or the communicating set) and not computed
//!   from the arguments; the result does not join the slice;
//! - the kernel's returned value (how the thread ended, observed).
//!
//! Anything else (a branch or switch condition, a comparison, a select
//! condition, a division, a memory access, a lane or index operand or
//! any operand of a modelled operation that computes from it (ballot,
//! vote, reduction, match, compare-ballot, lane permutation), `freeze`,
//! a vector operation) makes the parameter not data.
//!
//! **The argument.** Run a launch whose data inputs are symbols
//! (`Val::Sym(Input(slot))`, one slot per data parameter and thread, or per
//! parameter when it is uniform): the allowed operations build symbolic
//! terms ([`Sym`]) in place of values, and every other value is computed
//! exactly as in a concrete launch, because no step other than the allowed
//! ones reads a slice value (a move reads only its other operands, the
//! set and the geometry to choose whose copy it returns, so its result is
//! that member's term, and evaluated at `d` the concrete move's result).
//! By induction over the steps of any sequence
//! of choices: the concrete launch with data inputs `d` makes the same
//! choices available and takes the same steps, every one of its values
//! is the symbolic value evaluated at `d` ([`eval`] applies the integer
//! semantics of `value::binary` and `ops::int_cast` that the concrete
//! steps apply, poison operands included), and so its record (traces,
//! sets, results, ends, observations, memory) is the symbolic record with
//! every symbol evaluated at `d` ([`instances`]). Memoization compares
//! symbolic states: equal symbolic states have equal evaluations at every
//! `d`, so the set of behaviours is the union over the executions found
//! of their instances at every `d`. An instance depends only on the slots
//! its record shows; the others take the domain's first value (so that
//! the printed inputs are a real launch's), and the slots shown are
//! enumerated over the domain: the behaviours are exactly those of the
//! plain enumeration (`semantics/tests/interp_reduce.rs`,
//! `reduced_equals_plain_on_data_kernels`).
//!
//! **Key uses.** A symbolic argument makes the search's keys symbolic:
//! the tables of uninterpreted functions (`Machine::memo`, `conv`) hold
//! terms, two keys are the same entry when their terms are equal, and
//! every entry draws its result over the domain. A concrete launch `d`
//! keys its tables by the terms' values, so two entries whose terms
//! differ but evaluate equal at `d` are one entry there, with one result.
//! Take any execution of launch `d` and the symbolic execution with the
//! same choices, each symbolic entry drawing the result its value drew at
//! `d` (the search enumerates every draw per entry, so it runs this one):
//! by the induction above its record is the concrete one at `d`, and `d`
//! gives different values to the keys of every two entries of one
//! function with different results. Conversely, an instance at `d` of a
//! symbolic execution in which every such pair of keys differs at `d` is
//! an execution of `d`: its entries are then distinct at `d` as at the
//! symbols, so every step reads the same result. So an instance is kept
//! exactly when its assignment separates those pairs
//! ([`key_constraints`]); slots that only keys show are not enumerated,
//! an assignment that separates the pairs is searched for instead (the
//! instance's printed launch), and the record is dropped when there is
//! none. Memoization keeps every entry of the convergent table while one
//! is symbolic (entries of ended threads included, `reduce::conv`).
//!
//! **Drawn results.** An uninterpreted function is *drawn* when every
//! direct call of it is a pure, uniform or unknown convergent call with an
//! integer result whose forward slice is data, as above (key uses
//! included; `drawn_callees`). A new entry of its table then gets no
//! chosen result but a symbol, [`Sym::Drawn`], named by the digest of the
//! entry's key ([`draw`]): the same entry has the same name in whatever
//! schedule made it, so memoization still meets equal states (named by
//! position, the names followed the order entries were made in and
//! cl19-anchor-sink-all.src at 4 threads explored 375 executions for 75).
//! The argument is that of key uses with the result as one more unknown:
//! no step other than the data ones reads a drawn value, so the symbolic
//! execution with the same choices takes the same steps as a concrete
//! execution of launch `d` that drew results `r` per concrete entry; give
//! each symbolic entry the result its key's value drew at `d` (entries
//! whose keys are equal at `d` are one concrete entry, so they get equal
//! values) and the record evaluates to the concrete one. Conversely an
//! assignment of the inputs and the drawn symbols under which every two
//! entries of one function have different keys or equal results is such
//! a `(d, r)`: the entries equal at `d` agree on one result. So an
//! instance is kept exactly when every pair of entries of one function
//! with a symbolic key and results that are not the same term holds
//! (`holds`: keys differ, or results are equal; two concrete results
//! that differ leave "keys differ", the key-use constraint). The names are
//! replaced by slots after the inputs' before the instances are made
//! (`KeyConstraints::relabel`; a slot ranges over its width's domain,
//! as a chosen result does), and a drawn symbol only the keys show is
//! solved for, as an input slot is. A digest names an entry as the
//! fingerprints name states: two keys share a name with probability
//! about 2^-128. M-RENAME leaves drawn results out of its classes (a
//! symbol is not a domain value); the driver uses drawn results when
//! every function whose results were renamed is renamed or drawn.
//!
//! Terms are bounded ([`MAX_TERM`] nodes as a tree): past it the search
//! stops with [`TOO_LARGE`] and the driver searches again with every input
//! concrete, which is the plain semantics.
//!
//! Used when the search reduces (`--no-reduce` runs every launch
//! concretely; it is the oracle), with the renamings of the other inputs
//! (M-RENAME, which leaves data inputs and every value computed from them
//! unrenamed: they are not domain values in the search): the sorted
//! launches or orbit representatives then range over the other inputs. Every full launch `(c, d)`
//! has a renaming `σ` that sorts `c`; the search ran `σc` with symbols
//! and instantiated it at every data value, `σd` among them, so it found
//! the behaviours of `σ(c, d)`, and the closure under renaming (which
//! reads the instantiated records) adds those of `(c, d)`. Memoization up
//! to renaming threads stays exact: a symbol is a name for an unknown
//! value, not for its thread, so a state with its threads renamed and its
//! symbols kept has the renamed instances. Value renamings (M-RENAME
//! opaque classes, lane values) act on values no symbol reaches, and
//! commute with instantiating symbols, by the same argument with a
//! renaming `ρ` of those values in place of `σ`.

use std::collections::HashMap;
use std::sync::Arc;

use crate::ir::{BinOp, CastOp, Function, InstKind, Operand, TermKind, Type, ValueId};

use super::launch::{Execution, ThreadBody};
use super::program::{CalleeKind, Program};
use super::state::{Observation, ThreadEnd};
use super::value::{Arith, Val};
use super::Options;

/// A symbolic data value (M-DATA): a data input, or an integer operation
/// applied to operands of which at least one is symbolic.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sym {
    /// Data input slot `k` ([`Data::slot`]).
    Input(u32),
    /// An integer binary operation at width `bits` with its flags.
    Bin {
        /// Nodes of the term as a tree ([`size`]).
        size: u32,
        op: BinOp,
        flags: Vec<String>,
        bits: u32,
        a: Val,
        b: Val,
    },
    /// A drawn result (M-DATA drawn results) of width `bits`, named by a
    /// digest of its table entry's key (callee, arguments, thread or
    /// communicating set), so that the same entry gets the same name in
    /// every schedule. Replaced by a slot ([`Sym::Input`]) before
    /// instances are made (`KeyConstraints::relabel`).
    Drawn { bits: u32, name: u128 },
    /// `trunc`, `zext` or `sext` from `from` bits to `to` bits.
    Cast {
        size: u32,
        op: CastOp,
        flags: Vec<String>,
        from: u32,
        to: u32,
        v: Val,
    },
}

/// A symbolic value.
pub fn sym(s: Sym) -> Val {
    Val::Sym(Arc::new(s))
}

/// The most nodes a term may have as a tree: hashing, comparing and
/// evaluating a term walk its tree (shared subterms once per use), so a
/// chain of 200,000 additions or a loop doubling a value would cost time
/// quadratic or exponential in the steps, and recursion as deep as the
/// term. A launch whose terms grow past it runs concretely instead
/// ([`TOO_LARGE`]).
pub const MAX_TERM: u32 = 1024;

/// The `construct` of the error that stops a symbolic search whose terms
/// grew past [`MAX_TERM`]; the driver then searches again with every
/// input launched concretely.
pub const TOO_LARGE: &str = "M-DATA term larger than its bound";

/// Nodes of `v`'s term as a tree (1 for a concrete value or an input).
pub fn size(v: &Val) -> u32 {
    match v {
        Val::Sym(s) => match &**s {
            Sym::Input(_) | Sym::Drawn { .. } => 1,
            Sym::Bin { size, .. } | Sym::Cast { size, .. } => *size,
        },
        _ => 1,
    }
}

/// `op` applied to `a` and `b` (at least one symbolic) as a term, or
/// `None` past [`MAX_TERM`].
pub fn bin(op: BinOp, flags: &[String], bits: u32, a: Val, b: Val) -> Option<Val> {
    let size = 1 + size(&a).saturating_add(size(&b));
    (size <= MAX_TERM).then(|| {
        sym(Sym::Bin {
            size,
            op,
            flags: flags.to_vec(),
            bits,
            a,
            b,
        })
    })
}

/// A cast of symbolic `v` as a term, or `None` past [`MAX_TERM`].
pub fn cast(op: CastOp, flags: &[String], from: u32, to: u32, v: Val) -> Option<Val> {
    let size = 1 + size(&v);
    (size <= MAX_TERM).then(|| {
        sym(Sym::Cast {
            size,
            op,
            flags: flags.to_vec(),
            from,
            to,
            v,
        })
    })
}

/// Whether `v` is symbolic.
pub fn is_sym(v: &Val) -> bool {
    matches!(v, Val::Sym(_))
}

/// The data inputs of a launch (M-DATA).
#[derive(Clone, Debug, Default)]
pub struct Data {
    /// Per data parameter: its index among the kernel's parameters, its
    /// name, its width, and whether it is uniform (one value for every
    /// thread).
    pub params: Vec<(usize, String, u32, bool)>,
    /// Threads in the launch.
    pub threads: usize,
    /// Whether a data value may be the argument of an uninterpreted
    /// function (a key use): the search then hands every record's keys
    /// ([`key_constraints`]) to [`instances`].
    pub keys: bool,
    /// Uninterpreted functions whose results are drawn as symbols (M-DATA
    /// drawn results): every call site's result feeds data only. Each new
    /// entry of their tables gets a symbol named by its key ([`draw`]),
    /// given a slot after the inputs' when the record's instances are
    /// made ([`key_constraints`]).
    pub draws: std::collections::BTreeSet<String>,
}

impl Data {
    /// No data inputs.
    pub fn none() -> Data {
        Data::default()
    }

    /// Whether anything runs as a symbol: data inputs or drawn results.
    pub fn any(&self) -> bool {
        !self.params.is_empty() || !self.draws.is_empty()
    }

    /// The slots of the data inputs; drawn results take the slots after.
    pub fn input_slots(&self) -> usize {
        self.params.len() * self.threads
    }

    /// The slot of data parameter `k` (its position in `params`) in thread
    /// `t`.
    pub fn slot(&self, k: usize, t: usize) -> u32 {
        let uniform = self.params[k].3;
        (k * self.threads + if uniform { 0 } else { t }) as u32
    }

    /// Whether kernel parameter `p` is a data input; its position in
    /// `params`.
    pub fn position(&self, p: usize) -> Option<usize> {
        self.params.iter().position(|(i, ..)| *i == p)
    }

    /// For the counts line: the data inputs by name, then the functions
    /// whose results are drawn as symbols.
    pub fn describe(&self) -> String {
        let names: Vec<String> = self
            .params
            .iter()
            .map(|(_, n, ..)| format!("%{n}"))
            .chain(self.draws.iter().map(|c| format!("results of @{c}")))
            .collect();
        names.join(", ")
    }
}

/// The data inputs of the kernel among `enumerated` (indices of its
/// enumerated parameters, with whether each is uniform): the integer ones
/// whose forward slice meets only the uses of the module documentation,
/// key uses among them when `keys`.
pub fn analyse(
    prog: &Program,
    opts: &Options,
    enumerated: &[(usize, bool)],
    keys_allowed: bool,
    draws_allowed: bool,
) -> Data {
    let kf = prog.func(prog.kernel);
    let mut params = Vec::new();
    // An empty domain launches nothing (the CLI refuses it).
    let enumerated = if opts.int_domain.is_empty() {
        &[][..]
    } else {
        enumerated
    };
    // The users of each value, per function reached, shared by the slices.
    let mut uses: HashMap<usize, Users> = HashMap::new();
    let mut keys = false;
    for &(p, uniform) in enumerated {
        let param = &kf.params[p];
        let (Type::Int(bits), Some(v)) = (&param.ty, param.value) else {
            continue;
        };
        if !int_ty(&param.ty) {
            continue;
        }
        let mut keyed = false;
        if slice_is_data(prog, &mut uses, prog.kernel, v, &mut keyed) && (keys_allowed || !keyed) {
            params.push((p, kf.value(v).name.to_string(), *bits, uniform));
            keys |= keyed;
        }
    }
    let draws = if draws_allowed && !opts.int_domain.is_empty() {
        drawn_callees(prog, &mut uses)
    } else {
        Default::default()
    };
    Data {
        params,
        threads: opts.threads as usize,
        keys: keys || !draws.is_empty(),
        draws,
    }
}

/// The uninterpreted functions whose results may be drawn as symbols
/// (M-DATA drawn results): called only directly, each call site a pure,
/// uniform or unknown convergent call (P-INPUT, C-OPS) of integer result
/// whose forward slice is data (key uses allowed). (Indirect calls have a
/// table of their own, `<indirect>`, never drawn.)
fn drawn_callees(
    prog: &Program,
    uses: &mut HashMap<usize, Users>,
) -> std::collections::BTreeSet<String> {
    let module = prog.module;
    // Per callee: whether every site so far qualifies.
    let mut ok: HashMap<&str, bool> = HashMap::new();
    let mut sites: Vec<(&str, usize, Option<ValueId>)> = Vec::new();
    for (h, hf) in module.functions.iter().enumerate() {
        if !hf.has_body() {
            continue;
        }
        for b in &hf.blocks {
            for inst in &b.insts {
                let InstKind::Call(c) = &inst.kind else {
                    continue;
                };
                let Some(name) = c.callee_name() else {
                    continue;
                };
                let kind = super::program::classify(module, c);
                let int_result = match &c.ty {
                    Type::Func(f) => int_ty(&f.ret),
                    t => int_ty(t),
                };
                let fine = int_result
                    && matches!(
                        kind,
                        CalleeKind::UnknownPure
                            | CalleeKind::UnknownUniform
                            | CalleeKind::UnknownConvergent
                    );
                *ok.entry(name).or_insert(true) &= fine;
                sites.push((name, h, inst.result));
            }
        }
    }
    let mut out = std::collections::BTreeSet::new();
    for (name, h, result) in &sites {
        if !ok[name] {
            continue;
        }
        if let Some(r) = result {
            let mut keyed = false;
            if !slice_is_data(prog, uses, *h, *r, &mut keyed) {
                ok.insert(name, false);
            }
        }
    }
    for (name, fine) in ok {
        if fine {
            out.insert(name.to_string());
        }
    }
    out
}

/// The symbol of a new entry of a drawn function's table (M-DATA drawn
/// results), `key` its key (`conv`: of the convergent table): named by
/// the key's digest, so that memoization sees the same symbol for the
/// same entry whatever the order the entries were made in.
pub fn draw<K: std::hash::Hash>(conv: bool, key: &K, ret_ty: &Type) -> Val {
    let bits = match ret_ty {
        Type::Int(b) => *b,
        _ => unreachable!("drawn_callees keeps integer results only"),
    };
    let mut f = super::reduce::Fp::new();
    f.add(&(conv, key));
    sym(Sym::Drawn {
        bits,
        name: f.finish(),
    })
}

/// An integer type the interpreter computes with (`i1` to `i128`; wider
/// ones are reported unsupported by the concrete steps, which a symbol
/// would skip).
fn int_ty(t: &Type) -> bool {
    matches!(t, Type::Int(b) if (1..=128).contains(b))
}

/// The instructions (block, index) and terminators (block, `None`) that
/// read each value of a function, each once.
type Users = HashMap<ValueId, Vec<(usize, Option<usize>)>>;

fn users_of(f: &Function) -> Users {
    let mut out: Users = HashMap::new();
    let mut note = |o: &Operand, at: (usize, Option<usize>)| {
        if let Operand::Local(x) = o {
            let list = out.entry(*x).or_default();
            if list.last() != Some(&at) {
                list.push(at);
            }
        }
    };
    for (bi, b) in f.blocks.iter().enumerate() {
        for (i, inst) in b.insts.iter().enumerate() {
            crate::uniformity::analysis::inst_operands(&inst.kind, |o| note(o, (bi, Some(i))));
        }
        match &b.term.kind {
            TermKind::CondBr { cond, .. } | TermKind::Switch { cond, .. } => note(cond, (bi, None)),
            TermKind::Ret(Some(r)) => note(&r.value, (bi, None)),
            _ => {}
        }
    }
    out
}

/// Whether every use of the forward slice of value `start` of function
/// `f` is allowed (M-DATA). The slice is walked through `uses`, the users
/// of each value per function reached, built once (linear in the
/// functions' size). `keyed` is set when a slice value is the argument of
/// an uninterpreted function (a key use).
fn slice_is_data(
    prog: &Program,
    uses: &mut HashMap<usize, Users>,
    f: usize,
    start: ValueId,
    keyed: &mut bool,
) -> bool {
    let module = prog.module;
    let mut slice: std::collections::HashSet<(usize, ValueId)> = Default::default();
    let mut returns: std::collections::HashSet<usize> = Default::default();
    let mut work: Vec<(usize, ValueId)> = vec![(f, start)];
    slice.insert((f, start));
    // A function whose returned value is in the slice: its call sites'
    // results join it.
    let mut ret_work: Vec<usize> = Vec::new();
    let is_local = |o: &Operand, v: ValueId| matches!(o, Operand::Local(x) if *x == v);
    loop {
        if let Some(g) = ret_work.pop() {
            // Every direct call of `g` in a defined function.
            for (h, hf) in module.functions.iter().enumerate() {
                if !hf.has_body() {
                    continue;
                }
                for b in &hf.blocks {
                    for inst in &b.insts {
                        if let InstKind::Call(c) = &inst.kind {
                            let callee = c.callee_name().and_then(|n| prog.by_name.get(n));
                            if callee == Some(&g) {
                                if let Some(r) = inst.result {
                                    if slice.insert((h, r)) {
                                        work.push((h, r));
                                    }
                                }
                            }
                        }
                    }
                }
            }
            continue;
        }
        let Some((g, v)) = work.pop() else { break };
        let gf: &Function = prog.func(g);
        let users = uses
            .entry(g)
            .or_insert_with(|| users_of(gf))
            .get(&v)
            .cloned()
            .unwrap_or_default();
        for (bi, at) in users {
            let b = &gf.blocks[bi];
            if let Some(i) = at {
                let inst = &b.insts[i];
                // `users_of` lists exactly the instructions that read `v`.
                let joins: Option<ValueId> = match &inst.kind {
                    InstKind::Binary { op, ty, .. } => {
                        let ok = int_ty(ty)
                            && matches!(
                                op,
                                BinOp::Add
                                    | BinOp::Sub
                                    | BinOp::Mul
                                    | BinOp::Shl
                                    | BinOp::LShr
                                    | BinOp::AShr
                                    | BinOp::And
                                    | BinOp::Or
                                    | BinOp::Xor
                            );
                        if !ok {
                            return false;
                        }
                        inst.result
                    }
                    InstKind::Cast { op, from, to, .. } => {
                        let ok = matches!(op, CastOp::Trunc | CastOp::ZExt | CastOp::SExt)
                            && int_ty(&from.ty)
                            && int_ty(to);
                        if !ok {
                            return false;
                        }
                        inst.result
                    }
                    InstKind::Phi { ty, .. } => {
                        if !int_ty(ty) {
                            return false;
                        }
                        inst.result
                    }
                    InstKind::Select { cond, on_true, .. } => {
                        if is_local(&cond.value, v) || !int_ty(&on_true.ty) {
                            return false;
                        }
                        inst.result
                    }
                    InstKind::Call(c) => {
                        let in_bundle = c
                            .bundles
                            .iter()
                            .flat_map(|b| &b.inputs)
                            .any(|o| is_local(&o.value, v));
                        if in_bundle || is_local(&c.callee, v) || c.callee_name().is_none() {
                            return false;
                        }
                        match super::program::classify(module, c) {
                            CalleeKind::Defined(h) => {
                                // A convergent callee too: its body is
                                // in the slice's reach like any other.
                                let hf = prog.func(h);
                                if hf.varargs {
                                    return false;
                                }
                                for (k, a) in c.args.iter().enumerate() {
                                    if !is_local(&a.value, v) {
                                        continue;
                                    }
                                    let Some(p) = hf.params.get(k) else {
                                        return false;
                                    };
                                    if !int_ty(&p.ty) {
                                        return false;
                                    }
                                    if let Some(pv) = p.value {
                                        if slice.insert((h, pv)) {
                                            work.push((h, pv));
                                        }
                                    }
                                }
                                None
                            }
                            CalleeKind::UnknownStream
                                if !super::program::is_dynamically_convergent_call(module, c) =>
                            {
                                None
                            }
                            // A key use: the result is drawn per key,
                            // not computed from the argument.
                            CalleeKind::UnknownPure
                            | CalleeKind::UnknownUniform
                            | CalleeKind::UnknownConvergent => {
                                *keyed = true;
                                None
                            }
                            // A move: the result is a member's copy of
                            // the operand (or poison, or UB, decided by
                            // the other operands and the set).
                            CalleeKind::Builtin(op) => {
                                let moved = moved_operands(op);
                                let only_moved = c.args.iter().enumerate().all(|(k, a)| {
                                    !is_local(&a.value, v) || moved.contains(&(k as u8))
                                });
                                let int_result = match &c.ty {
                                    Type::Func(f) => int_ty(&f.ret),
                                    t => int_ty(t),
                                };
                                if moved.is_empty() || !only_moved || !int_result {
                                    return false;
                                }
                                inst.result
                            }
                            _ => return false,
                        }
                    }
                    _ => return false,
                };
                if let Some(r) = joins {
                    if slice.insert((g, r)) {
                        work.push((g, r));
                    }
                }
            }
            if at.is_some() {
                continue;
            }
            match &b.term.kind {
                TermKind::CondBr { cond, .. } | TermKind::Switch { cond, .. }
                    if is_local(cond, v) =>
                {
                    return false;
                }
                TermKind::Ret(Some(r)) if is_local(&r.value, v) => {
                    if !int_ty(&r.ty) {
                        return false;
                    }
                    if g != prog.kernel && returns.insert(g) {
                        ret_work.push(g);
                    }
                }
                _ => {}
            }
        }
    }
    true
}

/// The operands a modelled operation only moves (M-DATA): its result is
/// one member's value of such an operand (C-OPS `subgroupShuffle`,
/// `readlane`, `readfirstlane`, `subgroupBroadcastFirst`; P-THREAD
/// `writelane`, `set.inactive`, `wwm`, `wqm`), or poison, or UB, and
/// which one is decided by the other operands (lane, index), the
/// communicating set and the geometry, never by the moved value
/// (`collective::in_set`, `read_lane`, `per_thread`). Empty for any
/// other operation.
fn moved_operands(op: crate::intrinsics::Op) -> Vec<u8> {
    use crate::intrinsics::Op;
    match op {
        Op::Shuffle { val, .. } | Op::Broadcast { val, .. } => vec![val],
        Op::First { arg } | Op::PassThrough { arg } => vec![arg],
        Op::WriteLane { val, old, .. } => vec![val, old],
        _ => Vec::new(),
    }
}

/// The value of `v` with data inputs `assign` (indexed by slot): symbols
/// evaluated by the integer semantics the concrete steps use.
pub fn eval(v: &Val, assign: &[Val]) -> Val {
    let Val::Sym(s) = v else { return v.clone() };
    match &**s {
        Sym::Input(k) => assign[*k as usize].clone(),
        Sym::Drawn { .. } => unreachable!("M-DATA: drawn results are relabelled to slots first"),
        Sym::Bin {
            op,
            flags,
            bits,
            a,
            b,
            ..
        } => match (eval(a, assign), eval(b, assign)) {
            (Val::Int { v: x, .. }, Val::Int { v: y, .. }) => {
                match super::value::binary(*op, flags, *bits, x, y) {
                    Arith::Val(r) => r,
                    // Division is not a data operation (the analysis).
                    Arith::Ub(_) => Val::Poison,
                }
            }
            _ => Val::Poison,
        },
        Sym::Cast {
            op,
            flags,
            from,
            to,
            v,
            ..
        } => match eval(v, assign) {
            Val::Int { v: x, .. } => super::ops::int_cast(*op, flags, *from, x, *to),
            _ => Val::Poison,
        },
    }
}

/// The slots a value shows.
fn slots_of(v: &Val, out: &mut Vec<u32>) {
    let Val::Sym(s) = v else { return };
    match &**s {
        Sym::Input(k) => out.push(*k),
        Sym::Drawn { .. } => unreachable!("M-DATA: drawn results are relabelled to slots first"),
        Sym::Bin { a, b, .. } => {
            slots_of(a, out);
            slots_of(b, out);
        }
        Sym::Cast { v, .. } => slots_of(v, out),
    }
}

/// The values of a record that may be symbolic and that its behaviour
/// shows: observed call arguments, convergent calls' results (drawn
/// results) and the threads' returned values.
fn record_values(e: &Execution) -> impl Iterator<Item = &Val> {
    e.threads.iter().flat_map(|th| {
        thread_values(th).chain(th.events.iter().filter_map(|ev| ev.result.as_ref()))
    })
}

/// Whether thread record `th` shows a symbol anywhere: in what its
/// behaviour shows, or in a convergent call's arguments (printed, not
/// compared).
fn thread_is_symbolic(th: &super::launch::ThreadBody) -> bool {
    symbolic_values(th).next().is_some()
}

/// Whether a convergent call of thread record `th` has a symbolic result
/// (its path digest then changes per instance).
fn results_symbolic(th: &super::launch::ThreadBody) -> bool {
    th.events
        .iter()
        .any(|ev| ev.result.as_ref().is_some_and(is_sym))
}

/// The values of thread record `th` that may be symbolic (as
/// [`record_values`]).
fn thread_values(th: &super::launch::ThreadBody) -> impl Iterator<Item = &Val> {
    let obs = th.observations.iter().flat_map(|o| match o {
        Observation::Call { args, .. } => args.iter(),
        Observation::Store { .. } => [].iter(),
    });
    let end = match &th.end {
        Some(ThreadEnd::Returned(v)) => Some(v),
        _ => None,
    };
    obs.chain(end)
}

/// The most argument pairs [`key_constraints`] keeps per record, and the
/// most assignments [`instances`] tries for the slots only keys show, per
/// instance: past either the search stops with [`TOO_LARGE`] (every input
/// concrete).
pub const MAX_KEY_WORK: usize = 1 << 16;

/// What the keys of an execution's uninterpreted functions demand of the
/// data inputs (M-DATA key uses): pairs of argument tuples of one
/// function (one callee at one thread, one uniform callee, or one
/// convergent callee over one communicating set) whose results are not
/// the same term, so that an instance is a real execution only where the
/// pair evaluates to different tuples or to equal results (drawn results
/// are symbols; two concrete results that differ make it "different
/// tuples"); at least one side's arguments are symbolic (two concrete
/// keys of one function are different keys).
#[derive(Clone, Debug, Default)]
pub struct KeyConstraints {
    /// Per pair: both argument tuples and both results.
    pairs: Vec<(Vec<Val>, Vec<Val>, Val, Val)>,
    /// Per pair: the slots its two sides show.
    slots: Vec<Vec<u32>>,
    /// The widths of the drawn results' slots, in slot order after the
    /// inputs'.
    draws: Vec<u32>,
    /// The slot of each drawn result, by name ([`Sym::Drawn`]).
    slot_of: HashMap<u128, u32>,
}

impl KeyConstraints {
    /// `v` with every drawn result replaced by its slot.
    fn relabel(&self, v: &Val) -> Val {
        let Val::Sym(s) = v else { return v.clone() };
        match &**s {
            Sym::Input(_) => v.clone(),
            Sym::Drawn { name, .. } => sym(Sym::Input(self.slot_of[name])),
            Sym::Bin {
                size,
                op,
                flags,
                bits,
                a,
                b,
            } => sym(Sym::Bin {
                size: *size,
                op: *op,
                flags: flags.clone(),
                bits: *bits,
                a: self.relabel(a),
                b: self.relabel(b),
            }),
            Sym::Cast {
                size,
                op,
                flags,
                from,
                to,
                v,
            } => sym(Sym::Cast {
                size: *size,
                op: *op,
                flags: flags.clone(),
                from: *from,
                to: *to,
                v: self.relabel(v),
            }),
        }
    }

    /// Execution `e` with every drawn result replaced by its slot.
    fn relabel_execution(&self, e: &Execution) -> Execution {
        let mut x = e.clone();
        for (th, out) in e.threads.iter().zip(x.threads.iter_mut()) {
            let vals: Vec<Val> = symbolic_values(th).map(|v| self.relabel(v)).collect();
            if !vals.is_empty() {
                write(th, out, &vals);
            }
        }
        x
    }
}

/// One uninterpreted function: its callee, the thread (per-thread pure
/// functions) or the communicating set's threads (convergent ones, then
/// `true`), none for uniform ones.
type FnId<'a> = (Option<&'a str>, Vec<u32>, bool);

/// [`instances`] passed [`MAX_KEY_WORK`] assignments for one instance.
#[derive(Debug)]
pub struct KeyWorkExceeded;

/// The key constraints of the machine's function tables (`memo`, `conv`),
/// or `None` past [`MAX_KEY_WORK`] pairs.
pub fn key_constraints(m: &super::state::Machine, data: &Data) -> Option<KeyConstraints> {
    // Slots for the drawn results: every one is a table entry's result.
    let mut draws = Vec::new();
    let mut slot_of: HashMap<u128, u32> = HashMap::new();
    for v in m.memo.values().chain(m.conv.values()) {
        if let Val::Sym(s) = v {
            if let Sym::Drawn { bits, name } = &**s {
                slot_of.insert(*name, (data.input_slots() + draws.len()) as u32);
                draws.push(*bits);
            }
        }
    }
    let mut keys = KeyConstraints {
        pairs: Vec::new(),
        slots: Vec::new(),
        draws,
        slot_of,
    };
    // Entries by function: (callee, thread) or (callee, set's threads).
    let mut by_fn: HashMap<FnId, Vec<(Vec<Val>, &Val)>> = HashMap::new();
    for (k, v) in m.memo.iter() {
        by_fn
            .entry((Some(k.callee.as_str()), k.tid.into_iter().collect(), false))
            .or_default()
            .push((k.args.clone(), v));
    }
    for (k, v) in m.conv.iter() {
        let tids = k.set.iter().map(|(t, _)| *t).collect();
        let args = k.set.iter().flat_map(|(_, a)| a.iter().cloned()).collect();
        by_fn
            .entry((k.callee.as_deref(), tids, true))
            .or_default()
            .push((args, v));
    }
    let mut pairs = Vec::new();
    let mut slots = Vec::new();
    for entries in by_fn.values() {
        if !entries.iter().any(|(a, _)| a.iter().any(is_sym)) {
            continue;
        }
        for (i, (a, ra)) in entries.iter().enumerate() {
            for (b, rb) in &entries[i + 1..] {
                let symbolic = a.iter().chain(b).any(is_sym);
                if symbolic && ra != rb {
                    if pairs.len() >= MAX_KEY_WORK {
                        return None;
                    }
                    let a: Vec<Val> = a.iter().map(|v| keys.relabel(v)).collect();
                    let b: Vec<Val> = b.iter().map(|v| keys.relabel(v)).collect();
                    let (ra, rb) = (keys.relabel(ra), keys.relabel(rb));
                    let mut shown = Vec::new();
                    for v in a.iter().chain(&b).chain([&ra, &rb]) {
                        slots_of(v, &mut shown);
                    }
                    slots.push(shown);
                    pairs.push((a, b, ra, rb));
                }
            }
        }
    }
    keys.pairs = pairs;
    keys.slots = slots;
    Some(keys)
}

/// Whether pair `i` of `keys` holds at `assign`: different argument
/// tuples, or equal results.
fn holds(keys: &KeyConstraints, i: usize, assign: &[Val]) -> bool {
    let (a, b, ra, rb) = &keys.pairs[i];
    differ(a, b, assign) || (is_sym(ra) || is_sym(rb)) && eval(ra, assign) == eval(rb, assign)
}

/// Whether the argument tuples `a` and `b` differ at `assign`.
fn differ(a: &[Val], b: &[Val], assign: &[Val]) -> bool {
    a.len() != b.len()
        || a.iter()
            .zip(b)
            .any(|(x, y)| eval(x, assign) != eval(y, assign))
}

/// Per depth d of [`solve`] (0: before any free slot is set, d: once
/// `free[d - 1]` is), the pairs of `keys` decided there: those whose last
/// free slot is `free[d - 1]`.
fn decided_at(keys: &KeyConstraints, free: &[u32]) -> Vec<Vec<usize>> {
    let mut at: Vec<Vec<usize>> = vec![Vec::new(); free.len() + 1];
    for (i, slots) in keys.slots.iter().enumerate() {
        let depth = slots
            .iter()
            .filter_map(|s| free.binary_search(s).ok())
            .max()
            .map_or(0, |d| d + 1);
        at[depth].push(i);
    }
    at
}

/// An assignment of the `free` slots (sorted, each over its domain) under
/// which every pair of `keys` differs, the other slots as in `assign`
/// (which receives the solution): depth-first, each pair checked once its
/// last free slot is set (`at`, [`decided_at`]). `Err` past `budget`
/// assignments tried.
fn solve(
    keys: &KeyConstraints,
    at: &[Vec<usize>],
    free: &[u32],
    domains: &[Vec<Val>],
    assign: &mut [Val],
    budget: &mut usize,
) -> Result<bool, KeyWorkExceeded> {
    let ok = |d: usize, assign: &[Val]| at[d].iter().all(|&i| holds(keys, i, assign));
    if !ok(0, assign) {
        return Ok(false);
    }
    // Odometer with backtracking: digits[d] is the value tried at free[d].
    let mut digits = vec![0usize; free.len()];
    let mut d = 0;
    loop {
        if d == free.len() {
            return Ok(true);
        }
        if digits[d] == domains[d].len() {
            // Exhausted at this depth: back up.
            digits[d] = 0;
            if d == 0 {
                return Ok(false);
            }
            d -= 1;
            digits[d] += 1;
            continue;
        }
        if *budget == 0 {
            return Err(KeyWorkExceeded);
        }
        *budget -= 1;
        assign[free[d] as usize] = domains[d][digits[d]].clone();
        if ok(d + 1, assign) {
            d += 1;
        } else {
            digits[d] += 1;
        }
    }
}

/// The instances of symbolic record `e` (M-DATA): one per assignment of
/// the domain to the slots it shows, the others at the domain's first
/// value, with the printed inputs those of the instance; `emit` receives
/// each with its behaviour digest and returns `false` to stop (then
/// `Ok(false)`).
///
/// Key uses ([`KeyConstraints`], `keys`): slots that only the keys of
/// uninterpreted functions show are not enumerated; an assignment of the
/// shown slots gives an instance when some assignment of those slots
/// makes every constrained pair hold (that assignment is the instance's
/// launch), and none otherwise. `Err` when that search passed
/// [`MAX_KEY_WORK`] assignments for one instance.
///
/// An instance differs from `e` only in the observed values and ends of
/// the threads that show a symbol, so the digest's other parts (paths,
/// converged-with classes, sets, the other threads) are computed once
/// per record and only those threads are digested again per instance.
pub fn instances(
    e: &Execution,
    keys: &KeyConstraints,
    data: &Data,
    opts: &Options,
    emit: &mut dyn FnMut(u128, &mut dyn FnMut() -> Execution) -> bool,
) -> Result<bool, KeyWorkExceeded> {
    let relabelled;
    let e = if keys.slot_of.is_empty() {
        e
    } else {
        relabelled = keys.relabel_execution(e);
        &relabelled
    };
    let symbolic: Vec<usize> = e
        .threads
        .iter()
        .enumerate()
        .filter(|(_, th)| thread_is_symbolic(th))
        .map(|(t, _)| t)
        .collect();
    // Threads whose path digest changes per instance (drawn results of
    // their convergent calls).
    let repath: Vec<bool> = e.threads.iter().map(|th| results_symbolic(th)).collect();
    let mut parts = super::launch::DigestParts::new(e);
    let mut shown = Vec::new();
    for v in record_values(e) {
        slots_of(v, &mut shown);
    }
    shown.sort_unstable();
    shown.dedup();
    let mut free: Vec<u32> = keys.slots.iter().flatten().copied().collect();
    free.sort_unstable();
    free.dedup();
    free.retain(|s| shown.binary_search(s).is_err());
    // A slot's domain: its data input's, or its drawn result's.
    let base = data.input_slots();
    let domain = |s: usize| -> Vec<Val> {
        let bits = if s < base {
            data.params[s / data.threads].2
        } else {
            keys.draws[s - base]
        };
        super::symmetry::domain(&Type::Int(bits), opts)
    };
    let n_slots = base + keys.draws.len();
    let mut assign: Vec<Val> = (0..n_slots).map(|s| domain(s)[0].clone()).collect();
    let domains: Vec<Vec<Val>> = shown.iter().map(|s| domain(*s as usize)).collect();
    let free_domains: Vec<Vec<Val>> = free.iter().map(|s| domain(*s as usize)).collect();
    let at = decided_at(keys, &free);
    // Per symbolic thread, a copy of its body whose symbolic values are
    // overwritten by each instance's (evaluated from the record's), so
    // that an instance is digested without building it, and built only
    // when the digest is new.
    let mut scratch: Vec<Scratch> = symbolic
        .iter()
        .map(|&t| {
            let mut body = (*e.threads[t].body).clone();
            Arc::make_mut(&mut body.events);
            Scratch {
                body,
                vals: Vec::new(),
                built: None,
            }
        })
        .collect();
    let mut vals = Vec::new();
    let mut digits = vec![0usize; shown.len()];
    loop {
        for (i, s) in shown.iter().enumerate() {
            assign[*s as usize] = domains[i][digits[i]].clone();
        }
        let real = keys.pairs.is_empty()
            || solve(
                keys,
                &at,
                &free,
                &free_domains,
                &mut assign,
                &mut MAX_KEY_WORK.clone(),
            )?;
        if real {
            for (k, &t) in symbolic.iter().enumerate() {
                // A thread whose values are those of the last instance
                // keeps its digest and its last built body.
                vals.clear();
                vals.extend(symbolic_values(&e.threads[t]).map(|v| eval(v, &assign)));
                let sc = &mut scratch[k];
                if sc.built.is_some() && vals == sc.vals {
                    continue;
                }
                write(&e.threads[t], &mut sc.body, &vals);
                std::mem::swap(&mut sc.vals, &mut vals);
                sc.built = None;
                parts.set_thread(t, &sc.body, repath[t]);
            }
            let mut build = || instance(e, &assign, &symbolic, &mut scratch);
            if !emit(parts.digest(&e.outcome, None), &mut build) {
                return Ok(false);
            }
        }
        // The next assignment (odometer, last slot fastest).
        let mut i = shown.len();
        loop {
            if i == 0 {
                return Ok(true);
            }
            i -= 1;
            digits[i] += 1;
            if digits[i] < domains[i].len() {
                break;
            }
            digits[i] = 0;
        }
    }
}

/// Per symbolic thread of a record, while its instances are made: a copy
/// of its body holding the current instance's values, those values
/// ([`symbolic_values`] order), and the body last built with them.
struct Scratch {
    body: ThreadBody,
    vals: Vec<Val>,
    built: Option<Arc<ThreadBody>>,
}

/// The symbolic values of thread record `th`, in the order [`write`]
/// writes them: observed calls' arguments and the returned value
/// ([`thread_values`]), then the convergent calls' arguments and results.
fn symbolic_values(th: &ThreadBody) -> impl Iterator<Item = &Val> {
    let events = th
        .events
        .iter()
        .flat_map(|ev| ev.args.iter().chain(&ev.result));
    thread_values(th).chain(events).filter(|v| is_sym(v))
}

/// Writes `vals` ([`symbolic_values`] of `th` evaluated) into `out`, a
/// copy of thread record `th`, each at the position of the value of `th`
/// it evaluates.
fn write(th: &ThreadBody, out: &mut ThreadBody, vals: &[Val]) {
    let mut next = vals.iter();
    let mut put = |v: &Val, w: &mut Val| {
        if is_sym(v) {
            *w = next
                .next()
                .expect("one value per symbolic position")
                .clone();
        }
    };
    for (o, w) in th.observations.iter().zip(out.observations.iter_mut()) {
        if let (Observation::Call { args, .. }, Observation::Call { args: wa, .. }) = (o, w) {
            for (a, x) in args.iter().zip(wa.iter_mut()) {
                put(a, x);
            }
        }
    }
    if let (Some(ThreadEnd::Returned(v)), Some(ThreadEnd::Returned(w))) = (&th.end, &mut out.end) {
        put(v, w);
    }
    if th
        .events
        .iter()
        .any(|ev| ev.args.iter().chain(&ev.result).any(is_sym))
    {
        let events = Arc::make_mut(&mut out.events);
        for (ev, w) in th.events.iter().zip(events.iter_mut()) {
            for (a, x) in ev.args.iter().zip(w.args.iter_mut()) {
                put(a, x);
            }
            if let (Some(r), Some(x)) = (&ev.result, &mut w.result) {
                put(r, x);
            }
        }
    }
}

/// `e` with every symbol evaluated at `assign`: the threads in `symbolic`
/// take their scratch bodies (built once per change of their values,
/// shared by the instances until the next), the inputs are evaluated.
fn instance(
    e: &Execution,
    assign: &[Val],
    symbolic: &[usize],
    scratch: &mut [Scratch],
) -> Execution {
    let mut x = e.clone();
    for (&t, sc) in symbolic.iter().zip(scratch.iter_mut()) {
        let body = sc
            .built
            .get_or_insert_with(|| Arc::new(sc.body.clone()))
            .clone();
        x.threads[t].body = body;
    }
    for (_, vals) in x.inputs.iter_mut() {
        for v in vals.iter_mut() {
            if is_sym(v) {
                *v = eval(v, assign);
            }
        }
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What M-DATA finds in kernel `@k` of module `text` launched in 2
    /// threads, every parameter a candidate, key uses allowed, drawn
    /// results when `draws`.
    fn analysed(text: &str, draws: bool) -> Data {
        let m = crate::parse_module("data.ll", text).unwrap_or_else(|e| panic!("{e}"));
        let opts = Options {
            entry: Some("k".into()),
            threads: 2,
            ..Options::default()
        };
        let kernel = super::super::launch::find_kernel(&m, &opts).expect("kernel");
        let prog = Program::new(&m, kernel);
        let candidates: Vec<(usize, bool)> = (0..prog.func(kernel).params.len())
            .map(|i| (i, false))
            .collect();
        analyse(&prog, &opts, &candidates, true, draws)
    }

    /// The data inputs M-DATA finds in kernel `@k` of `body` (declarations
    /// added), by name.
    fn data_of(body: &str) -> Vec<String> {
        let text = format!(
            "{body}\n\
             declare void @use(i32)\n\
             declare i32 @op(i32) convergent\n\
             declare i32 @pure(i32) memory(none)\n\
             declare i32 @uni(i32) memory(none) nodivergencesource\n\
             declare i32 @llvm.amdgcn.readfirstlane.i32(i32) convergent\n\
             declare i32 @llvm.amdgcn.readlane.i32(i32, i32) convergent\n\
             declare i32 @llvm.amdgcn.writelane.i32(i32, i32, i32) convergent\n\
             declare i32 @llvm.amdgcn.wave.reduce.umax.i32(i32, i32) convergent\n\
             declare i32 @subgroupShuffle(i32, i32) convergent\n\
             @g = global i32 0\n"
        );
        analysed(&text, false)
            .params
            .into_iter()
            .map(|(_, n, ..)| n)
            .collect()
    }

    /// M-DATA: arithmetic, casts, phis, select arms and defined calls into
    /// observed calls and returns keep an input data; an unused one is
    /// data too; an `i1` read by a branch is not.
    #[test]
    fn data_flows_are_found() {
        let k = "define i32 @k(i1 %c, i32 %a, i32 %b, i32 %u) {\n\
                 entry:\n\
                 \x20 %x = add nsw i32 %a, 1\n\
                 \x20 %t = trunc i32 %x to i8\n\
                 \x20 %z = sext i8 %t to i32\n\
                 \x20 br i1 %c, label %l, label %r\n\
                 l:\n\
                 \x20 %y = call i32 @f(i32 %b)\n\
                 \x20 br label %j\n\
                 r:\n\
                 \x20 br label %j\n\
                 j:\n\
                 \x20 %p = phi i32 [ %y, %l ], [ %z, %r ]\n\
                 \x20 %s = select i1 %c, i32 %p, i32 7\n\
                 \x20 call void @use(i32 %s)\n\
                 \x20 ret i32 %x\n\
                 }\n\
                 define i32 @f(i32 %q) {\n\
                 \x20 %w = shl i32 %q, 2\n\
                 \x20 ret i32 %w\n\
                 }";
        assert_eq!(data_of(k), ["a", "b", "u"]);
        for call in [
            // Key uses: the argument of a pure, a uniform or a convergent
            // unknown function (its result is drawn per key, not computed).
            "%q = call i32 @pure(i32 %a)",
            "%q = call i32 @op(i32 %a)",
            "%q = call i32 @uni(i32 %a)",
            // Moves: the value a modelled operation only copies between
            // threads; its result stays data (observed here).
            "%q = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %a)",
            "%q = call i32 @llvm.amdgcn.readlane.i32(i32 %a, i32 1)",
            "%q = call i32 @llvm.amdgcn.writelane.i32(i32 %a, i32 0, i32 %a)",
            "%q = call i32 @subgroupShuffle(i32 %a, i32 2)",
        ] {
            let k = format!(
                "define void @k(i32 %a) {{\nentry:\n  {call}\n  call void @use(i32 %q)\n  ret void\n}}"
            );
            assert_eq!(data_of(&k), ["a"], "{call}");
        }
        // Wider than the interpreter computes: launched concretely (and
        // reported unsupported there).
        let wide = "define void @k(i256 %w) {\nentry:\n  ret void\n}";
        assert!(data_of(wide).is_empty());
    }

    /// M-DATA drawn results: the functions whose every call site's result
    /// only feeds data (observed calls, keys, arithmetic, the returned
    /// value) are drawn; one site whose result meets a comparison keeps
    /// the function's results chosen, as does a stream function (its
    /// results are observed inputs, not keyed) or a result not an integer.
    #[test]
    fn drawn_results_are_found() {
        let drawn = |body: &str| -> Vec<String> {
            let text = format!(
                "define void @k(i32 %a) {{\nentry:\n{body}\n  ret void\n}}\n\
                 declare void @use(i32)\n\
                 declare i32 @stream(i32)\n\
                 declare i32 @op(i32) convergent\n\
                 declare i32 @pure(i32) memory(none)\n\
                 declare float @fpure(i32) memory(none)\n\
                 declare i32 @uni(i32) memory(none) nodivergencesource\n"
            );
            analysed(&text, true).draws.into_iter().collect()
        };
        assert_eq!(
            drawn(
                "  %p = call i32 @pure(i32 %a)\n  %q = call i32 @op(i32 %p)\n  \
                 %u = call i32 @uni(i32 %q)\n  %s = add i32 %u, 1\n  call void @use(i32 %s)"
            ),
            ["op", "pure", "uni"]
        );
        // One of two sites meets a comparison: not drawn.
        assert_eq!(
            drawn(
                "  %p = call i32 @pure(i32 %a)\n  call void @use(i32 %p)\n  \
                 %q = call i32 @pure(i32 1)\n  %c = icmp eq i32 %q, 0\n  \
                 br i1 %c, label %x, label %x\nx:"
            ),
            Vec::<String>::new()
        );
        // A stream function's result, a float result: not drawn.
        assert_eq!(
            drawn(
                "  %p = call i32 @stream(i32 %a)\n  call void @use(i32 %p)\n  \
                 %f = call float @fpure(i32 %a)"
            ),
            Vec::<String>::new()
        );
    }

    /// M-DATA: a comparison, a branch, a select condition, the operand of
    /// a modelled operation that computes from it (a reduction), a lane
    /// or index operand, a move whose result then meets a comparison, a
    /// division, a store, a freeze or a returned value of a helper that
    /// meets a branch make the input control.
    #[test]
    fn control_uses_are_refused() {
        let cases = [
            "%q = icmp eq i32 %a, 1\n  call void @use(i32 0)",
            "%q = trunc i32 %a to i1\n  br i1 %q, label %x, label %x\nx:",
            "%q = trunc i32 %a to i1\n  %s = select i1 %q, i32 1, i32 2",
            "%q = call i32 @llvm.amdgcn.wave.reduce.umax.i32(i32 %a, i32 0)",
            "%q = call i32 @llvm.amdgcn.readlane.i32(i32 5, i32 %a)",
            "%q = call i32 @subgroupShuffle(i32 %a, i32 %a)",
            "%q = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %a)\n  %r = icmp eq i32 %q, 0\n  call void @use(i32 0)",
            "%q = udiv i32 7, %a\n  call void @use(i32 %q)",
            "store i32 %a, ptr @g",
            "%q = freeze i32 %a\n  call void @use(i32 %q)",
            "%q = call i32 @f(i32 %a)\n  %r = icmp eq i32 %q, 0\n  call void @use(i32 0)",
        ];
        for body in cases {
            let k = format!(
                "define void @k(i32 %a) {{\nentry:\n  {body}\n  ret void\n}}\n\
                 define i32 @f(i32 %q) {{\n  %w = add i32 %q, 1\n  ret i32 %w\n}}"
            );
            assert!(data_of(&k).is_empty(), "{body}: %a is not data");
        }
    }
}
