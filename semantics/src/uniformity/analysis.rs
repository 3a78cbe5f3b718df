//! The propagation engine of GenericUniformityImpl.h for one function:
//! divergence starts at the sources (rule U-SOURCE), flows from definitions
//! to users, from divergent branches to the phis of their join blocks
//! (U-BRANCH, U-PHI), from divergent cycle exits to uses outside the cycle
//! (U-EXIT), and to every definition of an irreducible cycle that fails the
//! diverged entry criterion (U-MCONV), until nothing changes (U-FIX).

use super::cfg_facts::{CycleFacts, JoinCycles};
use super::saturation::{Marks, Saturation};
use super::sources;
use super::sync::{DivergenceDescriptor, ExitFilter, JoinPropagator, ModifiedPostOrder};
use super::tables::{use_lists, PerInst, UseLists};
use super::Mode;
use crate::cfg::{Cfg, CycleId, CycleInfo, DomTree};
use crate::ir::{BlockId, Function, InstKind, Module, Operand, ValueDef, ValueId};

/// A static instruction: `index == insts.len()` is the block's terminator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InstRef {
    pub block: BlockId,
    pub index: usize,
}

/// Why an instruction was first marked divergent: the link `--explain`
/// follows (rules as named).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// Rule U-SOURCE: a divergence source.
    Source,
    /// Rule U-FIX: reads this divergent value (data dependence).
    Operand(ValueId),
    /// Rules U-BRANCH, U-PHI: a phi at `join`, a join of the divergent
    /// branch ending `branch`.
    Join { branch: BlockId, join: BlockId },
    /// Rule U-MCONV: defined in `cycle`, assumed divergent because the
    /// divergent branch ending `branch` joins at `join` inside it.
    AssumedCycle {
        cycle: CycleId,
        branch: BlockId,
        join: BlockId,
    },
    /// Rule U-SOUND (`--sound` only): defined in `cycle`, the outermost
    /// irreducible cycle around the divergent branch ending `branch` (F-23).
    IrreducibleRegion { cycle: CycleId, branch: BlockId },
    /// Rule U-EXIT: a phi at an exit of `cycle` reading a value of it; the
    /// cycle's divergent exit comes from the branch ending `branch`.
    ExitPhi { cycle: CycleId, branch: BlockId },
    /// Rules U-EXIT, D-TEMPORAL: uses `def`, defined in `cycle`, outside it
    /// after the divergent exit from the branch ending `branch`.
    Temporal {
        def: InstRef,
        cycle: CycleId,
        branch: BlockId,
    },
}

/// No reason recorded: the instruction is uniform.
const NO_REASON: u32 = u32::MAX;

