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
