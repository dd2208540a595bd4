"""The litmus shapes the suite generates (`./ptxcts litmus suite write`): each SHAPE is a family of tests, one file
cases/<shape>.litmus, the variants its parameters; the model labels every outcome (cases/labels.jsonl.gz).
A test's text is the litmus format (syntax.py); its doc line says what it checks."""


def _t(name, doc, threads, code, init=None, mbars=None, observe=None, locs=None):
    out = [f"test {name}", f"doc {doc}"]
    for th, kv in threads.items():
        out.append(f"thread {th} " + " ".join(f"{k}={v}" for k, v in kv.items()))
    for l, sp in (locs or {}).items():
        out.append(f"loc {l} {sp}")
    for m, (cta, count) in (mbars or {}).items():
        out.append(f"mbarrier {m} cta={cta} count={count}")
    if init:
        out.append("init " + " ".join(f"{k}={v}" for k, v in init.items()))
    for line in code:
        out.append(line)
    if observe:
        out.append("observe " + " ".join(observe))
    return "\n".join(out)


def _two(cta1=1, cluster1=0):
    return {"T0": {"cta": 0, "cluster": 0}, "T1": {"cta": cta1, "cluster": cluster1}}


WHERE = {"same_cta": (0, 0), "peer_cta": (1, 0), "other_cluster": (2, 1)}


def mp():
    for where, (c, k) in WHERE.items():
        for st, ld in (("st.weak", "ld.weak"), ("st.release.cta", "ld.acquire.cta"),
                       ("st.release.cluster", "ld.acquire.cluster"), ("st.release.gpu", "ld.acquire.gpu")):
            yield _t(f"MP.{where}.{st.split('.', 1)[1].replace('.', '_')}",
                     f"message passing, the flag by {st}/{ld}, threads in {where}", _two(c, k),
                     ["T0: st.weak x 1", f"T0: {st} y 1", f"T1: {ld} r1 y", "T1: ld.weak r2 x"])
    for sc in ("cta", "gpu"):
        yield _t(f"MP.fences.peer_cta.{sc}", f"message passing through fence.acq_rel.{sc} and relaxed accesses",
                 _two(1, 0), ["T0: st.weak x 1", f"T0: fence.acq_rel.{sc}", "T0: st.relaxed.gpu y 1",
                              "T1: ld.relaxed.gpu r1 y", f"T1: fence.acq_rel.{sc}", "T1: ld.weak r2 x"])


def sb():
    for sc in ("none", "cta", "cluster", "gpu"):
        f = [] if sc == "none" else [f"fence.sc.{sc}"]
        yield _t(f"SB.peer_cta.{sc}", f"store buffering, fence.sc.{sc} between store and load" if f else
                 "store buffering, no fence", _two(1, 0),
                 ["T0: st.relaxed.gpu x 1"] + [f"T0: {x}" for x in f] + ["T0: ld.relaxed.gpu r1 y",
                  "T1: st.relaxed.gpu y 1"] + [f"T1: {x}" for x in f] + ["T1: ld.relaxed.gpu r2 x"])


def lb():
    for dep in (False, True):
        for sem in ("relaxed.gpu", "acquire.gpu"):
            v = "r1" if dep else "1"
            w = "r2" if dep else "1"
            st = "st.release.gpu" if sem.startswith("acquire") else "st.relaxed.gpu"
            yield _t(f"LB.{'dep' if dep else 'const'}.{sem.replace('.', '_')}",
                     f"load buffering, ld.{sem} then {st} of {'the value read' if dep else 'a constant'}",
                     _two(1, 0), [f"T0: ld.{sem} r1 x", f"T0: {st} y {v}", f"T1: ld.{sem} r2 y",
                                  f"T1: {st} x {w}"])


