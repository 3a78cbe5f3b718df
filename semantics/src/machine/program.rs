//! Static facts about the launched module that the machine consults while
//! running: callee classification (C-CONV, C-INTR, C-OPS, P-INPUT), cycle
//! hierarchies per function (D-MAX-ITER, D-HIER), and reachability used by
//! the scheduler to fire a communicating set only when no other thread can
//! still join it (M-OPER).

use std::collections::HashMap;

use crate::cfg::{Cfg, CycleInfo};
use crate::intrinsics::{self, Ctrl, Op};
use crate::ir::{Attr, BlockId, Call, Const, Function, InstKind, Module};

use super::state::Loc;

/// At most this many cycle hierarchies per function are explored (D-HIER).
pub const HIERARCHY_LIMIT: usize = 16;

/// What a call does, by callee.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CalleeKind {
    /// `llvm.experimental.convergence.entry` (D-ENTRY-LAUNCH, D-ENTRY-CALL).
    Entry,
    /// `llvm.experimental.convergence.anchor` (D-ANCHOR).
    Anchor,
    /// `llvm.experimental.convergence.loop` (D-LOOP).
    Loop,
    /// An operation of the intrinsic table with a model (C-OPS, P-LAUNCH,
    /// P-THREAD): collectives, thread-geometry reads, pure intrinsics.
    Builtin(Op),
    /// A function with a body.
    Defined(usize),
    /// A convergent function without a model (declared so, or a table row
    /// whose operation is uninterpreted): uninterpreted value of the
    /// communicating set (C-OPS).
    UnknownConvergent,
    /// A declared `readnone` / `memory(none)` function: uninterpreted
    /// function of (arguments, thread id) (P-INPUT).
    UnknownPure,
    /// A declared non-convergent function marked `nodivergencesource`
    /// (LangRef: "a call to this function is not a source of divergence"):
    /// uninterpreted function of the arguments alone, the same in every
    /// thread, so equal arguments give equal results (P-INPUT, U-SOUND).
    UnknownUniform,
    /// Any other declared function: result from the thread's input stream,
    /// the call is observable (P-INPUT, R-OBS).
    UnknownStream,
    /// An intrinsic without semantic effect here (`llvm.assume`,
    /// `llvm.lifetime.*`, `llvm.dbg.*`).
    Ignored,
}

impl CalleeKind {
    /// Whether the result depends on the communicating set, so that the
    /// thread must wait for the set to fire (M-OPER).
    pub fn needs_set(&self) -> bool {
        match self {
            CalleeKind::Builtin(op) => op.needs_set(),
            CalleeKind::UnknownConvergent => true,
            _ => false,
        }
    }
}

/// Classifies a callee through the intrinsic table (C-INTR, C-OPS,
/// P-INPUT). An OpenCL builtin the module defines runs its body; a name
/// without a model keeps the unknown-call treatment of its declaration.
pub fn classify(module: &Module, call: &Call) -> CalleeKind {
    // P-INPUT / C-OPS (issue 12 item 6): an indirect call is a call of an
    // unknown function whose callee pointer is one more argument
    // (`calls::exec_call`), classified by the call site's attributes.
    let Some(name) = call.callee_name() else {
        return if is_convergent_call(module, call) {
            CalleeKind::UnknownConvergent
        } else if is_readnone(module, &call.fn_attrs) {
            CalleeKind::UnknownPure
        } else {
            CalleeKind::UnknownStream
        };
    };
    let defined = module
        .functions
        .iter()
        .position(|f| f.name == name && f.has_body());
    if let Some(b) = intrinsics::lookup(name) {
        let mangled = b.row.form == intrinsics::Form::Mangled;
        match b.op {
            Op::Ctrl(Ctrl::Entry) => return CalleeKind::Entry,
            Op::Ctrl(Ctrl::Anchor) => return CalleeKind::Anchor,
            Op::Ctrl(Ctrl::Loop) => return CalleeKind::Loop,
            Op::Ignored => return CalleeKind::Ignored,
            // P-INPUT: `llvm.read_register` reads a register of the
            // environment: a vector register holds a value per thread, a
            // scalar one the same value in every thread (one wave per
            // launch without `--subgroup-size`), whatever its declaration.
            Op::Opaque if b.row.class == intrinsics::Class::ByRegister => {
                return if intrinsics::reads_vector_register(call) {
                    CalleeKind::UnknownPure
                } else {
                    CalleeKind::UnknownUniform
                };
            }
            Op::Opaque => {}
            _ if mangled && defined.is_some() => {}
            Op::Uninterpreted => return CalleeKind::UnknownConvergent,
            op => return CalleeKind::Builtin(op),
        }
    }
    if let Some(i) = defined {
        return CalleeKind::Defined(i);
    }
    if is_dynamically_convergent_call(module, call) || is_noduplicate_call(module, call) {
        return CalleeKind::UnknownConvergent;
    }
    if let Some(f) = module.function(name) {
        if module.has_attr(&f.fn_attrs, "nodivergencesource")
            || module.has_attr(&call.fn_attrs, "nodivergencesource")
        {
            return CalleeKind::UnknownUniform;
        }
        if is_readnone(module, &f.fn_attrs) || is_readnone(module, &call.fn_attrs) {
            return CalleeKind::UnknownPure;
        }
    }
    CalleeKind::UnknownStream
}

