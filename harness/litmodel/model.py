"""The executable model: every candidate execution of a litmus test (reads-from, coherence, mbarrier update order,
Fence-SC order), the relations of catalog.AXIOMS computed on it, and one verdict per outcome:

  forbidden  no consistent execution gives it;
  allowed    a consistent execution without undefined behaviour gives it;
  undefined  only consistent executions with undefined behaviour (undefined_before_completion) give it.

The search is exhaustive and hand-written (README.md, "Why no solver"): relations are bitsets (Python ints), the
closure a Warshall pass; an outcome already shown allowed is not searched again. `broken` names axioms to leave
out: the planted faults of tests/test_faults.py."""
import itertools
from dataclasses import dataclass, field

from . import catalog
from .events import build, scope_holds

FORBIDDEN, ALLOWED, UNDEFINED = "forbidden", "allowed", "undefined"
HANG = (("hang", "an mbarrier phase never completes"),)


@dataclass
class Result:
    test: object
    verdicts: dict                     # outcome (tuple of (name, value)) -> verdict
    candidates: int = 0
    consistent: int = 0
    undefined_executions: int = 0
    why_forbidden: dict = field(default_factory=dict)   # outcome -> the first axiom that refused it
    condition: object = None           # the condition's value over the allowed outcomes (0/1), if any


def _closure(n, succ):
    reach = list(succ)
    for k in range(n):
        bk, rk = 1 << k, reach[k]
        for i in range(n):
            if reach[i] & bk:
                reach[i] |= rk
    return reach


def _ms(prog, a, b, policies, scopes=True):
    """morally_strong: po-related, or both strong with each's scope holding the other's thread; the same proxy."""
    if a.proxy != b.proxy:
        if not (policies["cross_proxy_atomicity"] == "atomic" and a.kind == "U" and b.kind == "U"):
            return False
    if a.in_po and b.in_po and a.thread == b.thread:
        return True
    if not (a.strong and b.strong):
        return False
    if not scopes:          # planted fault: every scope holds every thread
        return True
    return scope_holds(prog, a, b.thread) and scope_holds(prog, b, a.thread)


