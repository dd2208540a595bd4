"""The CuTe DSL's whole kernels: for a form's DSL spelling (the primitive call of ptxcts_gen.frontends.cute_dsl, its
roles bound to real buffers), a `@cute.kernel` that runs the instruction inside the protocol it needs (mbarrier
init, expect-tx and wait; the proxy fence before a bulk store; commit and wait groups; a barrier before the
read-back), compiled by the DSL (libNVVM selects the instruction) and judged by the bytes it leaves.

Every kernel takes five tensors, each a pointer in the PTX (the DSL passes a static compact tensor as its address):
g (the global source or destination), h (the bytes a store or reduction takes into shared memory), out
(the read-back; each 8 KB), p (32-bit parameters: p[0] the size, p[2] the CTA mask, p[4..8] the coordinates innermost
first, p[9..11] the im2col offsets, p[12..13] the L2 cache policy) and t (a tensor map's 128 bytes, encoded by the
runner at launch). One CTA of 32 threads; thread 0 issues. The roles of the mapping (ROLES: g.iterator, s, dsm,
tm, mb, sz, pol, c, o, ...) are bound to them in the kernel's prelude, so the call under test is the tier's own
call text.
"""
import struct
import textwrap

from .folder import elements, to_bytes
from .kernels import Case, NotWritten, _pattern

SIZE = 256                         # bytes of a bulk copy or reduction
WORDS = 1024                       # 64-bit words of g, h and out
SHARED = 8192                      # dynamic shared memory of a launch: s and s2 (2 KB each), the mbarrier, alignment
CUTLASS_EVICT_NORMAL = 0x1000000000000000   # the cache policy CUTLASS passes for EVICT_NORMAL (CacheHintSm90)
# a tile tensor: 16-bit elements, dims innermost first, box [16, 2, ...] partly outside in every dimension but the
# outermost (a load's start below zero too; a store's non-negative, the chapter's restriction on the
# .global.shared::cta direction). The innermost start is a multiple of 16 bytes: an H100 traps on any other
# (the recorded finding tensor_coord_alignment=16B_trap), and a row of the tensor fills whole 16-byte granules
# (tensor_store_oob=granule16_written writes past a row's end inside its last granule)
TILE = {"dims": [24, 3, 3, 3, 3], "box": [16, 2, 2, 2, 2], "load": [16, 1, 2, -1, 0], "store": [16, 1, 2, 1, 0]}
# a reduction's tile: 32-bit elements, likewise
RTILE = {"dims": [12, 3, 3, 3, 3], "box": [8, 2, 2, 2, 2], "store": [8, 1, 2, 1, 0]}
IM2COL = {"channels": 8, "pixels": 16, "spatial": [10, 3, 3]}   # W, H, D
_TYPES = {"u32": 4, "s32": 4, "u64": 8, "s64": 8, "b32": 4, "b64": 8, "f32": 4, "f64": 8, "f16": 2, "bf16": 2}

PRELUDE = """\
import cutlass
import cutlass.cute as cute
from cutlass.experimental.primitives import nvvm_wrapper as P
from cutlass._mlir.dialects import llvm as _L


def _cast(p, space):
    return _L.addrspacecast(_L.PointerType.get(space), P._to_ir(p, None, None))
"""

