"""Triton's whole kernels (harness/frontend/whole) without Triton or a GPU: the kernels' Python for both Gluon
dialects, the model's expected bytes, the judge of a kernel's buffers, and the child driver's timeout and crash."""
import os
import subprocess
import sys
import unittest

from frontend.whole import cudadrv, cute_kernels, expect, kernels, run as wr
from ptxcts_gen.frontends import Spelling, cute_dsl

ROOT = os.environ.get("PTXCTS_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
API_39 = {"reinterpret": "reinterpret", "barrier": "barrier", "hint": "CachePolicy()", "tma_load": "async_load",
          "tma_store": "async_store", "cp_async": "async_load", "cache_policy": True, "read_only": True,
          "atomics": True, "im2col": True}
API_36 = dict(API_39, reinterpret="_reinterpret", barrier="thread_barrier", tma_load="async_copy_global_to_shared",
              tma_store="async_copy_shared_to_global", cp_async="async_copy_global_to_shared", cache_policy=False,
              read_only=False, atomics=False, im2col=False)
SPELLINGS = [("tma_load", {"dim": "3", "multicast": "0", "hint": "1"}),
             ("tma_load", {"dim": "2", "multicast": "1", "hint": "0"}), ("tma_store", {"dim": "5", "hint": "0"}),
             ("tma_reduce", {"dim": "2", "redop": "min"}), ("bulk_wait_group", {"n": "1", "read": "1"}),
             ("bulk_wait_group", {"n": "1", "read": "0"}), ("cp_async", {"cp_size": "8", "cop": "ca", "prefetch": ""}),
             ("cp_async_wait_group", {"n": "2"}), ("cp_async_mbarrier_arrive", {"noinc": "1"}),
             ("fence_proxy_async", {"cluster": "0"}), ("fence_proxy_async", {"cluster": "1"}), ("tma_load_im2col", {"dim": "5", "multicast": "0", "hint": "1"}),
             ("tma_load_im2col", {"dim": "4", "multicast": "1", "hint": "0"})]


def _ref():
    try:
        return expect.ref_path(ROOT)
    except Exception:
        return None


class Kernels(unittest.TestCase):
    def test_every_template_renders_python_in_both_dialects(self):
        for api in (API_39, API_36):
            for t, p in SPELLINGS:
                if (t == "tma_reduce" and not api["atomics"]) or (t == "tma_load_im2col" and not api["im2col"]):
                    with self.assertRaises(kernels.NotWritten):
                        kernels.whole_case("k", t, p.items(), api)
                    continue
                c = kernels.whole_case("k", t, p.items(), api)
                compile(c.source, f"<{t}>", "exec")
                self.assertIn(api["reinterpret"] if t.startswith(("tma", "bulk", "fence")) else "async_copy", c.source)
                for b in c.buffers.values():
                    self.assertTrue(all(0 <= v < 1 << (8 * b["elem"]) for v in b["init"]), t)

    def test_forms_without_a_whole_kernel_say_why(self):
        for t, p in (("tma_gather", {}),):
            with self.assertRaises(kernels.NotWritten) as e:
                kernels.whole_case("k", t, p.items(), API_39)
            self.assertTrue(str(e.exception))

    def test_every_tile_is_partly_out_of_bounds(self):
        for rank in range(1, 6):
            for store in (False, True):
                shape, block, coords = kernels._tma_geometry(rank, "tma", store)
                self.assertGreater(coords[-1] + block[-1], shape[-1])

    def test_every_tile_starts_on_a_16_byte_boundary_in_rows_of_whole_granules(self):
        # an H100 traps on another innermost start (the recorded finding tensor_coord_alignment=16B_trap); a row
        # that ends inside a 16-byte granule has its tail written by a store (tensor_store_oob=granule16_written)
        for kind, width in (("tma", 2), ("reduce", 4)):
            for rank in range(1, 6):
                for store in (False, True):
                    shape, _, coords = kernels._tma_geometry(rank, kind, store)
                    self.assertEqual((coords[-1] * width % 16, shape[-1] * width % 16), (0, 0), (kind, rank))

    def test_a_store_starts_at_non_negative_coordinates_a_load_below_zero(self):
        self.assertTrue(all(c >= 0 for r in range(1, 6) for c in kernels._tma_geometry(r, "tma", True)[2]))
        self.assertIn(-1, kernels._tma_geometry(4, "tma")[2])


@unittest.skipUnless(_ref(), "ptxcts-ref is not built")
class Expected(unittest.TestCase):
    def test_a_load_reads_the_rows_inside_and_zeros_outside(self):
        c = kernels.whole_case("k", "tma_load", {"dim": "2", "multicast": "0", "hint": "0"}.items(), API_39)
        got = expect.expected(_ref(), c, 1)[0]["out"]
        # rows 2 and 3 of a [3, 104] tensor, columns 72..135: row 2's columns 72..103 inside, the rest outside
        self.assertEqual(got[:32], [0x100 + 2 * 104 + 72 + i for i in range(32)])
        self.assertEqual(got[32:], [0] * 96)

    def test_a_store_writes_the_box_inside_and_leaves_the_rest(self):
        c = kernels.whole_case("k", "tma_store", {"dim": "2", "hint": "0"}.items(), API_39)
        g = expect.expected(_ref(), c, 1)[0]["g"]
        init, tile = c.buffers["g"]["init"], c.buffers["tile"]["init"]
        self.assertEqual(g[2 * 104 + 72:2 * 104 + 104], tile[:32])
        self.assertEqual(g[:2 * 104 + 72], init[:2 * 104 + 72])

    def test_an_im2col_load_starts_with_the_halo_pixel(self):
        c = kernels.whole_case("k", "tma_load_im2col", {"dim": "3", "multicast": "0", "hint": "0"}.items(), API_39)
        got = expect.expected(_ref(), c, 1)[0]["out"]
        # pixel 0 is (n, w) = (1, -1), outside: zeros; pixel 1 is (1, 0): channels 0..63 of element (1 * 40) * 64
        self.assertEqual(got[:64], [0] * 64)
        self.assertEqual(got[64:128], [(0x100 + 40 * 64 + i) & 0xFFFF for i in range(64)])

    def test_a_reduction_applies_the_op_per_element(self):
        c = kernels.whole_case("k", "tma_reduce", {"dim": "1", "redop": "xor"}.items(), API_39)
        g = expect.expected(_ref(), c, 3)[0]["g"]
        init, tile = c.buffers["g"]["init"], c.buffers["tile"]["init"]
        self.assertEqual(g[24:40], [a ^ b for a, b in zip(init[24:40], tile[:16])])
        self.assertEqual(g[:24], init[:24])

    def test_cp_async_zero_fills_past_src_size(self):
        c = kernels.whole_case("k", "cp_async_wait_group", {"n": "1"}.items(), API_39)
        out = expect.expected(_ref(), c, None)[0]["out"]
        src = c.buffers["p"]["init"]
        self.assertEqual(out[:64], src[:64])
        self.assertEqual(out[64:128], [0] * 64)
        self.assertEqual(out[256:], [0] * 128)   # the third group: not completed by wait_group 1, not read


DSL_SPELLINGS = [
    Spelling("P.cp_async_bulk_shared_cluster_global", (("", "%smem"), ("", "%gmem"), ("", "%mbar"), ("", "%size"))),
    Spelling("P.cp_async_bulk_global_shared_cta", (("", "%gmem"), ("", "%smem"), ("", "%size"),
                                                   ("l2_cache_hint", "%policy"))),
    Spelling("P.cp_reduce_async_bulk_global_shared_cta", (("", "%gmem"), ("", "%smem"), ("", "%size"),
                                                          ("op", "P.CpReduceOp.ADD"), ("type", "P.CpReduceType.F16"),
                                                          ("noftz", "True"))),
    Spelling("P.cp_async_shared_global", (("", "%smem"), ("", "%gmem"), ("", "8"), ("", "P.LoadCacheModifier.CA"),
                                          ("cp_size", "%src_size"))),
    Spelling("P.cp_async_bulk_tensor_shared_cta_global", (("", "%smem"), ("", "%tmap"), ("", "%c3"), ("", "%mbar"),
                                                          ("", "%o0"))),
    Spelling("P.cp_async_bulk_tensor_shared_cta_global", (("", "%smem"), ("", "%tmap"), ("", "%c4"), ("", "%mbar"),
                                                          ("", "%o2"), ("mode", "P.TMALoadMode.IM2COL"))),
    Spelling("P.cp_async_bulk_tensor_reduce", (("", "%tmap"), ("", "%smem"), ("", "P.TMARedux.MAX"), ("", "%c2"))),
    Spelling("cute.arch.cp_async_bulk_wait_group", (("", "1"), ("read", "True"))),
    Spelling("P.fence_proxy", (("", "P.Proxy.ASYNC_GLOBAL"),)),
]


class CuteDsl(unittest.TestCase):
    def test_every_protocol_renders_python_around_the_tier_call(self):
        for s in DSL_SPELLINGS:
            call = cute_dsl.call_text(s)
            c = cute_kernels.whole_case("k", s, call)
            compile(cute_kernels.PRELUDE + c.source, f"<{s.callee}>", "exec")
            self.assertIn(call, c.source)
            if any(v == "%tmap" for _, v in s.args):
                # a map copied into global memory is acquired into the tensormap proxy before its first use
                self.assertLess(c.source.index("fence_tma_desc_acquire(t.iterator)"), c.source.index(call))

    def test_every_tile_starts_on_a_16_byte_boundary_and_crosses_the_row_end(self):
        # the DSL kernels' tile loads, prefetches, stores and reductions: an H100 traps on an innermost start that
        # is not a multiple of 16 bytes (tensor_coord_alignment=16B_trap: all 133 such kernels of 2026-12-07);
        # rows of whole 16-byte granules (tensor_store_oob=granule16_written); the box past the row's end
        for geo, width, starts in ((cute_kernels.TILE, 2, ("load", "store")), (cute_kernels.RTILE, 4, ("store",))):
            for start in starts:
                c = geo[start]
                self.assertEqual((c[0] * width % 16, geo["dims"][0] * width % 16), (0, 0), (geo, start))
                self.assertGreater(c[0] + geo["box"][0], geo["dims"][0])
        for rank in range(1, 6):
            coords, tm, _ = cute_kernels._load_map("", rank)
            self.assertEqual(coords[0] * tm["elem_size"] % 16, 0)

    @unittest.skipUnless(_ref(), "ptxcts-ref is not built")
    def test_a_kernel_that_did_nothing_would_fail(self):
        from frontend.whole.folder import can_fail
        for s in DSL_SPELLINGS:
            c = cute_kernels.whole_case("k", s, cute_dsl.call_text(s))
            values, rule = expect.expected_dsl(_ref(), c)
            self.assertTrue(can_fail(c, values), s.callee)
            self.assertTrue(rule)

    @unittest.skipUnless(_ref(), "ptxcts-ref is not built")
    def test_an_im2col_no_offs_store_writes_the_walk_inside_the_tensor(self):
        # rank 3 (C, W, N) = (8, 10, 2): the walk starts at w = 4 of image 1, 6 pixels of 8 channels inside, then
        # leaves the tensor past N (not written); a reduction applies its op there
        for op, spelling in ((None, Spelling("P.cp_async_bulk_tensor_global_shared_cta", (
                ("", "%tmap"), ("", "%smem"), ("", "%c3"), ("mode", "P.TMAStoreMode.IM2COL")))),
                             ("add", Spelling("P.cp_async_bulk_tensor_reduce", (
                                 ("", "%tmap"), ("", "%smem"), ("", "P.TMARedux.ADD"), ("", "%c3"),
                                 ("mode", "P.TMAStoreMode.IM2COL"))))):
            c = cute_kernels.whole_case("k", spelling, cute_dsl.call_text(spelling))
            self.assertEqual((c.check["coords"], c.check["tmap"]["mode"]), ([0, 4, 1], "im2col"))
            w = c.check["width"]
            g = expect.elements(expect.to_bytes(expect.expected_dsl(_ref(), c)[0]["g"], 8), w)
            init = expect.elements(expect.to_bytes(c.buffers["g"]["init"], 8), w)
            tile = expect.elements(expect.to_bytes(c.buffers["h"]["init"], 8), w)
            first = (1 * 10 + 4) * 8   # element (c 0, w 4, n 1)
            want = tile[:48] if op is None else [(a + b) & 0xFFFFFFFF for a, b in zip(init[first:first + 48], tile)]
            self.assertEqual(g[first:first + 48], want)
            self.assertEqual(g[:first] + g[first + 48:], init[:first] + init[first + 48:])

    def test_a_cp_async_with_src_size_zero_fills_the_rest(self):
        c = cute_kernels.whole_case("k", DSL_SPELLINGS[3], cute_dsl.call_text(DSL_SPELLINGS[3]))
        self.assertEqual(c.check["src_size"], 4)
        out = expect.expected_dsl(None, c)[0]["out"]
        g0 = c.buffers["g"]["init"][0]
        self.assertEqual(out[0], g0 & 0xFFFFFFFF)   # 4 bytes copied, 4 zero-filled
        self.assertEqual(out[1:], [0] * (len(out) - 1))

    def test_forms_without_a_dsl_whole_kernel_say_why(self):
        for s in (Spelling("P.cp_async_bulk_global_shared_cta", (("", "%gmem"), ("", "%smem"), ("", "%size"),
                                                                 ("byte_mask", "%byte_mask"))),
                  Spelling("P.cp_async_bulk_tensor_prefetch", (("", "%tmap"), ("", "%c2"),
                                                               ("mode", "P.TMALoadMode.TILE_GATHER4")))):
            with self.assertRaises(kernels.NotWritten) as e:
                cute_kernels.whole_case("k", s, cute_dsl.call_text(s))
            self.assertTrue(str(e.exception))

    def test_a_multicast_is_a_cluster_of_two_each_cta_reading_back_its_copy(self):
        bulk = Spelling("P.cp_async_bulk_shared_cluster_global", (("", "%smem"), ("", "%gmem"), ("", "%mbar"),
                                                                  ("", "%size"), ("multicast_mask", "%cta_mask")))
        tensor = Spelling("P.cp_async_bulk_tensor_shared_cluster_global", (
            ("", "%smem"), ("", "%tmap"), ("", "%c2"), ("", "%mbar"), ("", "%o0"), ("multicast_mask", "%cta_mask")))
        for s in (bulk, tensor):
            call = cute_dsl.call_text(s)
            c = cute_kernels.whole_case("k", s, call)
            compile(cute_kernels.PRELUDE + c.source, f"<{s.callee}>", "exec")
            self.assertEqual((c.options["num_ctas"], c.buffers["p"]["init"][2]), (2, 0b11))
            # every CTA's barrier initialised and expecting before the cluster barrier, CTA 0 alone issuing after
            src = c.source
            self.assertLess(src.index("mbarrier_arrive_and_expect_tx"), src.index("cluster_wait"))
            self.assertLess(src.index("cluster_wait"), src.index("if rank == 0:"), src.index(call))
            if _ref():
                out = expect.expected_dsl(_ref(), c)[0]["out"]
                half = len(out) // 2
                self.assertEqual(out[:half], out[half:])
                self.assertTrue(any(out[:half]))

    def test_the_cluster_fence_stands_between_the_peer_writes_and_the_bulk_store(self):
        s = Spelling("P.fence_proxy", (("", "P.Proxy.ASYNC_SHARED"), ("space", "P.SharedSpace.shared_cluster")))
        call = cute_dsl.call_text(s)
        c = cute_kernels.whole_case("k", s, call)
        compile(cute_kernels.PRELUDE + c.source, "<fence>", "exec")
        src = c.source
        self.assertEqual(c.options["num_ctas"], 2)
        self.assertLess(src.index("map_dsmem_ptr(s + i, 0)"), src.index(call))
        self.assertLess(src.index(call), src.index("P.cp_async_bulk_global_shared_cta"))


class _FakeDriver:
    def __init__(self, answer):
        self.answer, self.mem = answer, []

    def load(self, image, name):
        return None, None

    def alloc(self, data):
        self.mem.append(data)
        return len(self.mem)

    def tensor_map(self, *a):
        self.maps = getattr(self, "maps", []) + [("tiled",) + a]
        return cudadrv.TensorMap()

    def tensor_map_im2col(self, *a):
        self.maps = getattr(self, "maps", []) + [("im2col",) + a]
        return cudadrv.TensorMap()

    def write(self, ptr, data):
        self.written = (ptr, data)

    def launch(self, fn, params, threads, shared, ctas):
        self.params = params

    def read(self, ptr, size):
        return self.answer(ptr, size)


class Judge(unittest.TestCase):
    def _case(self, tmp):
        case = {"entry": "k", "form": "f", "template": "tma_store", "rule": "R",
                "meta": {"num_warps": 4, "shared": 0, "num_ctas": 1, "global_scratch_size": 0,
                         "profile_scratch_size": 0,
                         "tensordesc": [{"elem_type": 1, "elem_size": 2, "block_size": [2, 64], "swizzle": 0}]},
                "args": [{"kind": "tensordesc", "buffer": "g", "shape": [3, 104], "block": [2, 64]},
                         {"kind": "ptr", "buffer": "t"}],
                "buffers": {"g": {"elem": 2, "init": "0000" * 4}, "t": {"elem": 2, "init": "0100"}},
                "expect": {"g": "0100020003000400"}}
        with open(os.path.join(tmp, "k.cubin"), "wb") as f:
            f.write(b"x")
        return case

    def test_equal_bytes_pass_and_the_first_difference_is_named(self):
        import tempfile
        tmp = tempfile.mkdtemp()
        case = self._case(tmp)
        d = _FakeDriver(lambda p, n: bytes.fromhex("0100020003000400"))
        self.assertEqual(wr.run_one(d, tmp, case), ("pass", ""))
        # the map, two shapes, two strides, the pointer, two scratch pointers: Triton's ABI
        self.assertEqual(len(d.params), 8)
        self.assertEqual([p.value for p in d.params[3:5]], [104, 1])
        klass, msg = wr.run_one(_FakeDriver(lambda p, n: bytes.fromhex("0100020009000400")), tmp, case)
        self.assertEqual(klass, "fail")
        self.assertIn("g[2] is 0x0009, the model says 0x0003 (1 of 4 elements differ); rule: R", msg)

    def test_a_dsl_map_is_encoded_outermost_first_into_its_buffer(self):
        # the DSL kernels' maps (cute_kernels._tmap): shape and block in a Triton descriptor's order, as the driver
        # wrapper takes them; the 128 bytes written into the buffer t the kernel reads
        import tempfile
        tmp = tempfile.mkdtemp()
        for spelling, want in ((DSL_SPELLINGS[4], ("tiled", 1, 2, [3, 3, 24], [2, 2, 16], 0)),
                               (DSL_SPELLINGS[5], ("im2col", 1, 2, [2, 3, 10, 8], [16, 8], 0, [-1, -1], [-1, -1]))):
            c = cute_kernels.whole_case("k", spelling, cute_dsl.call_text(spelling))
            case = {"entry": "k", "form": "f", "rule": "R", "meta": dict(c.options, num_ctas=1), "args": c.args,
                    "buffers": {b: {"elem": v["elem"], "init": "00" * v["elem"] * len(v["init"])}
                                for b, v in c.buffers.items()}, "expect": {}}
            with open(os.path.join(tmp, "k.cubin"), "wb") as f:
                f.write(b"x")
            d = _FakeDriver(lambda p, n: b"")
            self.assertEqual(wr.run_one(d, tmp, case), ("pass", ""))
            (got,) = d.maps
            self.assertEqual(got[:3] + got[4:], want)   # all but the tensor's address
            self.assertEqual((d.written[0], len(d.written[1])), (5, 128))   # t: the fifth buffer allocated
            self.assertEqual(len(d.params), 5)                              # g, h, out, p, t: no scratch

    def test_a_tensor_map_is_64_byte_aligned(self):
        for _ in range(8):
            self.assertEqual(cudadrv.TensorMap().addr % 64, 0)


class Refusals(unittest.TestCase):
    def test_a_refusal_a_reviewed_finding_covers_is_its_spec_divergence(self):
        # whole-write records what the front-end refused; whole-run names the reviewed finding that covers it
        # (results/expectations/frontends.toml) and keeps any other a compile_error. No GPU is needed for these.
        import json
        import tempfile
        from frontend.whole.folder import FORMAT
        tmp = tempfile.mkdtemp()
        known = "cp.reduce.async.bulk/global.shared_cta.bulk_group/add.noftz.f32"
        doc = {"format": FORMAT, "version": 1, "frontend": "cute-dsl", "compiler": "CuTe DSL (4.8.1)",
               "ptxas": "13.5", "target": "sm_90a", "ptx": "9.4", "cases": [], "not_written": {},
               "refused": {known: "ValueError: .noftz is only valid for .f16/.bf16", "cp.async/x": "boom"}}
        os.makedirs(os.path.join(tmp, "k"))
        with open(os.path.join(tmp, "k", "index.json"), "w") as f:
            json.dump(doc, f)
        r = subprocess.run([os.path.join(ROOT, "ptxcts"), "frontend", "whole-run", os.path.join(tmp, "k"), "--out",
                            os.path.join(tmp, "out")], capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, CUDA_VISIBLE_DEVICES=""))
        self.assertEqual(r.returncode, 77, r.stderr)
        with open(os.path.join(tmp, "out", "results.jsonl")) as f:
            got = {x["form"]: x for x in map(json.loads, f) if "form" in x}
        self.assertEqual(got[known]["class"], "spec_divergence")
        self.assertIn("finding cute-dsl-481-noftz-f32-refused", got[known]["message"])
        self.assertEqual(got["cp.async/x"]["class"], "compile_error")


