"""What a whole kernel's buffers must hold after it ran: the reference model (`ptxcts-ref tensor` for the bytes a
tensor copy moves and where, `ptxcts-ref reduce --site tensor` for a reduction's result) or, for cp.async, the
chapter's sentence on src-size ("the remaining ... bytes are filled with zeros").

A store or reduction's destinations come from the model, not from an address formula of this module: the same box
loaded from a tensor of 32-bit elements whose element i holds i + 1 (ptxcts-ref tensor's index fill) tells, for
each element of the box in shared memory, the global element it maps to (0: outside the tensor, not written).
"""
import json
import os
import subprocess

from ..errors import MALFORMED, FrontendError
from .folder import elements, to_bytes

# CUtensorMapDataType by number (Triton's tensordesc_meta elem_type) -> ptxcts-ref's dtype name
DTYPES = {0: "UINT8", 1: "UINT16", 2: "UINT32", 3: "INT32", 4: "UINT64", 5: "INT64", 6: "FLOAT16", 7: "FLOAT32",
          8: "FLOAT64", 9: "BFLOAT16"}
_REDUCE_TYPE = {"add": "s32", "min": "s32", "max": "s32", "and": "b32", "or": "b32", "xor": "b32"}
ZERO_FILL = ("cp.async: when src-size is smaller than cp-size, the remaining cp-size - src-size bytes of the "
             "destination are filled with zeros")


def ref_path(root):
    build = os.environ.get("PTXCTS_BUILD") or os.path.join(root, "build")
    p = os.path.join(build, "harness", "tools", "ptxcts-ref")
    if not os.access(p, os.X_OK):
        raise FrontendError(f"{p}: no ptxcts-ref (build the harness: scripts/build.sh)", MALFORMED)
    return p


def _ref(ref, args, text):
    r = subprocess.run([ref] + args, input=text, capture_output=True, text=True, timeout=60)
    if r.returncode:
        raise FrontendError(f"ptxcts-ref {' '.join(args)} refused {text[:200]!r}: {r.stderr.strip()[:300]}",
                            MALFORMED)
    return r.stdout


def tensor_load(ref, dtype, shape, block, coords, base, im2col=None):
    """The element values (little-endian, of dtype's width) the model says a tile load of the box at coords writes
    to shared memory, from a tensor whose element i holds base + i. shape, block, coords: Triton's order
    (outermost first). im2col: {lower_corner, upper_corner, offsets} (W first) for an im2col load of block
    [pixels, channels]."""
    q = {"dtype": dtype, "dims": list(reversed(shape)), "coords": list(reversed(coords)),
         "fill": {"kind": "index", "base": hex(base)}}
    if im2col:
        q.update(mode="im2col", channels_per_pixel=block[1], pixels_per_column=block[0], **im2col)
    else:
        q["box"] = list(reversed(block))
    lines = _ref(ref, ["tensor"], json.dumps(q)).splitlines()
    hexes = "".join(ln for ln in lines if not ln.startswith("tx_bytes"))
    if ".." in hexes:
        raise FrontendError(f"ptxcts-ref tensor left bytes of the box unwritten for {q}", MALFORMED)
    width = {"UINT8": 1, "UINT16": 2, "FLOAT16": 2, "BFLOAT16": 2, "UINT64": 8, "INT64": 8, "FLOAT64": 8}.get(dtype, 4)
    return elements(bytes.fromhex(hexes), width)


def box_map(ref, shape, block, coords, im2col=None):
    """[global element index, or None outside the tensor] per element of the box, from the model (im2col: as
    tensor_load takes it, the walk of an .im2col_no_offs store with offsets 0)."""
    return [v - 1 if v else None for v in tensor_load(ref, "UINT32", shape, block, coords, 1, im2col)]


def stored(ref, g, tile, shape, block, coords, op=None, typ=None, im2col=None):
    """The element values of g after a tile store (op None) or a reduction `op` on `typ` elements (add, s32, ...:
    ptxcts-ref reduce --site tensor) of tile (the box's elements in shared-memory order) into the box at coords:
    the box's elements inside the tensor written, the others untouched; where each lands is the model's box map."""
    g = list(g)
    hits = [(j, t) for j, t in zip(box_map(ref, shape, block, coords, im2col), tile) if j is not None]
    if op:
        text = "".join(f"{op}.{typ} {g[j]:08x} {t:08x}\n" for j, t in hits)
        vals = [int(x, 16) for x in _ref(ref, ["reduce", "--site", "tensor"], text).split()]
        hits = [(j, v) for (j, _), v in zip(hits, vals)]
    for j, v in hits:
        g[j] = v
    return g


def _stored_rule(op):
    return (f"the tile {'reduced into' if op else 'stored to'} the box's elements inside the tensor, the others "
            f"untouched (ptxcts-ref tensor's box map{', ptxcts-ref reduce' if op else ''})")