def iriw():
    for kind in ("relaxed", "acquire", "fence_sc"):
        code = ["T0: st.relaxed.gpu x 1", "T1: st.relaxed.gpu y 1"]
        for r, (a, b) in (("T2", ("x", "y")), ("T3", ("y", "x"))):
            if kind == "fence_sc":
                code += [f"{r}: ld.relaxed.gpu r1 {a}", f"{r}: fence.sc.gpu", f"{r}: ld.relaxed.gpu r2 {b}"]
            else:
                code += [f"{r}: ld.{kind}.gpu r1 {a}", f"{r}: ld.{kind}.gpu r2 {b}"]
        yield _t(f"IRIW.{kind}", f"independent reads of independent writes, readers with {kind}",
                 {f"T{i}": {"cta": i, "cluster": 0} for i in range(4)}, code)


def wrc():
    for kind in ("relaxed", "relacq"):
        st, ld = ("st.relaxed.gpu", "ld.relaxed.gpu") if kind == "relaxed" else ("st.release.gpu", "ld.acquire.gpu")
        yield _t(f"WRC.{kind}", f"write-to-read causality, {st}/{ld}",
                 {f"T{i}": {"cta": i, "cluster": 0} for i in range(3)},
                 ["T0: st.relaxed.gpu x 1", f"T1: {ld} r1 x", f"T1: {st} y 1", f"T2: {ld} r2 y",
                  "T2: ld.relaxed.gpu r3 x"])


def coherence():
    yield _t("CoRR.relaxed", "coherence of two reads of one location", _two(1, 0),
             ["T0: st.relaxed.gpu x 1", "T1: ld.relaxed.gpu r1 x", "T1: ld.relaxed.gpu r2 x"])
    yield _t("CoRR.weak", "two weak reads of one location (not morally strong with the write)", _two(1, 0),
             ["T0: st.weak x 1", "T1: ld.weak r1 x", "T1: ld.weak r2 x"])
    yield _t("CoWW.same_thread", "two writes of one thread: the final value", {"T0": {"cta": 0}},
             ["T0: st.weak x 1", "T0: st.weak x 2"], observe=["x"])
    yield _t("CoWR.two_threads", "a write then a read of one location, against another thread's write",
             _two(1, 0), ["T0: st.relaxed.gpu x 1", "T0: ld.relaxed.gpu r1 x", "T1: st.relaxed.gpu x 2"],
             observe=["x"])


def bulk_store_flag():
    for fence in (True, False):
        for wait in ("wait_group 0", "wait_group.read 0", "none"):
            for flag in ("gpu", "cta"):
                if flag == "cta" and (not fence or wait != "wait_group 0"):
                    continue
                code = ["T0: st.weak s 1"] + (["T0: fence.proxy.async"] if fence else []) + \
                    ["T0: cp.async.bulk g s bulk_group", "T0: cp.async.bulk.commit_group"]
                if wait != "none":
                    code.append(f"T0: cp.async.bulk.{wait}")
                code += [f"T0: st.release.{flag} f 1", f"T1: ld.acquire.{flag} r1 f", "T1: ld.weak r2 g"]
                yield _t(f"MPbulk.{'fenced' if fence else 'unfenced'}.{wait.replace(' ', '').replace('.', '_')}.{flag}",
                         "message passing through a bulk store and a flag: shared write, "
                         f"{'fence.proxy.async, ' if fence else ''}cp.async.bulk to global, "
                         f"{wait}, release flag at {flag}; the consumer in a peer CTA",
                         _two(1, 0), code, locs={"s": "shared cta=0"})


def tma_same_cta():
    for expect, wait, n in ((16, "acquire", 1), (0, "acquire", 1), (32, "acquire", 1), (16, "relaxed", 1),
                            (32, "acquire", 2), (16, "acquire", 2)):
        code = [f"T0: mbarrier.arrive.expect_tx m {expect}"]
        for i in range(n):
            code.append(f"T0: cp.async.bulk s{i} g{i} mbar=m bytes=16")
        code.append(f"T1: mbarrier.try_wait.{wait} m")
        for i in range(n):
            code.append(f"T1: ld.weak r{i + 1} s{i}")
        yield _t(f"TMA.same_cta.expect{expect}.{wait}.copies{n}",
                 f"bulk load with complete_tx: expect_tx {expect} for {n} copies of 16 bytes, the consumer's "
                 f"try_wait .{wait} in the same CTA", {"T0": {"cta": 0}, "T1": {"cta": 0}},
                 code, init={f"g{i}": i + 5 for i in range(n)}, mbars={"m": (0, 1)})


