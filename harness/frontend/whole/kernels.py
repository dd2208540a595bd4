"""The whole kernels: for a form's Triton spelling (template, params of ptxcts_gen.frontends.triton), a Gluon kernel
that does what Triton's own kernels do around the instruction (the mbarrier protocol, the commit and wait, the
proxy fence, the read-back of shared memory) and leaves in global memory the bytes the instruction moved, plus
its launch: arguments, buffers and their initial bytes (Case). What those bytes must be is expect.py's.

Geometry (one program; every tensor copy partly out of bounds, so the fill is judged too):
* TMA load / store: a tensor of 16-bit elements, Triton shape [3]*(rank-1) + [104] (outermost first), block
  [2]*(rank-1) + [64] (the compile tier's), coordinates [.., 1, 2] + [72] (the outer ones from OUTER, innermost
  last; a load's may be negative, a store's may not: OUTER_STORE): elements 104..135 of a row and row 3 of a
  dimension lie outside;
* TMA reduce: 32-bit signed integers, shape [3]*(rank-1) + [40], block [2]*(rank-1) + [32], innermost coordinate 24;
* cp.async: 32 lanes of `cp_size` bytes each, the first 16 of them with src-size = cp-size, the rest src-size 0.
* im2col: 32 pixels x 64 channels, the pixel box one pixel outside the tensor at both corners (tma_load_im2col).
A form whose whole kernel is not written here (gather / scatter) gets
NotWritten with the reason.
"""
import math
from dataclasses import dataclass, field

from ..triton.backend import async_copy_policy, desc_signature, load_barrier

OUTER = (2, 1, -1, 0)          # coordinates of the dimensions next to the innermost, outwards (loads)
# stores and reductions: "Starting co-ordinates for Bounding Box (tensorCoords) must be non-negative" (the chapter's
# restrictions on the .global.shared::cta direction; the H100 traps on a negative one, 2026-12-07)
OUTER_STORE = (2, 1, 2, 0)
INNER = {"tma": (104, 64, 72), "reduce": (40, 32, 24)}   # (extent, block, coordinate) of the innermost dimension
GROUPS = 3                    # commit groups of the wait-group kernels
SENTINEL16 = 0xDEAD           # what a wait_group.read kernel writes over a source it may reuse


class NotWritten(Exception):
    """A form whose whole kernel this module does not write, with the reason."""


@dataclass
class Case:
    entry: str
    template: str
    params: dict
    source: str                       # the Gluon kernel (after backend._PRELUDE)
    signature: dict                   # Triton's signature of the kernel's arguments
    attrs: object                     # Triton's attributes (divisibility) or None
    options: dict                     # num_warps, num_ctas
    args: list                        # the launch: {"kind": "tensordesc"|"ptr"|"i32", ...} per argument
    buffers: dict                     # name -> {"elem": bytes per element, "init": [int] (element values)}
    check: dict = field(default_factory=dict)   # what expect.py computes: {"kind": ..., ...}


def _tma_geometry(rank, kind, store=False):
    ext, blk, crd = INNER[kind]
    shape = [3] * (rank - 1) + [ext]
    block = [2] * (rank - 1) + [blk]
    coords = list(reversed((OUTER_STORE if store else OUTER)[:rank - 1])) + [crd]
    return shape, block, coords


def _desc_arg(shape, block):
    return {"kind": "tensordesc", "buffer": "g", "shape": shape, "block": block}


def _cga(ctas):
    return ", cga_layout=[[0]]" if ctas == 2 else ""


def _flat(api, var, dtype, n, ctas=1):
    """A 1-D view of shared memory `var` (its bytes in order) of n elements."""
    return f"{var}.{api['reinterpret']}({dtype}, [{n}], gl.SwizzledSharedLayout(1, 1, 1, [0]{_cga(ctas)}))"


def _pattern(n, base, bits):
    """Element values base, base+1, ... truncated to bits: the tensor ptxcts-ref's index fill describes."""
    mask = (1 << bits) - 1
    return [(base + i) & mask for i in range(n)]