/// Every piece of state the analysis keeps (the members of LLVM's
/// `GenericUniformityAnalysisImpl`).
pub struct Analysis<'a> {
    pub module: &'a Module,
    pub func: &'a Function,
    pub cfg: &'a Cfg,
    pub dt: &'a DomTree,
    pub ci: &'a CycleInfo,
    /// Cycle membership and exits, computed once.
    pub facts: CycleFacts<'a>,
    /// The sync-dependence propagator: the modified post-order it walks
    /// and its reusable state.
    prop: JoinPropagator,
    /// Users of each value, one entry per use, in LLVM's use-list order.
    users: UseLists,
    /// Divergent arguments (rule U-SOURCE).
    pub div_args: Vec<bool>,
    /// Divergent non-terminator instructions, per block; an instruction
    /// without a result (a store) is marked too, as LLVM marks it.
    pub div_insts: PerInst<bool>,
    /// Blocks whose terminator is divergent (rule U-BRANCH).
    pub div_term: Vec<bool>,
    /// Why each instruction (the terminator last in its block) was first
    /// marked divergent: an index into `reasons` at its slot (`NO_REASON`
    /// while uniform). Slots number instructions and terminators in
    /// textual order, one allocation per table (issue 17 item 8); an
    /// instruction is marked once, so `reasons` holds one entry per
    /// divergent instruction (most are uniform on long functions).
    why: Vec<u32>,
    reasons: Vec<Reason>,
    /// Always-uniform instructions (rule U-SOURCE), never marked, at their
    /// slots.
    uniform_override: Vec<bool>,
    /// Divergent instructions whose consequences are not yet propagated,
    /// as (block, index) in 32 bits each (half an [`InstRef`]: the list
    /// holds up to a use of the thread id per block on long functions).
    worklist: Vec<(u32, u32)>,
    /// Cycles with a divergent exit (rule U-EXIT), in discovery order.
    pub divergent_exit_cycles: Vec<CycleId>,
    /// Cycles assumed divergent by the diverged entry criterion (U-MCONV).
    pub assumed_divergent: Vec<CycleId>,
    /// Membership flags of `assumed_divergent` and `divergent_exit_cycles`.
    is_assumed: Vec<bool>,
    /// Cycles inside an assumed-divergent cycle (reflexive): every
    /// definition in them is divergent already.
    covered: Vec<bool>,
    /// Join blocks whose phis were tainted (rule U-PHI) already: tainting
    /// again marks nothing, so later branches joining there skip it.
    phis_tainted: Vec<bool>,
    /// Each join's cycle ancestors and diverged-entry walks (U-MCONV),
    /// computed once per join block.
    join_cycles: JoinCycles,
    has_divergent_exit: Vec<bool>,
    /// (definition, user outside the cycle, cycle) triples (D-TEMPORAL).
    pub temporal: Vec<(InstRef, InstRef, CycleId)>,
    /// LLVM-compatible (U-LLVM) or sound against the interpreter (U-SOUND).
    pub mode: Mode,
    /// Which blocks a join can still change (issue 15).
    saturation: Saturation,
    /// Leave out the work that can change nothing (issue 15): the joins
    /// of branches whose reachable blocks are saturated (U-LLVM mode only)
    /// and the exits that [`ExitFilter`] drops. On by default; off, the
    /// analysis computes every join and exit, as LLVM does (the tests
    /// check that the results are identical).
    pub prune: bool,
    /// Divergent branches whose joins were left out by pruning.
    pub pruned_joins: usize,
}