def expected(ref, case, elem_type):
    """{buffer: [element values]} the buffers the case checks must hold, and the rule each comes from:
    ({buffer: values}, rule text). elem_type: the tensor map's data type Triton chose (tensordesc_meta)."""
    c = case.check
    k = c["kind"]
    if k == "tma_load":
        got = tensor_load(ref, DTYPES.get(elem_type, "?"), c["shape"], c["block"], c["coords"], c["fill_base"],
                          c.get("im2col"))
        return {c["out"]: got}, "the tile load's bytes in shared memory (ptxcts-ref tensor), read back"
    if k in ("tma_store", "tma_reduce"):
        op = c["op"] if k == "tma_reduce" else None
        g = stored(ref, case.buffers[c["buffer"]]["init"], case.buffers[c["tile"]]["init"], c["shape"], c["block"],
                   c["coords"], op, _REDUCE_TYPE.get(op))
        return {c["buffer"]: g}, _stored_rule(op)
    if k == "bulk_wait_group":
        n, tiles = c["n"], case.buffers["tile"]["init"]
        g = [0] * len(case.buffers["g"]["init"])
        for grp in range(c["groups"]):
            for j, t in zip(box_map(ref, [2 * c["groups"], 64], [2, 64], [2 * grp, 0]), tiles[grp * n:(grp + 1) * n]):
                g[j] = t
        out = [0] * len(case.buffers["out"]["init"])
        if not c["read"]:
            out[:c["done"] * n] = g[:c["done"] * n]
        rule = ("bulk wait_group.read N: the sources of all but the N most recent bulk groups are read (a later write "
                "to them does not change what is stored)" if c["read"] else
                "bulk wait_group N: all but the N most recent bulk groups are complete (their writes visible)")
        return {"g": g, "out": out}, rule
    if k == "cp_async":
        n, valid, done = c["n"], c["valid"], c["done"]
        src = case.buffers["p"]["init"]
        out = [0] * len(case.buffers["out"]["init"])
        for grp in range(done):
            for i in range(n):
                out[grp * n + i] = src[grp * n + i] if i < valid else 0
        return {"out": out}, ZERO_FILL + "; the groups a wait completed are read back"
    raise FrontendError(f"no expectation for check kind {k!r}", MALFORMED)


# ---- the CuTe DSL's whole kernels (cute_kernels.py): byte-level expectations over g and out ----------------------

def _raw(case, b):
    v = case.buffers[b]
    return bytearray(to_bytes(v["init"], v["elem"]))


def _as_words(raw):
    return elements(raw, 8)


def _per_cta(out, data, c):
    """data at the start of out and, for a multicast (check ctas, cta_bytes), at each further CTA's part of out:
    every CTA of the mask reads back its own copy. Returns what the rule adds for a multicast."""
    for r in range(c.get("ctas", 1)):
        at = r * c.get("cta_bytes", 0)
        out[at:at + len(data)] = data
    return " in each CTA of the multicast" if c.get("ctas", 1) > 1 else ""


def _im2col_query(m):
    """The im2col part of a ptxcts-ref tensor query for a DSL map (offsets 0), or None for a tiled map."""
    if m["mode"] != "im2col":
        return None
    return {"lower_corner": m["lower"], "upper_corner": m["upper"], "offsets": [0] * len(m["lower"])}


def expected_dsl(ref, case):
    """({buffer: element values}, rule) of a DSL whole kernel."""
    c, k = case.check, case.check["kind"]
    out = bytearray(len(_raw(case, "out")))
    if k == "copy":
        where = _per_cta(out, _raw(case, c["from"])[:c["bytes"]], c) if c["from"] else ""
        return {"out": _as_words(out)}, "the copy's bytes, read back after its completion" + where
    if k == "cp_async_one":
        out[:c["src_size"]] = _raw(case, "g")[:c["src_size"]]
        return {"out": _as_words(out)}, ZERO_FILL
    if k == "store":
        g = _raw(case, "g")
        g[:c["bytes"]] = _raw(case, "h")[:c["bytes"]]
        return {"g": _as_words(g)}, "the bulk store's bytes in global memory after its bulk group completed"
    if k == "wait_group":
        g, h = _raw(case, "g"), _raw(case, "h")
        g[:768] = h[:768]
        if not c["read"]:
            out[:c["bytes"]] = h[:c["bytes"]]
        rule = ("bulk wait_group.read N: the sources of the completed groups were read (overwriting them changes "
                "nothing stored)" if c["read"] else "bulk wait_group N: the completed groups' writes are visible")
        return {"g": _as_words(g), "out": _as_words(out)}, rule
    if k == "reduce":
        w = c["width"]
        g, h = _raw(case, "g"), _raw(case, "h")
        pairs = zip(elements(g[:c["bytes"]], w), elements(h[:c["bytes"]], w))
        text = "".join(f"{c['op']} {o:0{2 * w}x} {s:0{2 * w}x}\n" for o, s in pairs)
        g[:c["bytes"]] = to_bytes([int(x, 16) for x in _ref(ref, ["reduce"], text).split()], w)
        return {"g": _as_words(g)}, f"cp.reduce.async.bulk {c['op']} per element (ptxcts-ref reduce)"
    if k == "tensor_load":
        m = c["tmap"]
        im = _im2col_query(m)
        shape, block = m["shape"], m["block"]
        got = tensor_load(ref, "UINT16", shape, block, list(reversed(c["coords"])), c["fill_base"], im)
        raw = to_bytes(got, 2)
        where = _per_cta(out, raw, c)
        return {"out": _as_words(out)}, "the tensor load's bytes in shared memory (ptxcts-ref tensor), read back" + \
            where
    if k == "tensor_store":
        m, w, op = c["tmap"], c["width"], c["op"]
        typ = "s32" if c["dtype"] == "INT32" else ("b32" if op in ("and", "or", "xor") else "u32")
        g = stored(ref, elements(_raw(case, "g"), w), elements(_raw(case, "h"), w), m["shape"], m["block"],
                   list(reversed(c["coords"])), op, typ, _im2col_query(m))
        return {"g": _as_words(to_bytes(g, w))}, _stored_rule(op)
    raise FrontendError(f"no expectation for check kind {k!r}", MALFORMED)
