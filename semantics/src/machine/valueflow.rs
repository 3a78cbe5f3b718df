//! The value-flow graph of M-RENAME's analysis ([`super::renaming`]):
//! nodes are SSA values, each defined function's return value, and each
//! unknown callee's arguments and result; copies and equality comparisons
//! merge nodes (union-find), and each node collects what produces and what
//! uses it ([`Facts`]). [`super::renaming::analyse`] reads the merged
//! facts of each class to decide whether and how it is renamed; the rules
//! (which uses and producers a renaming keeps) are in that module's
//! documentation.

use std::collections::{BTreeSet, HashMap};

use crate::intrinsics::{Dim, Index, Op, Shfl, Vote};
use crate::ir::{Const, Function, ICmpPred, InstKind, Operand, TermKind, Type, ValueDef, ValueId};
use crate::uniformity::analysis::{operands_of, InstRef};

use super::program::{classify, CalleeKind, Program};
use super::state::Loc;
use super::{ArgValues, Options};

/// A node of the value-flow graph.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum Node {
    Value(usize, ValueId),
    /// The return value of a defined function.
    Ret(usize),
    /// Argument `k` of an unknown callee.
    Arg(String, usize),
    /// The results of an unknown callee.
    Res(String),
}

/// What is known of a node (merged over its class).
#[derive(Clone, Debug, Default)]
pub(super) struct Facts {
    /// Why the class cannot be renamed.
    pub(super) bad: Option<String>,
    pub(super) types: BTreeSet<String>,
    pub(super) bits: Option<u32>,
    pub(super) pins: BTreeSet<i128>,
    /// Relational comparisons with a constant: (predicate, constant,
    /// whether the constant is the left operand).
    pub(super) cuts: Vec<(ICmpPred, i128, bool)>,
    pub(super) lane_source: bool,
    pub(super) lane_sink: bool,
    /// An enumerated kernel argument or an unknown function's result.
    pub(super) domain_source: bool,
    /// An unknown function's result (chosen while running).
    pub(super) dynamic: bool,
    pub(super) name: Option<String>,
}

pub(super) struct Flow {
    pub(super) ids: HashMap<Node, usize>,
    parent: Vec<usize>,
    facts: Vec<Facts>,
}

impl Flow {
    fn node(&mut self, n: Node) -> usize {
        if let Some(i) = self.ids.get(&n) {
            return *i;
        }
        let i = self.parent.len();
        self.parent.push(i);
        self.facts.push(Facts::default());
        self.ids.insert(n, i);
        i
    }
    pub(super) fn find(&mut self, mut i: usize) -> usize {
        while self.parent[i] != i {
            self.parent[i] = self.parent[self.parent[i]];
            i = self.parent[i];
        }
        i
    }
    fn link(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            self.parent[a] = b;
        }
    }
    fn bad(&mut self, i: usize, why: impl FnOnce() -> String) {
        if self.facts[i].bad.is_none() {
            self.facts[i].bad = Some(why());
        }
    }
    fn ty(&mut self, i: usize, ty: &Type) {
        match ty {
            Type::Int(b) if *b > 1 => {
                self.facts[i].types.insert(format!("i{b}"));
                self.facts[i].bits = Some(*b);
            }
            other => {
                self.facts[i].types.insert(format!("{other:?}"));
                self.bad(i, || "not an integer wider than i1".into());
            }
        }
    }
}

/// The operation of a builtin with respect to lanes: whether renaming
/// threads with their lane values keeps its meaning.
fn lane_reading(op: Op, call: &crate::ir::Call, opts: &Options) -> Result<bool, String> {
    let dim = |d: Dim| match d {
        Dim::None => Some(0),
        Dim::Fixed(x) => Some(u32::from(x)),
        Dim::Arg(k) => call
            .args
            .get(k as usize)
            .and_then(|a| a.value.as_int())
            .map(|x| x as u32),
    };
    Ok(match op {
        // Kept by every renaming within group and subgroup.
        Op::Index(
            Index::GroupId
            | Index::LocalSize
            | Index::GlobalSize
            | Index::NumGroups
            | Index::SubgroupSize
            | Index::MaxSubgroupSize
            | Index::SubgroupId
            | Index::NumSubgroups,
            d,
        ) if dim(d).is_some() => false,
        Op::Index(Index::LocalId | Index::GlobalId, d) if dim(d).is_some_and(|d| d != 0) => false,
        // Lane values (one group, one subgroup: local id = global id =
        // lane = thread id).
        Op::Index(Index::LocalId | Index::GlobalId | Index::Lane, d) if dim(d).is_some() => {
            single_subgroup(opts)
                .map_err(|e| format!("{} {e}", call.callee_name().unwrap_or("an indirect call")))?;
            true
        }
        Op::Shuffle {
            mode: Shfl::Idx,
            scale: 1,
            ..
        }
        | Op::Broadcast { .. }
        | Op::WriteLane { .. } => {
            single_subgroup(opts)
                .map_err(|e| format!("{} {e}", call.callee_name().unwrap_or("an indirect call")))?;
            true
        }
        op if op.reads_lane() => {
            return Err(format!(
                "{} reads the order of lanes",
                call.callee_name().unwrap_or("an indirect call")
            ))
        }
        _ => false,
    })
}

