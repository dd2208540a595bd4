"""A litmus test's events and the relations that do not depend on the execution (catalog.py names each rule):
program order, the copies' initiation and completion, async-group completion, barriers. model.py adds, per
candidate execution, reads-from, coherence, synchronizes-with, the mbarrier phases and Fence-SC order."""
from dataclasses import dataclass, field

SCOPE_RANK = {"cta": 0, "cluster": 1, "gpu": 2, "sys": 3}
STRONG = ("relaxed", "acquire", "release", "acq_rel", "sc")


@dataclass
class Ev:
    id: int
    kind: str              # R W U (memory), F (fence), B (barrier arrive/wait), J (barrier instance), I (issue),
    #                        C (completion node), MU (mbarrier update), PH (phase), MW (mbarrier wait), X (wait_group)
    thread: str = None     # the thread it acts for (scopes); None: a join or phase node
    in_po: bool = False    # executed by the thread itself (program order), not by the async unit
    loc: str = None
    proxy: str = "generic"
    sem: str = "weak"
    scope: str = "sys"
    reg: str = None
    value: object = None   # a W's operand: int or register; a U's operand
    rmw: str = None
    fence: str = None      # F: sc | acq_rel | proxy_async | proxy_tensormap
    copy: int = None       # the copy it belongs to
    role: str = None       # copy events: issue, tmap, src, dst, cr, cw
    mbar: str = None
    d_pending: int = 0
    d_tx: int = 0
    line: int = 0
    text: str = ""

    @property
    def is_read(self):
        return self.kind in ("R", "U")

    @property
    def is_write(self):
        return self.kind in ("W", "U")

    @property
    def strong(self):
        return self.sem in STRONG

    def label(self):
        where = f"{self.thread}" if self.thread else "-"
        return f"e{self.id}:{self.kind}{'@' + self.loc if self.loc else ''}[{where}] {self.text}".strip()


@dataclass
class Copy:
    index: int
    thread: str
    kind: str               # cp_async | bulk | reduce | tensor
    issue: int = None
    tmap: int = None        # tensormap read
    src: int = None         # source read
    dsts: list = field(default_factory=list)     # destination writes (one per CTA for multicast)
    cr: int = None          # completion of the reads
    cws: list = field(default_factory=list)      # completion of each destination (a C node or a complete-tx MU)
    src_loc: str = None
    tmap_loc: str = None
    dst_locs: list = field(default_factory=list)
    line: int = 0


@dataclass
class Program:
    test: object
    events: list
    copies: list
    edges: set              # static bco edges (a, b)
    po: dict                # thread -> [event ids in order]
    regs_final: dict        # "T:r" -> event id that last sets it
    mbar_updates: dict      # mbar -> [MU ids]
    mbar_waits: dict        # mbar -> [MW ids]
    phase: dict             # mbar -> PH id
    sc_fences: list
    ctas: dict              # thread -> (cta, cluster, gpu)


class ModelError(Exception):
    """A test the model cannot judge as written (e.g. a wait for a group never committed); exit 3 with it."""