_HEAD = """

@cute.kernel
def {entry}(g: cute.Tensor, h: cute.Tensor, out: cute.Tensor, p: cute.Tensor, t: cute.Tensor):
    smem = cutlass.utils.SmemAllocator()
    s = smem.allocate_array(cutlass.Int64, 256)
    s2 = smem.allocate_array(cutlass.Int64, 256)
    mb = smem.allocate_array(cutlass.Int64, 1)
    st = cute.make_tensor(s, cute.make_layout(256))
    st2 = cute.make_tensor(s2, cute.make_layout(256))
    dsm = _cast(s2, cutlass.AddressSpace.dsmem)
    tm = _cast(t.iterator, cutlass.AddressSpace.generic)
    sz = cutlass.Int32(p[0])
    pol = (cutlass.Int64(p[13]) << 32) | cutlass.Int64(p[12])
    mask = cutlass.Int16(p[2])
    bmask = cutlass.Int16(p[3])
    c = [cutlass.Int32(p[4 + i]) for i in range(5)]
    o = [cutlass.Int16(p[9 + i]) for i in range(3)]
    tidx, _, _ = cute.arch.thread_idx()
"""
_INIT = """    if tidx == 0:
        cute.arch.mbarrier_init(mb, {count})
        cute.arch.mbarrier_init_fence()
    cute.arch.sync_threads()
"""
_FILL = """    for i in range(tidx, 256, 32):
        st[i] = h[i]
    P.fence_proxy(P.Proxy.ASYNC_SHARED, space=P.SharedSpace.shared_cta)
    cute.arch.sync_threads()
"""
_STORE_WAIT = """        cute.arch.cp_async_bulk_commit_group()
        cute.arch.cp_async_bulk_wait_group(0)
    cute.arch.sync_threads()
"""


def _readback(src="st", n=256):
    return f"""    for i in range(tidx, {n}, 32):
        out[i] = {src}[i]
"""


# A tensor map copied into global memory by the host is read through the tensormap proxy, which a kernel does not
# acquire from the generic proxy at its start: the issuing thread fences before its first use
# (fence.proxy.tensormap::generic.acquire.gpu [t], 128; the CUDA programming guide's rule for a map in global memory)
_MAP_FENCE = "        cute.nvgpu.cpasync.fence_tma_desc_acquire(t.iterator)\n"


CLUSTER = 2                        # CTAs of a cluster kernel (multicast, the cluster-scope fence)
OUT_CTA = 512                      # out's 64-bit words per CTA of a cluster kernel (CTA r reads back at r * OUT_CTA)
_CLUSTER_SYNC = "    cute.arch.cluster_arrive()\n    cute.arch.cluster_wait()\n"


def _issue(call, expect=None, tensor_map=False):
    pre = _MAP_FENCE if tensor_map else ""
    pre += f"        cute.arch.mbarrier_arrive_and_expect_tx(mb, {expect})\n" if expect else ""
    return f"    if tidx == 0:\n{pre}        {call}\n"


def _wait():
    return "    cute.arch.mbarrier_wait(mb, 0)\n"


def _words(values, width):
    """Element values of `width` bytes laid out as the 64-bit words of a buffer."""
    return elements(to_bytes(values, width), 8)


def _float_bits(typ, x):
    if typ == "f32":
        return struct.unpack("<I", struct.pack("<f", x))[0]
    if typ == "f64":
        return struct.unpack("<Q", struct.pack("<d", x))[0]
    if typ == "f16":
        return struct.unpack("<H", struct.pack("<e", x))[0]
    return struct.unpack("<I", struct.pack("<f", x))[0] >> 16   # bf16: exact for these small values


def _values(typ, n, salt):
    """n element values of a reduction type: finite floats (no NaN, whose min/max the chapter leaves open), and
    integers of both signs and varied bits."""
    width = _TYPES[typ]
    if typ.startswith(("f", "bf")):
        return [_float_bits(typ, ((i * 7 + salt) % 41 - 20) * 0.25) for i in range(n)]
    mask = (1 << (8 * width)) - 1
    return [_mix(i, salt) & mask for i in range(n)]


def _mix(i, salt):
    """A 64-bit hash of (i, salt) (splitmix64's finaliser): neighbouring indices give unrelated values."""
    x = ((i + 1) * 0x9E3779B97F4A7C15 + salt * 0xD1B54A32D192ED03) & (2 ** 64 - 1)
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & (2 ** 64 - 1)
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & (2 ** 64 - 1)
    return x ^ (x >> 31)


def _mixed64(n, salt):
    """64-bit words with no zero byte pattern to hide behind: a fixed function of the index."""
    return [_mix(i, salt) for i in range(n)]