def tma_peer_cta():
    for wscope in ("cta", "cluster"):
        for who in ("consumer_expects", "producer_expects"):
            code = []
            if who == "consumer_expects":
                code.append("T1: mbarrier.arrive.expect_tx m1 16")
            else:
                code.append("T0: mbarrier.arrive.expect_tx.cluster m1 16")
            code += ["T0: cp.async.bulk s1 g mbar=m1 bytes=16", f"T1: mbarrier.try_wait.acquire.{wscope} m1",
                     "T1: ld.weak r1 s1"]
            yield _t(f"TMA.peer_cta.{who}.wait_{wscope}",
                     f"bulk load by CTA 0 into CTA 1's shared memory, complete_tx on CTA 1's mbarrier "
                     f"({who.replace('_', ' ')}), the consumer's try_wait .{wscope}", _two(1, 0), code,
                     init={"g": 7}, mbars={"m1": (1, 1)}, locs={"s1": "shared cta=1"})


def tma_multicast():
    for mask in ("both", "own_only"):
        dsts, mbs = ("s0,s1", "m0,m1") if mask == "both" else ("s0", "m0")
        code = ["T0: mbarrier.arrive.expect_tx m0 16", "T1: mbarrier.arrive.expect_tx m1 16",
                f"T0: cp.async.bulk.multicast {dsts} g mbar={mbs} bytes=16",
                "T0: mbarrier.try_wait m0", "T0: ld.weak r1 s0", "T1: mbarrier.try_wait m1", "T1: ld.weak r2 s1"]
        yield _t(f"TMA.multicast.{mask}", f"multicast bulk load into CTAs {'0 and 1' if mask == 'both' else '0 only'} "
                 "of the cluster, each CTA's own mbarrier expecting 16 bytes", _two(1, 0), code, init={"g": 9},
                 mbars={"m0": (0, 1), "m1": (1, 1)}, locs={"s0": "shared cta=0", "s1": "shared cta=1"})
    for mask in ("both", "own_only"):
        dsts, mbs = ("s0,s1", "m0,m1") if mask == "both" else ("s0", "m0")
        code = ["T0: mbarrier.arrive.expect_tx m0 16", "T1: mbarrier.arrive m1",
                f"T0: cp.async.bulk.multicast {dsts} g mbar={mbs} bytes=16",
                "T1: mbarrier.try_wait m1", "T1: ld.weak r2 s1"]
        yield _t(f"TMA.multicast.peer_no_expect.{mask}",
                 "multicast into the peer CTA whose mbarrier expects no bytes: its phase may complete first",
                 _two(1, 0), code, init={"g": 9}, mbars={"m0": (0, 1), "m1": (1, 1)},
                 locs={"s0": "shared cta=0", "s1": "shared cta=1"})


def generic_then_bulk_read():
    for between in ("none", "fence", "bar", "bar_fence"):
        mid = {"none": [], "fence": ["fence.proxy.async"], "bar": ["bar.sync 0"],
               "bar_fence": ["bar.sync 0", "fence.proxy.async"]}[between]
        code = ["T0: st.weak s 1"] + [f"T0: {m}" for m in mid] + \
            ["T0: cp.async.bulk g s bulk_group", "T0: cp.async.bulk.commit_group", "T0: cp.async.bulk.wait_group 0",
             "T0: ld.weak r1 g"]
        yield _t(f"ProxyRead.same_thread.{between}", "generic write to shared memory, then a bulk read of it by the "
                 f"same thread ({between.replace('_', ' + ')} between)", {"T0": {"cta": 0}}, code,
                 locs={"s": "shared cta=0"})