fn single_subgroup(opts: &Options) -> Result<(), String> {
    let g = opts.geometry();
    if opts.groups > 1 || g.max_subgroup() < opts.threads {
        return Err("reads lane ids in a launch of several groups or subgroups".into());
    }
    Ok(())
}

/// What the walk over the module found.
pub(super) struct Walk {
    pub flow: Flow,
    /// The merged facts of each class, by its root node.
    pub merged: HashMap<usize, Facts>,
    /// Constant lane operands (fixed by every lane renaming).
    pub lane_pins: BTreeSet<i128>,
    /// Per call site: the nodes of its recorded arguments and its result.
    pub calls: Vec<(Loc, Vec<Option<usize>>, Option<usize>)>,
    /// Whether threads may be renamed (`Ok(true)`: with lane values), or
    /// why not.
    pub threads: Result<bool, String>,
}

/// Builds the value-flow graph of the module launched with `opts`.
pub(super) fn walk(prog: &Program, opts: &Options) -> Walk {
    let n = opts.threads;
    let module = prog.module;
    let kernel = prog.kernel;
    let kf = prog.func(kernel);
    // Threads: what stops renaming them at all.
    let mut threads: Result<bool, String> = Ok(false);
    if n <= 1 {
        threads = Err("one thread".into());
    } else if opts
        .args
        .values()
        .any(|a| matches!(a, ArgValues::PerThread(_)))
    {
        threads = Err("per-thread arguments are given".into());
    } else if let Some(why) = super::symmetry::memory(prog) {
        threads = Err(why);
    }
    let mut flow = Flow {
        ids: HashMap::new(),
        parent: Vec::new(),
        facts: Vec::new(),
    };
    let mut lane_pins: BTreeSet<i128> = BTreeSet::new();
    let mut calls: Vec<(Loc, Vec<Option<usize>>, Option<usize>)> = Vec::new();
    // M-DATA drawn results: symbols, not domain values.
    for c in &prog.data.draws {
        let r = flow.node(Node::Res(c.clone()));
        flow.bad(r, || "a result drawn as a symbol".into());
    }
    for (fi, f) in module.functions.iter().enumerate() {
        if !f.has_body() {
            continue;
        }
        // Producers.
        for (vi, info) in f.values.iter().enumerate() {
            let v = ValueId(vi);
            let i = flow.node(Node::Value(fi, v));
            flow.ty(i, &info.ty);
            flow.facts[i].name = Some(format!("%{}", info.name));
            match info.def {
                ValueDef::Arg(p) if fi == kernel => {
                    let given = opts.args.contains_key(&info.name.to_string());
                    if given {
                        flow.bad(i, || "given by --arg".into());
                    } else if prog.data.position(p).is_some() {
                        // M-DATA: a symbol, not a domain value.
                        flow.bad(i, || "a data input run as a symbol".into());
                    } else if kf.params.get(p).is_some_and(|p| p.value == Some(v)) {
                        flow.facts[i].domain_source = true;
                    }
                }
                ValueDef::Arg(_) => {} // linked with the call sites' arguments
                ValueDef::Inst { block, index } => {
                    let inst = &f.block(block).insts[index as usize];
                    produced(&mut flow, module, opts, i, &inst.kind);
                }
            }
        }
        // Uses.
        for b in f.block_ids() {
            let block = f.block(b);
            for (index, inst) in block.insts.iter().enumerate() {
                let loc = Loc {
                    func: fi,
                    block: b,
                    index,
                };
                if let InstKind::Call(c) = &inst.kind {
                    threads_and_call(module, opts, c, &mut threads);
                }
                let site = uses(
                    &mut flow,
                    prog,
                    fi,
                    f,
                    InstRef { block: b, index },
                    inst,
                    &mut lane_pins,
                );
                if let Some(s) = site {
                    calls.push((loc, s.0, s.1));
                }
            }
            let term = InstRef {
                block: b,
                index: block.insts.len(),
            };
            match &block.term.kind {
                TermKind::Switch { cond, cases, .. } => {
                    if let Some(v) = cond.as_local() {
                        let i = flow.node(Node::Value(fi, v));
                        for (c, _) in cases.iter() {
                            pin(&mut flow, i, c);
                        }
                    }
                }
                TermKind::Ret(Some(op)) => {
                    let r = flow.node(Node::Ret(fi));
                    flow.ty(r, &op.ty);
                    copy_into(&mut flow, fi, r, &op.value);
                }
                _ => {
                    for op in operands_of(f, term) {
                        if let Some(v) = op.as_local() {
                            let i = flow.node(Node::Value(fi, v));
                            flow.bad(i, || "a branch condition".into());
                        }
                    }
                }
            }
        }
    }
    // Merge the facts of each class.
    let len = flow.parent.len();
    let mut merged: HashMap<usize, Facts> = HashMap::new();
    for i in 0..len {
        let r = flow.find(i);
        let f = std::mem::take(&mut flow.facts[i]);
        let m = merged.entry(r).or_default();
        if m.bad.is_none() {
            m.bad = f.bad;
        }
        m.types.extend(f.types);
        m.bits = m.bits.or(f.bits);
        m.pins.extend(f.pins);
        m.cuts.extend(f.cuts);
        m.lane_source |= f.lane_source;
        m.lane_sink |= f.lane_sink;
        m.domain_source |= f.domain_source;
        m.dynamic |= f.dynamic;
        if m.name.is_none() {
            m.name = f.name;
        }
    }
    Walk {
        flow,
        merged,
        lane_pins,
        calls,
        threads,
    }
}