fn is_readnone(module: &Module, attrs: &[Attr]) -> bool {
    module.expand_attrs(attrs).iter().any(|a| match a {
        Attr::Word(w) => w == "readnone",
        Attr::Paren { name, args } => name == "memory" && args == "none",
        _ => false,
    })
}

/// The callees the interpreter treats as unknown functions (not modelled by
/// the intrinsic table, no body), each with how (issue 13: the output says
/// which calls were treated as unknown), in name order.
pub fn unknown_callees(module: &Module) -> Vec<(String, &'static str)> {
    unknown_callees_in(module, module.functions.iter().filter(|f| f.has_body()))
}

/// [`unknown_callees`] of the functions a run of `kernel` can execute: the
/// kernel and the defined functions it reaches through direct calls.
pub fn unknown_callees_from(module: &Module, kernel: &str) -> Vec<(String, &'static str)> {
    let mut seen: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
    let mut todo = vec![kernel];
    let mut reached = Vec::new();
    while let Some(name) = todo.pop() {
        let Some(f) = module.function(name).filter(|f| f.has_body()) else {
            continue;
        };
        if !seen.insert(&f.name) {
            continue;
        }
        reached.push(f);
        for inst in f.blocks.iter().flat_map(|b| &b.insts) {
            if let InstKind::Call(c) = &inst.kind {
                todo.extend(c.callee_name());
            }
        }
    }
    unknown_callees_in(module, reached.into_iter())
}

fn unknown_callees_in<'m>(
    module: &'m Module,
    functions: impl Iterator<Item = &'m crate::ir::Function>,
) -> Vec<(String, &'static str)> {
    let mut out = std::collections::BTreeMap::new();
    for f in functions {
        for b in &f.blocks {
            for inst in &b.insts {
                let InstKind::Call(c) = &inst.kind else {
                    continue;
                };
                if c.callee_name().is_some_and(intrinsics::is_register_read) {
                    continue; // modelled: a register read (P-INPUT)
                }
                if c.callee_name().is_some_and(super::access::is_mem_intrinsic) {
                    continue; // modelled: a byte loop (P-MEM-ACCESS)
                }
                if c.callee_name().is_some_and(|n| {
                    super::float::is_intrinsic(n) || super::vector::reduction(n).is_some()
                }) {
                    continue; // modelled: P-FLOAT, P-VEC-REDUCE (step rules)
                }
                let how = match classify(module, c) {
                    CalleeKind::UnknownConvergent => {
                        "convergent: a function of the communicating set"
                    }
                    CalleeKind::UnknownPure => "readnone: a function of (arguments, thread)",
                    CalleeKind::UnknownUniform => "nodivergencesource: a function of the arguments",
                    CalleeKind::UnknownStream => "the thread's input stream",
                    _ => continue,
                };
                let name = c.callee_name().unwrap_or("<indirect>").to_string();
                out.entry(name).or_insert(how);
            }
        }
    }
    out.into_iter().collect()
}

/// Rule R-CALL-NODUP: the callee or the call has `noduplicate` (LangRef:
/// calls may be moved but not duplicated, the attribute barriers carried
/// before `convergent`). An unknown `noduplicate` function is observed like
/// an unknown convergent one (C-OPS, R-OBS): with its communicating set,
/// so a duplicated call shows as changed sets. Not C-CONV: attribute
/// inference and the static rules do not read it.
pub fn is_noduplicate_call(module: &Module, call: &Call) -> bool {
    module.has_attr(&call.fn_attrs, "noduplicate")
        || call
            .callee_name()
            .and_then(|n| module.function(n))
            .is_some_and(|f| module.has_attr(&f.fn_attrs, "noduplicate"))
}

