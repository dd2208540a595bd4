"""The model's axioms and policies, each stated once (README.md's tables are `./ptxcts litmus catalog --markdown`;
tests/test_suite.py:test_readme_tables_are_the_catalog fails when they differ).

An axiom's `source` is where its sentence is: the chapter is /work/shared/spec/000_064177cca7585580.txt (PTX ISA
9.7.9.25), quoted word for word; the memory model is the PTX ISA's Memory Consistency Model chapter, which the
project's spec folder does not hold: its rule is stated in our words (marked "paraphrase"), and the Dat3M agreement
(README.md, "Agreement") is the check that our words mean what the published model means."""
from dataclasses import dataclass

CHAPTER = "PTX ISA 9.7.9.25 (the chapter)"
MCM = "PTX ISA, Memory Consistency Model (paraphrase)"


@dataclass(frozen=True)
class Axiom:
    name: str
    source: str
    quote: str
    rule: str


AXIOMS = (
    # --- the memory consistency model: relations
    Axiom("program_order", MCM,
          "Operations of one thread are ordered by program order; two operations related in program order are "
          "morally strong relative to each other when both are memory operations that overlap completely.",
          "po: the thread's instructions in order; it is part of base causality order."),
    Axiom("morally_strong", MCM,
          "Two operations are morally strong relative to each other if they are related in program order, or each "
          "is strong and specifies a scope that includes the thread executing the other; both are performed via "
          "the same proxy; and, if both are memory operations, they overlap completely.",
          "ms(X,Y): po-related, or both strong (relaxed/acquire/release/acq_rel/sc, fences) with each's scope "
          "(cta < cluster < gpu < sys) holding the other's thread; same proxy; same location."),
    Axiom("synchronizes_with", MCM,
          "A release pattern synchronizes with an acquire pattern if a write of the release pattern precedes a read "
          "of the acquire pattern in observation order, and the first operation of the release pattern and the "
          "last of the acquire pattern are morally strong. Observation order: a morally strong read of a write, "
          "extended through atomic operations.",
          "release pattern: a release write, or fence.acq_rel/sc po-before a strong write; acquire pattern: an "
          "acquire read, or a strong read po-before fence.acq_rel/sc; obs = (rf & ms) chained through RMWs."),
    Axiom("fence_sc_order", MCM,
          "Fence-SC order is an acyclic partial order, determined at runtime, that relates every pair of morally "
          "strong fence.sc operations; a fence.sc synchronizes with every fence.sc after it in Fence-SC order.",
          "every total order of the fence.sc events is tried; its morally strong pairs synchronize."),
    Axiom("barrier_sync", MCM,
          "A bar.sync (barrier.cluster.arrive/wait) operation synchronizes with the barrier operations of the "
          "other threads that take part in the same barrier instance.",
          "one join event per barrier instance (CTA and id, or cluster; k-th execution): every participant's "
          "program-order predecessors come before it, its successors after it."),
    Axiom("base_causality_order", MCM,
          "Base causality order is the transitive closure of program order and synchronizes-with (the mbarrier, "
          "barrier and completion edges below included).",
          "bco = (po | sw | barrier | completion | initiation)+; an execution with a cycle in it is not "
          "consistent."),
    Axiom("proxy_preserved_bco", MCM + " and " + CHAPTER,
          "Accessing the same memory location across multiple proxies needs a cross-proxy fence. For the async "
          "proxy, `fence.proxy.async` should be used to synchronize memory between generic proxy and the async "
          "proxy.",
          "X precedes Y in proxy-preserved bco if X bco Y and they use the same proxy, or a proxy fence F between "
          "their proxies has X bco F bco Y (fence.proxy.async: generic<->async; fence.proxy.tensormap: "
          "generic->tensormap; a completion: async->generic)."),
    Axiom("causality_order", MCM,
          "X precedes Y in causality order if X precedes Y in base causality order, or X precedes some Z in "
          "observation order and Z precedes Y in base causality order.",
          "cause = ppbco | (obs ; ppbco), over memory events of one location."),
    # --- the memory consistency model: axioms over a candidate execution
    Axiom("coherence", MCM,
          "If a write W precedes an overlapping write W' in causality order, then W must precede W' in coherence "
          "order.",
          "no W' co W with W cause W'."),
    Axiom("causality", MCM,
          "If a read R precedes an overlapping write W in causality order, then R cannot read from W; if a write W "
          "precedes an overlapping read R in causality order, then R cannot read a write that precedes W in "
          "coherence order.",
          "irreflexive(rf ; cause) and irreflexive(fr ; cause)."),
    Axiom("sc_per_location", MCM,
          "Within any set of overlapping memory operations that are pairwise morally strong, communication order "
          "cannot contradict program order.",
          "acyclic(po-loc | ms & (rf | co | fr))."),
    Axiom("atomicity", MCM,
          "If an atomic operation A and a write W overlap and are morally strong, and W precedes A in coherence "
          "order, then W does not come between the write A reads from and A.",
          "no W with rf(A) co W co A and ms(W, A)."),
    Axiom("fence_sc", MCM,
          "Fence-SC order cannot contradict causality order.",
          "no fence.sc pair F1 sc F2 with F2 bco F1 (a cycle of bco)."),
    Axiom("no_thin_air", MCM,
          "Values may not appear out of thin air: a read's value cannot depend on itself through dependencies and "
          "reads-from.",
          "the values of a candidate are computed from rf; a cycle of rf and data dependency leaves a value "
          "unresolved and the candidate is dropped."),
    # --- the chapter's completion mechanisms and the async proxy
    Axiom("initiation", CHAPTER,
          "An asynchronous copy operation typically includes the following sequence: Optionally, reading from the "
          "tensormap. Reading data from the source location(s). Writing data to the destination location(s). "
          "Writes being made visible to the executing thread or other threads.",
          "issue -> tensormap read -> source read -> destination write -> completion, in bco (policy "
          "initiation_order)."),
    Axiom("async_proxy", CHAPTER,
          "The `cp{.reduce}.async.bulk` operations are performed in the *asynchronous proxy* (or *async proxy*).",
          "the bulk and tensor copies' reads and writes are async-proxy events; cp.async's are generic."),
    Axiom("weak_copy", CHAPTER,
          "The copy operation in `cp.async.bulk` is treated as a weak memory operation",
          "a copy's reads and writes are weak: they synchronize with nothing."),
    Axiom("cp_async_weak_unordered", CHAPTER,
          "`cp.async` is treated as a weak memory operation in the Memory Consistency Model. There is no ordering "
          "guarantee between two `cp.async` operations if they are not explicitly synchronized using "
          "`cp.async.wait_all` or `cp.async.wait_group` or mbarrier instructions.",
          "cp.async: generic weak read and write, ordered after the issue and before its group's completion only."),
    Axiom("async_group_commit", CHAPTER,
          "A *commit* operation creates a per-thread *async-group* containing all prior asynchronous operations "
          "tracked by *async-group* completion and initiated by the executing thread but none of the asynchronous "
          "operations following the commit operation.",
          "each copy belongs to the group of the first commit after it (of its kind: bulk or not)."),
    Axiom("group_completion_order", CHAPTER,
          "All *async-groups* committed by an executing thread always complete in the order in which they were "
          "committed.",
          "wait_group N: every group but the N most recent is complete: their completions precede the wait in bco."),
    Axiom("no_order_within_group", CHAPTER,
          "There is no ordering between asynchronous operations within an *async-group*.",
          "no edge between copies of one group (nor, by policy group_write_order, between groups)."),
    Axiom("bulk_read_completion", CHAPTER,
          "`.read` ... optionally can be used for the completion of - Reading data from the source - Reading from "
          "the tensormap, if applicable",
          "wait_group.read N: the reads of the completed groups precede the wait; their writes need not."),
    Axiom("mbarrier_complete_tx", CHAPTER,
          "The complete-tx operation, with `completeCount` argument equal to amount of data copied in bytes, will "
          "be performed on the mbarrier object specified by the operand `mbar`.",
          "the copy's write precedes a complete-tx event of its byte count on its mbarrier (one per destination "
          "CTA for multicast)."),
    Axiom("complete_tx_release", CHAPTER,
          "the complete-tx operation on the mbarrier has `.release` semantics at the `.cluster` scope",
          "complete-tx is a release at cluster scope into the mbarrier's phase."),
    Axiom("mbarrier_phase", CHAPTER,
          "When the current phase of the *mbarrier object* is complete, it implies that all asynchronous "
          "operations tracked by this phase are complete, and all threads participating in that *mbarrier object* "
          "can access the result of the asynchronous operations.",
          "the mbarrier's updates (arrive, expect-tx, complete-tx) take a total order; phase 0 completes at the "
          "first point where the pending arrivals and the tx-count are both zero; its release updates precede a "
          "phase event, which precedes every acquire try_wait (policy mbarrier_wait_scope); no such point: the "
          "waiters hang."),
    Axiom("completion_proxy_fence", CHAPTER,
          "The completion of a `cp{.reduce}.async.bulk` operation is followed by an implicit *generic-async* proxy "
          "fence. So the result of the asynchronous operation is made visible to the generic proxy as soon as its "
          "completion is observed.",
          "a copy's completion event is a proxy fence async->generic."),
    Axiom("multicast", CHAPTER,
          "The source data is multicast to the same CTA-relative offset as `dstMem` in the shared memory of each "
          "destination CTA. The mbarrier signal is also multicast to the same CTA-relative offset as `mbar` in the "
          "shared memory of the destination CTA.",
          "one source read, one write and one complete-tx per destination CTA."),
    Axiom("reduce_relaxed_gpu", CHAPTER,
          "Each reduction operation performed by the `cp.reduce.async.bulk` has individually `.relaxed.gpu` memory "
          "ordering semantics.",
          "a bulk reduction's destination update is an async-proxy RMW, relaxed at gpu scope."),
    Axiom("tensormap_proxy", CHAPTER,
          "The `tensorMap` is accessed in tensormap proxy.",
          "a tensor copy first reads its tensor map in the tensormap proxy; the copy writes the map's version into "
          "the destination (the abstraction: which map the copy used)."),
    Axiom("undefined_before_completion", CHAPTER,
          "Once an asynchronous copy operation is initiated, modifying the source memory location or tensor "
          "descriptor or reading from the destination memory location before the asynchronous operation "
          "completes, exhibits undefined behavior.",
          "a read of a destination not after the copy's completion (nor before its issue) in bco, or a write of "
          "its source or tensor map not after its read completion (nor before its issue): the execution is "
          "undefined (policy ub_extent)."),
)