/// Pins constant `c` on node `i`'s class (`poison`/`undef` are fixed by
/// every renaming; other constants make the class unrenamable).
fn pin(flow: &mut Flow, i: usize, c: &Const) {
    match c {
        Const::Int { value, .. } => {
            flow.facts[i].pins.insert(*value);
        }
        Const::Poison | Const::Undef => {}
        other => flow.bad(i, || format!("meets the constant {other:?}")),
    }
}

/// `op` flows into node `into`: linked when local, pinned when constant.
fn copy_into(flow: &mut Flow, fi: usize, into: usize, op: &Operand) {
    match op {
        Operand::Local(v) => {
            let j = flow.node(Node::Value(fi, *v));
            flow.link(into, j);
        }
        Operand::Const(c) => pin(flow, into, c),
        Operand::Metadata(_) => flow.bad(into, || "metadata".into()),
    }
}

/// How node `i` (the result of `kind`) is produced.
fn produced(
    flow: &mut Flow,
    module: &crate::ir::Module,
    opts: &Options,
    i: usize,
    kind: &InstKind,
) {
    match kind {
        InstKind::Phi { .. } | InstKind::Select { .. } => {} // see `uses`
        // P-FLOAT, P-VEC-REDUCE: computed by the step rules, not chosen.
        InstKind::Call(c) if computed(c) => flow.bad(i, || "a computed intrinsic's result".into()),
        InstKind::Call(c) => match classify(module, c) {
            CalleeKind::Defined(g) => {
                let r = flow.node(Node::Ret(g));
                flow.link(i, r);
            }
            CalleeKind::UnknownConvergent
            | CalleeKind::UnknownPure
            | CalleeKind::UnknownUniform
            | CalleeKind::UnknownStream => match c.callee_name() {
                Some(name) => {
                    let r = flow.node(Node::Res(name.to_string()));
                    flow.facts[r].dynamic = true;
                    flow.facts[r].domain_source = true;
                    flow.link(i, r);
                }
                None => flow.bad(i, || "an indirect call's result".into()),
            },
            CalleeKind::Builtin(op) => match op {
                Op::Index(..) => match lane_reading(op, c, opts) {
                    Ok(true) => flow.facts[i].lane_source = true,
                    _ => flow.bad(i, || "a geometry read".into()),
                },
                Op::Shuffle { .. }
                | Op::Broadcast { .. }
                | Op::First { .. }
                | Op::PassThrough { .. }
                | Op::WriteLane { .. } => {} // copies, see `uses`
                _ => flow.bad(i, || format!("the result of {op:?}")),
            },
            _ => flow.bad(i, || "a call's result".into()),
        },
        other => {
            let what = format!("{other:?}");
            flow.bad(i, || what.chars().take(24).collect());
        }
    }
}