/// Rule C-CONV: the callee or the call has `convergent`, or the call has a
/// `"convergencectrl"` bundle. The convergent rows of the intrinsic table
/// are convergent by definition, whatever their declaration says.
pub fn is_convergent_call(module: &Module, call: &Call) -> bool {
    if call.convergence_bundles().next().is_some() || module.has_attr(&call.fn_attrs, "convergent")
    {
        return true;
    }
    let Some(name) = call.callee_name() else {
        return false;
    };
    if let Some(f) = module.function(name) {
        if module.has_attr(&f.fn_attrs, "convergent") {
            return true;
        }
    }
    intrinsics::lookup(name).is_some_and(|b| b.row.convergent)
}

/// D-CALL-NC: whether a call is convergent in the *dynamic* semantics
/// (the interpreter's scheduling and call classification). A direct call
/// is convergent exactly when its callee is: the declaration or
/// definition has the `convergent` attribute, or the intrinsic table's
/// row is convergent. A call site's `convergent` attribute or
/// `"convergencectrl"` bundle on a call of a known non-convergent function
/// does not make the call depend on its communicating set
/// (ConvergentOperations.rst, "Inferring non-convergence": such a call
/// "always results in a call to a non-convergent function"), so it is the
/// ordinary call of that function (P-INPUT for a declaration). Indirect
/// calls keep the call site's attributes (R-CALL-IND), as does a direct
/// call of a name the module does not declare. The static rule C-CONV
/// ([`is_convergent_call`], LLVM's `CallBase::isConvergent()`) is what
/// `verify` and `uniformity` use. The SMT encoding decides the same
/// independently (`checker::refine::callsem::classify_call`).
pub fn is_dynamically_convergent_call(module: &Module, call: &Call) -> bool {
    let Some(name) = call.callee_name() else {
        return is_convergent_call(module, call);
    };
    let Some(f) = module.function(name) else {
        return is_convergent_call(module, call);
    };
    module.has_attr(&f.fn_attrs, "convergent")
        || intrinsics::lookup(name).is_some_and(|b| b.row.convergent)
}

/// Static facts about one function.
#[derive(Clone, Debug)]
pub struct FuncInfo {
    pub cfg: Cfg,
    /// Every cycle hierarchy (D-HIER), LLVM's first.
    pub hierarchies: Vec<CycleInfo>,
    /// `headers[h][b]`: headers of the cycles of hierarchy `h` containing
    /// block `b`.
    pub headers: Vec<Vec<Vec<BlockId>>>,
    /// `is_header[h][b]`.
    pub is_header: Vec<Vec<bool>>,
    // Reachability between blocks is computed on demand
    // ([`FuncInfo::reachable_from`]), so the static facts stay linear in the
    // size of the function (issue 17 item 8: a block-by-block matrix made
    // `run` quadratic in the number of blocks).
}

impl FuncInfo {
    /// Blocks reachable from `b` along at least one edge (`b` itself only
    /// when it lies on a cycle), by depth-first search: time and memory
    /// linear in the size of the CFG.
    pub fn reachable_from(&self, b: BlockId) -> Vec<bool> {
        let mut seen = vec![false; self.cfg.len()];
        let mut stack: Vec<BlockId> = self.cfg.succs[b.0].to_vec();
        while let Some(c) = stack.pop() {
            if !seen[c.0] {
                seen[c.0] = true;
                stack.extend(self.cfg.succs[c.0].iter().copied());
            }
        }
        seen
    }
}

/// The launched module with its static facts.
#[derive(Clone, Debug)]
pub struct Program<'m> {
    pub module: &'m Module,
    /// Index of the kernel in `module.functions`.
    pub kernel: usize,
    /// Per function (empty info for declarations).
    pub funcs: Vec<Option<FuncInfo>>,
    /// `callees[f]`: the defined functions `f` calls directly (the call
    /// graph, linear in the number of call sites).
    pub callees: Vec<Vec<usize>>,
    /// Function index by name, for resolving callees.
    pub by_name: HashMap<String, usize>,
    /// Object id of each global (by name): 1 + its index; the instance a
    /// thread sees is [`super::memory::global_id`].
    pub globals: HashMap<String, u32>,
    /// The module's data layout (P-MEM-LAYOUT), or why it is not modelled.
    pub layout: Result<crate::ir::layout::DataLayout, crate::ir::layout::LayoutError>,
    /// The renamings the enumeration uses (M-RENAME): none until the
    /// driver analyses the launch ([`super::renaming::analyse`]).
    pub renaming: super::renaming::Renaming,
    /// The data inputs run as symbols (M-DATA): none until the driver
    /// analyses the launch ([`super::data::analyse`]).
    pub data: super::data::Data,
    /// Per call site met so far, what [`classify`] and
    /// [`is_dynamically_convergent_call`] say of it ([`Program::call`]).
    calls: std::cell::RefCell<rustc_hash::FxHashMap<Loc, CallFacts>>,
}