class Params:
    """The p tensor: size, CTA mask, byte mask, coordinates (innermost first), im2col offsets."""

    def __init__(self, size=SIZE, coords=(), offsets=(), mask=0, bmask=0):
        self.v = [0] * 16
        self.v[0], self.v[2], self.v[3] = size, mask, bmask
        # the cache policy, loaded at run time (a register operand, as the form has)
        self.v[12], self.v[13] = CUTLASS_EVICT_NORMAL & 0xFFFFFFFF, CUTLASS_EVICT_NORMAL >> 32
        for i, x in enumerate(coords):
            self.v[4 + i] = x & 0xFFFFFFFF
        for i, x in enumerate(offsets):
            self.v[9 + i] = x & 0xFFFFFFFF


def _multicast(entry, template, s, head, call, nbytes, tensor_map, prm, check, g=None, tmap=None):
    """A multicast copy in a cluster of CLUSTER CTAs: thread 0 of each CTA initialises its mbarrier (at the same
    offset in each) and expects the bytes; a cluster barrier makes every barrier's initialisation visible before
    CTA 0's thread 0 issues with the CTA mask 0b11; each CTA waits on its own barrier and reads its shared memory
    back into its part of out; a last cluster barrier keeps every CTA's shared memory alive until all are done."""
    src = head + _INIT.format(count=1) + \
        f"    if tidx == 0:\n        cute.arch.mbarrier_arrive_and_expect_tx(mb, {nbytes})\n" + \
        _CLUSTER_SYNC + "    rank = cute.arch.block_idx_in_cluster()\n    if rank == 0:\n" + \
        textwrap.indent(_issue(call, tensor_map=tensor_map), "    ") + _wait() + \
        f"    for i in range(tidx, {nbytes // 8}, 32):\n        out[rank * {OUT_CTA} + i] = st[i]\n" + _CLUSTER_SYNC
    c = _case(entry, template, s.args, src, prm, dict(check, ctas=CLUSTER, cta_bytes=8 * OUT_CTA), g=g, tmap=tmap)
    c.options["num_ctas"] = CLUSTER
    return c


def _cluster_fence(entry, s, head, call):
    """fence.proxy.async.shared::cluster between generic writes to a peer CTA's shared memory and the peer's bulk
    store of it: CTA 1 writes h into CTA 0's s through distributed shared memory (st.shared::cluster: an LLVM
    store to the mapa'd address; the DSL's tensors do not store to distributed shared memory), fences (the call
    under test) and arrives on the cluster barrier; CTA 0 waits on it and stores s to g with a bulk copy (the async
    proxy)."""
    src = head + "    rank = cute.arch.block_idx_in_cluster()\n" + _CLUSTER_SYNC + \
        "    if rank == 1:\n" + \
        f"        for i in range(tidx, {SIZE // 8}, 32):\n" + \
        "            peer = P._to_ir(cute.arch.map_dsmem_ptr(s + i, 0), None, None)\n" + \
        "            _L.store(cutlass.Int64(h[i]).ir_value(), peer)\n" + \
        f"        {call}\n" + \
        _CLUSTER_SYNC + "    if rank == 0:\n" + \
        textwrap.indent(_issue("P.cp_async_bulk_global_shared_cta(g.iterator, s, sz)") + _STORE_WAIT, "    ") + \
        _CLUSTER_SYNC
    c = _case(entry, "fence_proxy_async", s.args, src, Params(), {"kind": "store", "bytes": SIZE})
    c.options["num_ctas"] = CLUSTER
    return c