class Model:
    def __init__(self, policies=None, broken=()):
        self.policies = catalog.default_policies()
        self.policies.update(policies or {})
        for b in broken:
            if b not in catalog.AXIOM_NAMES:
                raise ValueError(f"no axiom '{b}'")
        self.broken = frozenset(broken)

    def on(self, axiom):
        return axiom not in self.broken

    # ------------------------------------------------------------------ the search
    def run(self, test):
        P = self.policies
        prog = build(test, P, self.broken)
        ev = prog.events
        n = len(ev)
        locs = sorted({e.loc for e in ev if e.loc})
        init = {l: test.init.get(l, 0) for l in locs}
        reads = [e for e in ev if e.is_read]
        writes_of = {l: [e.id for e in ev if e.is_write and e.loc == l] for l in locs}
        # program order (transitive) per thread, and the static edges
        succ0 = [0] * n
        for a, b in prog.edges:
            succ0[a] |= 1 << b
        po_reach = [0] * n
        for t, ids in prog.po.items():
            for i, a in enumerate(ids):
                for b in ids[i + 1:]:
                    po_reach[a] |= 1 << b
        if not self.on("program_order"):
            # planted fault: program order forgotten, only the instructions' own links (copies, barriers) kept
            pos = {(a, b) for ids in prog.po.values() for a, b in zip(ids, ids[1:])}
            succ0 = [0] * n
            for a, b in prog.edges:
                if (a, b) not in pos:
                    succ0[a] |= 1 << b
            po_reach = [0] * n
        static = _closure(n, succ0)
        # proxy fences: which events order which proxy pair
        fences = {("generic", "async"): 0, ("async", "generic"): 0, ("generic", "tensormap"): 0,
                  ("tensormap", "generic"): 0}
        for e in ev:
            if e.kind == "F" and e.fence == "proxy_async":
                fences[("generic", "async")] |= 1 << e.id
                fences[("async", "generic")] |= 1 << e.id
            if e.kind == "F" and e.fence == "proxy_tensormap":
                fences[("generic", "tensormap")] |= 1 << e.id
            if self.on("completion_proxy_fence") and e.role == "cw":
                fences[("async", "generic")] |= 1 << e.id
                fences[("tensormap", "generic")] |= 1 << e.id
            if self.on("completion_proxy_fence") and e.role == "cr" and P["read_completion_proxy_fence"] == "fenced":
                fences[("async", "generic")] |= 1 << e.id
                fences[("tensormap", "generic")] |= 1 << e.id
        if not self.on("proxy_preserved_bco"):
            fences = None       # planted fault: every proxy pair is ordered as if fenced
        # release / acquire pattern ends (synchronizes_with)
        rel_src, acq_dst = {}, {}
        for e in ev:
            if e.is_write and e.strong and e.in_po:
                # a release write, a release write followed by this strong write to its location, or a fence
                # followed by it
                s = [e.id] if e.sem in ("release", "acq_rel") else []
                s += [a.id for a in ev if a.is_write and a.in_po and a.thread == e.thread and a.loc == e.loc
                      and a.sem in ("release", "acq_rel") and po_reach[a.id] >> e.id & 1]
                s += [f.id for f in ev if f.kind == "F" and f.fence in ("acq_rel", "sc") and f.thread == e.thread
                      and po_reach[f.id] >> e.id & 1]
                rel_src[e.id] = s
            if e.is_read and e.strong and e.in_po:
                d = [e.id] if e.sem in ("acquire", "acq_rel") else []
                d += [a.id for a in ev if a.is_read and a.in_po and a.thread == e.thread and a.loc == e.loc
                      and a.sem in ("acquire", "acq_rel") and po_reach[e.id] >> a.id & 1]
                d += [f.id for f in ev if f.kind == "F" and f.fence in ("acq_rel", "sc") and f.thread == e.thread
                      and po_reach[e.id] >> f.id & 1]
                acq_dst[e.id] = d
        ms = {}

        def mstrong(a, b):
            k = (a, b)
            if k not in ms:
                ms[k] = _ms(prog, ev[a], ev[b], P, scopes="morally_strong" not in self.broken)
            return ms[k]
        # the candidates
        rf_choices = [[None] + writes_of[r.loc] for r in reads]   # None: the initial value
        rf_choices = [[w for w in ch if w != r.id] for ch, r in zip(rf_choices, reads)]
        co_choices = [_partial_orders(writes_of[l], mstrong) for l in locs]
        mb_names = [m for m in test.mbarriers if prog.mbar_updates[m] or prog.mbar_waits[m]]
        mb_choices = [list(itertools.permutations(prog.mbar_updates[m])) for m in mb_names]
        sc_choices = list(itertools.permutations(prog.sc_fences))
        verdicts, why = {}, {}
        res = Result(test=test, verdicts=verdicts, why_forbidden=why)
        obs_regs = sorted(prog.regs_final)
        obs_locs = [l for l in locs if l in test.observe or _named_in(test.condition, l)]
        phase_points = list(self._phase_points(prog, mb_names, mb_choices))   # the same for every rf and co
        for rf_pick in itertools.product(*rf_choices):
            rf = {r.id: w for r, w in zip(reads, rf_pick)}
            vals = self._values(prog, rf, init)
            if vals is None:
                continue
            rval, wval = vals
            for co_pick in itertools.product(*co_choices):
                co = {}
                for order, _ in co_pick:
                    co.update(order)
                final = {l: (wval[last] if last is not None else init[l]) for l, (_, last) in zip(locs, co_pick)}
                if obs_locs and any(final[l] is None for l in obs_locs):
                    continue
                outcome = tuple((k, rval[prog.regs_final[k]]) for k in obs_regs) + \
                    tuple((l, final[l]) for l in obs_locs)
                for mb_pick, done_pick in phase_points:
                    for sc_pick in sc_choices:
                        res.candidates += 1
                        if verdicts.get(outcome) == ALLOWED:
                            continue
                        r = self._judge(prog, n, static, po_reach, fences, rel_src, acq_dst, mstrong, rf, co,
                                        dict(zip(mb_names, mb_pick)), sc_pick, init, dict(zip(mb_names, done_pick)))
                        key = HANG if r == "hang" else outcome
                        if r == "hang":
                            verdicts[key] = ALLOWED
                            continue
                        if isinstance(r, str):
                            verdicts.setdefault(key, FORBIDDEN)
                            why.setdefault(key, r)
                            continue
                        res.consistent += 1
                        ub = r
                        if ub:
                            res.undefined_executions += 1
                            if verdicts.get(key) != ALLOWED:
                                verdicts[key] = UNDEFINED
                        else:
                            verdicts[key] = ALLOWED
        for k in list(why):
            if verdicts.get(k) != FORBIDDEN:
                del why[k]
        if P["ub_extent"] == "program" and res.undefined_executions:
            for k, v in verdicts.items():
                if v == ALLOWED:
                    verdicts[k] = UNDEFINED
        if test.condition:
            res.condition = condition_value(test, verdicts)
        return res

    def _phase_points(self, prog, mb_names, mb_choices):
        """(update orders, the index in each order where the mbarrier's phase 0 completes or None) of a candidate:
        axiom mbarrier_phase, the first point where the pending arrivals and the tx-count are both zero. Under
        policy complete_tx_updates=merged a zero point followed by another complete-tx may be passed over (the two
        applied as one): every choice of the points passed over is a candidate of its own."""
        merged = self.policies["complete_tx_updates"] == "merged"
        for mb_pick in itertools.product(*mb_choices):
            alts = []
            for m, order in zip(mb_names, mb_pick):
                ev = prog.events
                pending, tx, points = prog.test.mbarriers[m][1], 0, []
                for i, u in enumerate(order):
                    pending -= ev[u].d_pending
                    tx += ev[u].d_tx
                    if pending == 0 and tx == 0:
                        skippable = merged and ev[u].role == "cw" and i + 1 < len(order) and \
                            ev[order[i + 1]].role == "cw"
                        points.append(i)
                        if not skippable:
                            break
                else:
                    points.append(None)   # every zero point passed over (or none): the phase never completes
                alts.append(points)
            for done_pick in itertools.product(*alts):
                yield mb_pick, done_pick

    # ------------------------------------------------------------------ values (no_thin_air)
    def _values(self, prog, rf, init):
        ev = prog.events
        wval, rval, busy = {}, {}, set()
        reg_src = {}     # (event id) -> {reg: the read event that last set it before this event}
        for t, ids in prog.po.items():
            cur = {}
            for eid in ids:
                reg_src[eid] = dict(cur)
                if ev[eid].reg:
                    cur[ev[eid].reg] = eid

        def operand(e):
            if isinstance(e.value, int):
                return e.value
            if e.value is None:
                return 0
            src = reg_src.get(e.id, {}).get(e.value)
            return 0 if src is None else read(src)

        def read(rid):
            if rid in rval:
                return rval[rid]
            if ev[rid].kind == "M":
                rval[rid] = ev[rid].value
                return ev[rid].value
            w = rf[rid]
            v = init[ev[rid].loc] if w is None else write(w)
            rval[rid] = v
            return v

        def write(wid):
            if wid in wval:
                return wval[wid]
            if wid in busy:
                raise _ThinAir()
            busy.add(wid)
            e = ev[wid]
            if e.role == "dst":
                c = prog.copies[e.copy]
                data = read(c.tmap if c.kind == "tensor" else c.src)
                v = read(wid) + data if e.kind == "U" else data
            elif e.kind == "U":
                v = {"add": lambda o: read(wid) + o, "sub": lambda o: read(wid) - o,
                     "exch": lambda o: o}[e.rmw](operand(e))
            else:
                v = operand(e)
            busy.discard(wid)
            wval[wid] = v
            return v
        try:
            for e in ev:
                if e.is_write:
                    write(e.id)
                if e.is_read or e.kind == "M":
                    read(e.id)
        except _ThinAir:
            if self.on("no_thin_air"):
                return None
            # planted fault: a value out of thin air is taken as 0
            for e in ev:
                if e.is_read and e.id not in rval:
                    rval[e.id] = 0
                if e.is_write and e.id not in wval:
                    wval[e.id] = 0
        return rval, wval

    # ------------------------------------------------------------------ one candidate
    def _judge(self, prog, n, static, po_reach, fences, rel_src, acq_dst, mstrong, rf, co, mb_order, sc_order,
               init, mb_done):
        """The first axiom the candidate breaks (a string), "hang", or whether it is undefined (a bool). mb_done:
        per mbarrier, the index of its update order where phase 0 completes, None when it never does
        (_phase_points)."""
        P, ev = self.policies, prog.events
        succ = list(static)
        # coherence position of each write; reads-from
        # co: write -> bitset of the writes after it in coherence order (a partial order: the model's
        # coherence relates every morally strong pair, others may stay unordered); the initial value precedes all
        def co_before(a, b):      # a co b; a None: the initial write
            if a is None:
                return True
            return bool(co[a] >> b & 1)
        # group_write_order (policy): a copy's writes to one location follow, in coherence, those of the groups
        # its thread committed before
        # observation order: morally strong reads-from, chained through RMWs
        obs = [0] * n
        rfms = [0] * n
        for r, w in rf.items():
            if w is not None and mstrong(w, r):
                rfms[w] |= 1 << r
        obs = _closure(n, rfms) if any(rfms) else rfms
        # synchronizes-with
        extra = []
        if self.on("synchronizes_with"):
            for w, srcs in rel_src.items():
                if not srcs:
                    continue
                o = obs[w]
                for r, dsts in acq_dst.items():
                    if o >> r & 1:
                        for s in srcs:
                            for d in dsts:
                                if mstrong(s, d):
                                    extra.append((s, d))
        if self.on("fence_sc_order"):
            for i, a in enumerate(sc_order):
                for b in sc_order[i + 1:]:
                    if mstrong(a, b):
                        extra.append((a, b))
        # mbarrier phases
        hang = False
        for m, order in mb_order.items():
            done = mb_done[m]
            ph = prog.phase[m]
            if done is None:
                if prog.mbar_waits[m]:
                    hang = True
                continue
            for u in order[:done + 1]:
                ue = ev[u]
                if not self.on("mbarrier_phase"):
                    continue
                if ue.sem != "release" or (ue.role == "cw" and not self.on("complete_tx_release")):
                    continue
                for wt in prog.mbar_waits[m]:
                    we = ev[wt]
                    if we.sem != "acquire":
                        continue
                    scoped = P["mbarrier_wait_scope"] == "strict_scope" or (
                        P["mbarrier_wait_scope"] == "scoped_arrive" and ue.role != "cw")
                    if scoped and not (scope_holds(prog, ue, we.thread) and scope_holds(prog, we, ue.thread)):
                        continue
                    extra.append((u, ph))
                    extra.append((ph, wt))
        for a, b in extra:
            succ[a] |= 1 << b
        bco = _closure(n, succ) if extra else succ
        # base_causality_order: acyclic
        if self.on("base_causality_order"):
            for i in range(n):
                if bco[i] >> i & 1 and ev[i].kind != "J":
                    return "base_causality_order"
        # the mbarrier update order does not contradict bco
        for m, order in mb_order.items():
            for i, a in enumerate(order):
                for b in order[i + 1:]:
                    if bco[b] >> a & 1:
                        return "mbarrier_phase"
        # Fence-SC order does not contradict causality
        if self.on("fence_sc"):
            for i, a in enumerate(sc_order):
                for b in sc_order[i + 1:]:
                    if mstrong(a, b) and bco[b] >> a & 1:
                        return "fence_sc"
        # a phase that never completes, in an update order causality allows (checked above: a copy's complete-tx
        # never precedes the arrive its thread made before issuing it); the values of the events after the wait
        # that never returns are not judged
        if hang:
            return "hang"

        def pp(x, y):
            """proxy_preserved_bco(x, y)."""
            if not (bco[x] >> y & 1):
                return False
            px, py = ev[x].proxy, ev[y].proxy
            if px == py or fences is None:
                return True
            fmask = fences.get((px, py), 0) & bco[x]
            while fmask:
                f = (fmask & -fmask).bit_length() - 1
                if bco[f] >> y & 1:
                    return True
                fmask &= fmask - 1
            return False

        def cause(x, y, as_write):
            """causality_order: ppbco, or one observation hop from x (as a write) then ppbco."""
            if pp(x, y):
                return True
            if not as_write or not self.on("causality_order"):
                return False
            o = rfms[x]
            while o:
                z = (o & -o).bit_length() - 1
                if pp(z, y):
                    return True
                o &= o - 1
            return False
        mem = [e for e in ev if e.kind in ("R", "W", "U")]
        by_loc = {}
        for e in mem:
            by_loc.setdefault(e.loc, []).append(e)
        for l, es in by_loc.items():
            ws = [e for e in es if e.is_write]
            rs = [e for e in es if e.is_read]
            # coherence
            if self.on("coherence"):
                for a in ws:
                    for b in ws:
                        if a.id != b.id and not co_before(a.id, b.id) and cause(a.id, b.id, True):
                            return "coherence"
            if P["group_write_order"] == "commit_order":
                for a in ws:
                    for b in ws:
                        if a.copy is not None and b.copy is not None and a.copy != b.copy and \
                                prog.copies[a.copy].thread == prog.copies[b.copy].thread and \
                                _group_before(prog, a.copy, b.copy) and not co_before(a.id, b.id):
                            return "group_write_order"
            # causality
            if self.on("causality"):
                for r in rs:
                    w = rf[r.id]
                    if w is not None and cause(r.id, w, False):
                        return "causality"
                    for b in ws:
                        if b.id != r.id and b.id != w and co_before(w, b.id) and cause(b.id, r.id, True):
                            return "causality"
            # sc_per_location: po-loc | ms & (rf | co | fr) acyclic
            if self.on("sc_per_location"):
                k = len(es)
                idx = {e.id: i for i, e in enumerate(es)}
                g = [0] * k
                for a in es:
                    for b in es:
                        if a.id == b.id:
                            continue
                        if po_reach[a.id] >> b.id & 1:
                            g[idx[a.id]] |= 1 << idx[b.id]
                        elif mstrong(a.id, b.id):
                            if b.is_read and rf[b.id] == a.id:
                                g[idx[a.id]] |= 1 << idx[b.id]
                            if a.is_write and b.is_write and co_before(a.id, b.id):
                                g[idx[a.id]] |= 1 << idx[b.id]
                            if a.is_read and b.is_write:
                                w = rf[a.id]
                                if w != b.id and co_before(w, b.id):
                                    g[idx[a.id]] |= 1 << idx[b.id]
                gc = _closure(k, g)
                if any(gc[i] >> i & 1 for i in range(k)):
                    return "sc_per_location"
            # atomicity
            if self.on("atomicity"):
                for u in rs:
                    if u.kind != "U":
                        continue
                    w = rf[u.id]
                    for b in ws:
                        if b.id != u.id and b.id != w and co_before(w, b.id) and co_before(b.id, u.id) and \
                                mstrong(b.id, u.id):
                            return "atomicity"
        # undefined_before_completion
        ub = False
        if self.on("undefined_before_completion"):
            for c in prog.copies:
                own = {c.src, c.tmap, c.cr, *c.dsts, *c.cws, c.issue}
                for e in mem:
                    if e.id in own or e.copy is not None:
                        continue
                    if c.kind == "reduce" and e.kind == "U" and P["reduce_destination_race"] == "atomic":
                        continue
                    if e.is_read and e.loc in c.dst_locs:
                        for d, cw in zip(c.dst_locs, c.cws):
                            if d == e.loc and not (bco[cw] >> e.id & 1) and not (bco[e.id] >> c.issue & 1):
                                ub = True
                    if e.is_write and e.loc in (c.src_loc, c.tmap_loc):
                        if not (bco[c.cr] >> e.id & 1) and not (bco[e.id] >> c.issue & 1):
                            ub = True
        return ub