def build(test, policies, broken=frozenset()):
    """The events of `test`; `broken` (model.Model) names rules left out: the planted faults."""
    evs, edges, copies = [], set(), []
    po = {t: [] for t in test.threads}
    regs_final, mbar_updates, mbar_waits = {}, {m: [] for m in test.mbarriers}, {m: [] for m in test.mbarriers}
    joins = {}
    ctas = {t: (th.cta, th.cluster, th.gpu) for t, th in test.threads.items()}

    def new(kind, **kw):
        e = Ev(id=len(evs), kind=kind, **kw)
        evs.append(e)
        return e.id

    def edge(a, b):
        edges.add((a, b))

    for t, instrs in test.code.items():
        pending = {"cp_async": [], "bulk": []}        # copies not yet committed
        last_copy = {}                                # the previous copy's destination write, per kind
        groups = {"cp_async": [], "bulk": []}         # committed groups: [copy indices]
        bar_count = {}
        last = [None]

        def in_po(eid):
            if last[0] is not None:
                edge(last[0], eid)
            last[0] = eid
            po[t].append(eid)
            return eid

        for ins in instrs:
            common = dict(thread=t, line=ins.line, text=ins.text)
            if ins.op == "ld":
                e = in_po(new("R", in_po=True, loc=ins.loc, sem=ins.sem, scope=ins.scope, reg=ins.reg, **common))
                regs_final[f"{t}:{ins.reg}"] = e
            elif ins.op == "mov":
                e = in_po(new("M", in_po=True, reg=ins.reg, value=ins.value, **common))
                regs_final[f"{t}:{ins.reg}"] = e
            elif ins.op == "st":
                in_po(new("W", in_po=True, loc=ins.loc, sem=ins.sem, scope=ins.scope, value=ins.value, **common))
            elif ins.op == "atom":
                e = in_po(new("U", in_po=True, loc=ins.loc, sem=ins.sem, scope=ins.scope, reg=ins.reg,
                              value=ins.value, rmw=ins.rmw, **common))
                if ins.reg:
                    regs_final[f"{t}:{ins.reg}"] = e
            elif ins.op == "fence":
                in_po(new("F", in_po=True, fence=ins.fence, sem=ins.sem if ins.fence in ("sc", "acq_rel") else "weak",
                          scope=ins.scope, **common))
            elif ins.op in ("bar", "barrier_cluster"):
                th = test.threads[t]
                key = ("bar", th.cta, ins.n) if ins.op == "bar" else ("cluster", th.cluster)
                k = bar_count.get(key, 0)
                bar_count[key] = k + 1
                jk = key + (k,)
                if jk not in joins:
                    joins[jk] = new("J", text=f"{ins.text} #{k}")
                a = in_po(new("B", in_po=True, **common))
                b = in_po(new("B", in_po=True, **common))
                if "barrier_sync" not in broken:
                    edge(a, joins[jk])
                    edge(joins[jk], b)
            elif ins.op in ("cp_async", "bulk", "reduce", "tensor"):
                c = Copy(index=len(copies), thread=t, kind=ins.op, line=ins.line)
                copies.append(c)
                proxy = "generic" if ins.op == "cp_async" or "async_proxy" in broken else "async"
                c.issue = in_po(new("I", in_po=True, copy=c.index, role="issue", **common))
                acc = dict(thread=t, copy=c.index, line=ins.line, text=ins.text, proxy=proxy)
                first = []
                if ins.op == "tensor":
                    c.tmap_loc = ins.src
                    tproxy = "async" if "tensormap_proxy" in broken else "tensormap"
                    c.tmap = new("R", loc=ins.src, role="tmap", **dict(acc, proxy=tproxy))
                    first.append(c.tmap)
                    reads = [c.tmap]
                else:
                    c.src_loc = ins.src
                    c.src = new("R", loc=ins.src, role="src", **acc)
                    first.append(c.src)
                    reads = [c.src]
                ordered = policies["initiation_order"] == "ordered" and "initiation" not in broken
                if ordered:
                    for r in first:
                        edge(c.issue, r)
                c.cr = new("C", role="cr", copy=c.index, thread=t, text=f"reads of copy {c.index} complete")
                for r in reads:
                    edge(r, c.cr)
                dsts = ins.dsts[:1] if "multicast" in broken else ins.dsts
                for k, d in enumerate(dsts):
                    kind = "U" if ins.op == "reduce" and "reduce_relaxed_gpu" not in broken else "W"
                    w = new(kind, loc=d, role="dst", rmw="add" if ins.op == "reduce" else None,
                            sem="relaxed" if ins.op == "reduce" else "weak",
                            scope="gpu" if ins.op == "reduce" else "sys", **acc)
                    c.dsts.append(w)
                    c.dst_locs.append(d)
                    for r in reads:
                        edge(r, w)           # the write carries what the read got (a data dependency)
                    if ordered:
                        edge(c.issue, w)
                    # planted faults: copies ordered in issue order (within a bulk group; between cp.async)
                    prev = last_copy.get(ins.group)
                    if prev is not None and k == 0 and (
                            ("no_order_within_group" in broken and ins.group == "bulk" and prev[1] == len(groups["bulk"]))
                            or ("cp_async_weak_unordered" in broken and ins.op == "cp_async")):
                        edge(prev[0], w)
                    if k == 0:
                        last_copy[ins.group] = (w, len(groups[ins.group]))
                    if ins.completion == "mbar":
                        mb = ins.mbars[k]
                        tx = 0 if "mbarrier_complete_tx" in broken else -ins.bytes
                        cw = new("MU", thread=t, mbar=mb, sem="release", scope="cluster", d_tx=tx,
                                 copy=c.index, role="cw", line=ins.line,
                                 text=f"complete-tx {ins.bytes} on {mb} (copy {c.index})")
                        mbar_updates[mb].append(cw)
                    else:
                        cw = new("C", thread=t, copy=c.index, role="cw", text=f"copy {c.index} complete")
                    edge(w, cw)
                    edge(c.cr, cw)
                    c.cws.append(cw)
                if ins.completion != "mbar":
                    pending[ins.group].append(c.index)
            elif ins.op == "commit":
                if "async_group_commit" in broken:       # planted fault: the commit takes none of the copies
                    groups[ins.group].append([])
                    continue
                groups[ins.group].append(pending[ins.group])
                pending[ins.group] = []
            elif ins.op == "wait":
                if ins.value == "all":          # cp.async.wait_all: commit_group then wait_group 0
                    groups[ins.group].append(pending[ins.group])
                    pending[ins.group] = []
                x = in_po(new("X", in_po=True, **common))
                done = groups[ins.group][:max(0, len(groups[ins.group]) - ins.n)]
                if "group_completion_order" in broken:   # planted fault: the newest groups complete first
                    done = groups[ins.group][ins.n:]
                for g in done:
                    for ci in g:
                        cc = copies[ci]
                        if ins.read_only and "bulk_read_completion" not in broken:
                            edge(cc.cr, x)
                        else:
                            for cw in cc.cws:
                                edge(cw, x)
            elif ins.op in ("mb_arrive", "mb_expect"):
                e = in_po(new("MU", in_po=True, mbar=ins.loc, sem=ins.sem, scope=ins.scope,
                              d_pending=1 if ins.op == "mb_arrive" else 0, d_tx=ins.n or 0, **common))
                mbar_updates[ins.loc].append(e)
            elif ins.op == "mb_wait":
                e = in_po(new("MW", in_po=True, mbar=ins.loc, sem=ins.sem, scope=ins.scope, **common))
                mbar_waits[ins.loc].append(e)
            else:
                raise ModelError(f"{test.path}:{ins.line}: the model has no rule for '{ins.text}'")
        # full program order: the transitive closure is taken by the model
    phase = {}
    for m in test.mbarriers:
        phase[m] = new("PH", mbar=m, text=f"{m} phase 0 complete")
    sc = [e.id for e in evs if e.kind == "F" and e.fence == "sc"]
    return Program(test=test, events=evs, copies=copies, edges=edges, po=po, regs_final=regs_final,
                   mbar_updates=mbar_updates, mbar_waits=mbar_waits, phase=phase, sc_fences=sc, ctas=ctas)


def scope_holds(prog, e, other_thread):
    """Whether event e's scope includes the thread `other_thread`."""
    if e.thread is None or other_thread is None:
        return False
    a, b = prog.ctas[e.thread], prog.ctas[other_thread]
    return {"cta": a == b, "cluster": a[1:] == b[1:], "gpu": a[2] == b[2], "sys": True}[e.scope]

