"""cp.async commit/wait groups (9.7.9.25.3.2-3), cp.async.mbarrier.arrive (9.7.13.15, used as a completion
mechanism by 9.7.9.25.1.2), bulk commit/wait groups (9.7.9.25.6)."""
from . import requirement, rule, min_sm

requirement("cp_async.commit_group", "9.7.9.25.3.2", "7.0", "Introduced in PTX ISA version 7.0.",
            [min_sm(80)], "Requires sm_80 or higher.")
requirement("cp_async.wait_group", "9.7.9.25.3.3", "7.0", "Introduced in PTX ISA version 7.0.",
            [min_sm(80)], "Requires sm_80 or higher.")
requirement("cp_async.mbarrier_arrive", "9.7.13.15 (cp.async.mbarrier.arrive)", "7.0",
            "Introduced in PTX ISA version 7.0.", [min_sm(80)], "Requires sm_80 or higher.")
# cp.async.mbarrier.arrive{.noinc}{.state}.b64 [addr]; .state = { .shared, .shared::cta }: the ::cta sub-qualifier is
# newer than the instruction (ptxas 13.5: "Feature '::cta' requires PTX ISA .version 7.8 or later", measured at
# sm_80/PTX 7.0, sm_86/7.1, sm_87/7.4)
requirement("cp_async.mbarrier_arrive.shared_cta", "9.7.13.15 (cp.async.mbarrier.arrive)", "7.8",
            "Support for sub-qualifier ::cta on .shared introduced in PTX ISA version 7.8.")
requirement("bulk.commit_group", "9.7.9.25.6.1", "8.0", "Introduced in PTX ISA version 8.0.",
            [min_sm(90)], "Requires sm_90 or higher.")
requirement("bulk.wait_group", "9.7.9.25.6.2", "8.0", "Introduced in PTX ISA version 8.0.",
            [min_sm(90)], "Requires sm_90 or higher.")


@rule("cp_async.wait_group_n_constant", "syntax", "9.7.9.25.3.3", "Operand N is an integer constant.")
def wait_group_n_constant(q):
    return q.get("n_operand") == "register" and q["instr"] == "cp.async.wait_group"


@rule("bulk.wait_group_n_constant", "syntax", "9.7.9.25.6.2", "Operand N is an integer constant.")
def bulk_wait_group_n_constant(q):
    return q.get("n_operand") == "register" and q["instr"].startswith("cp.async.bulk.wait_group")
requirement("fence_proxy_async", "9.7.9.25.2 (use); PTX ISA 8.0 / sm_90 from the fence section 9.7.13.4", "8.0",
            "For the async proxy, fence.proxy.async should be used to synchronize memory between generic proxy and "
            "the async proxy.  (fence.proxy.async: introduced in PTX ISA version 8.0)",
            [min_sm(90)], "fence.proxy.async requires sm_90 or higher.")


# PTX ISA 9.5. The 9.5 text of 9.7.10.28.6.2 is not in shared/spec (PTX9x.md says where the 9.x text is, and it
# stops at 9.4 for this instruction): the requirement and the rule quote PTX9x.md's measured table, the suite's
# own record, until the text is added; docs/EXTENDING.md lists this as open.
requirement("bulk.wait_group_sync_restrict", "9.7.10.28.6.2 (PTX ISA 9.5; shared/spec/PTX9x.md)", "9.5",
            "| `cp.async.bulk.wait_group.sync_restrict::proxy::async N` | 9.5 | all (not with `.read`) | yes |  "
            "(shared/spec/PTX9x.md: min PTX 9.5, every target)")


@rule("bulk.wait_group_sync_restrict_not_read", "syntax", "9.7.10.28.6.2 (PTX ISA 9.5; shared/spec/PTX9x.md)",
      "| `cp.async.bulk.wait_group.sync_restrict::proxy::async N` | 9.5 | all (not with `.read`) |  "
      "(shared/spec/PTX9x.md)")
def wait_group_sync_restrict_not_read(q):
    return "sync_restrict::proxy::async" in q.get("instr", "") and ".read" in q["instr"]
