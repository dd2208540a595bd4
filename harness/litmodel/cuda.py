"""The GPU half, prepared: a litmus test (or a graded mutant) as a CUDA kernel run in many parallel instances with
stress, and a host runner that histograms every outcome and judges it by the model's labels (README.md, "The GPU
half"). `./ptxcts litmus cuda FILE... --out DIR` writes DIR/litmus_kernels.cu and DIR/labels.tsv; with
gpu/litmus_runner.cu, `nvcc -gencode arch=compute_90a,code=sm_90a` builds the runner (tests/test_cuda.py compiles it, without running it).

Layout of one instance: the test's CTAs are the CTAs of one or more clusters (cluster size: the most CTAs a test
cluster has); its global locations are 16-byte slots spread over the global buffer by a device permutation (one slot
per 256 bytes: no two in a line), its shared locations 64-byte slots of the owning CTA's shared memory (a multicast
copy's destinations and mbarriers at one CTA-relative offset in every CTA), its mbarriers 8-byte words after them.
Every CTA has BLOCK threads: the test's threads take the lanes a device-side hash of the seed, the iteration and
the instance gives them (gpu/litmus_device.hpp), the others are stress threads (loads and stores to a few hot lines
of a stress buffer). Every thread of a CTA executes the same number of each barrier (the test's threads theirs in
place, the others at their end), in the non-aligned form `barrier.sync` (the threads of a warp run different
instructions)."""
import os
import re

from .events import ModelError

BLOCK = 256
RUNNER_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gpu")   # the host runner
SLOT = 64            # bytes of a shared location (a copy of up to 64 bytes)
GSTRIDE = 64         # words between two global slots (256 bytes)


class NotSupported(Exception):
    """A test this generator cannot run yet, with the reason (the run reports it not_supported)."""


def _ident(name):
    return re.sub(r"[^A-Za-z0-9_]", "_", name)


def _layout(test):
    """(ctas: [(cluster, cta)], cluster size, shared: {loc: (owner index, offset)}, mbar: {m: (owner, offset)},
    globals: [loc])."""
    ctas = sorted({(th.cluster, th.cta) for th in test.threads.values()} |
                  {(0, cta) for cta, _ in test.mbarriers.values()} |
                  {(0, cta) for sp, cta in test.locs.values() if sp == "shared"})
    by_cluster = {}
    for k, c in ctas:
        by_cluster.setdefault(k, []).append(c)
    cs = max(len(v) for v in by_cluster.values())
    if cs > 8:
        raise NotSupported(f"{cs} CTAs in one cluster (portable cluster size: 8)")
    index = {}
    clusters = sorted(by_cluster)
    for ki, k in enumerate(clusters):
        for r, c in enumerate(sorted(by_cluster[k])):
            index[(k, c)] = ki * cs + r
    owner = {}
    for loc, (sp, cta) in test.locs.items():
        if sp == "shared":
            owner[loc] = index[(0, cta)]
    th_cta = {t: index[(th.cluster, th.cta)] for t, th in test.threads.items()}
    multicast_groups = []
    for t, instrs in test.code.items():
        for i in instrs:
            if i.op == "tensor" and (i.completion != "mbar" or len(i.dsts) != 1 or i.bytes != 16):
                raise NotSupported("cp.async.bulk.tensor: the runner has 1-D 16-byte loads through an mbarrier only")
            if i.op in ("bulk", "reduce", "cp_async", "tensor") and i.completion == "mbar":
                for d, m in zip(i.dsts, i.mbars):
                    owner.setdefault(d, index[(0, test.mbarriers[m][0])])
                if len(i.dsts) > 1:
                    multicast_groups.append((i.dsts, i.mbars))
            elif i.op == "cp_async":
                owner.setdefault(i.dsts[0], th_cta[t])
            elif i.op in ("bulk", "reduce"):
                owner.setdefault(i.src, th_cta[t])
    shared = {}
    nxt = {}
    for dsts, mbars in multicast_groups:
        off = max([nxt.get(owner[d], 0) for d in dsts])
        for d in dsts:
            shared[d] = (owner[d], off)
            nxt[owner[d]] = off + SLOT
    for loc in test.all_locs():
        if loc in owner and loc not in shared:
            o = owner[loc]
            shared[loc] = (o, nxt.get(o, 0))
            nxt[o] = nxt.get(o, 0) + SLOT
    # mbarriers after the shared slots, at a per-CTA cursor; a multicast copy's mbarriers first, all at one
    # CTA-relative offset: "The mbarrier signal is also multicast to the same CTA-relative offset as mbar in the
    # shared memory of the destination CTA" (the chapter, cp.async.bulk)
    base = max(nxt.values(), default=0)
    mbar, cursor = {}, {}
    for dsts, mbars in multicast_groups:
        owners = [index[(0, test.mbarriers[m][0])] for m in mbars if m not in mbar]
        if not owners:
            continue
        off = max(cursor.get(o, base) for o in owners)
        for m in mbars:
            if m in mbar:
                if mbar[m][1] != off:
                    raise NotSupported(f"mbarrier '{m}' of two multicast copies at different offsets")
                continue
            o = index[(0, test.mbarriers[m][0])]
            mbar[m] = (o, off)
            cursor[o] = off + 8
    for m in sorted(test.mbarriers):
        if m not in mbar:
            o = index[(0, test.mbarriers[m][0])]
            mbar[m] = (o, cursor.get(o, base))
            cursor[o] = cursor.get(o, base) + 8
    smem_bytes = max(list(cursor.values()) + [base + 8])
    globals_ = [l for l in test.all_locs() if l not in shared]
    return ctas, cs, len(clusters), shared, mbar, globals_, th_cta, index, smem_bytes