/// The static facts of one call site, functions of the module and the
/// call alone ([`Program::call`]).
#[derive(Clone, Debug)]
pub struct CallFacts {
    /// [`classify`].
    pub kind: CalleeKind,
    /// [`is_dynamically_convergent_call`].
    pub convergent: bool,
}

impl<'m> Program<'m> {
    pub fn new(module: &'m Module, kernel: usize) -> Program<'m> {
        let funcs: Vec<Option<FuncInfo>> = module
            .functions
            .iter()
            .map(|f| f.has_body().then(|| func_info(f)))
            .collect();
        let callees: Vec<Vec<usize>> = module
            .functions
            .iter()
            .map(|f| direct_callees(module, f))
            .collect();
        let by_name = module
            .functions
            .iter()
            .enumerate()
            .map(|(i, f)| (f.name.clone(), i))
            .collect();
        let globals = module
            .globals
            .iter()
            .enumerate()
            .map(|(i, g)| (g.name.clone(), i as u32 + 1))
            .collect();
        Program {
            module,
            kernel,
            funcs,
            callees,
            by_name,
            globals,
            layout: crate::ir::layout::DataLayout::of_module(module),
            renaming: super::renaming::Renaming::none("not analysed", 0),
            data: super::data::Data::none(),
            calls: Default::default(),
        }
    }

    /// [`classify`] and [`is_dynamically_convergent_call`] of the call
    /// `call` at `loc` (what the call does, C-OPS, P-INPUT; whether it
    /// waits for a set, C-CONV, M-OPER), computed once per call site: both read only the
    /// module, by the callee's name (a scan of the functions, the
    /// intrinsic table, attribute groups), and were a tenth of the
    /// instructions of a search that makes many calls
    /// (cl04-caller-merge.src at 4 threads).
    pub fn call(&self, loc: Loc, call: &Call) -> CallFacts {
        if let Some(f) = self.calls.borrow().get(&loc) {
            return f.clone();
        }
        let facts = CallFacts {
            kind: classify(self.module, call),
            convergent: is_dynamically_convergent_call(self.module, call),
        };
        self.calls.borrow_mut().insert(loc, facts.clone());
        facts
    }

    pub fn func(&self, f: usize) -> &'m Function {
        &self.module.functions[f]
    }

    pub fn info(&self, f: usize) -> &FuncInfo {
        self.funcs[f]
            .as_ref()
            .expect("only defined functions are executed")
    }

    /// Whether a thread whose frames will next execute the instructions
    /// `frames` (innermost first; outer frames at their return points) may
    /// later execute `target`. Over-approximates: used to decide that firing a
    /// set now cannot be invalidated by a late arrival (M-OPER).
    pub fn may_reach(&self, frames: &[Loc], target: Loc) -> bool {
        for at in frames {
            let info = self.info(at.func);
            let f = self.func(at.func);
            let reach = info.reachable_from(at.block);
            let blocks = std::iter::once(at.block)
                .chain(f.block_ids().filter(|c| reach[c.0] && *c != at.block));
            for b in blocks {
                let from = if b == at.block && !reach[b.0] {
                    at.index
                } else {
                    0
                };
                if at.func == target.func && b == target.block && target.index >= from {
                    return true;
                }
                for inst in &f.block(b).insts[from.min(f.block(b).insts.len())..] {
                    if let InstKind::Call(c) = &inst.kind {
                        if let Some(g) = c.callee_name().and_then(|n| self.by_name.get(n)) {
                            if self.may_enter(*g, target.func) {
                                return true;
                            }
                        }
                    }
                }
            }
        }
        false
    }

    /// Whether a call of `g` can (transitively) run code of defined function
    /// `target` (`g` itself included): a search of the call graph, linear
    /// in its size.
    pub fn may_enter(&self, g: usize, target: usize) -> bool {
        if !self.module.functions[g].has_body() {
            return false;
        }
        let mut seen = vec![false; self.callees.len()];
        let mut stack = vec![g];
        while let Some(f) = stack.pop() {
            if f == target {
                return true;
            }
            if !std::mem::replace(&mut seen[f], true) {
                stack.extend(self.callees[f].iter().copied());
            }
        }
        false
    }
}