impl<'a> Analysis<'a> {
    /// Sets up the LLVM-compatible analysis (rule U-LLVM) and marks the
    /// sources (LLVM's `initialize`).
    pub fn new(
        module: &'a Module,
        func: &'a Function,
        cfg: &'a Cfg,
        dt: &'a DomTree,
        ci: &'a CycleInfo,
    ) -> Analysis<'a> {
        Analysis::with_mode(module, func, cfg, dt, ci, Mode::Llvm)
    }

    /// Sets up the analysis in `mode` and marks the sources. Rule U-SOUND:
    /// in [`Mode::Sound`] a `nodivergencesource` call is not a source but
    /// is not always uniform either (its result depends on its operands).
    pub fn with_mode(
        module: &'a Module,
        func: &'a Function,
        cfg: &'a Cfg,
        dt: &'a DomTree,
        ci: &'a CycleInfo,
        mode: Mode,
    ) -> Analysis<'a> {
        Analysis::build(module, func, cfg, dt, ci, mode, true)
    }

    /// [`Analysis::with_mode`] without the reasons ([`Analysis::reason`]
    /// panics), as after [`Analysis::forget_reasons`], but without ever
    /// allocating their table (4 bytes an instruction and terminator, at the
    /// analysis' peak of memory on long functions).
    pub fn with_mode_no_reasons(
        module: &'a Module,
        func: &'a Function,
        cfg: &'a Cfg,
        dt: &'a DomTree,
        ci: &'a CycleInfo,
        mode: Mode,
    ) -> Analysis<'a> {
        Analysis::build(module, func, cfg, dt, ci, mode, false)
    }

    fn build(
        module: &'a Module,
        func: &'a Function,
        cfg: &'a Cfg,
        dt: &'a DomTree,
        ci: &'a CycleInfo,
        mode: Mode,
        reasons: bool,
    ) -> Analysis<'a> {
        let facts = CycleFacts::new(cfg, ci);
        let prop = JoinPropagator::new(&facts, &ModifiedPostOrder::compute_with(&facts));
        let users = use_lists(func);
        let div_insts = PerInst::new(func, false);
        let slots = func.blocks.len() + div_insts.first_of(func.blocks.len());
        let mut a = Analysis {
            module,
            func,
            cfg,
            dt,
            ci,
            facts,
            prop,
            users,
            div_args: vec![false; func.params.len()],
            div_insts,
            div_term: vec![false; func.blocks.len()],
            why: if reasons {
                vec![NO_REASON; slots]
            } else {
                Vec::new()
            },
            reasons: Vec::new(),
            uniform_override: vec![false; slots],
            worklist: Vec::new(),
            divergent_exit_cycles: Vec::new(),
            assumed_divergent: Vec::new(),
            is_assumed: vec![false; ci.cycles.len()],
            covered: vec![false; ci.cycles.len()],
            phis_tainted: vec![false; func.blocks.len()],
            join_cycles: JoinCycles::new(cfg.len()),
            has_divergent_exit: vec![false; ci.cycles.len()],
            temporal: Vec::new(),
            mode,
            saturation: Saturation::empty(),
            prune: true,
            pruned_joins: 0,
        };
        for b in func.block_ids() {
            for (i, inst) in func.block(b).insts.iter().enumerate() {
                let r = InstRef { block: b, index: i };
                if sources::is_source_of_divergence(module, inst) {
                    a.mark_divergent(r, Reason::Source);
                } else if sources::is_always_uniform(module, func, inst)
                    && !(mode == Mode::Sound && sources::uniform_only_by_attribute(module, inst))
                {
                    let s = a.slot(r);
                    a.uniform_override[s] = true;
                }
            }
        }
        for (i, p) in func.params.iter().enumerate() {
            if sources::is_divergent_arg(module, func, p) {
                a.div_args[i] = true;
            }
        }
        a.saturation = Saturation::new(&a.facts, func, |b, i| {
            let inst = &func.block(b).insts[i];
            let InstKind::Phi { incoming, .. } = &inst.kind else {
                return false;
            };
            !has_constant_or_undef_value(inst.result, incoming)
                && !a.uniform_override[a.slot(InstRef { block: b, index: i })]
        });
        a
    }

    /// The slot of `r` in the flat per-instruction tables.
    fn slot(&self, r: InstRef) -> usize {
        self.div_insts.first_of(r.block.0) + r.block.0 + r.index
    }

    /// Records why the instruction at slot `s` was marked (unless the
    /// reasons were given up).
    fn set_reason(&mut self, s: usize, why: Reason) {
        if self.why.is_empty() {
            return;
        }
        self.why[s] = u32::try_from(self.reasons.len())
            .expect("U-FIX: a function has fewer than 2^32 instructions");
        self.reasons.push(why);
    }

    fn is_terminator(&self, r: InstRef) -> bool {
        r.index == self.func.block(r.block).insts.len()
    }

    fn result_of(&self, r: InstRef) -> Option<ValueId> {
        if self.is_terminator(r) {
            return None;
        }
        self.func.block(r.block).insts[r.index].result
    }

    /// `markDivergent(Instruction)`: marks `r` unless it is always uniform,
    /// and queues it when that changed something.
    fn mark_divergent(&mut self, r: InstRef, why: Reason) {
        if self.is_terminator(r) {
            if !self.div_term[r.block.0] {
                self.div_term[r.block.0] = true;
                let s = self.slot(r);
                self.set_reason(s, why);
                self.push_work(r);
            }
            return;
        }
        let s = self.slot(r);
        if self.uniform_override[s] || self.div_insts[r.block.0][r.index] {
            return;
        }
        self.div_insts[r.block.0][r.index] = true;
        self.set_reason(s, why);
        self.push_work(r);
    }

    fn push_work(&mut self, r: InstRef) {
        let b = u32::try_from(r.block.0).expect("U-FIX: a function has fewer than 2^32 blocks");
        let i = u32::try_from(r.index).expect("U-FIX: a block has fewer than 2^32 instructions");
        self.worklist.push((b, i));
    }

    /// Gives up the reasons (for callers that never ask [`Analysis::reason`],
    /// such as the report: their table is 4 bytes an instruction plus 40
    /// per divergent one, most of them on long functions; issue 17 item 8).
    pub fn forget_reasons(&mut self) {
        self.why = Vec::new();
        self.reasons = Vec::new();
    }

    /// Why `r` was first marked divergent (`None` if it is uniform).
    /// Not after [`Analysis::forget_reasons`].
    pub fn reason(&self, r: InstRef) -> Option<Reason> {
        assert!(
            !self.why.is_empty(),
            "U-FIX: reason asked after forget_reasons (a caller bug)"
        );
        match self.why[self.slot(r)] {
            NO_REASON => None,
            k => Some(self.reasons[k as usize]),
        }
    }

    /// Whether value `v` is divergent at its definition.
    pub fn is_divergent_value(&self, v: ValueId) -> bool {
        match self.func.value(v).def {
            ValueDef::Arg(i) => self.div_args[i],
            ValueDef::Inst { block, index } => self.div_insts[block.0][index as usize],
        }
    }

    /// `pushUsers`: every user of the value defined by `v` becomes
    /// divergent (rule U-FIX: data dependence).
    fn push_users(&mut self, v: ValueId) {
        for k in self.users.range(v) {
            let u = self.users.user(k, &self.div_insts);
            self.mark_divergent(u, Reason::Operand(v));
        }
    }

    /// `compute`: users of the initial divergent values, then the worklist
    /// to a fixed point (rule U-FIX).
    pub fn run(&mut self) {
        // The values divergent before propagation, as a bit set (a list
        // took 8 bytes a divergent value at the analysis' peak of memory).
        let n = self.func.values.len();
        let mut initial = vec![0u64; n.div_ceil(64)];
        for v in 0..n {
            if self.is_divergent_value(ValueId(v)) {
                initial[v / 64] |= 1 << (v % 64);
            }
        }
        for v in 0..n {
            if initial[v / 64] & (1 << (v % 64)) != 0 {
                self.push_users(ValueId(v));
            }
        }
        while let Some((b, i)) = self.worklist.pop() {
            let r = InstRef {
                block: BlockId(b as usize),
                index: i as usize,
            };
            if self.is_terminator(r) {
                self.analyze_control_divergence(r.block);
                continue;
            }
            if let Some(v) = self.result_of(r) {
                self.push_users(v);
            }
        }
    }

    /// Rules U-BRANCH, U-MCONV, U-EXIT for the divergent terminator of
    /// `block` (`analyzeControlDivergence`).
    fn analyze_control_divergence(&mut self, block: BlockId) {
        self.div_term[block.0] = true;
        if !self.dt.is_in_tree(block) {
            return;
        }
        let exits = if self.prune {
            self.exit_filter(block)
        } else {
            ExitFilter::every()
        };
        // Issue 15: in the LLVM-compatible mode, a branch whose joins can
        // change nothing (`saturation`) and whose exits can change nothing
        // either is skipped; one whose exits still matter skips its joins.
        let joins_matter = !(self.mode == Mode::Llvm && self.prune && {
            let marks = Marks {
                covered: &self.covered,
                phis_tainted: &self.phis_tainted,
                div_insts: &self.div_insts,
                ci: self.ci,
            };
            self.saturation
                .nothing_reachable_open(self.cfg, &marks, block)
        });
        self.pruned_joins += usize::from(!joins_matter);
        if !joins_matter && exits.is_empty() {
            return;
        }
        let desc: DivergenceDescriptor = self.prop.join_points(&self.facts, block, &exits);
        let joins: &[BlockId] = if joins_matter { &desc.join_blocks } else { &[] };
        // Cycles to assume divergent, with the join that makes them so
        // (`None`: U-SOUND's irreducible region around the branch).
        let mut div_cycles: Vec<(CycleId, Option<BlockId>)> = Vec::new();
        for &join in joins {
            let c = self
                .join_cycles
                .outermost_divergent_cycle(&self.facts, self.dt, block, join);
            if let Some(c) = c {
                // A cycle inside an assumed-divergent one changes nothing
                // below (the sound mode still lists it once).
                if !(self.covered[c.0] && (self.mode == Mode::Llvm || self.is_assumed[c.0])) {
                    div_cycles.push((c, Some(join)));
                }
                continue;
            }
            if !self.phis_tainted[join.0] {
                self.phis_tainted[join.0] = true;
                self.taint_phis(join, block);
            }
        }
        if self.mode == Mode::Sound {
            if let Some(c) = self.outermost_irreducible_around(block) {
                div_cycles.push((c, None));
            }
        }
        div_cycles.sort_by_key(|(c, _)| std::cmp::Reverse(self.ci.cycles[c.0].depth));
        for (c, join) in div_cycles {
            if self.covered[c.0] {
                // Its definitions are divergent already. The sound mode
                // still lists it, so that its cycle list only adds to the
                // LLVM-compatible one (an enclosing irreducible region it
                // assumed first would otherwise hide a cycle LLVM lists).
                if self.mode == Mode::Sound && !self.is_assumed[c.0] {
                    self.assumed_divergent.push(c);
                    self.is_assumed[c.0] = true;
                }
                continue;
            }
            self.assumed_divergent.push(c);
            self.is_assumed[c.0] = true;
            self.cover(c);
            let blocks = self.ci.cycles[c.0].blocks.clone();
            let why = match join {
                Some(join) => Reason::AssumedCycle {
                    cycle: c,
                    branch: block,
                    join,
                },
                None => Reason::IrreducibleRegion {
                    cycle: c,
                    branch: block,
                },
            };
            for b in blocks {
                for i in 0..self.func.block(b).insts.len() {
                    self.mark_divergent(InstRef { block: b, index: i }, why);
                }
            }
        }
        if let Some(branch_cycle) = self.ci.innermost(block) {
            for &exit in &desc.cycle_exit_blocks {
                self.propagate_cycle_exit_divergence(exit, branch_cycle, block);
            }
        }
    }

    /// Which divergent exits found for the branch ending `block` can change
    /// anything: `propagate_cycle_exit_divergence` marks the cycle around
    /// the branch one level below the exit's depth (the branch's innermost
    /// cycle for exits at its depth or deeper) and stops at once when that
    /// cycle has a divergent exit already, so only exits whose cycle has
    /// none matter (the others' costliest part is not computed).
    fn exit_filter(&self, block: BlockId) -> ExitFilter {
        let mut filter = ExitFilter::default();
        let inner = self.ci.innermost(block);
        let mut x = inner;
        while let Some(c) = x {
            let cy = &self.ci.cycles[c.0];
            if !self.has_divergent_exit[c.0] {
                if x == inner {
                    filter.add_from(cy.depth - 1);
                } else {
                    filter.add(cy.depth - 1);
                }
            }
            x = cy.parent;
        }
        filter
    }

    /// Rule U-SOUND (F-23): the outermost irreducible cycle containing
    /// `block`, if any. A divergent branch inside an irreducible cycle can
    /// make its threads' paths meet at the branch itself or at another
    /// entry, where the cycle hierarchies disagree on which instances are
    /// converged (D-HIER); LLVM's join computation sees such a path as an
    /// inner cycle's back edge and an exit, and applies the diverged entry
    /// criterion to nothing. The sound mode assumes the whole irreducible
    /// region divergent.
    fn outermost_irreducible_around(&self, block: BlockId) -> Option<CycleId> {
        let mut found = None;
        let mut x = self.ci.innermost(block);
        while let Some(c) = x {
            if !self.ci.cycles[c.0].is_reducible() {
                found = Some(c);
            }
            x = self.ci.cycles[c.0].parent;
        }
        found
    }

    /// Records that `c` is assumed divergent in `covered`: marks its
    /// subtree of the cycle tree, skipping subtrees marked already (each
    /// cycle is marked once per function).
    fn cover(&mut self, c: CycleId) {
        let mut stack = vec![c];
        while let Some(x) = stack.pop() {
            if self.covered[x.0] {
                continue;
            }
            self.covered[x.0] = true;
            stack.extend(self.ci.cycles[x.0].children.iter().copied());
        }
    }

    /// Rule U-PHI (`taintAndPushPhiNodes`): the phis of a join block become
    /// divergent, except those that merge one value and undefs.
    fn taint_phis(&mut self, join: BlockId, branch: BlockId) {
        for (i, inst) in self.func.block(join).insts.iter().enumerate() {
            let InstKind::Phi { incoming, .. } = &inst.kind else {
                continue;
            };
            if has_constant_or_undef_value(inst.result, incoming) {
                continue;
            }
            self.mark_divergent(
                InstRef {
                    block: join,
                    index: i,
                },
                Reason::Join { branch, join },
            );
        }
    }

    /// Rule U-EXIT (`propagateCycleExitDivergence`): the outermost cycle
    /// containing the branch but not the exit has a divergent exit.
    fn propagate_cycle_exit_divergence(&mut self, exit: BlockId, inner: CycleId, branch: BlockId) {
        let exit_depth = self
            .ci
            .innermost(exit)
            .map_or(0, |c| self.ci.cycles[c.0].depth);
        // The ancestor of `inner` one level below the exit's depth (LLVM
        // walks parents while deeper than the exit).
        let outer = if self.ci.cycles[inner.0].depth > exit_depth {
            self.facts.ancestor_at_depth(inner, exit_depth + 1)
        } else {
            inner
        };
        if self.has_divergent_exit[outer.0] {
            return;
        }
        self.divergent_exit_cycles.push(outer);
        self.has_divergent_exit[outer.0] = true;
        // LLVM stops here: every definition of an assumed-divergent cycle
        // is divergent already. Not the always-uniform ones, whose uses
        // outside the cycle are still temporally divergent (F-17, U-9):
        // the sound mode goes on (rule U-SOUND).
        if self.mode == Mode::Llvm && self.covered[outer.0] {
            return;
        }
        self.analyze_cycle_exit_divergence(outer, branch);
    }

    /// `analyzeCycleExitDivergence`: phis in exit blocks that read values
    /// from the cycle, and uses outside the cycle of values defined in
    /// blocks that dominate an exit, become divergent (D-TEMPORAL).
    fn analyze_cycle_exit_divergence(&mut self, cycle: CycleId, branch: BlockId) {
        let exits = self.facts.exit_blocks(cycle).to_vec();
        for &e in &exits {
            for (i, inst) in self.func.block(e).insts.iter().enumerate() {
                let InstKind::Phi { incoming, .. } = &inst.kind else {
                    continue;
                };
                let uses_cycle_value = incoming.iter().any(|(op, _)| {
                    op.as_local()
                        .and_then(|v| match self.func.value(v).def {
                            ValueDef::Inst { block, .. } => Some(block),
                            ValueDef::Arg(_) => None,
                        })
                        .is_some_and(|b| self.facts.contains(cycle, b))
                });
                // LLVM looks only at values defined in the cycle; threads
                // that leave in different iterations or by different
                // exiting edges also disagree on constants (U-SOUND).
                let differs =
                    self.mode == Mode::Sound && !has_constant_or_undef_value(inst.result, incoming);
                if uses_cycle_value || differs {
                    self.mark_divergent(
                        InstRef { block: e, index: i },
                        Reason::ExitPhi { cycle, branch },
                    );
                }
            }
        }
        let dominates_exit = ExitDominance::new(self.dt, &exits);
        let blocks = self.ci.cycles[cycle.0].blocks.clone();
        for b in blocks {
            if !dominates_exit.holds(self.dt, b) {
                continue;
            }
            for i in 0..self.func.block(b).insts.len() {
                let Some(v) = self.func.block(b).insts[i].result else {
                    continue;
                };
                let def = InstRef { block: b, index: i };
                for k in self.users.range(v) {
                    let u = self.users.user(k, &self.div_insts);
                    if self.facts.contains(cycle, u.block) {
                        continue;
                    }
                    self.mark_divergent(u, Reason::Temporal { def, cycle, branch });
                    self.temporal.push((def, u, cycle));
                }
            }
        }
    }
}