def writer_barrier_issuer():
    for where in ("none", "writer_fence", "issuer_fence", "no_barrier_writer_fence"):
        code = ["T0: st.weak s 1"]
        if where == "writer_fence" or where == "no_barrier_writer_fence":
            code.append("T0: fence.proxy.async")
        if where != "no_barrier_writer_fence":
            code += ["T0: bar.sync 0", "T1: bar.sync 0"]
        if where == "issuer_fence":
            code.append("T1: fence.proxy.async")
        code += ["T1: cp.async.bulk g s bulk_group", "T1: cp.async.bulk.commit_group", "T1: cp.async.bulk.wait_group 0",
                 "T1: ld.weak r1 g"]
        yield _t(f"ProxyRead.bar_sync.{where}", "one thread writes shared memory, another bulk-copies it to global "
                 f"after bar.sync ({where.replace('_', ' ')})", {"T0": {"cta": 0}, "T1": {"cta": 0}}, code,
                 locs={"s": "shared cta=0"})


def war_after_read():
    for wait in ("wait_group.read 0", "wait_group 0", "none"):
        code = ["T0: st.weak s 1", "T0: fence.proxy.async", "T0: cp.async.bulk g s bulk_group",
                "T0: cp.async.bulk.commit_group"]
        if wait != "none":
            code.append(f"T0: cp.async.bulk.{wait}")
        code += ["T0: st.weak s 2", "T0: cp.async.bulk.wait_group 0", "T0: ld.weak r1 g"]
        yield _t(f"WAR.source.{wait.replace(' ', '').replace('.', '_')}",
                 f"write-after-read on the bulk copy's source after {wait}", {"T0": {"cta": 0}}, code,
                 locs={"s": "shared cta=0"})


def group_order():
    for n, reads in ((1, ("g0",)), (1, ("g1",)), (0, ("g0", "g1")), (2, ("g0",))):
        code = ["T0: st.weak s0 1", "T0: st.weak s1 2", "T0: fence.proxy.async",
                "T0: cp.async.bulk g0 s0 bulk_group", "T0: cp.async.bulk.commit_group",
                "T0: cp.async.bulk g1 s1 bulk_group", "T0: cp.async.bulk.commit_group",
                f"T0: cp.async.bulk.wait_group {n}"] + [f"T0: ld.weak r{i + 1} {g}" for i, g in enumerate(reads)]
        yield _t(f"GroupOrder.wait{n}.read_{'_'.join(reads)}",
                 f"two bulk groups; wait_group {n}; then read {', '.join(reads)} (groups complete in commit order)",
                 {"T0": {"cta": 0}}, code)


def group_no_order():
    for groups in (1, 2):
        code = ["T0: st.weak s0 1", "T0: st.weak s1 2", "T0: fence.proxy.async", "T0: cp.async.bulk g s0 bulk_group"]
        if groups == 2:
            code.append("T0: cp.async.bulk.commit_group")
        code += ["T0: cp.async.bulk g s1 bulk_group", "T0: cp.async.bulk.commit_group", "T0: cp.async.bulk.wait_group 0",
                 "T0: ld.weak r1 g"]
        yield _t(f"GroupNoOrder.groups{groups}", f"two bulk copies to one destination in {groups} group(s): which "
                 "value lands last", {"T0": {"cta": 0}}, code, observe=["g"])