class _ThinAir(Exception):
    pass


def _partial_orders(ws, mstrong):
    """Every coherence order of one location's writes: strict partial orders relating each morally strong pair
    (the others may stay unrelated), each with a choice of its last write (the final value: a maximal one)."""
    pairs = [(a, b) for i, a in enumerate(ws) for b in ws[i + 1:]]
    seen, out = set(), []
    for pick in itertools.product(*[(0, 1) if (mstrong(a, b) or mstrong(b, a)) else (0, 1, 2) for a, b in pairs]):
        succ = {w: 0 for w in ws}
        for (a, b), p in zip(pairs, pick):
            if p == 0:
                succ[a] |= 1 << b
            elif p == 1:
                succ[b] |= 1 << a
        changed = True
        while changed:
            changed = False
            for a in ws:
                new = succ[a]
                for b in ws:
                    if succ[a] >> b & 1:
                        new |= succ[b]
                if new != succ[a]:
                    succ[a], changed = new, True
        if any(succ[a] >> a & 1 for a in ws):
            continue
        key = tuple(sorted(succ.items()))
        if key in seen:
            continue
        seen.add(key)
        maximal = [w for w in ws if not succ[w]] or [None]
        for last in maximal:
            out.append((succ, last))
    return out


def _group_before(prog, a, b):
    """Whether copy a's group was committed before copy b's (same thread): by their issue order."""
    return prog.copies[a].issue < prog.copies[b].issue and prog.copies[a].kind != "cp_async"