/// Whether a block dominates at least one of a set of blocks, in
/// O(log(set size)) per question: the dominator-tree preorder numbers of
/// the set, sorted, searched for one inside the block's subtree interval.
struct ExitDominance {
    /// Some block of the set is outside the tree (dominated by every block).
    any_unreachable: bool,
    starts: Vec<u32>,
}

impl ExitDominance {
    fn new(dt: &DomTree, blocks: &[BlockId]) -> ExitDominance {
        let mut starts: Vec<u32> = blocks
            .iter()
            .filter_map(|&b| dt.preorder_interval(b).map(|(i, _)| i))
            .collect();
        starts.sort_unstable();
        ExitDominance {
            any_unreachable: blocks.iter().any(|&b| !dt.is_in_tree(b)),
            starts,
        }
    }

    /// `any(|e| DT.dominates(b, e))` over the set.
    fn holds(&self, dt: &DomTree, b: BlockId) -> bool {
        if self.any_unreachable {
            return true;
        }
        let Some((lo, hi)) = dt.preorder_interval(b) else {
            // A block outside the tree dominates only itself, and every
            // block of the set is in the tree and so different from it.
            return false;
        };
        let k = self.starts.partition_point(|&s| s < lo);
        k < self.starts.len() && self.starts[k] <= hi
    }
}