class Index(unittest.TestCase):
    def test_a_kernel_entry_without_its_launch_is_a_malformed_index(self):
        import json
        import tempfile
        from frontend.whole.folder import FORMAT
        tmp = tempfile.mkdtemp()
        with open(os.path.join(tmp, "index.json"), "w") as f:
            json.dump({"format": FORMAT, "cases": [{"entry": "k1", "form": "f"}]}, f)
        r = subprocess.run([os.path.join(ROOT, "ptxcts"), "frontend", "whole-run", tmp, "--out",
                            os.path.join(tmp, "out")], capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("cases[0] (k1) lacks asked, template, instruction, args, buffers, meta, expect, rule", r.stderr)


class Children(unittest.TestCase):
    def test_a_hung_kernel_times_out_and_a_dying_child_is_a_crash(self):
        fake = ("import json, sys, time\n"
                "print(json.dumps({'device': ['x', 'sm_90', 1]}))\n"
                "print(json.dumps({'start': sys.argv[1]}), flush=True)\n"
                "if sys.argv[1] == 'a': time.sleep(60)\n"
                "print(json.dumps({'entry': sys.argv[1], 'class': 'pass', 'message': ''}), flush=True)\n"
                "if len(sys.argv) > 2:\n"
                "    print(json.dumps({'start': sys.argv[2]}), flush=True)\n"
                "    sys.exit(3)\n")
        real = subprocess.Popen

        def popen(cmd, **kw):
            return real([sys.executable, "-c", fake] + cmd[5:], **kw)
        got = []

        class Prog:
            def advance(self, n):
                pass
        import tempfile
        wr.subprocess.Popen = popen
        try:
            dev = wr._drive("x", ["a", "b", "c"], 1.0, lambda e, k, m, s: got.append((e, k)), Prog(),
                            os.path.join(tempfile.mkdtemp(), "children.log"))
        finally:
            wr.subprocess.Popen = real
        self.assertEqual(got, [("a", "timeout"), ("b", "pass"), ("c", "crash")])
        self.assertEqual(dev, ["x", "sm_90", 1])


if __name__ == "__main__":
    unittest.main()
