"""cp.async.bulk (9.7.9.25.4.1) and cp.async.bulk.prefetch (9.7.9.25.4.3)."""
from . import requirement, rule, min_sm

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
