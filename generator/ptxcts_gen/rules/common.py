"""Rules shared by several families: target existence, cache-policy operand, bulk size."""
from . import rule, _register, Rule

S_CHAPTER = "9.7.9.25"

# Target rules (not form rules): a case whose target does not exist at its PTX version.
_register(Rule("target.not_at_ptx", "target", "ptxas 13.0 target table (measured; see targets.json)",
               "A .target that the PTX ISA version of the module does not know yet: the target's minimum PTX "
               "version as the installed ptxas (CUDA 13.0) accepts it, e.g. sm_90 from 7.8, sm_100 from 8.6, "
               "sm_110 from 9.0."))
_register(Rule("target.renamed", "target", "9.7.9.25.5.2 Target ISA Notes",
               "sm_101a (Renamed to sm_110a from PTX ISA version 9.0) ... sm_101f or higher in the same family "
               "(Renamed to sm_110f from PTX ISA version 9.0)"))


@rule("common.cache_policy_requires_hint", "syntax", "9.7.9.25.3.1 / .4.1 / .4.2 / .4.3 / .5.2 / .5.3 / .5.4",
      "When the optional argument cache-policy is specified, the qualifier .level::cache_hint is required.")
def cache_policy_requires_hint(q):
    return q.get("policy", False) and not q.get("cache_hint", False)


@rule("common.size_multiple_of_16", "undefined", "9.7.9.25.4.1 / .4.2 / .4.3",
      "size must be a multiple of 16. If the value is not a multiple of 16, then the behavior is undefined.")
def size_multiple_of_16(q):
    return q.get("size_imm") is not None and q["size_imm"] % 16 != 0


@rule("common.cache_hint_needs_global", "constraint", "9.7.9.25.4.1 / .4.2 / .5.3",
      "The qualifier .level::cache_hint is only supported when at least one of the .src or .dst statespaces "
      "is .global state space.")
def cache_hint_needs_global(q):
    return q.get("cache_hint", False) and "global" not in (q.get("dst"), q.get("src"))


@rule("common.completion_mechanism", "syntax", "9.7.9.25.4.1 / .4.2 / .5.2 / .5.3 (completion-mechanism tables)",
      "| .mbarrier::... | .shared::cta / .shared::cluster | ... | mbarrier based | ... | .bulk_group | .global | "
      ".shared::cta | Bulk async-group based |  (a shared-memory destination completes through the mbarrier, "
      "a .global destination through the bulk async-group)")
def completion_mechanism(q):
    if "completion" not in q or "dst" not in q:
        return False
    want = "bulk_group" if q["dst"] == "global" else "mbarrier::complete_tx::bytes"
    return q["completion"] != want


# ---- qualifiers of PTX ISA 9.1-9.5 shared by several families (text: PTX ISA 9.4, 9.7.10.28; shared/spec/PTX9x.md
# says where it is) ----
SEC_9X = "9.7.10.28 (PTX ISA 9.4)"
# .report_mechanism: "{ .mbarrier::report::disabled, .mbarrier::report::validity::per_16bytes::80000000, ...,
# .mbarrier::report::validity::per_element::ff }" (cp.async.bulk and cp.async.bulk.tensor syntax)
REPORTS = ("mbarrier::report::disabled", "mbarrier::report::validity::per_16bytes::80000000",
           "mbarrier::report::validity::per_16bytes::8000", "mbarrier::report::validity::per_16bytes::80",
           "mbarrier::report::validity::per_16bytes::8", "mbarrier::report::validity::per_element::ff")
MULTICAST_WIDTHS = ("16b", "32b")
SCOPES = ("cta", "cluster", "gpu", "sys")


@rule("common.report_global_to_shared", "syntax", "9.7.10.28.1.3 / .4.1 / .5.3 (PTX ISA 9.4)",
      "Asynchronous copy operations with copy-direction from .global to .shared::cta or .shared::cluster support "
      "reporting data validity through an mbarrier object. ... .completion_mechanism = "
      "{ .mbarrier::complete_tx::bytes{.report_mechanism} }")
def report_global_to_shared(q):
    return bool(q.get("report")) and not (q.get("src") == "global" and q.get("dst", "").startswith("shared::"))