def _named_in(cond, loc):
    if not cond:
        return False

    def walk(e):
        if e[0] == "cmp":
            return e[1] == loc
        return any(walk(s) for s in e[1:])
    return walk(cond[1])


def eval_cond(e, outcome):
    if e[0] == "cmp":
        v = outcome.get(e[1], 0)
        return (v == e[3]) if e[2] == "==" else (v != e[3])
    if e[0] == "not":
        return not eval_cond(e[1], outcome)
    if e[0] == "and":
        return eval_cond(e[1], outcome) and eval_cond(e[2], outcome)
    return eval_cond(e[1], outcome) or eval_cond(e[2], outcome)


def condition_value(test, verdicts):
    """herd's reading of the condition over the outcomes the model allows: exists: 1 when some allowed outcome
    satisfies it; ~exists: 1 when none does; forall: 1 when every allowed outcome does."""
    kind, ast, _ = test.condition
    allowed = [dict(o) for o, v in verdicts.items() if v == ALLOWED and o != HANG]
    sat = [eval_cond(ast, o) for o in allowed]
    if kind == "exists":
        return int(any(sat))
    if kind == "~exists":
        return int(not any(sat))
    return int(all(sat))


def outcome_text(o):
    return " ".join(f"{k}={v}" for k, v in o)
