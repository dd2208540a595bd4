"""cp.async.bulk (9.7.9.25.4.1) and cp.async.bulk.prefetch (9.7.9.25.4.3)."""
from . import requirement, rule, min_sm, exact, family

SEC = "9.7.9.25.4.1"
DIRECTIONS = ("shared::cta.global", "shared::cluster.global", "shared::cluster.shared::cta", "global.shared::cta")

requirement("bulk", SEC, "8.0", "Introduced in PTX ISA version 8.0.", [min_sm(90)], "Requires sm_90 or higher.")
requirement("bulk.dst_shared_cta", SEC, "8.6",
            "Support for .shared::cta as destination state space is introduced in PTX ISA version 8.6.")
requirement("bulk.cp_mask", SEC, "8.6", "Support for .cp_mask qualifier introduced in PTX ISA version 8.6.",
            [min_sm(100)], "Support for .cp_mask qualifier requires sm_100 or higher.")
requirement("bulk_prefetch", "9.7.9.25.4.3", "8.0", "Introduced in PTX ISA version 8.0.", [min_sm(90)],
            "Requires sm_90 or higher.")


@rule("bulk.direction", "syntax", SEC,
      "// global -> shared::cta ... // global -> shared::cluster ... // shared::cta -> shared::cluster ... "
      "// shared::cta -> global  (the four directions of the syntax)")
def direction(q):
    return f"{q['dst']}.{q['src']}" not in DIRECTIONS


def only_in_direction(name, sentence, qualifier, direction):
    """A syntax rule: the qualifier exists in one (dst, src) direction of the syntax only."""
    rule(name, "syntax", SEC, sentence)(
        lambda q: q.get(qualifier, False) and (q["dst"], q["src"]) != direction)


only_in_direction("bulk.multicast_global_to_cluster",
                  "// global -> shared::cluster cp.async.bulk.dst.src.completion_mechanism{.multicast}"
                  "{.level::cache_hint} ... .multicast = { .multicast::cluster }  (.multicast::cluster exists only in "
                  "the global -> shared::cluster form)", "multicast", ("shared::cluster", "global"))
only_in_direction("bulk.cp_mask_shared_to_global",
                  "// shared::cta -> global cp.async.bulk.dst.src.completion_mechanism{.level::cache_hint}{.cp_mask} "
                  "[dstMem], [srcMem], size {, cache-policy} {, byteMask}  (.cp_mask exists only in the shared::cta "
                  "-> global form)", "cp_mask", ("global", "shared::cta"))


@rule("bulk.cp_mask_requires_byte_mask", "syntax", SEC,
      "When the optional qualifier .cp_mask is specified, the argument byteMask is required.")
def cp_mask_requires_byte_mask(q):
    return q.get("cp_mask", False) and not q.get("byte_mask", False)


@rule("bulk.mbarrier_operand_required", "constraint", "9.7.9.25.1.2",
      "For a bulk asynchronous operation, the mbarrier object must be specified in the asynchronous operation, "
      "whereas for non-bulk operations, it can be specified after the asynchronous operation.")
def mbarrier_operand_required(q):
    return q.get("completion", "").startswith("mbarrier") and q.get("mbar_operand") is False


# ---- PTX ISA 9.2-9.5 (the text of PTX ISA 9.4, 9.7.10.28.4.1 and .4.3; shared/spec/PTX9x.md) ----
SEC_9X = "9.7.10.28.4.1 (PTX ISA 9.4)"
SEC_9X_P = "9.7.10.28.4.3 (PTX ISA 9.4)"
SEM_ARCHS = (exact("sm_90a"), family("sm_100f"), family("sm_110f"))
SEM_ARCHS_TEXT = ("Qualifiers .weak, .relaxed, .scope and .type supported on following architectures: sm_90a; "
                  "sm_100f or higher in the same family; sm_110f or higher in the same family")
SM107F = (family("sm_107f"),)

requirement("bulk.ignore_oob", SEC_9X, "9.2", "Support for .ignore_oob qualifier introduced in PTX ISA version 9.2.")
requirement("bulk.sem", SEC_9X, "9.3",
            "Support for .weak and .relaxed semantics, .scope and .type qualifiers are introduced in PTX ISA version "
            "9.3.", SEM_ARCHS, SEM_ARCHS_TEXT)
requirement("bulk.multicast_16b", SEC_9X, "9.4",
            "Support for .multicast::cluster::16b and .multicast::cluster::32b qualifiers introduced in PTX ISA "
            "version 9.4.")
requirement("bulk.multicast_32b", SEC_9X, "9.4",
            "Support for .multicast::cluster::16b and .multicast::cluster::32b qualifiers introduced in PTX ISA "
            "version 9.4.", SM107F,
            "Qualifier .multicast::cluster::32b is supported on following family-specific architectures: sm_107f or "
            "higher in the same family")
requirement("bulk.report", SEC_9X, "9.4", "Support for .report_mechanism qualifier introduced in PTX ISA version 9.4.",
            SM107F, "Qualifier .report_mechanism is supported on following family-specific architectures: sm_107f or "
            "higher in the same family")
requirement("bulk_prefetch.eviction_priority", SEC_9X_P, "9.4",
            "Support for .level::eviction_priority qualifier introduced in PTX ISA version 9.4.", SM107F,
            "Qualifier .level::eviction_priority is supported on the following family-specific architectures: "
            "sm_107f or higher in the same family")

only_in_direction("bulk.ignore_oob_global_to_shared_cta",
                  "The qualifier .ignore_oob is only available for the global to .shared::cta copy direction.",
                  "ignore_oob", ("shared::cta", "global"))


@rule("bulk.ignore_oob_report_disabled", "constraint", SEC_9X,
      "In presence of .ignore_oob, the qualifier .report_mechanism, if specified, must be set to "
      ".mbarrier::report::disabled.")
def ignore_oob_report_disabled(q):
    return q.get("ignore_oob", False) and q.get("report", "") not in ("", "mbarrier::report::disabled")


@rule("bulk.sem_type", "syntax", SEC_9X,
      "cp.async.bulk{.sem}.dst.src... .sem = { .weak } ... cp.async.bulk.sem.scope.dst.src...type ... .sem = "
      "{ .relaxed } ... .type = { .b128 }  (.relaxed comes with a .scope and the .b128 type; .weak and the default "
      "take no type)")
def sem_type(q):
    return q.get("sem", "").startswith("relaxed") != bool(q.get("b128"))


@rule("bulk.relaxed_scope_shared_to_cluster", "syntax", SEC_9X,
      "// shared::cta -> shared::cluster ... cp.async.bulk.sem.scope.dst.src.completion_mechanism.type ... .sem = "
      "{ .relaxed } .scope = { .cta, .cluster }")
def relaxed_scope_shared_to_cluster(q):
    return (q.get("sem", "") in ("relaxed.gpu", "relaxed.sys")
            and (q["dst"], q["src"]) == ("shared::cluster", "shared::cta"))


@rule("bulk_prefetch.eviction_priority_or_cache_hint", "syntax", SEC_9X_P,
      "cp.async.bulk.prefetch.L2.src{.level::cache_hint} [srcMem], size {, cache_policy}; "
      "cp.async.bulk.prefetch.L2.src{.level::eviction_priority} [srcMem], size;  (one or the other)")
def eviction_priority_or_cache_hint(q):
    return bool(q.get("eviction")) and (q.get("cache_hint", False) or bool(q.get("policy")))