/// Whether `c` is computed by the step rules from its operands (the float
/// intrinsics of P-FLOAT, the vector reductions of P-VEC-REDUCE) although
/// its callee is a declaration that [`classify`] reads as unknown: its
/// result is not an opaque value, its operands are used by arithmetic.
fn computed(c: &crate::ir::Call) -> bool {
    c.callee_name()
        .is_some_and(|n| super::float::is_intrinsic(n) || super::vector::reduction(n).is_some())
}

/// Thread renaming and the call `c` (with or without a result): indirect
/// calls and builtins that read the order of lanes turn it off, lane-id
/// reads and shuffles by lane make it rename lane values (`Ok(true)`).
fn threads_and_call(
    module: &crate::ir::Module,
    opts: &Options,
    c: &crate::ir::Call,
    threads: &mut Result<bool, String>,
) {
    if c.callee_name().is_none() && threads.is_ok() {
        *threads = Err("makes an indirect call".into());
    }
    if let CalleeKind::Builtin(op) = classify(module, c) {
        match lane_reading(op, c, opts) {
            Ok(true) => {
                if let Ok(l) = threads {
                    *l = true;
                }
            }
            Ok(false) => {}
            Err(why) => {
                if threads.is_ok() {
                    *threads = Err(why);
                }
            }
        }
    }
}

/// The uses of values by `inst` (module documentation); returns, for a
/// call, the nodes of its recorded arguments and of its result.
#[allow(clippy::type_complexity)]
fn uses(
    flow: &mut Flow,
    prog: &Program,
    fi: usize,
    f: &Function,
    at: InstRef,
    inst: &crate::ir::Inst,
    lane_pins: &mut BTreeSet<i128>,
) -> Option<(Vec<Option<usize>>, Option<usize>)> {
    let module = prog.module;
    let res = inst.result.map(|v| flow.node(Node::Value(fi, v)));
    let local =
        |flow: &mut Flow, op: &Operand| op.as_local().map(|v| flow.node(Node::Value(fi, v)));
    let bad_all = |flow: &mut Flow, why: &str| {
        for op in operands_of(f, at) {
            if let Some(v) = op.as_local() {
                let j = flow.node(Node::Value(fi, v));
                flow.bad(j, || why.to_string());
            }
        }
    };
    match &inst.kind {
        InstKind::Phi { incoming, .. } => {
            let r = res.expect("a phi has a result");
            for (op, _) in incoming {
                copy_into(flow, fi, r, op);
            }
            None
        }
        InstKind::Select {
            cond,
            on_true,
            on_false,
            ..
        } => {
            let r = res.expect("a select has a result");
            copy_into(flow, fi, r, &on_true.value);
            copy_into(flow, fi, r, &on_false.value);
            if let Some(c) = local(flow, &cond.value) {
                flow.bad(c, || "a select condition".into());
            }
            None
        }
        InstKind::ICmp { pred, lhs, rhs, .. } => {
            match (local(flow, lhs), local(flow, rhs)) {
                (Some(a), Some(b)) if matches!(pred, ICmpPred::Eq | ICmpPred::Ne) => {
                    flow.link(a, b)
                }
                (Some(a), Some(b)) => {
                    flow.bad(a, || "an ordering comparison".into());
                    flow.bad(b, || "an ordering comparison".into());
                }
                (Some(a), None) | (None, Some(a)) => {
                    let (c, left) = match (lhs.as_int(), rhs.as_int()) {
                        (Some(c), _) => (Some(c), true),
                        (_, Some(c)) => (Some(c), false),
                        _ => (None, false),
                    };
                    match c {
                        Some(c) if matches!(pred, ICmpPred::Eq | ICmpPred::Ne) => {
                            flow.facts[a].pins.insert(c);
                        }
                        Some(c) => flow.facts[a].cuts.push((*pred, c, left)),
                        None => {
                            let other = if lhs.as_local().is_some() { rhs } else { lhs };
                            if !matches!(other.as_const(), Some(Const::Poison | Const::Undef)) {
                                flow.bad(a, || "compared with a non-integer".into());
                            }
                        }
                    }
                }
                (None, None) => {}
            }
            None
        }
        // Computed from its operands by the step rules (P-FLOAT,
        // P-VEC-REDUCE): arithmetic, no call event.
        InstKind::Call(c) if computed(c) => {
            bad_all(flow, "an operand of a computed intrinsic");
            None
        }
        InstKind::Call(c) => {
            let kind = classify(module, c);
            let arg_nodes: Vec<Option<usize>> =
                c.args.iter().map(|a| local(flow, &a.value)).collect();
            for b in &c.bundles {
                if b.tag != "convergencectrl" {
                    for x in &b.inputs {
                        if let Some(j) = local(flow, &x.value) {
                            flow.bad(j, || format!("a \"{}\" bundle operand", b.tag));
                        }
                    }
                }
            }
            let recorded = |args: Vec<Option<usize>>| {
                if c.callee_name().is_none() {
                    // The callee pointer is the first recorded argument.
                    std::iter::once(None).chain(args).collect()
                } else {
                    args
                }
            };
            match kind {
                CalleeKind::Defined(g) => {
                    let callee = prog.func(g);
                    for (k, a) in c.args.iter().enumerate() {
                        match callee.params.get(k).and_then(|p| p.value) {
                            Some(pv) => {
                                let p = flow.node(Node::Value(g, pv));
                                copy_into(flow, fi, p, &a.value);
                            }
                            None => {
                                if let Some(j) = local(flow, &a.value) {
                                    flow.bad(j, || "a variadic argument".into());
                                }
                            }
                        }
                    }
                }
                CalleeKind::UnknownConvergent
                | CalleeKind::UnknownPure
                | CalleeKind::UnknownUniform
                | CalleeKind::UnknownStream => match c.callee_name() {
                    Some(name) => {
                        for (k, a) in c.args.iter().enumerate() {
                            let s = flow.node(Node::Arg(name.to_string(), k));
                            flow.ty(s, &a.ty);
                            copy_into(flow, fi, s, &a.value);
                        }
                        if let Some(r) = res {
                            let s = flow.node(Node::Res(name.to_string()));
                            let ret = match &c.ty {
                                Type::Func(f) => f.ret.clone(),
                                t => t.clone(),
                            };
                            flow.ty(s, &ret);
                            flow.link(r, s);
                        }
                    }
                    None => bad_all(flow, "an indirect call's argument"),
                },
                CalleeKind::Builtin(op) => builtin(flow, fi, c, op, res, lane_pins),
                _ => bad_all(flow, "an argument of a control intrinsic"),
            }
            Some((recorded(arg_nodes), res))
        }
        _ => {
            bad_all(flow, "an operand of arithmetic, a cast or memory");
            None
        }
    }
}

