"""cp.async (9.7.9.25.3.1): requirements and form rules."""
from . import requirement, rule, min_sm

SEC = "9.7.9.25.3.1"

requirement("cp_async", SEC, "7.0", "Introduced in PTX ISA version 7.0.",
            [min_sm(80)], "Requires sm_80 or higher.")
requirement("cp_async.l2_qualifiers", SEC, "7.4",
            "Support for .level::cache_hint and .level::prefetch_size qualifiers introduced in PTX ISA version 7.4.")
requirement("cp_async.ignore_src", SEC, "7.5", "Support for ignore-src operand introduced in PTX ISA version 7.5.")
requirement("cp_async.shared_cta", SEC, "7.8", "Support for sub-qualifier ::cta introduced in PTX ISA version 7.8.",
            [min_sm(30)], "Sub-qualifier ::cta requires sm_30 or higher.")


@rule("cp_async.cg_cp_size_16", "syntax", SEC,
      "cp.async.cg.shared{::cta}.global{.level::cache_hint}{.level::prefetch_size} [dst], [src], 16{, src-size}"
      "{, cache-policy} ;  (the .cg forms take cp-size 16 only)")
def cg_cp_size_16(q):
    return q["cop"] == "cg" and q["cp_size"] != 16


@rule("cp_async.cp_size_values", "constraint", SEC, "cp-size can only be 4, 8 and 16.")
def cp_size_values(q):
    return q["cp_size"] not in (4, 8, 16)


@rule("cp_async.dst_shared_cta", "syntax", SEC,
      "Operand src specifies a location in the global state space and dst specifies a location in the shared "
      "state space.  (syntax: cp.async.ca.shared{::cta}.global)")
def dst_shared_cta(q):
    return q["space"] not in ("shared", "shared::cta")


@rule("cp_async.src_size_or_ignore_src", "syntax", SEC,
      "cp.async.ca.shared{::cta}.global ... [dst], [src], cp-size{, src-size}{, cache-policy} ; "
      "cp.async.ca.shared{::cta}.global ... [dst], [src], cp-size{, ignore-src}{, cache-policy} ;  "
      "(src-size and ignore-src are alternatives, never both)")
def src_size_or_ignore_src(q):
    return q["src_op"] == "src_size+ignore_src"


@rule("cp_async.prefetch_size_values", "syntax", SEC,
      ".level::prefetch_size = { .L2::64B, .L2::128B, .L2::256B }")
def prefetch_size_values(q):
    return q["prefetch"] not in ("", "L2::64B", "L2::128B", "L2::256B")