def reduce_vs_atomic():
    yield _t("ReduceRace.same_thread_after_wait", "a bulk reduction (add 1) completed by wait_group, then a generic "
             "atom.add of the same location by the issuing thread", {"T0": {"cta": 0}},
             ["T0: st.weak s 1", "T0: fence.proxy.async", "T0: cp.reduce.async.bulk.add g s bulk_group",
              "T0: cp.async.bulk.commit_group", "T0: cp.async.bulk.wait_group 0", "T0: atom.relaxed.gpu.add r1 g 2"],
             init={"g": 10}, observe=["g"])
    for other in ("atom.relaxed.gpu.add r1 g 2", "red.relaxed.gpu.add g 2", "st.relaxed.gpu g 2"):
        code = ["T0: st.weak s 1", "T0: fence.proxy.async", "T0: cp.reduce.async.bulk.add g s bulk_group",
                "T0: cp.async.bulk.commit_group", "T0: cp.async.bulk.wait_group 0", f"T1: {other}"]
        yield _t(f"ReduceRace.{other.split()[0].replace('.', '_')}",
                 f"a bulk reduction (add 1) racing a generic {other.split()[0]} of the same location",
                 _two(1, 0), code, init={"g": 10}, observe=["g"])


def tensormap_fence():
    for fence in ("none", "fence.proxy.tensormap", "fence.proxy.async"):
        code = ["T0: st.weak tm 1"] + ([f"T0: {fence}"] if fence != "none" else []) + \
            ["T0: mbarrier.arrive.expect_tx m 16", "T0: cp.async.bulk.tensor s tm mbar=m bytes=16",
             "T0: mbarrier.try_wait m", "T0: ld.weak r1 s"]
        yield _t(f"TensorMap.{fence.replace('.', '_')}", "the tensor map rewritten by generic stores, then a "
                 f"tensor copy through it ({fence}); r1 is the map version the copy used", {"T0": {"cta": 0}}, code,
                 mbars={"m": (0, 1)}, locs={"s": "shared cta=0"})
    yield _t("TensorMap.rewrite_before_completion", "the tensor map rewritten while the copy is in flight",
             {"T0": {"cta": 0}}, ["T0: mbarrier.arrive.expect_tx m 16", "T0: cp.async.bulk.tensor s tm mbar=m bytes=16",
                                  "T0: st.weak tm 1", "T0: mbarrier.try_wait m", "T0: ld.weak r1 s"],
             mbars={"m": (0, 1)}, locs={"s": "shared cta=0"})


def cp_async_groups():
    for wait in ("cp.async.wait_group 0", "cp.async.wait_group 1", "cp.async.wait_all"):
        code = ["T0: cp.async s0 g0", "T0: cp.async.commit_group", "T0: cp.async s1 g1", "T0: cp.async.commit_group",
                f"T0: {wait}", "T0: ld.weak r1 s0", "T0: ld.weak r2 s1"]
        yield _t(f"CpAsync.{wait.split('.', 2)[2].replace(' ', '')}", f"two cp.async groups, {wait}, read both",
                 {"T0": {"cta": 0}}, code, init={"g0": 3, "g1": 4})
    yield _t("CpAsync.same_dst_one_group", "two cp.async to one destination in one group: no order between them",
             {"T0": {"cta": 0}}, ["T0: cp.async s g0", "T0: cp.async s g1", "T0: cp.async.wait_all", "T0: ld.weak r1 s"],
             init={"g0": 3, "g1": 4})
    yield _t("CpAsync.no_wait", "cp.async then a read of its destination without waiting", {"T0": {"cta": 0}},
             ["T0: cp.async s g0", "T0: cp.async.commit_group", "T0: ld.weak r1 s"], init={"g0": 3})


def mbarrier_mp():
    for arrive in ("mbarrier.arrive", "mbarrier.arrive.relaxed"):
        for wait in ("mbarrier.try_wait", "mbarrier.try_wait.relaxed"):
            yield _t(f"MbarMP.{arrive.split('.', 1)[1].replace('.', '_')}.{wait.split('.', 1)[1].replace('.', '_')}",
                     f"message passing through an mbarrier phase: {arrive} then {wait}",
                     {"T0": {"cta": 0}, "T1": {"cta": 0}}, ["T0: st.weak x 1", f"T0: {arrive} m", f"T1: {wait} m",
                                                           "T1: ld.weak r1 x"], mbars={"m": (0, 1)})