def _mixed32(n, salt):
    """32-bit values of both signs and varied bits (for min/max/and/or/xor), a fixed function of the index."""
    return [((i + 1) * 2654435761 ^ salt) & 0xFFFFFFFF for i in range(n)]


def tma_load(entry, p, api):
    """A multicast load (two CTAs, the block replicated over the cluster) is judged on CTA 0's copy: Triton treats
    a replicated block as one tensor, so only CTA 0 waits on the mbarrier and reads it (measured on Triton 3.9.0:
    the other CTA branches past the wait, the read-back store is predicated on %cluster_ctarank == 0)."""
    rank = int(p["dim"])
    ctas = 2 if p.get("multicast") == "1" else 1
    shape, block, coords = _tma_geometry(rank, "tma")
    n = math.prod(block)
    hint = ", cache_policy=" + api["hint"] if p.get("hint") == "1" else ""
    src = f"""
@gluon.jit
def {entry}(desc, out):
    smem = gl.allocate_shared_memory(desc.dtype, desc.block_type.shape, desc.layout)
    bar = {load_barrier(ctas)}
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, desc.block_type.nbytes)
    tma.{api['tma_load']}(desc, {coords}, bar, smem{hint}{", multicast=True" if ctas == 2 else ""})
    mbarrier.wait(bar, phase=0)
    mbarrier.invalidate(bar)
    layout: gl.constexpr = gl.BlockedLayout([1], [32], [4], [0]{_cga(ctas)})
    offs = gl.arange(0, {n}, layout=layout)
    gl.store(out + offs, {_flat(api, "smem", "desc.dtype", n, ctas)}.load(layout))
"""
    return Case(entry, "tma_load", p, src, {"desc": desc_signature("i16", block, 16, ctas=ctas), "out": "*i16"}, None,
                {"num_warps": 4, "num_ctas": ctas},
                [_desc_arg(shape, block), {"kind": "ptr", "buffer": "out"}],
                {"g": {"elem": 2, "init": _pattern(math.prod(shape), 0x100, 16)}, "out": {"elem": 2, "init": [0] * n}},
                {"kind": "tma_load", "dtype": "UINT16", "shape": shape, "block": block, "coords": coords,
                 "fill_base": 0x100, "out": "out"})


IM2COL = {"pixels": 32, "channels": 64, "corner": -1, "spatial": (40, 5, 3)}   # W, H, D extents by rank


def tma_load_im2col(entry, p, api):
    """An im2col load of 32 pixels x 64 channels from an N(D)(H)WC tensor of 16-bit elements: the pixel box's
    corners -1 and -1 in every spatial dimension (the order of the corners cannot matter), the walk starting one
    pixel before row (n, d, h) = (1, 1, 1) (a halo pixel outside the tensor, zero-filled), offsets 0."""
    rank = int(p["dim"])
    ctas = 2 if p.get("multicast") == "1" else 1   # a multicast: as tma_load's, judged on CTA 0's copy
    spatial = list(IM2COL["spatial"][:rank - 2])
    shape = [2] + list(reversed(spatial)) + [IM2COL["channels"]]
    # outermost first: n = 1, d = h = 1, w = -1 (one halo pixel), channel 0: the pixels of one row, the first
    # outside; distinct coordinates, so a component that swapped two would read other pixels
    coords = [1] + [1] * (rank - 3) + [IM2COL["corner"], 0]
    block = [IM2COL["pixels"], IM2COL["channels"]]
    n = math.prod(block)
    hint = ", cache_policy=" + api["hint"] if p.get("hint") == "1" else ""
    src = f"""
@gluon.jit
def {entry}(desc, out):
    smem = gl.allocate_shared_memory(desc.dtype, desc.block_type.shape, desc.layout)
    bar = {load_barrier(ctas)}
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, desc.block_type.nbytes)
    tma.async_load_im2col(desc, {coords}, {[0] * (rank - 2)}, bar, smem{hint}{", multicast=True" if ctas == 2 else ""})
    mbarrier.wait(bar, phase=0)
    mbarrier.invalidate(bar)
    layout: gl.constexpr = gl.BlockedLayout([1], [32], [4], [0]{_cga(ctas)})
    offs = gl.arange(0, {n}, layout=layout)
    gl.store(out + offs, {_flat(api, "smem", "desc.dtype", n, ctas)}.load(layout))
"""
    corner = [IM2COL["corner"]] * (rank - 2)
    sig = desc_signature("i16", block, 16, im2col_rank=rank, ctas=ctas)
    return Case(entry, "tma_load_im2col", p, src, {"desc": sig, "out": "*i16"}, None,
                {"num_warps": 4, "num_ctas": ctas},
                [dict(_desc_arg(shape, block), mode="im2col", lower=corner, upper=corner),
                 {"kind": "ptr", "buffer": "out"}],
                {"g": {"elem": 2, "init": _pattern(math.prod(shape), 0x100, 16)}, "out": {"elem": 2, "init": [0] * n}},
                {"kind": "tma_load", "dtype": "UINT16", "shape": shape, "block": block, "coords": coords,
                 "fill_base": 0x100, "out": "out", "im2col": {"lower_corner": corner, "upper_corner": corner,
                                                             "offsets": [0] * (rank - 2)}})