@dataclass(frozen=True)
class Policy:
    name: str
    default: str
    alternatives: tuple      # ((value, meaning), ...)
    question: str


POLICIES = (
    Policy("ub_extent", "execution",
           (("execution", "an outcome is undefined when every consistent execution giving it is undefined"),
            ("program", "one consistent undefined execution makes every outcome of the test undefined")),
           "The chapter says touching a source or destination before completion 'exhibits undefined behavior'; "
           "whether that taints the executions that do not touch them early is not said."),
    Policy("mbarrier_wait_scope", "scoped_arrive",
           (("scoped_arrive", "an arrive's release orders before an acquire try_wait only when the two are morally "
                              "strong (the memory model's scope rule); a complete-tx orders its copy's writes before "
                              "every acquire try_wait on the object (the chapter)"),
            ("object_local", "a completed phase orders its release updates before every acquire try_wait on the "
                             "object, whatever the two scopes"),
            ("strict_scope", "the update and the try_wait must be morally strong (each scope holds the other's "
                             "thread): a .cta try_wait does not synchronize with a peer CTA's complete-tx either")),
           "A .cta try_wait in one CTA and the .cluster complete-tx of a copy issued by a peer CTA (or a remote "
           "arrive): the chapter says 'all threads participating in that mbarrier object can access the result', "
           "the memory model's scope rule would not relate them. The default follows the NVIDIA H100 (driver 580, "
           "2026-12-06): after a peer CTA's st.weak and mbarrier.arrive.release.cluster, a .cta try_wait then read "
           "the old value 29,600 times in 5.7e6 instances (MbarRemote.arrive_cluster.wait_cta), while a peer CTA's "
           "TMA complete-tx was never seen stale by a .cta try_wait (TMA.peer_cta.*.wait_cta, 1.2e7 instances)."),
    Policy("read_completion_proxy_fence", "fenced",
           (("fenced", "the completion of the reads (wait_group.read) also fences async->generic: a later generic "
                       "write to the source is not seen by the copy"),
            ("unfenced", "only full completion fences the proxies; a generic write after .read may be read by "
                         "the copy")),
           "The implicit generic-async proxy fence follows 'the completion of a cp{.reduce}.async.bulk operation'; "
           "whether the completion of its reads (.read) has one is not said."),
    Policy("group_write_order", "unordered",
           (("unordered", "groups complete in commit order; their writes to one location are not ordered"),
            ("commit_order", "a group's writes precede, in coherence, the writes of groups committed later")),
           "'complete in the order in which they were committed' orders completions; whether two groups' writes "
           "to one location land in that order is not said."),
    Policy("cross_proxy_atomicity", "none",
           (("none", "a bulk reduction (async proxy) and a generic atomic are not morally strong: an update may "
                     "be lost"),
            ("atomic", "every reduction and atomic of one location is single-copy atomic whatever the proxy")),
           "A cp.reduce.async.bulk element update is '.relaxed.gpu', an atom is generic: the memory model's "
           "morally-strong relation asks the same proxy, so atomicity between them is not promised."),
    Policy("reduce_destination_race", "undefined",
           (("undefined", "a generic atomic of a bulk reduction's destination before its completion reads the "
                          "destination: undefined, as the chapter's sentence says"),
            ("atomic", "a generic atomic (atom, red) racing a bulk reduction is not undefined; whether the two "
                       "updates are atomic is policy cross_proxy_atomicity")),
           "A reduction's destination is meant to be updated concurrently (many CTAs reduce into one tensor); the "
           "chapter's 'reading from the destination memory location before the asynchronous operation completes, "
           "exhibits undefined behavior' does not set reductions apart."),
    Policy("complete_tx_updates", "separate",
           (("separate", "each copy's complete-tx is an mbarrier update of its own: the phase completes at the first "
                         "point of the update order where the pending arrivals and the tx-count are both zero"),
            ("merged", "complete-tx updates next to each other in the update order may be applied as one, so a "
                       "zero tx-count between them need not complete the phase")),
           "The chapter says each copy performs 'the complete-tx operation, with completeCount argument equal to "
           "amount of data copied in bytes'; it does not say two copies' complete-tx operations on one mbarrier "
           "are never applied together."),
    Policy("initiation_order", "ordered",
           (("ordered", "the copy's reads and writes follow its issue in base causality order"),
            ("unordered", "the copy's reads and writes are not ordered after its issue (only its completion is)")),
           "The chapter lists the steps of a copy ('typically includes the following sequence'); it does not say "
           "the copy's accesses are ordered after the issuing instruction in the memory model."),
)

AXIOM_NAMES = tuple(a.name for a in AXIOMS)
POLICY_BY_NAME = {p.name: p for p in POLICIES}


def default_policies():
    return {p.name: p.default for p in POLICIES}


def check_policy(name, value):
    """'' when NAME=VALUE is a policy setting, else why not."""
    p = POLICY_BY_NAME.get(name)
    if p is None:
        return f"no policy '{name}' (known: {', '.join(POLICY_BY_NAME)})"
    if value not in [v for v, _ in p.alternatives]:
        return f"policy {name}: no alternative '{value}' (known: {', '.join(v for v, _ in p.alternatives)})"
    return ""


def markdown():
    out = ["| axiom | source | the sentence | the rule |", "| --- | --- | --- | --- |"]
    for a in AXIOMS:
        out.append(f"| `{a.name}` | {a.source} | {a.quote} | {a.rule} |")
    out += ["", "| policy | default | alternatives | question |", "| --- | --- | --- | --- |"]
    for p in POLICIES:
        alts = "<br>".join(f"`{v}`: {m}" for v, m in p.alternatives)
        out.append(f"| `{p.name}` | `{p.default}` | {alts} | {p.question} |")
    return "\n".join(out) + "\n"