def mbarrier_remote_arrive():
    for wscope in ("cta", "cluster"):
        yield _t(f"MbarRemote.arrive_cluster.wait_{wscope}", "a thread of CTA 1 writes, then arrives (.release.cluster) "
                 f"on CTA 0's mbarrier; a thread of CTA 0 waits (.acquire.{wscope}) and reads",
                 {"T0": {"cta": 1}, "T1": {"cta": 0}}, ["T0: st.weak x 1", "T0: mbarrier.arrive.release.cluster m",
                                                      f"T1: mbarrier.try_wait.acquire.{wscope} m", "T1: ld.weak r1 x"],
                 mbars={"m": (0, 1)})


def cp_async_flag():
    for wait in ("cp.async.wait_all", "none"):
        code = ["T0: cp.async s g", "T0: cp.async.commit_group"] + ([f"T0: {wait}"] if wait != "none" else []) + \
            ["T0: st.release.cta f 1", "T1: ld.acquire.cta r1 f", "T1: ld.weak r2 s"]
        yield _t(f"CpAsyncMP.{wait.replace('.', '_')}", f"cp.async into shared memory, {wait}, then a release flag "
                 "to a thread of the CTA that reads the destination", {"T0": {"cta": 0}, "T1": {"cta": 0}}, code,
                 init={"g": 3})


def chained_copies():
    for fence in (False, True):
        code = ["T0: mbarrier.arrive.expect_tx m 16", "T0: cp.async.bulk s g1 mbar=m bytes=16", "T0: mbarrier.try_wait m"]
        code += (["T0: fence.proxy.async"] if fence else []) + \
            ["T0: cp.async.bulk g2 s bulk_group", "T0: cp.async.bulk.commit_group", "T0: cp.async.bulk.wait_group 0",
             "T0: ld.weak r1 g2"]
        yield _t(f"Chain.load_then_store.{'fenced' if fence else 'unfenced'}",
                 "bulk load into shared memory (mbarrier), then a bulk store of it to global: async to async",
                 {"T0": {"cta": 0}}, code, init={"g1": 6}, mbars={"m": (0, 1)}, locs={"s": "shared cta=0"})


def completion_to_peer_thread():
    for sync in ("bar.sync 0", "none"):
        code = ["T0: st.weak s 1", "T0: fence.proxy.async", "T0: cp.async.bulk g s bulk_group",
                "T0: cp.async.bulk.commit_group", "T0: cp.async.bulk.wait_group 0"]
        if sync != "none":
            code += [f"T0: {sync}", f"T1: {sync}"]
        code.append("T1: ld.weak r1 g")
        yield _t(f"CompletionShared.{sync.replace(' ', '').replace('.', '_')}",
                 f"bulk store completed by T0's wait_group, read by T1 of the CTA ({sync})",
                 {"T0": {"cta": 0}, "T1": {"cta": 0}}, code, locs={"s": "shared cta=0"})


def consumer_no_wait():
    yield _t("Consumer.no_wait", "a consumer reads the bulk load's destination without waiting on the mbarrier",
             {"T0": {"cta": 0}, "T1": {"cta": 0}}, ["T0: mbarrier.arrive.expect_tx m 16",
                                                  "T0: cp.async.bulk s g mbar=m bytes=16", "T1: ld.weak r1 s"],
             init={"g": 5}, mbars={"m": (0, 1)})
    yield _t("Consumer.wait_other_mbar", "a consumer waits on an mbarrier the copy does not signal",
             {"T0": {"cta": 0}, "T1": {"cta": 0}}, ["T0: mbarrier.arrive.expect_tx m 16",
                                                  "T0: cp.async.bulk s g mbar=m bytes=16", "T0: mbarrier.arrive n",
                                                  "T1: mbarrier.try_wait n", "T1: ld.weak r1 s"],
             init={"g": 5}, mbars={"m": (0, 1), "n": (0, 1)})