def _store_source(entry, api, block, coords, call, n, wait, fence="fence_async_shared()"):
    return f"""
@gluon.jit
def {entry}(desc, tile):
    layout: gl.constexpr = gl.BlockedLayout([1], [32], [4], [0])
    offs = gl.arange(0, {n}, layout=layout)
    smem = gl.allocate_shared_memory(desc.dtype, desc.block_type.shape, desc.layout)
    {_flat(api, "smem", "desc.dtype", n)}.store(gl.load(tile + offs))
    {fence}
    {call}(desc, {coords}, smem{{hint}})
    {wait}
"""


def tma_store(entry, p, api, reduce_op=None, fence="fence_async_shared()"):
    rank = int(p.get("dim", "2"))
    kind = "reduce" if reduce_op else "tma"
    shape, block, coords = _tma_geometry(rank, kind, store=True)
    n = math.prod(block)
    bits = 32 if reduce_op else 16
    dtype = "i32" if reduce_op else "i16"
    call = f"tma.async_atomic_{reduce_op}" if reduce_op else f"tma.{api['tma_store']}"
    src = _store_source(entry, api, block, coords, call, n, "tma.store_wait(0)", fence)
    src = src.replace("{hint}", ", cache_policy=" + api["hint"] if p.get("hint") == "1" else "")
    if reduce_op:
        g, tile = _mixed32(math.prod(shape), 0x5A5A5A5A), _mixed32(n, 0x0F0F1234)
    else:
        g, tile = _pattern(math.prod(shape), 0x100, 16), _pattern(n, 0x8000, 16)
    return Case(entry, "tma_reduce" if reduce_op else "tma_store", p, src,
                {"desc": desc_signature(dtype, block, bits), "tile": f"*{dtype}"}, None, {"num_warps": 4},
                [_desc_arg(shape, block), {"kind": "ptr", "buffer": "tile"}],
                {"g": {"elem": bits // 8, "init": g}, "tile": {"elem": bits // 8, "init": tile}},
                {"kind": "tma_reduce" if reduce_op else "tma_store", "dtype": "INT32" if reduce_op else "UINT16",
                 "shape": shape, "block": block, "coords": coords, "op": reduce_op, "buffer": "g", "tile": "tile"})


def bulk_wait_group(entry, p, api):
    """GROUPS TMA stores of three tiles into three rows-pairs of a [2*GROUPS, 64] tensor, each its own bulk
    group, then `store_wait(n)`: the first GROUPS - n groups are complete (.read: their sources were read, so the
    kernel writes SENTINEL16 over them; full: their writes are visible, so the kernel reads them back after a
    barrier), then `store_wait(0)`."""
    n_wait, read = int(p.get("n", "0")), p.get("read") == "1"   # a store_wait without read_only writes .read
    done = GROUPS - n_wait
    block, shape = [2, 64], [2 * GROUPS, 64]
    n = 128
    lines = [f"    s{g} = gl.allocate_shared_memory(desc.dtype, desc.block_type.shape, desc.layout)\n"
             f"    {_flat(api, f's{g}', 'desc.dtype', n)}.store(gl.load(tile + {g * n} + offs))" for g in range(GROUPS)]
    lines.append("    fence_async_shared()")
    lines += [f"    tma.{api['tma_store']}(desc, [{2 * g}, 0], s{g})" for g in range(GROUPS)]
    ro = "" if not api["read_only"] else f", read_only={read}"
    lines.append(f"    tma.store_wait({n_wait}{ro})")
    if read:
        full = f"gl.full([{n}], {SENTINEL16 - 0x10000}, desc.dtype, layout)"
        lines += [f"    {_flat(api, f's{g}', 'desc.dtype', n)}.store({full})" for g in range(done)]
    else:
        lines.append(f"    gl.{api['barrier']}()")
        lines += [f"    gl.store(out + {g * n} + offs, gl.load(g_ptr + {g * n} + offs))" for g in range(done)]
    lines.append("    tma.store_wait(0)")
    src = f"""
@gluon.jit
def {entry}(desc, tile, g_ptr, out):
    layout: gl.constexpr = gl.BlockedLayout([1], [32], [4], [0])
    offs = gl.arange(0, {n}, layout=layout)
""" + "\n".join(lines) + "\n"
    tiles = _pattern(GROUPS * n, 0x8000, 16)
    return Case(entry, "bulk_wait_group", p, src,
                {"desc": desc_signature("i16", block, 16), "tile": "*i16", "g_ptr": "*i16", "out": "*i16"}, None,
                {"num_warps": 4},
                [_desc_arg(shape, block)] + [{"kind": "ptr", "buffer": b} for b in ("tile", "g", "out")],
                {"g": {"elem": 2, "init": [0] * (GROUPS * n)}, "tile": {"elem": 2, "init": tiles},
                 "out": {"elem": 2, "init": [0] * (GROUPS * n)}},
                {"kind": "bulk_wait_group", "groups": GROUPS, "done": done, "read": read, "n": n})


def cp_async(entry, p, api, groups=1, wait=0):
    """`groups` async copies of 32 lanes x cp_size bytes into as many shared buffers (a commit group each), then
    `wait_group(wait)`, a barrier, and the buffers the wait completed (the first groups - wait) read back."""
    size = int(p.get("cp_size", "16"))
    v = size // 4
    n = 32 * v
    valid = 16 * v                     # lanes 0..15 copy cp_size bytes, 16..31 src-size 0
    if p.get("prefetch") and not api["cache_policy"]:
        raise NotWritten("this Triton's async_copy has no L2 prefetch size")
    policy = async_copy_policy(p, api["cache_policy"])
    policy = ", " + policy if policy else ""
    done = groups - wait
    lines = []
    for g in range(groups):
        lines.append(f"    s{g} = gl.allocate_shared_memory(gl.int32, [{n}], gl.SwizzledSharedLayout(1, 1, 1, [0]))")
        lines.append(f"    async_copy.{api['cp_async']}(s{g}, p + {g * n} + offs, mask=offs < n{policy})")
        lines.append("    async_copy.commit_group()")
    lines.append(f"    async_copy.wait_group({wait})")
    lines.append(f"    gl.{api['barrier']}()")
    lines += [f"    gl.store(out + {g * n} + offs, s{g}.load(layout))" for g in range(done)]
    src = f"""
@gluon.jit
def {entry}(p, out, n):
    layout: gl.constexpr = gl.BlockedLayout([{v}], [32], [1], [0])
    offs = gl.arange(0, {n}, layout=layout)
""" + "\n".join(lines) + "\n"
    div = [["tt.divisibility", 16]]
    return Case(entry, "cp_async" if groups == 1 else "cp_async_wait_group", p, src,
                {"p": "*i32", "out": "*i32", "n": "i32"}, {(0,): div, (1,): div, (2,): div}, {"num_warps": 1},
                [{"kind": "ptr", "buffer": "p"}, {"kind": "ptr", "buffer": "out"}, {"kind": "i32", "value": valid}],
                {"p": {"elem": 4, "init": _mixed32(groups * n, 0x13579BDF)},
                 "out": {"elem": 4, "init": [0] * (groups * n)}},
                {"kind": "cp_async", "n": n, "valid": valid, "done": done})


def cp_async_mbarrier_arrive(entry, p, api):
    """An async copy tracked by `cp.async.mbarrier.arrive` (.noinc: the barrier's count is the 32 arrive-ons;
    without: count 1, the pending count raised and lowered by the copy, one arrive after a barrier), a wait on the
    phase, and the buffer read back (no wait_group: the mbarrier alone completes the copy)."""
    noinc = p.get("noinc") == "1"
    n, valid = 128, 64
    policy = "" if not api["cache_policy"] else ", cache_policy=CachePolicy(cache_modifier='cg')"
    if not api["cache_policy"]:
        policy = ", cache_modifier='.cg'"
    arrive = "" if noinc else f"    gl.{api['barrier']}()\n    mbarrier.arrive(bar)\n"
    src = f"""
@gluon.jit
def {entry}(p, out, n):
    layout: gl.constexpr = gl.BlockedLayout([4], [32], [1], [0])
    offs = gl.arange(0, {n}, layout=layout)
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count={32 if noinc else 1})
    s0 = gl.allocate_shared_memory(gl.int32, [{n}], gl.SwizzledSharedLayout(1, 1, 1, [0]))
    gl.{api['barrier']}()
    async_copy.{api['cp_async']}(s0, p + offs, mask=offs < n{policy})
    async_copy.mbarrier_arrive(bar, increment_count={not noinc})
{arrive}    mbarrier.wait(bar, phase=0)
    gl.store(out + offs, s0.load(layout))
"""
    div = [["tt.divisibility", 16]]
    return Case(entry, "cp_async_mbarrier_arrive", p, src, {"p": "*i32", "out": "*i32", "n": "i32"},
                {(0,): div, (1,): div, (2,): div}, {"num_warps": 1},
                [{"kind": "ptr", "buffer": "p"}, {"kind": "ptr", "buffer": "out"}, {"kind": "i32", "value": valid}],
                {"p": {"elem": 4, "init": _mixed32(n, 0x2468ACE0)}, "out": {"elem": 4, "init": [0] * n}},
                {"kind": "cp_async", "n": n, "valid": valid, "done": 1})


def whole_case(entry, template, params, api):
    """The Case of a form's spelling; NotWritten with the reason for a template without a whole kernel here."""
    p = dict(params)
    if template == "tma_load":
        return tma_load(entry, p, api)
    if template in ("tma_store", "bulk_commit_group"):
        return tma_store(entry, dict(p, dim=p.get("dim", "2")), api)
    if template == "tma_reduce":
        if not api["atomics"]:
            raise NotWritten("this Triton's Gluon has no tma.async_atomic_<op>")
        return tma_store(entry, p, api, reduce_op=p["redop"])
    if template == "bulk_wait_group":
        return bulk_wait_group(entry, p, api)
    if template == "cp_async":
        return cp_async(entry, p, api)
    if template == "cp_async_wait_group":
        return cp_async(entry, {"cp_size": "16", "cop": "cg"}, api, groups=GROUPS, wait=int(p.get("n", "0")))
    if template == "cp_async_mbarrier_arrive":
        return cp_async_mbarrier_arrive(entry, p, api)
    if template == "fence_proxy_async":
        if p.get("cluster") == "1":
            # the cluster-scope fence between the CTA's own generic writes and its TMA store (a CTA launched alone
            # is a cluster of one): no Gluon call writes a peer CTA's shared memory, so the peer's writes the
            # scope also covers are not exercised here (the CuTe DSL's kernel does: cute_kernels._cluster_fence)
            return tma_store(entry, {"dim": "2"}, api, fence="fence_async_shared(cluster=True)")
        return tma_store(entry, {"dim": "2"}, api)
    if template == "tma_load_im2col":
        if not api["im2col"]:
            raise NotWritten("this Triton's Gluon has no tma.async_load_im2col")
        return tma_load_im2col(entry, p, api)
    raise NotWritten(f"no whole kernel for Triton template {template}")