/// `PHINode::hasConstantOrUndefValue`: every incoming value other than the
/// phi itself and `undef`/`poison` is one and the same value.
fn has_constant_or_undef_value(result: Option<ValueId>, incoming: &[(Operand, BlockId)]) -> bool {
    let mut seen: Option<&Operand> = None;
    for (op, _) in incoming {
        if result.is_some() && op.as_local() == result {
            continue;
        }
        if sources::is_undef(op) {
            continue;
        }
        match seen {
            Some(s) if s != op => return false,
            _ => seen = Some(op),
        }
    }
    true
}

/// Operands of an instruction or terminator, in operand order.
pub fn operands_of(f: &Function, r: InstRef) -> Vec<&Operand> {
    let mut v = Vec::new();
    for_each_operand(f, r, |o| v.push(o));
    v
}

/// Calls `visit` on each operand of an instruction or terminator, in
/// operand order (what [`operands_of`] lists, without the list).
pub fn for_each_operand<'f>(f: &'f Function, r: InstRef, mut visit: impl FnMut(&'f Operand)) {
    let b = f.block(r.block);
    if r.index == b.insts.len() {
        match &b.term.kind {
            crate::ir::TermKind::CondBr { cond, .. } => visit(cond),
            crate::ir::TermKind::Switch { cond, .. } => visit(cond),
            crate::ir::TermKind::Ret(Some(v)) => visit(&v.value),
            _ => {}
        }
        return;
    }
    inst_operands(&b.insts[r.index].kind, visit);
}