SEM = {"weak": "", "relaxed": ".relaxed", "acquire": ".acquire", "release": ".release", "acq_rel": ".acq_rel"}


def _mem_scope(i):
    return "" if i.sem == "weak" else f".{i.scope}"


def _index_array(name, indices):
    """A kernel's `const unsigned char NAME[] = {...};` of location indices (`{0}` when empty: C++ has no empty
    array; its count, passed beside it, is then 0)."""
    return f"const unsigned char {name}[] = {{{', '.join(map(str, indices)) if indices else '0'}}};"


class _Emitter:
    def __init__(self, test):
        self.test = test
        (self.ctas, self.cs, self.nclusters, self.shared, self.mbar, self.globals, self.th_cta, self.index,
         self.smem_bytes) = _layout(test)
        self.regs = sorted({f"{t}:{i.reg}" for t, ins in test.code.items() for i in ins if i.reg})
        self.kernel = "lit_" + _ident(test.name)
        # the bounds of gpu/litmus_device.hpp (kLitMaxThreads, kLitMaxGlobals, kLitKeyFields)
        if len(test.threads) > 16:
            raise NotSupported(f"{len(test.threads)} test threads (the runner shuffles at most 16)")
        if len(self.globals) > 16:
            raise NotSupported(f"{len(self.globals)} global locations (the runner permutes at most 16)")
        nobs = len({l for l in test.observe if l in self.globals})
        if len(self.regs) + nobs > 7:
            raise NotSupported(f"{len(self.regs)} registers and {nobs} observed locations: an outcome key holds 7")
        self.tmaps = sorted({i.src for ins in test.code.values() for i in ins if i.op == "tensor"})
        for t_, ins in test.code.items():
            for i in ins:
                if i.loc in self.tmaps and not (i.op == "st" and i.value in (0, 1)):
                    raise NotSupported(f"'{i.text}': a tensor map is only stored (version 0 or 1) by the runner")
                if i.op == "tensor" and self.test.init.get(i.src, 0) not in (0, 1):
                    raise NotSupported(f"tensor map '{i.src}': initial version 0 or 1")

    def ptr(self, loc, t):
        """A C++ expression: the generic address of `loc` for thread t."""
        if loc in self.shared:
            owner, off = self.shared[loc]
            if owner // self.cs != self.th_cta[t] // self.cs:
                raise NotSupported(f"'{loc}' is the shared memory of a CTA of another cluster")
            return f"LOC_S({off}, {owner % self.cs})"
        return f"LOC_G({self.globals.index(loc)})"

    def saddr(self, loc, t):
        """A C++ expression: the shared::cta address of a shared location of t's own CTA."""
        if loc not in self.shared:
            raise NotSupported(f"'{loc}' is used as shared memory and as global memory")
        owner, off = self.shared[loc]
        if owner != self.th_cta[t]:
            raise NotSupported(f"'{loc}' is the shared::cta operand of a copy but the shared memory of another CTA")
        return f"SADDR({off})"

    def maddr(self, m, t):
        owner, off = self.mbar[m]
        if owner == self.th_cta[t]:
            return f"SADDR({off})", False
        if owner // self.cs != self.th_cta[t] // self.cs:
            raise NotSupported(f"mbarrier '{m}' is in a CTA of another cluster")
        return f"RADDR({off}, {owner % self.cs})", True

    def gaddr(self, loc):
        if loc in self.shared:
            raise NotSupported(f"'{loc}' is the global operand of a copy but a shared location")
        return f"GADDR({self.globals.index(loc)})"

    def body(self, t):
        out, reg = [], {}
        for r in self.regs:
            if r.startswith(t + ":"):
                reg[r.split(":")[1]] = f"r_{_ident(r.split(':')[1])}"
        decl = [f"uint32_t {v} = 0;" for v in reg.values()]
        bars = {}

        def val(v):
            return str(v & 0xffffffff) + "u" if isinstance(v, int) else reg.get(v, "0u")
        for k, i in enumerate(self.test.code[t]):
            if k:
                out.append(f"between(p, group, cta, {k - 1}u);")
            out.append(f"  // {i.text}")
            if i.op == "mov":
                out.append(f"{reg[i.reg]} = {val(i.value)};")
            elif i.op == "ld":
                out.append(f'asm volatile("ld{SEM[i.sem]}{_mem_scope(i)}.u32 %0, [%1];" : "=r"({reg[i.reg]}) : '
                           f'"l"({self.ptr(i.loc, t)}) : "memory");')
            elif i.op == "st" and i.loc in self.tmaps:
                # a new version of the tensor map: the 128 bytes of the host-encoded map `value`, generic stores
                out.append(f"tmap_store({self.ptr(i.loc, t)}, p.tmap_images + {i.value} * 32);")
            elif i.op == "st":
                out.append(f'asm volatile("st{SEM[i.sem]}{_mem_scope(i)}.u32 [%0], %1;" :: "l"({self.ptr(i.loc, t)}), '
                           f'"r"({val(i.value)}) : "memory");')
            elif i.op == "atom":
                op = {"add": "add.u32", "sub": "add.u32", "exch": "exch.b32"}[i.rmw]
                v = val(i.value) if i.rmw != "sub" else f"(0u - {val(i.value)})"
                if i.reg:
                    out.append(f'asm volatile("atom{SEM[i.sem]}.{i.scope}.{op} %0, [%1], %2;" : "=r"({reg[i.reg]}) : '
                               f'"l"({self.ptr(i.loc, t)}), "r"({v}) : "memory");')
                else:
                    out.append(f'asm volatile("red{SEM[i.sem]}.{i.scope}.{op} [%0], %1;" :: "l"({self.ptr(i.loc, t)}), '
                               f'"r"({v}) : "memory");')
            elif i.op == "fence":
                if i.fence == "proxy_async":
                    out.append('asm volatile("fence.proxy.async;" ::: "memory");')
                elif i.fence == "proxy_tensormap":
                    out.append('asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");')
                    for m in self.tmaps:
                        out.append(f'asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: '
                                   f'"l"({self.ptr(m, t)}) : "memory");')
                else:
                    out.append(f'asm volatile("fence.{i.fence}.{i.scope};" ::: "memory");')
            elif i.op == "bar":
                # `bar.sync` is `barrier.sync.aligned`: every thread of a warp must execute the same instruction;
                # the test's threads share warps with stress threads (the shuffle) and each executes its own
                # barrier instruction, so the non-aligned form, the same barrier resource (PTX ISA, bar/barrier)
                out.append(f'asm volatile("barrier.sync {i.n};" ::: "memory");')
                bars[("bar", i.n)] = bars.get(("bar", i.n), 0) + 1
            elif i.op == "barrier_cluster":
                out.append('asm volatile("barrier.cluster.arrive.release;\\n\\tbarrier.cluster.wait.acquire;" ::: "memory");')
                bars[("cluster",)] = bars.get(("cluster",), 0) + 1
            elif i.op == "cp_async":
                out.append(f'asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"({self.saddr(i.dsts[0], t)}), '
                           f'"l"({self.gaddr(i.src)}) : "memory");')
            elif i.op == "commit":
                out.append(f'asm volatile("cp.async{".bulk" if i.group == "bulk" else ""}.commit_group;" ::: "memory");')
            elif i.op == "wait":
                if i.value == "all":
                    out.append('asm volatile("cp.async.wait_all;" ::: "memory");')
                else:
                    g = ".bulk" if i.group == "bulk" else ""
                    rd = ".read" if i.read_only else ""
                    out.append(f'asm volatile("cp.async{g}.wait_group{rd} {i.n};" ::: "memory");')
            elif i.op in ("bulk", "reduce"):
                if i.completion == "bulk_group":
                    kind = "cp.reduce.async.bulk" if i.op == "reduce" else "cp.async.bulk"
                    red = ".add.u32" if i.op == "reduce" else ""
                    out.append(f'asm volatile("{kind}.global.shared::cta.bulk_group{red} [%0], [%1], {i.bytes};" :: '
                               f'"l"({self.gaddr(i.dsts[0])}), "r"({self.saddr(i.src, t)}) : "memory");')
                elif i.op == "reduce":
                    raise NotSupported("cp.reduce.async.bulk into shared memory with an mbarrier")
                elif len(i.dsts) == 1:
                    mb, _ = self.maddr(i.mbars[0], t)
                    out.append('asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes '
                               f'[%0], [%1], {i.bytes}, [%2];" :: "r"({self._caddr(i.dsts[0], t)}), '
                               f'"l"({self.gaddr(i.src)}), "r"({self._cmaddr(i.mbars[0], t)}) : "memory");')
                else:
                    mask = 0
                    for d in i.dsts:
                        mask |= 1 << (self.shared[d][0] % self.cs)
                    off = self.shared[i.dsts[0]][1]
                    moff = self.mbar[i.mbars[0]][1]
                    out.append('asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes'
                               f'.multicast::cluster [%0], [%1], {i.bytes}, [%2], %3;" :: "r"(SADDR({off})), '
                               f'"l"({self.gaddr(i.src)}), "r"(SADDR({moff})), "h"((uint16_t){mask}) : "memory");')
            elif i.op == "tensor":
                out.append('asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx'
                           f'::bytes [%0], [%1, {{%2}}], [%3];" :: "r"({self._caddr(i.dsts[0], t)}), '
                           f'"l"({self.ptr(i.src, t)}), "r"(0), "r"({self._cmaddr(i.mbars[0], t)}) : "memory");')
            elif i.op in ("mb_arrive", "mb_expect"):
                addr, remote = self.maddr(i.loc, t)
                scope = "cluster" if remote or i.scope == "cluster" else "cta"
                space = "shared::cluster" if remote else "shared::cta"
                if remote:
                    addr = self._cmaddr(i.loc, t)
                if i.op == "mb_expect":
                    out.append(f'asm volatile("mbarrier.expect_tx.relaxed.{scope}.{space}.b64 [%0], {i.n};" :: '
                               f'"r"({addr}) : "memory");')
                else:
                    tx = ".expect_tx" if i.n else ""
                    n = f", {i.n}" if i.n else ""
                    sem = ".relaxed" if i.sem == "relaxed" else ".release"
                    out.append(f'asm volatile("mbarrier.arrive{tx}{sem}.{scope}.{space}.b64 _, [%0]{n};" :: '
                               f'"r"({addr}) : "memory");')
            elif i.op == "mb_wait":
                addr, remote = self.maddr(i.loc, t)
                if remote:
                    raise NotSupported(f"try_wait on mbarrier '{i.loc}' of another CTA")
                sem = ".relaxed" if i.sem == "relaxed" else ".acquire"
                out.append(f"if (!mbar_wait{sem.replace('.', '_')}_{i.scope}({addr}, p.hang_ns)) hang = 1u;")
            else:
                raise ModelError(f"no CUDA for '{i.text}'")
        return decl, out, bars

    def _caddr(self, loc, t):
        if loc not in self.shared:
            raise NotSupported(f"'{loc}' is the shared destination of a copy but also global memory")
        owner, off = self.shared[loc]
        if owner // self.cs != self.th_cta[t] // self.cs:
            raise NotSupported(f"'{loc}' is the shared memory of a CTA of another cluster")
        return f"CADDR({off}, {owner % self.cs})"

    def _cmaddr(self, m, t):
        owner, off = self.mbar[m]
        return f"CADDR({off}, {owner % self.cs})"

    def kernel_text(self):
        t_ids = list(self.test.threads)
        bodies, bar_counts = {}, {}
        for t in t_ids:
            decl, out, bars = self.body(t)
            bodies[t] = (decl, out)
            bar_counts[t] = bars
        # every thread of a CTA (cluster) executes the same number of each barrier
        keys = sorted({k for b in bar_counts.values() for k in b})
        most = {}
        for k in keys:
            for t in t_ids:
                scope = self.th_cta[t] if k[0] == "bar" else self.th_cta[t] // self.cs
                most[(k, scope)] = max(most.get((k, scope), 0), bar_counts[t].get(k, 0))

        def pad(k, n):
            if k[0] == "bar":
                return [f'for (int b = 0; b < {n}; ++b) asm volatile("barrier.sync {k[1]};" ::: "memory");'] if n else []
            return [f'for (int b = 0; b < {n}; ++b) asm volatile("barrier.cluster.arrive.release;\\n\\t'
                    f'barrier.cluster.wait.acquire;" ::: "memory");'] if n else []
        ncta = len(self.ctas) if self.nclusters == 1 else self.nclusters * self.cs
        lines = [f"// {self.test.name}: {self.test.doc}",
                 f"__global__ void __cluster_dims__({self.cs}, 1, 1) __launch_bounds__({BLOCK}) {self.kernel}(Params p) {{",
                 f"  __shared__ alignas(128) unsigned char smem[{max(self.smem_bytes, 16)}];",
                 "  cg::cluster_group cluster = cg::this_cluster();",
                 "  const unsigned rank = cluster.block_rank();",
                 f"  const unsigned group = blockIdx.x / {ncta};                 // the instance",
                 f"  const unsigned cta = blockIdx.x % {ncta};                   // the test's CTA",
                 "  (void)rank;",
                 "  if (threadIdx.x == 0) {"]
        for m, (owner, off) in self.mbar.items():
            lines.append(f"    if (cta == {owner}) mbar_init(SADDR({off}), {self.test.mbarriers[m][1]});")
        for loc, (owner, off) in self.shared.items():
            lines.append(f"    if (cta == {owner}) *(volatile uint32_t*)(smem + {off}) = {self.test.init.get(loc, 0)}u;")
        plain = self.plain()
        lines += ["    asm volatile(\"fence.mbarrier_init.release.cluster;\" ::: \"memory\");", "  }",
                  f"  uint32_t gp[{max(1, len(self.globals))}];",
                  f"  global_perm(p, group, gp, {len(self.globals)});",
                  "  " + _index_array("kPlain", plain),
                  f"  prewarm(p, group, gp, kPlain, {len(plain)});",
                  "  cluster.sync();",
                  f"  const unsigned char kThreadCta[] = {{{', '.join(str(self.th_cta[t]) for t in t_ids)}}};",
                  f"  const int role = test_role(p, group, cta, kThreadCta, {len(t_ids)});",
                  "  uint32_t hang = 0u;", "  switch (role) {"]
        for k, t in enumerate(t_ids):
            decl, out = bodies[t]
            lines.append(f"  case {k}: {{  // {t}, CTA {self.th_cta[t]}")
            lines.append(f"    prestress(p, group, cta, {len(t_ids)}u);")
            lines += ["    " + d for d in decl]
            lines += ["    " + o for o in out]
            for key in keys:
                scope = self.th_cta[t] if key[0] == "bar" else self.th_cta[t] // self.cs
                lines += ["    " + x for x in pad(key, most[(key, scope)] - bar_counts[t].get(key, 0))]
            for r in self.regs:
                if r.startswith(t + ":"):
                    lines.append(f"    p.regs[group * {len(self.regs)} + {self.regs.index(r)}] = "
                                 f"r_{_ident(r.split(':')[1])};")
            # drain: no copy of this thread may outlive its CTA (a mutant may wait too little)
            ops = {i.op for i in self.test.code[t]} | {i.completion for i in self.test.code[t]}
            if "bulk_group" in ops:
                lines.append('    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");')
            if "cp_async" in ops:
                lines.append('    asm volatile("cp.async.wait_all;" ::: "memory");')
            lines += ["    break;", "  }"]
        warm, near = self.warmable(), self.near()
        lines += ["  default: {", "    " + _index_array("kWarm", warm), "    " + _index_array("kNear", near),
                  f"    stress(p, group, cta, gp, kWarm, {len(warm)}, kNear, {len(near)});"]
        for key in keys:
            for c in range(ncta):
                n = most.get((key, c if key[0] == "bar" else c // self.cs), 0)
                if n:
                    lines += [f"    if (cta == {c}) {{"] + ["      " + x for x in pad(key, n)] + ["    }"]
        lines += ["  }", "  }", "  if (hang) atomicOr(&p.hang[group], 1u);",
                  "  cluster.sync();   // every test thread is done"]
        # drain the mbarriers: the bytes a copy still has in flight (a mutant's expect_tx too small, a wait that
        # gave up) land before the CTA exits: phase 0, then the rest in phase 1
        drains = []
        for m, (owner, off) in self.mbar.items():
            expected = sum(i.n or 0 for ins in self.test.code.values() for i in ins
                           if i.op in ("mb_arrive", "mb_expect") and i.loc == m)
            bytes_in = sum(i.bytes for ins in self.test.code.values() for i in ins
                           if i.op in ("bulk", "tensor", "reduce") and m in i.mbars)
            drains.append(f"    if (cta == {owner}) mbar_drain(SADDR({off}), {expected}u, {bytes_in}u, "
                          f"{self.test.mbarriers[m][1]}u, p.hang_ns);")
        if drains:
            lines += ["  if (threadIdx.x == 0) {"] + drains + ["  }"]
        lines += ["  cluster.sync();   // peers may still write this CTA's shared memory", "}"]
        return "\n".join(lines), ncta

    def warmable(self):
        """Indices of the global locations the warm stress may load: none a copy writes (a read of a copy's
        destination before completion is what the chapter leaves undefined), no tensor map."""
        written = {d for ins in self.test.code.values() for i in ins
                   if i.op in ("bulk", "reduce", "cp_async", "tensor") for d in i.dsts}
        return [k for k, l in enumerate(self.globals) if l not in written and l not in self.tmaps]

    def near(self):
        """Indices of the global locations whose line the near stress may store into (its second half, from word
        kLitNearWord = 16 of the slot): none when a copy moves more than 64 bytes (it would reach those words), no
        tensor map (128 bytes)."""
        if any(i.bytes > 64 for ins in self.test.code.values() for i in ins if i.op in ("bulk", "reduce", "tensor")):
            return []
        return self.plain()

    def plain(self):
        """Indices of the global locations that are not tensor maps (the prewarm loads them)."""
        return [k for k, l in enumerate(self.globals) if l not in self.tmaps]

    def table_row(self, ncta, mutant=False):
        inits = " ".join(str(self.test.init.get(g, 0)) for g in self.globals)
        observe = " ".join(str(self.globals.index(l)) for l in sorted(set(self.test.observe)) if l in self.globals)
        if any(l not in self.globals for l in self.test.observe):
            raise NotSupported("a final value of shared memory is observed")
        roles = " ".join(str(self.th_cta[t]) for t in self.test.threads)
        tmaps = " ".join(str(self.globals.index(m)) for m in self.tmaps)
        return (f'  {{"{self.test.name}", (const void*){self.kernel}, {ncta}, {len(self.test.threads)}, '
                f'{len(self.globals)}, {len(self.regs)}, "{" ".join(self.regs)}", "{" ".join(self.globals)}", '
                f'"{inits}", "{observe}", "{roles}", {int(mutant)}, "{tmaps}"}},')


PRELUDE = r'''// Generated by `./ptxcts litmus cuda` (harness/litmodel/cuda.py) from litmus tests labelled by the model.
// Each kernel runs one test in many parallel instances with stress; the host runner (litmus_runner.cu)
// histograms every outcome and judges it by the labels. Build: nvcc -gencode arch=compute_90a,code=sm_90a -std=c++17.
#include <cooperative_groups.h>
#include <cstdint>
namespace cg = cooperative_groups;

#include "litmus_device.hpp"   // Params, the device shuffle and permutation, the outcome key

#define LOC_G(i) (p.gmem + (size_t)(group * p.nglobal + gp[(i)]) * p.gstride)
#define GADDR(i) to_global(LOC_G(i))
#define SADDR(off) ((uint32_t)__cvta_generic_to_shared(smem + (off)))
#define LOC_S(off, r) ((uint32_t*)cluster.map_shared_rank((void*)(smem + (off)), (r)))
#define RADDR(off, r) mapa(SADDR(off), (r))
#define CADDR(off, r) mapa(SADDR(off), (r))

__device__ __forceinline__ uint64_t to_global(const void* p) {
  uint64_t g;
  asm volatile("cvta.to.global.u64 %0, %1;" : "=l"(g) : "l"(p));
  return g;
}
__device__ __forceinline__ uint32_t mapa(uint32_t a, uint32_t rank) {
  uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(rank));
  return r;
}
// A new version of a tensor map in global memory: its 128 bytes by generic stores (the litmus `st tm V`).
__device__ __forceinline__ void tmap_store(uint32_t* slot, const uint32_t* image) {
  for (int w = 0; w < 32; w += 2)
    asm volatile("st.u64 [%0], %1;" :: "l"(slot + w), "l"(*(const unsigned long long*)(image + w)) : "memory");
}
__device__ __forceinline__ void mbar_init(uint32_t a, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(a), "r"(count) : "memory");
}
// A wait gives up after p.hang_ns nanoseconds of %globaltimer (the instance's outcome is then `hang`).
__device__ __forceinline__ uint64_t now_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
  return t;
}
#define MBAR_WAIT(NAME, SEMSCOPE)                                                                           \
  __device__ __forceinline__ bool NAME(uint32_t a, uint32_t limit_ns, uint32_t parity = 0) {             \
    const uint64_t t0 = now_ns();                                                                        \
    for (;;) {                                                                                           \
      uint32_t done;                                                                                     \
      asm volatile("{ .reg .pred q; mbarrier.try_wait.parity" SEMSCOPE ".shared::cta.b64 q, [%1], %2;\n\t" \
                   "selp.u32 %0, 1, 0, q; }" : "=r"(done) : "r"(a), "r"(parity) : "memory");             \
      if (done) return true;                                                                             \
      if (now_ns() - t0 > limit_ns) return false;                                                        \
    }                                                                                                    \
  }
MBAR_WAIT(mbar_wait_acquire_cta, ".acquire.cta")
MBAR_WAIT(mbar_wait_acquire_cluster, ".acquire.cluster")
MBAR_WAIT(mbar_wait_relaxed_cta, ".relaxed.cta")
MBAR_WAIT(mbar_wait_relaxed_cluster, ".relaxed.cluster")

// The end of an instance: wait (bounded) for phase 0 of an mbarrier; when its copies bring more bytes than phase 0
// expected, expect the rest in phase 1 and wait for it, so that no copy lands after the CTA exits.
__device__ __forceinline__ void mbar_drain(uint32_t a, uint32_t expected, uint32_t bytes, uint32_t count,
                                           uint32_t limit) {
  if (!mbar_wait_acquire_cta(a, limit) || bytes <= expected) return;
  asm volatile("mbarrier.arrive.expect_tx.relaxed.cta.shared::cta.b64 _, [%0], %1;" :: "r"(a), "r"(bytes - expected)
               : "memory");
  for (uint32_t i = 1; i < count; ++i)
    asm volatile("mbarrier.arrive.relaxed.cta.shared::cta.b64 _, [%0];" :: "r"(a) : "memory");
  mbar_wait_acquire_cta(a, limit, 1);
}

// Stress (MC Mutants' parallel environment, its knobs in Params: litmus_device.hpp): the threads of a CTA below
// p.stress_threads that play no test thread load and/or store a few hot lines of the stress buffer, chosen per
// instance, while the test runs; kStressWarm first loads the instance's plain global locations (`warm`: none a
// copy writes) through L1 and keeps loading them, so that a weak load of a test thread on this SM may hit a line
// of L1 older than a write of another SM (the staleness an acquire's L1 invalidation forbids).
__device__ __forceinline__ uint32_t ld_ca(const uint32_t* a) {
  uint32_t v;
  asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(to_global(a)) : "memory");
  return v;
}
__device__ __forceinline__ void stress_iter(const Params& p, uint32_t& x) {
  x = x * 1664525u + 1013904223u;
  uint32_t* line = p.stress_buf + (size_t)((x >> 8) % p.stress_lines) * 32;
  uint32_t v = 0;
  if (p.stress_pattern != kStressStore) v = *(volatile uint32_t*)line;
  if (p.stress_pattern != kStressLoad) *(volatile uint32_t*)(line + (threadIdx.x & 31)) = v + 1u;
}
__device__ __forceinline__ void stress(const Params& p, unsigned group, unsigned cta, const uint32_t* gp,
                                       const unsigned char* warm, int nwarm, const unsigned char* near, int nnear) {
  if (!p.stress_lines || threadIdx.x >= p.stress_threads) return;
  uint32_t x = threadIdx.x * 2654435761u + group * 40503u + cta + p.iter * 0x9E3779B9u + (uint32_t)p.seed;
  const bool w = p.stress_pattern == kStressWarm && nwarm > 0;
  // kStressNear: the slot must hold the line's second half (a stride of 16 words is a 64-byte slot: no room)
  const bool nr = p.stress_pattern == kStressNear && nnear > 0 && p.gstride >= 2 * kLitNearWord;
  if (w)
    for (int i = 0; i < nwarm; ++i) x += ld_ca(p.gmem + (size_t)(group * p.nglobal + gp[warm[i]]) * p.gstride);
  for (uint32_t i = 0; i < p.stress_iters; ++i) {
    if (nr) {
      x = x * 1664525u + 1013904223u;
      uint32_t* slot = p.gmem + (size_t)(group * p.nglobal + gp[near[(x >> 4) % (uint32_t)nnear]]) * p.gstride;
      *(volatile uint32_t*)(slot + kLitNearWord + (threadIdx.x % kLitNearWord)) = x;
      continue;
    }
    stress_iter(p, x);
    if (w) x += ld_ca(p.gmem + (size_t)(group * p.nglobal + gp[warm[(x >> 4) % (uint32_t)nwarm]]) * p.gstride);
  }
}
// With p.prewarm, before the cluster's first barrier (so before any test instruction, a copy's issue included: no
// access of the model's is touched before its time), lanes of the CTA's first warp load the instance's global
// locations but the tensor maps through this SM's L1: each then holds its initial value there, and a later weak
// load by a test thread of this CTA that is not preceded by an L1 invalidation (CCTL.IVALL: what an acquire, a
// fence.sc or a full cp.async.bulk.wait_group adds, and a .relaxed try_wait or a wait_group.read does not) may hit it.
__device__ __forceinline__ void prewarm(const Params& p, unsigned group, const uint32_t* gp, const unsigned char* plain,
                                        int nplain) {
  if (!p.prewarm || threadIdx.x >= 32) return;
  uint32_t x = 0;
  for (int i = (int)threadIdx.x; i < nplain; i += 32)
    x += ld_ca(p.gmem + (size_t)(group * p.nglobal + gp[plain[i]]) * p.gstride);
  (void)x;
}
// A random delay of 0..most SM clock cycles, a hash of the launch, the instance, the thread and salt.
__device__ __forceinline__ void random_delay(const Params& p, unsigned group, unsigned cta, unsigned salt,
                                             uint32_t most) {
  if (!most) return;
  const uint32_t n = (uint32_t)(lit_hash(p.seed, p.iter, group, cta * 64u + threadIdx.x, salt) % (most + 1u));
  const long long t0 = clock64();
  while (clock64() - t0 < (long long)n) {
  }
}
// The start of a test thread: with p.meet, the instance's test threads first meet (each adds one to its instance's
// count and spins, relaxed, until all n have, at most kLitMeetLimitNs), so that the start delay below is measured
// from one moment rather than from when each thread's warp came to it (a warp that ran its stress lanes first, a
// CTA scheduled later); then up to p.pre_iters cycles, so that the test threads of an instance meet at every offset
// of each other's instructions, not at the one the launch order gives. The meeting touches no location of the
// test: the model's executions are the same.
__device__ __forceinline__ void prestress(const Params& p, unsigned group, unsigned cta, uint32_t n) {
  if (p.meet) {
    uint32_t* c = p.meet_count + group;
    atomicAdd(c, 1u);
    const uint64_t t0 = now_ns();
    for (;;) {
      uint32_t v;
      asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(to_global(c)) : "memory");
      if (v >= n || now_ns() - t0 > kLitMeetLimitNs) break;
    }
  }
  random_delay(p, group, cta, 7u, p.pre_iters);
}
// Between instruction k and k+1 of a test thread: up to p.gap_iters cycles, so that the window between two of one
// thread's accesses, a few cycles when they issue back to back, can hold another thread's accesses: the
// interleavings a start delay alone never reaches. Any delay is an execution the model already has; it never makes
// an outcome allowed.
__device__ __forceinline__ void between(const Params& p, unsigned group, unsigned cta, unsigned k) {
  random_delay(p, group, cta, 8u + k, p.gap_iters);
}
'''


def translate(tests, mutant_names=()):
    """(the kernels' CUDA source, [(test, why not supported)]); the tests named in mutant_names are graded
    mutants (the runner reports them killed or survived)."""
    parts, rows, skipped = [PRELUDE], [], []
    for t in tests:
        try:
            em = _Emitter(t)
            text, ncta = em.kernel_text()
        except NotSupported as e:
            skipped.append((t.name, str(e)))
            continue
        try:
            row = em.table_row(ncta, t.name in mutant_names)
        except NotSupported as e:
            skipped.append((t.name, str(e)))
            continue
        parts.append(text)
        rows.append(row)
    parts.append('#include "litmus_runner.hpp"')
    parts.append("extern const LitmusKernel kLitmusKernels[] = {\n" + "\n".join(rows) + "\n};")
    parts.append(f"extern const int kLitmusKernelCount = {len(rows)};")
    return "\n\n".join(parts) + "\n", skipped


def write(tests, out_dir, model, judge_as=None):
    """DIR/litmus_kernels.cu and DIR/labels.tsv (each test's outcomes and verdicts by `model`; a mutant is judged
    by its original's labels: judge_as maps its name to the original test). Returns [(test, why not supported)]."""
    src, skipped = translate(tests, set(judge_as or ()))
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "litmus_kernels.cu"), "w", encoding="utf-8") as f:
        f.write(src)
    rows = []
    done = set(n for n, _ in skipped)
    for t in tests:
        if t.name in done:
            continue
        base = (judge_as or {}).get(t.name, t)
        res = model.run(base)
        for o, v in sorted(res.verdicts.items()):
            rows.append(f"{t.name}\t{' '.join(f'{k}={x}' for k, x in o)}\t{v}")
    with open(os.path.join(out_dir, "labels.tsv"), "w", encoding="utf-8") as f:
        f.write("\n".join(rows) + "\n")
    return skipped
