"""Which tier guarantees the self-test's catch of each fault kind: results/selftest/guarantees.toml.

A kind's entry says whether silicon's catch is deterministic (the kernel's check sees the fault whatever the
timing) or timing (seen only when a copy is still in flight as the kernel probes it), the tiers whose catch does
not depend on timing (`guaranteed_by`: "run", "lower"), and silicon's measured catch rate per device
(`[kinds.K.silicon_rates.<device>]`: device, driver, toolchain, date, repetitions, planted, judged, caught, rate; or
`status = "to be measured"`). A kind is timing-dependent when its silicon catch is `timing` or any measured rate
is below 100 %; such a kind must name a tier other than the run tier. CTest selftest.gpu_completion asserts silicon's
catch only of the kinds this file does not call timing-dependent, and the lowering tier's catch of the others;
CTest selftest.lower_completion checks the lowering tier's catch of every kind that names it.
"""
import os
from framework import paths
from framework.boundary import VerbError
from framework.documents import tomldoc

ROOT = paths.root()
PATH = os.path.join(ROOT, "results", "selftest", "guarantees.toml")
SCHEMA = "ptxcts-selftest-guarantees"
TIERS = ("run", "lower")
SILICON = ("deterministic", "timing")
MEASURED_FIELDS = ("device", "driver", "toolchain", "date", "repetitions", "planted", "judged", "caught", "rate")
TO_BE_MEASURED = "to be measured"


class GuaranteesError(ValueError):
    """The file is malformed or contradicts itself; the message names the kind and field."""


def load(path=PATH):
    """{kind: entry} of the file, checked (GuaranteesError naming what is wrong)."""
    try:
        doc = tomldoc.read(path)   # the file and line named: not TOML, not UTF-8, a FIFO, nested too deeply
    except OSError as e:
        raise GuaranteesError(f"{path}: {e.strerror or e}") from None
    except VerbError as e:
        raise GuaranteesError(str(e)) from None
    if doc.get("schema") != SCHEMA or doc.get("version") != 1:
        raise GuaranteesError(f"{path}: schema {doc.get('schema')!r} version {doc.get('version')!r}, expected "
                              f"{SCHEMA!r} version 1")
    kinds = doc.get("kinds")
    if not isinstance(kinds, dict) or not kinds:
        raise GuaranteesError(f"{path}: no [kinds.*] table")
    for k, e in kinds.items():
        where = f"{path}: kinds.{k}"
        if e.get("silicon") not in SILICON:
            raise GuaranteesError(f"{where}.silicon = {e.get('silicon')!r}: one of {', '.join(SILICON)}")
        by = e.get("guaranteed_by")
        if not isinstance(by, list) or not by or any(t not in TIERS for t in by):
            raise GuaranteesError(f"{where}.guaranteed_by = {by!r}: a non-empty list of {', '.join(TIERS)}")
        for dev, r in (e.get("silicon_rates") or {}).items():
            if r.get("status") == TO_BE_MEASURED:
                continue
            missing = [f for f in MEASURED_FIELDS if f not in r]
            if missing:
                raise GuaranteesError(f"{where}.silicon_rates.{dev}: no {', '.join(missing)} (or status = "
                                      f"{TO_BE_MEASURED!r})")
            if not (isinstance(r["judged"], int) and r["judged"] > 0 and 0 <= r["caught"] <= r["judged"]):
                raise GuaranteesError(f"{where}.silicon_rates.{dev}: caught {r['caught']} of judged {r['judged']}")
            if abs(r["rate"] - 100.0 * r["caught"] / r["judged"]) > 0.01:
                raise GuaranteesError(f"{where}.silicon_rates.{dev}: rate {r['rate']} is not caught/judged "
                                      f"({r['caught']}/{r['judged']})")
        if "run" in by and timing_dependent(e):
            raise GuaranteesError(f"{where}: guaranteed_by names the run tier, but silicon's catch is timing-"
                                  f"dependent ({why_timing(e)}): name only the tiers whose catch does not depend "
                                  f"on timing (lower)")
    return kinds


def measured(entry):
    """{device key: rate record} of the devices measured (not those to be measured)."""
    return {d: r for d, r in (entry.get("silicon_rates") or {}).items() if r.get("status") != TO_BE_MEASURED}


def timing_dependent(entry):
    return entry.get("silicon") == "timing" or any(r["rate"] < 100.0 for r in measured(entry).values())


def why_timing(entry):
    if entry.get("silicon") == "timing":
        return "silicon = \"timing\""
    low = [f"{r['device']} {r['rate']} %" for r in measured(entry).values() if r["rate"] < 100.0]
    return "measured " + ", ".join(low)


def silicon_guaranteed(entry):
    """Whether silicon's catch of the kind may be asserted: the run tier guarantees it, not timing-dependent."""
    return "run" in entry["guaranteed_by"] and not timing_dependent(entry)


def rates_text(entry):
    """Silicon's measured rates in one line, and the devices still to be measured."""
    parts = [f"{r['device']}: {r['caught']}/{r['judged']} = {r['rate']} % over {r['repetitions']} repetitions "
             f"(driver {r['driver']}, {r['toolchain']}, {r['date']})" for r in measured(entry).values()]
    parts += [f"{r.get('device', d)}: to be measured" for d, r in (entry.get("silicon_rates") or {}).items()
              if r.get("status") == TO_BE_MEASURED]
    return "; ".join(parts) or "no silicon rate recorded"