pub fn inst_operands<'f>(k: &'f InstKind, mut visit: impl FnMut(&'f Operand)) {
    match k {
        InstKind::Binary { lhs, rhs, .. }
        | InstKind::ICmp { lhs, rhs, .. }
        | InstKind::FCmp { lhs, rhs, .. } => {
            visit(lhs);
            visit(rhs);
        }
        InstKind::FNeg { value, .. } => visit(value),
        InstKind::Cast { from, .. } => visit(&from.value),
        InstKind::Select {
            cond,
            on_true,
            on_false,
            ..
        } => {
            visit(&cond.value);
            visit(&on_true.value);
            visit(&on_false.value);
        }
        InstKind::Freeze(x) => visit(&x.value),
        InstKind::Phi { incoming, .. } => incoming.iter().for_each(|(o, _)| visit(o)),
        InstKind::Call(c) => {
            c.args.iter().for_each(|a| visit(&a.value));
            for b in &c.bundles {
                b.inputs.iter().for_each(|i| visit(&i.value));
            }
            visit(&c.callee);
        }
        InstKind::Alloca { count, .. } => count.iter().for_each(|c| visit(&c.value)),
        InstKind::Load { ptr, .. } => visit(&ptr.value),
        InstKind::Store { value, ptr, .. } => {
            visit(&value.value);
            visit(&ptr.value);
        }
        InstKind::AtomicRmw { ptr, value, .. } => {
            visit(&ptr.value);
            visit(&value.value);
        }
        InstKind::CmpXchg { ptr, cmp, new, .. } => {
            visit(&ptr.value);
            visit(&cmp.value);
            visit(&new.value);
        }
        InstKind::Gep { base, indices, .. } => {
            visit(&base.value);
            indices.iter().for_each(|i| visit(&i.value));
        }
        InstKind::ExtractValue { agg, .. } => visit(&agg.value),
        InstKind::InsertValue { agg, value, .. } => {
            visit(&agg.value);
            visit(&value.value);
        }
        InstKind::ExtractElement { vector, index } => {
            visit(&vector.value);
            visit(&index.value);
        }
        InstKind::InsertElement {
            vector,
            value,
            index,
        } => {
            visit(&vector.value);
            visit(&value.value);
            visit(&index.value);
        }
        InstKind::ShuffleVector { a, b, mask } => {
            visit(&a.value);
            visit(&b.value);
            visit(&mask.value);
        }
    }
}
