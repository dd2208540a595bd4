"""The self-test's host fault kinds (faults.HOST_KINDS, family "tensor"): nothing is planted into the kernels; the
run tier's worker perturbs one field of each tensor map it encodes (PTXCTS_PLANT_HOST_FAULT,
harness/runcore/src/testbeds/host_faults.cpp), says per case what it changed, and whether the model expects any observable
difference with the perturbed map (equivalent when it does not)."""
import os
import time

from ptxcts_gen import faults

from .runs import changed, run_tier, staged, tally

SMEM_GUARD = 4096


NOT_RUN = "not run (the kind's deadline)"


def host_plant(case):
    """The worker's record of a host fault in one case: (applied and encoded, refused reason, equivalent reason,
    "field: from -> to")."""
    if case.get("class", "skipped") == "skipped":
        return False, NOT_RUN, "", ""
    hf = (case.get("details") or {}).get("host_fault") or {}
    if not hf:
        return False, "no tensor map encoded", "", ""
    if not hf.get("applied"):
        return False, hf.get("refused", "not applied"), "", ""
    what = f"{hf.get('field')}: {hf.get('from')} -> {hf.get('to')}"
    enc = (case.get("details") or {}).get("encode_result", "CUDA_SUCCESS")
    if enc != "CUDA_SUCCESS":
        return False, f"the driver refused the perturbed map ({what}): {enc}", "", what
    return True, "", hf.get("equivalent", ""), what


def host_kind(kind, forms, by_form, clean, out, a, deadline):
    """One host kind: the run tier with PTXCTS_PLANT_HOST_FAULT over the tensor-map forms' clean-passing cases (a 2 s
    watchdog per case, no case started after `deadline` seconds; a case not run is not counted as planted)."""
    hk = faults.HOST_KINDS[kind]
    k0 = time.monotonic()
    live = {fid: forms[fid] for fid in forms if forms[fid].kernel_cfg.get("tmap") and by_form.get(fid)}
    fams = sorted({f.family for f in live.values()})
    # a 4 KiB shared-memory guard band: a perturbed swizzle moves bytes within 1024-byte spans, which then land in
    # the compared band instead of past the CTA's shared memory (a trap, costlier to run and to confirm)
    faulty, timing = staged(os.path.join(out, kind), {f: by_form[f] for f in live}, clean,
                            lambda o, ids, alone: run_tier(o, fams, a.seed, 1 if alone else a.jobs, cases=ids,
                                                           host=kind, timeout=2, alone=alone,
                                                           deadline=max(1.0, deadline - (time.monotonic() - k0)),
                                                           extra=("--smem-guard", str(SMEM_GUARD))))
    rows = tally()
    row = rows[faults.HOST_FAMILY]
    survivors, refusals, unconfirmed = [], [], []
    for fid, form in sorted(live.items()):
        planted, why_not = [], []
        for key in by_form[fid]:
            case = faulty.get(key, {})
            ok, refused, equiv, what = host_plant(case)
            if ok:
                planted.append((key, equiv, what, case.get("class", "missing")))
            else:
                why_not.append(refused)
        row["planted"] += 1
        if not planted and all(w == NOT_RUN for w in why_not):
            row["no_case"] += 1   # the deadline came first: neither refused nor judged
            continue
        if not planted:
            row["refused"] += 1
            refusals.append({"form": fid, "why": sorted(set(why_not))})
            continue
        confirmed, beside = changed([key for key, _, _, _ in planted], clean, faulty)
        if confirmed:
            row["caught"] += 1
            continue
        if beside:
            row["no_case"] += 1   # its crash was seen beside other workers and not confirmed alone in time
            unconfirmed.append(fid)
            continue
        reasons = [e for _, e, _, _ in planted]
        reason = hk.equivalent(form) or (reasons[0] if all(reasons) else None)
        row["equivalent" if reason else "holes"] += 1
        # a hole says what the model expects the perturbed map to change (the worker's model_change)
        change = [((faulty[key].get("details") or {}).get("host_fault") or {}).get("model_change")
                  for key, _, _, _ in planted]
        survivors.append({"form": fid, "family": form.family, "planted": [w for _, _, w, _ in planted],
                          "was": "the case's own tensor map", "equivalent": reason, "cases": len(planted),
                          **({"model_change": next(c for c in change if c)} if any(change) and not reason else {})})
    not_run = sum(1 for c in faulty.values() if c.get("class", "skipped") == "skipped")
    return {"what": hk.what, "host": True, "families": dict(rows), "survivors": survivors, "refusals": refusals,
            "seconds": round(time.monotonic() - k0, 1), "cases_run": len(faulty) - not_run, "cases_not_run": not_run,
            "deadline_s": round(deadline), "run_tier": timing, "not_judged": unconfirmed}
