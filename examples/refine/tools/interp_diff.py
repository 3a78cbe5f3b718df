#!/usr/bin/env python3
"""Compare the behaviour sets of a source/target pair on the reference
interpreter (`convcheck run --json`), launch by launch. A development aid for
checking the expectations in this directory before `convcheck refine` exists;
it is not the project's refinement checker and proves nothing beyond the
launches it enumerates.

Usage:
  [OBSERVE=auto|sets] [SKIP=fn1,fn2] [CONVCHECK=path] interp_diff.py SRC TGT
      [--enum NAME=v1,v2,...]   per-thread values, every combination
      [--uenum NAME=v1,v2,...]  one value for all threads (uniform inputs)
      [--threads N] [other `convcheck run` flags]

Observations (R-OBS, approximated): per thread, the non-intrinsic convergent
calls as (ordinal, callee, args, result, set of (thread, ordinal)), the
non-convergent observable calls, and how each thread ended. OBSERVE=auto drops
the events of the memory(none) operations listed in VALUE_ONLY (they remain
visible through the values they feed into observable calls); SKIP names
defined functions whose call sites are not events. Poison in a source
behaviour matches any value; launches where the source has UB are skipped.
Prints, per pair, the number of launches where the target has a behaviour the
source lacks, and the first such behaviour.
"""
import json, subprocess, sys, os, itertools, re
VALUE_ONLY={'textureSample','texture2D','subgroupAdd','subgroupBallot','subgroupBroadcastFirst','subgroupShuffle','pure.convergent.operation'}
AUTO=os.environ.get('OBSERVE','sets')=='auto'
SKIP=set(os.environ.get('SKIP','').split(','))
R=os.environ.get('CONVCHECK', 'target/release/convcheck')
def norm(e):
    evs = e['events']
    # ordinal among the thread's non-intrinsic convergent events, in order
    ordinal = {}; per = {}; idx = {}; cnt = {}
    for i, x in enumerate(evs):
        k = (x['thread'], x['position'], x['callee'])
        idx[i] = cnt.get(k, 0); cnt[k] = idx[i] + 1
        if not x['callee'].startswith('llvm.experimental.convergence') and x['callee'] not in SKIP:
            ordinal[i] = per.get(x['thread'], 0); per[x['thread']] = ordinal[i] + 1
    where = {(x['thread'], x['position'], x['callee'], idx[i]): i for i, x in enumerate(evs)}
    obs = []
    for i, x in enumerate(evs):
        if i not in ordinal: continue
        if AUTO and x['callee'] in VALUE_ONLY: continue
        if x['callee'] in SKIP: continue
        members = tuple(sorted((m[0], ordinal[where[(m[0], m[1], x['callee'], idx[i])]]) for m in x['set']))
        obs.append((x['thread'], ordinal[i], x['callee'], tuple(x['args']), x['result'], members))
    return (tuple(sorted(obs)), json.dumps(e['observations']), json.dumps(e['ends']), e['outcome'])
def runf(f, flags):
    out = subprocess.run([R,'run',f,'--json']+flags, capture_output=True, text=True)
    return json.loads(out.stdout)
def refines_val(t, s):
    # t matches s where s has poison (R-OBS: poison in the source is matched by any value)
    ts, ss = repr(t), repr(s)
    if 'poison' not in ss: return False
    pat = re.escape(ss).replace('poison', '[^,)\\]\'\\"]+')
    return re.fullmatch(pat, ts) is not None
def main(argv):
    src, tgt = argv[0], argv[1]
    threads = 2; enums = []; flags = []
    i = 2
    while i < len(argv):
        if argv[i] == '--enum': enums.append(argv[i+1]); i += 2
        elif argv[i] == '--uenum': enums.append('U:' + argv[i+1]); i += 2
        elif argv[i] == '--threads': threads = int(argv[i+1]); flags += argv[i:i+2]; i += 2
        else: flags.append(argv[i]); i += 1
    names = []; doms = []
    per_arg = []
    for e in enums:
        uni = e.startswith('U:'); e = e[2:] if uni else e
        n, vs = e.split('='); names.append(n); d = vs.split(',')
        per_arg.append([(v,) for v in d] if uni else list(itertools.product(d, repeat=threads)))
    bad = 0; total = 0; incomplete = 0; cut = 0
    for combo in itertools.product(*per_arg):
        a = []
        for n, vals in zip(names, combo): a += ['--arg', f"{n}={','.join(vals)}"]
        ds = runf(src, flags + a); dt = runf(tgt, flags + a)
        incomplete += (not ds['complete']) + (not dt['complete']); cut += ds['cut'] + dt['cut']
        sb = {norm(e) for e in ds['executions']}; tb = {norm(e) for e in dt['executions']}
        total += 1
        if any(str(b[3]).startswith('undefined') or b[3] == 'ub' for b in sb): continue
        miss = [b for b in tb if b not in sb and not any(refines_val(b, x) for x in sb)]
        if miss:
            bad += 1
            if bad == 1: print('  first difference at', a, '\n   ', miss[0])
    print(f"{src} {' '.join(flags)}: launches {total}, launches where target has a behaviour the source lacks: {bad}; incomplete {incomplete}, cut {cut}")
main(sys.argv[1:])