fn direct_callees(module: &Module, f: &Function) -> Vec<usize> {
    let mut out = Vec::new();
    for b in &f.blocks {
        for inst in &b.insts {
            if let InstKind::Call(c) = &inst.kind {
                if let Some(Const::Global(name)) = c.callee.as_const() {
                    if let Some(g) = module
                        .functions
                        .iter()
                        .position(|x| &x.name == name && x.has_body())
                    {
                        out.push(g);
                    }
                }
            }
        }
    }
    out
}

fn func_info(f: &Function) -> FuncInfo {
    let cfg = Cfg::from_function(f);
    let n = cfg.len();
    let hierarchies = crate::cfg::all_hierarchies(&cfg, HIERARCHY_LIMIT);
    let mut headers = Vec::new();
    let mut is_header = Vec::new();
    for h in &hierarchies {
        let mut hs = vec![Vec::new(); n];
        let mut ih = vec![false; n];
        #[allow(clippy::needless_range_loop)] // b is a block number
        for b in 0..n {
            if b < h.block_count() && h.innermost(BlockId(b)).is_some() {
                hs[b] = h
                    .cycles_containing(BlockId(b))
                    .into_iter()
                    .map(|c| h.cycle(c).header())
                    .collect();
            }
        }
        for c in &h.cycles {
            ih[c.header().0] = true;
        }
        headers.push(hs);
        is_header.push(ih);
    }
    FuncInfo {
        cfg,
        hierarchies,
        headers,
        is_header,
    }
}

/// Every cycle hierarchy of `cfg` (D-HIER), LLVM's first, at most `limit`,
/// by brute force: the simple oracle kept beside `cfg::all_hierarchies`
/// (which the machine uses), cross-checked by a test (STYLE 13).
///
/// A hierarchy is what GenericCycleInfo computes for one DFS order; the
/// DFS visits successors in list order, so running [`CycleInfo::compute`]
/// on every permutation of the successor lists yields every hierarchy.
/// Reducible CFGs have exactly one hierarchy, so the enumeration runs only
/// when LLVM's hierarchy has an irreducible cycle, and tries at most
/// [`PERMUTATION_LIMIT`] orders.
pub fn hierarchies_by_permutation(cfg: &Cfg, limit: usize) -> Vec<CycleInfo> {
    let llvm = CycleInfo::compute(cfg);
    let mut out = vec![llvm.clone()];
    if llvm.cycles.iter().all(|c| c.is_reducible()) {
        return out;
    }
    let shape = |h: &CycleInfo| {
        let mut v: Vec<(BlockId, Vec<BlockId>)> = h
            .cycles
            .iter()
            .map(|c| {
                let mut b = c.blocks.clone();
                b.sort();
                (c.header(), b)
            })
            .collect();
        v.sort();
        v
    };
    let mut seen = vec![shape(&llvm)];
    let branching: Vec<usize> = (0..cfg.len()).filter(|b| cfg.succs[*b].len() > 1).collect();
    let mut tried = 0usize;
    // Odometer over the permutations of each branching block's successors.
    let mut perm_index = vec![0usize; branching.len()];
    loop {
        let mut c = cfg.clone();
        for (k, b) in branching.iter().enumerate() {
            c.succs[*b].copy_from_slice(&nth_permutation(&cfg.succs[*b], perm_index[k]));
        }
        let h = CycleInfo::compute(&c);
        let sh = shape(&h);
        if !seen.contains(&sh) {
            seen.push(sh);
            out.push(h);
            if out.len() >= limit {
                break;
            }
        }
        tried += 1;
        if tried >= PERMUTATION_LIMIT {
            break;
        }
        let mut k = 0;
        loop {
            if k == branching.len() {
                return out;
            }
            perm_index[k] += 1;
            if perm_index[k] < factorial(cfg.succs[branching[k]].len()) {
                break;
            }
            perm_index[k] = 0;
            k += 1;
        }
    }
    out
}

/// Most DFS orders tried when enumerating hierarchies.
pub const PERMUTATION_LIMIT: usize = 4096;

fn factorial(n: usize) -> usize {
    (1..=n).product::<usize>().max(1)
}

fn nth_permutation<T: Clone>(items: &[T], mut n: usize) -> Vec<T> {
    let mut pool: Vec<T> = items.to_vec();
    let mut out = Vec::with_capacity(items.len());
    while !pool.is_empty() {
        let f = factorial(pool.len() - 1);
        let i = (n / f).min(pool.len() - 1);
        n %= f;
        out.push(pool.remove(i));
    }
    out
}