def bulk_sb():
    for fence in (False, True):
        code = []
        for me, other, gm, go in (("T0", "T1", "g0", "g1"), ("T1", "T0", "g1", "g0")):
            code += [f"{me}: st.weak s{me[1]} 1", f"{me}: fence.proxy.async",
                     f"{me}: cp.async.bulk {gm} s{me[1]} bulk_group", f"{me}: cp.async.bulk.commit_group",
                     f"{me}: cp.async.bulk.wait_group 0"]
            if fence:
                code.append(f"{me}: fence.sc.gpu")
            code.append(f"{me}: ld.relaxed.gpu r1 {go}")
        yield _t(f"BulkSB.{'fence_sc' if fence else 'nofence'}", "store buffering where each store is a bulk copy "
                 f"completed by wait_group{', then fence.sc.gpu' if fence else ''}", _two(1, 0), code,
                 locs={"s0": "shared cta=0", "s1": "shared cta=1"})


def isa2_mbarrier():
    for scope in ("cta", "gpu"):
        code = ["T0: mbarrier.arrive.expect_tx m 16", "T0: cp.async.bulk s g mbar=m bytes=16",
                "T1: mbarrier.try_wait m", f"T1: st.release.{scope} f 1", f"T2: ld.acquire.{scope} r2 f",
                "T2: ld.weak r3 s"]
        yield _t(f"ISA2.mbar_then_flag.{scope}", "a bulk load completed on the mbarrier, then passed on by a "
                 f"release flag at {scope} to a thread of another CTA that reads the destination",
                 {"T0": {"cta": 0}, "T1": {"cta": 0}, "T2": {"cta": 1}}, code, init={"g": 4},
                 mbars={"m": (0, 1)}, locs={"s": "shared cta=0"})


def cluster_barrier():
    for bar in ("barrier.cluster", "none"):
        code = ["T0: mbarrier.arrive.expect_tx m0 16", "T0: cp.async.bulk s0 g mbar=m0 bytes=16",
                "T0: mbarrier.try_wait m0"] + ([f"T0: {bar}", f"T1: {bar}"] if bar != "none" else []) + \
            ["T1: ld.weak r1 s0"]
        yield _t(f"ClusterRead.{bar.replace('.', '_')}", "a CTA's bulk load, then a peer CTA reads it through "
                 f"distributed shared memory ({bar})", _two(1, 0), code, init={"g": 8}, mbars={"m0": (0, 1)},
                 locs={"s0": "shared cta=0"})


SHAPES = {
    "mp": mp, "sb": sb, "lb": lb, "iriw": iriw, "wrc": wrc, "coherence": coherence,
    "mp_bulk_store_flag": bulk_store_flag, "tma_same_cta": tma_same_cta, "tma_peer_cta": tma_peer_cta,
    "tma_multicast": tma_multicast, "proxy_read_same_thread": generic_then_bulk_read,
    "proxy_read_bar_sync": writer_barrier_issuer, "war_after_read": war_after_read, "group_order": group_order,
    "group_no_order": group_no_order, "reduce_vs_atomic": reduce_vs_atomic, "tensormap_fence": tensormap_fence,
    "cp_async_groups": cp_async_groups, "mbarrier_mp": mbarrier_mp,
    "mbarrier_remote_arrive": mbarrier_remote_arrive, "cp_async_flag": cp_async_flag, "chained_copies": chained_copies,
    "completion_to_peer_thread": completion_to_peer_thread, "consumer_no_wait": consumer_no_wait,
    "bulk_sb": bulk_sb, "isa2_mbarrier": isa2_mbarrier, "cluster_barrier": cluster_barrier,
}


def family_text(shape):
    tests = list(SHAPES[shape]())
    head = f"# generated by `./ptxcts litmus suite write` from litmodel/shapes.py:{SHAPES[shape].__name__}; " \
           "the labels: labels.jsonl.gz\n\n"
    return head + "\n\n".join(tests) + "\n"