def _to_peer(entry, s, head, call):
    """A bulk copy from CTA 0's shared memory into CTA 1's, in a cluster of CLUSTER CTAs: the chapter's
    shared::cluster.shared::cta destination "has to be in the shared memory of a different CTA" (run.peer_must_differ;
    a copy into the issuing CTA traps on an H100). Each CTA initialises its mbarrier, CTA 1's thread 0 expects the
    bytes; a cluster barrier makes both visible before CTA 0's thread 0 issues with dsm and mb mapped to CTA 1's s2
    and mbarrier (mapa); CTA 1 waits on its own mbarrier and reads s2 back; a last cluster barrier keeps CTA 1's
    shared memory alive until the read-back is done."""
    src = head + _INIT.format(count=1) + _FILL + "    rank = cute.arch.block_idx_in_cluster()\n" + \
        f"    if tidx == 0 and rank == 1:\n        cute.arch.mbarrier_arrive_and_expect_tx(mb, {SIZE})\n" + \
        _CLUSTER_SYNC + \
        "    own_mb = mb\n" + \
        "    dsm = P._to_ir(cute.arch.map_dsmem_ptr(s2, 1), None, None)\n" + \
        "    mb = cute.arch.map_dsmem_ptr(own_mb, 1)\n" + \
        "    if rank == 0:\n" + textwrap.indent(_issue(call), "    ") + \
        "    mb = own_mb\n" + \
        "    if rank == 1:\n" + textwrap.indent(_wait() + _readback("st2", SIZE // 8), "    ") + _CLUSTER_SYNC
    c = _case(entry, "bulk_s2s", s.args, src, Params(), {"kind": "copy", "from": "h", "bytes": SIZE})
    c.options["num_ctas"] = CLUSTER
    return c


def _case(entry, template, params, src, prm, check, g=None, h=None, tmap=None):
    g = g if g is not None else _mixed64(WORDS, 0x1111)
    h = h if h is not None else _mixed64(WORDS, 0x2222)
    args = [{"kind": "ptr", "buffer": b} for b in ("g", "h", "out", "p", "t")]
    bufs = {"g": {"elem": 8, "init": g}, "h": {"elem": 8, "init": h}, "out": {"elem": 8, "init": [0] * WORDS},
            "p": {"elem": 4, "init": prm.v}, "t": {"elem": 8, "init": [0] * 16}}
    if tmap:
        args[4] = dict(args[4], tmap=tmap)
    return Case(entry, template, params, src, {}, None,
                {"num_warps": 1, "shared": SHARED, "abi": "cute", "num_ctas": 1}, args, bufs, check)


def _tmap(kind, dims, box, dtype, im2col=None):
    """A tensor map over g the runner encodes into t at launch (CUtensorMapDataType number). dims and box as the
    kernel's coordinates have them (innermost first; an im2col box [pixels, channels]); the map records them as a
    Triton tensor descriptor does (`shape` and `block` outermost first), the order whole-run and expect.py take."""
    m = {"mode": kind, "shape": dims[::-1], "block": box if kind == "im2col" else box[::-1],
         "elem_type": {"UINT16": 1, "UINT32": 2, "INT32": 3}[dtype],
         "elem_size": {"UINT16": 2, "UINT32": 4, "INT32": 4}[dtype], "buffer": "g"}
    if im2col:
        m.update(im2col)
    return m


def whole_case(entry, s, call):
    """The Case of a form's spelling s (its call text `call`); NotWritten with the reason where none is written."""
    f = s.callee
    kw = dict(s.args)
    head = _HEAD.format(entry=entry)
    if f == "P.cp_async_bulk_shared_cluster_global":
        if "multicast_mask" in kw:
            return _multicast(entry, "bulk_load", s, head, call, SIZE, False, Params(mask=0b11),
                              {"kind": "copy", "from": "g", "bytes": SIZE})
        src = head + _INIT.format(count=1) + _issue(call, "sz") + _wait() + _readback(n=SIZE // 8)
        return _case(entry, "bulk_load", s.args, src, Params(), {"kind": "copy", "from": "g", "bytes": SIZE})
    if f == "P.cp_async_bulk_shared_cluster_shared_cta":
        return _to_peer(entry, s, head, call)
    if f == "P.cp_async_bulk_global_shared_cta":
        if "byte_mask" in kw:
            raise NotWritten("the .cp_mask store is sm_100's; no sm_90a whole kernel")
        src = head + _FILL + _issue(call) + _STORE_WAIT
        return _case(entry, "bulk_store", s.args, src, Params(),
                     {"kind": "store", "bytes": SIZE})
    if f == "P.cp_reduce_async_bulk_global_shared_cta":
        op = kw["op"].rsplit(".", 1)[1].lower()
        typ = kw["type"].rsplit(".", 1)[1].lower()
        width = _TYPES[typ]
        n = SIZE // width
        g = _words(_values(typ, n, 3), width) + _pattern(WORDS - SIZE // 8, 0x33, 64)
        h = _words(_values(typ, n, 11), width) + [0] * (WORDS - SIZE // 8)
        name = f"{op}{'.noftz' if kw.get('noftz') == 'True' else ''}.{typ}"
        src = head + _FILL + _issue(call) + _STORE_WAIT
        return _case(entry, "bulk_reduce", s.args, src, Params(),
                     {"kind": "reduce", "op": name, "width": width, "bytes": SIZE, "site": None}, g=g, h=h)
    if f == "P.cp_async_bulk_prefetch":
        src = head + _issue(call) + "    cute.arch.sync_threads()\n" + _readback("g")
        return _case(entry, "bulk_prefetch", s.args, src, Params(), {"kind": "copy", "from": "g", "bytes": 2048})
    if f == "P.cp_async_shared_global":
        cp = int(s.args[2][1])
        src_size = cp // 2 if any(k == "cp_size" for k, _ in s.args) else cp
        src = head + "    if tidx == 0:\n        st[0] = cutlass.Int64(0)\n        st[1] = cutlass.Int64(0)\n" + \
            f"        {call}\n        cute.arch.cp_async_commit_group()\n        cute.arch.cp_async_wait_group(0)\n" + \
            "    cute.arch.sync_threads()\n" + _readback(n=2)
        return _case(entry, "cp_async", s.args, src, Params(size=src_size),
                     {"kind": "cp_async_one", "cp_size": cp, "src_size": src_size})
    if f == "cute.arch.cp_async_wait_group":
        n = int(s.args[0][1])
        lines = ["    if tidx == 0:"]
        for grp in range(3):
            lines.append(f"        P.cp_async_shared_global(s + {2 * grp}, g.iterator + {2 * grp}, 16, "
                         "P.LoadCacheModifier.CG)")
            lines.append("        cute.arch.cp_async_commit_group()")
        lines.append(f"        {call}")
        done = 3 - n
        lines.append(f"        for i in range({2 * done}):\n            out[i] = st[i]")
        src = head + "\n".join(lines) + "\n"
        return _case(entry, "cp_async_wait_group", s.args, src, Params(),
                     {"kind": "copy", "from": "g", "bytes": 16 * done})
    if f == "P.cp_async_mbarrier_arrive":
        noinc = any(k == "noinc" for k, _ in s.args)
        arrive = "" if noinc else "        cute.arch.mbarrier_arrive(mb)\n"
        src = head + _INIT.format(count=1) + "    if tidx == 0:\n" + \
            "        P.cp_async_shared_global(s, g.iterator, 16, P.LoadCacheModifier.CG)\n" + \
            f"        {call}\n{arrive}" + _wait() + _readback(n=2)
        return _case(entry, "cp_async_mbarrier_arrive", s.args, src, Params(),
                     {"kind": "copy", "from": "g", "bytes": 16})
    if f in ("P.cp_async_bulk_tensor_shared_cta_global", "P.cp_async_bulk_tensor_shared_cluster_global"):
        if "group" in kw:
            raise NotWritten("a CTA-pair (.cta_group) tensor load's whole kernel is not written")
        coords, tm, nbytes = _load_map(kw.get("mode", ""), len(_coord_arg(s)))
        if "multicast_mask" in kw:
            return _multicast(entry, "tensor_load", s, head, call, nbytes, True,
                              Params(coords=coords, offsets=[0, 0, 0], mask=0b11),
                              {"kind": "tensor_load", "tmap": tm, "coords": coords, "bytes": nbytes,
                               "fill_base": 0x100},
                              g=_words(_pattern(4 * WORDS, 0x100, 16), 2), tmap=tm)
        src = head + _INIT.format(count=1) + _issue(call, str(nbytes), True) + _wait() + _readback(n=nbytes // 8)
        return _case(entry, "tensor_load", s.args, src, Params(coords=coords, offsets=[0, 0, 0]),
                     {"kind": "tensor_load", "tmap": tm, "coords": coords, "bytes": nbytes, "fill_base": 0x100},
                     g=_words(_pattern(4 * WORDS, 0x100, 16), 2), tmap=tm)
    if f in ("P.cp_async_bulk_tensor_global_shared_cta", "P.cp_async_bulk_tensor_reduce"):
        mode = kw.get("mode", "")
        if mode not in ("", "P.TMAStoreMode.TILE", "P.TMAStoreMode.IM2COL"):
            raise NotWritten(f"{mode}: a store or reduction in this mode has no whole kernel here")
        rank = len(_coord_arg(s))
        red = None
        if f.endswith("reduce"):
            red = next(v for _, v in s.args if v.startswith("P.TMARedux.")).rsplit(".", 1)[1].lower()
        dtype = "UINT16" if not red else ("INT32" if red in ("min", "max") else "UINT32")
        if mode == "P.TMAStoreMode.IM2COL":   # .im2col_no_offs
            coords, tm = _im2col_store(rank, dtype)
        else:
            geo = RTILE if red else TILE
            coords = geo["store"][:rank]
            tm = _tmap("tiled", geo["dims"][:rank], geo["box"][:rank], dtype)
        width = 2 if not red else 4
        g, h = None, None
        if red:
            typ = ("s32" if dtype == "INT32" else "u32")
            g, h = _words(_values(typ, 2 * WORDS, 5), 4), _words(_values(typ, 2 * WORDS, 13), 4)
        src = head + _FILL + _issue(call, tensor_map=True) + _STORE_WAIT
        return _case(entry, "tensor_reduce" if red else "tensor_store", s.args, src,
                     Params(coords=coords), {"kind": "tensor_store", "tmap": tm, "coords": coords, "op": red,
                                             "dtype": dtype, "width": width}, g=g, h=h, tmap=tm)
    if f == "P.cp_async_bulk_tensor_prefetch":
        coords, tm, _ = _load_map(kw.get("mode", ""), len(_coord_arg(s)))
        src = head + _issue(call, tensor_map=True) + "    cute.arch.sync_threads()\n" + _readback("g")
        return _case(entry, "tensor_prefetch", s.args, src, Params(coords=coords, offsets=[0, 0, 0]),
                     {"kind": "copy", "from": "g", "bytes": 2048}, tmap=tm)
    if f == "cute.arch.cp_async_bulk_commit_group":
        src = head + f"    if tidx == 0:\n        {call}\n        cute.arch.cp_async_bulk_wait_group(0)\n"
        return _case(entry, "bulk_commit_group", s.args, src, Params(), {"kind": "copy", "from": None, "bytes": 0})
    if f == "cute.arch.cp_async_bulk_wait_group":
        n = int(s.args[0][1])
        read = any(k == "read" for k, _ in s.args)
        done = 3 - n
        lines = [_FILL.rstrip("\n"), "    if tidx == 0:"]
        for grp in range(3):
            lines.append(f"        P.cp_async_bulk_global_shared_cta(g.iterator + {32 * grp}, s + {32 * grp}, 256)")
            lines.append("        cute.arch.cp_async_bulk_commit_group()")
        lines.append(f"        {call}")
        if read:
            lines += [f"        for i in range({32 * done}):\n            st[i] = cutlass.Int64(-1)"]
        else:
            lines += [f"        for i in range({32 * done}):\n            out[i] = g[i]"]
        lines.append("        cute.arch.cp_async_bulk_wait_group(0)")
        src = head + "\n".join(lines) + "\n"
        return _case(entry, "bulk_wait_group", s.args, src, Params(),
                     {"kind": "wait_group", "read": read, "bytes": 256 * done})
    if f == "P.fence_proxy":
        kind = s.args[0][1]
        if kind == "P.Proxy.ASYNC_GLOBAL":   # generic writes of global memory, then a bulk load of them
            src = head + _INIT.format(count=1) + "    for i in range(tidx, 32, 32):\n        g[i] = h[i]\n" + \
                f"    {call}\n    cute.arch.sync_threads()\n" + \
                _issue("P.cp_async_bulk_shared_cluster_global(s, g.iterator, mb, sz)", "sz") + _wait() + \
                _readback(n=SIZE // 8)
            return _case(entry, "fence_proxy_async", s.args, src, Params(),
                         {"kind": "copy", "from": "h", "bytes": SIZE})
        if "shared_cluster" in call:
            return _cluster_fence(entry, s, head, call)
        fill = _FILL.replace("    P.fence_proxy(P.Proxy.ASYNC_SHARED, space=P.SharedSpace.shared_cta)\n",
                             f"    {call}\n")
        src = head + fill + _issue("P.cp_async_bulk_global_shared_cta(g.iterator, s, sz)") + _STORE_WAIT
        return _case(entry, "fence_proxy_async", s.args, src, Params(), {"kind": "store", "bytes": SIZE})
    raise NotWritten(f"no whole kernel for the DSL call {f}")


def _coord_arg(s):
    """The coordinate role's values: c[:n] -> n coordinates."""
    for _, v in s.args:
        if v.startswith("%c") and v[2:].isdigit():
            return [0] * int(v[2:])
    raise NotWritten(f"{s.callee}: no coordinate operand")


def _load_map(mode, rank):
    """(coordinates, tensor map, bytes of the box) of a tensor load or prefetch in `mode` (the DSL's enum member)."""
    if mode == "P.TMALoadMode.IM2COL":
        _, coords, tm, nbytes = _im2col(rank)
        return coords, tm, nbytes
    if mode not in ("", "P.TMALoadMode.TILE"):
        raise NotWritten(f"{mode}: sm_100's; no sm_90a whole kernel")
    box = TILE["box"][:rank]
    nbytes = 2
    for b in box:
        nbytes *= b
    return TILE["load"][:rank], _tmap("tiled", TILE["dims"][:rank], box, "UINT16"), nbytes


def _im2col_store(rank, dtype):
    """(coordinates, tensor map) of an .im2col_no_offs store or reduction: the im2col walk without offsets over a
    bounding box inside the tensor (the chapter's restrictions on the .global.shared::cta direction: corners
    lower >= 0, upper <= 0, coordinates non-negative), starting 6 pixels before the end of the last image's last row,
    so the walk leaves the tensor past N after them (those pixels not written)."""
    spatial = IM2COL["spatial"][:rank - 2]
    dims = [IM2COL["channels"]] + spatial + [2]
    coords = [0, spatial[0] - 6] + [x - 1 for x in spatial[1:]] + [1]
    corner = [0] * (rank - 2)
    tm = _tmap("im2col", dims, [IM2COL["pixels"], IM2COL["channels"]], dtype, {"lower": corner, "upper": corner})
    return coords, tm


def _im2col(rank):
    spatial = IM2COL["spatial"][:rank - 2]
    dims = [IM2COL["channels"]] + spatial + [2]
    # innermost first: channel 0, one pixel before the row (w = -1), then h = d = n = 1 (distinct from the others,
    # so a component that swapped two coordinates would read other pixels)
    coords = [0, -1] + [1] * (rank - 3) + [1]
    corner = [-1] * (rank - 2)
    tm = _tmap("im2col", dims, [IM2COL["pixels"], IM2COL["channels"]], "UINT16",
               {"lower": corner, "upper": corner})
    return dims, coords, tm, IM2COL["channels"] * IM2COL["pixels"] * 2