/// The operands of builtin `op` (module documentation): copies into the
/// result, lane operands, equality-only operands; every other operand is
/// a use that no renaming keeps.
fn builtin(
    flow: &mut Flow,
    fi: usize,
    c: &crate::ir::Call,
    op: Op,
    res: Option<usize>,
    lane_pins: &mut BTreeSet<i128>,
) {
    let mut copies: Vec<u8> = Vec::new();
    let mut lanes: Vec<u8> = Vec::new();
    let mut equal: Vec<u8> = Vec::new();
    match op {
        Op::Shuffle {
            val,
            idx,
            mode: Shfl::Idx,
            scale: 1,
        } => {
            copies.push(val);
            lanes.push(idx);
        }
        Op::Shuffle { val, .. } | Op::First { arg: val } | Op::PassThrough { arg: val } => {
            copies.push(val)
        }
        Op::Broadcast { val, lane } => {
            copies.push(val);
            lanes.push(lane);
        }
        Op::WriteLane { val, lane, old } => {
            copies.extend([val, old]);
            lanes.push(lane);
        }
        Op::Vote {
            vote: Vote::Uni,
            arg,
        }
        | Op::MatchAny { arg } => equal.push(arg),
        _ => {}
    }
    for (k, a) in c.args.iter().enumerate() {
        let k8 = k as u8;
        let Some(v) = a.value.as_local() else {
            if lanes.contains(&k8) {
                // A poison lane is out of range before and after.
                if let Some(x) = a.value.as_int() {
                    lane_pins.insert(x);
                }
            }
            if copies.contains(&k8) {
                if let Some(r) = res {
                    if let Some(cst) = a.value.as_const() {
                        pin(flow, r, cst);
                    }
                }
            }
            continue;
        };
        let j = flow.node(Node::Value(fi, v));
        if copies.contains(&k8) {
            match res {
                Some(r) => flow.link(r, j),
                None => flow.bad(j, || "a copy without a result".into()),
            }
        } else if lanes.contains(&k8) {
            flow.facts[j].lane_sink = true;
        } else if !equal.contains(&k8) {
            flow.bad(j, || format!("an operand of {op:?}"));
        }
    }
}
