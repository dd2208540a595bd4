#!/usr/bin/env python3
"""Coverage-guided drawing, on the CPU (CTest explore.dry_draw): ptxcts-explore --dry-draw N draws N cases as an
exploration would and runs none.

- Within a modest number of draws of a fixed seed, every reachable form is drawn, every reachable encode rule of
  the model's validator broken and every im2col channels / pixels bin reached; what is unreachable is listed with
  a reason, and nothing listed unreachable is reached.
- The same seed draws the same cases (digest), another seed others, --unguided others again.
- An exploration split into segments (--resume) draws what one dry draw of as many cases draws: the guide's state
  travels in explore.json, and a malformed one is refused.
- Every drawn case is one the workers can build (the dry draw builds each on the CPU).
"""
import json
import os
import subprocess
import sys
import tempfile

BUILD = os.environ.get("PTXCTS_BUILD_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "..", "build"))
EXPLORE = os.path.join(BUILD, "harness", "run", "ptxcts-explore")
DRAWS = 6000  # guided; 4,000 left 2 of the 1,134 sm_90-drawable forms undrawn once the whole product's 365 joined
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def explore(args):
    return subprocess.run([EXPLORE] + args, capture_output=True, text=True)


def dry(tmp, name, seed, n, *extra):
    out = os.path.join(tmp, name)
    p = explore(["--dry-draw", str(n), "--seed", str(seed), "--out", out] + list(extra))
    check(p.returncode == 0, f"{name}: --dry-draw {n} --seed {seed} {' '.join(extra)} exits 0 ({p.returncode}) {p.stderr[-300:]}")
    return json.load(open(os.path.join(out, "draws.json"))), p.stdout


def missing(param):
    return [b for b in param["bins"] if b not in param["hits"] and b not in param.get("unreachable", {})]


def coverage(tmp):
    doc, text = dry(tmp, "guided", 1, DRAWS)
    cov = doc["coverage"]
    check(doc["draws"] == DRAWS and doc["guided"], f"{doc['draws']} guided draws")
    for param in ("form", "encode.rule_broken", "im2col.channels_per_pixel", "im2col.pixels_per_column"):
        m = missing(cov[param])
        check(not m, f"{param}: every reachable bin reached within {DRAWS} draws (missing {m[:5]}{' ...' if len(m) > 5 else ''})")
    for param, c in cov.items():
        u = c.get("unreachable", {})
        hit = [b for b in u if b in c["hits"]]
        check(not hit, f"{param}: nothing listed unreachable is reached ({hit[:3]})")
        blank = [b for b, why in u.items() if not why.strip()]
        check(not blank, f"{param}: every unreachable bin has a reason ({blank[:3]})")
    check(doc.get("unbuildable") == 0, f"every drawn case builds ({doc.get('unbuildable')} do not: {doc.get('first_unbuildable')})")
    rules = cov["encode.rule_broken"]
    lacking = [b for b, why in rules.get("unreachable", {}).items() if "no change that breaks it" in why]
    check(not lacking, f"every encode rule has a change that breaks it or a reason none can ({lacking})")
    check(len(rules["bins"]) > len(rules.get("unreachable", {})) > 0,
          f"encode rules: {rules['reached']} broken, {len(rules.get('unreachable', {}))} unreachable of {len(rules['bins'])}")
    check(cov["form"]["reachable"] == doc["forms_drawable"], f"{doc['forms_drawable']} drawable forms")
    check("unreachable encode.rule_broken" in text and "forms drawn" in text, "the table names what is unreachable")
    return doc


def determinism(tmp, first):
    again, _ = dry(tmp, "again", 1, DRAWS)
    check(again["digest"] == first["digest"], f"seed 1 draws the same cases again ({first['digest']} / {again['digest']})")
    other, _ = dry(tmp, "seed2", 2, DRAWS)
    check(other["digest"] != first["digest"], "seed 2 draws other cases")
    unguided, _ = dry(tmp, "unguided", 1, DRAWS, "--unguided")
    check(not unguided["guided"] and unguided["digest"] != first["digest"], "--unguided draws other cases")


def segments(tmp):
    """Two segments of a model-device exploration, then a dry draw of as many cases: the same digest."""
    out = os.path.join(tmp, "segments")
    base = ["--device", "model", "--jobs", "2", "--quiet", "--cases-file", "none"]
    p = explore(base + ["--time", "2", "--shrink-time", "0", "--seed", "9", "--out", out])
    check(p.returncode == 0, f"segment 1 (exit {p.returncode}) {p.stderr[-300:]}")
    first = json.load(open(os.path.join(out, "explore.json")))
    p = explore(base + ["--time", "2", "--shrink-time", "0", "--resume", out])
    check(p.returncode == 0, f"segment 2 (exit {p.returncode}) {p.stderr[-300:]}")
    doc = json.load(open(os.path.join(out, "explore.json")))
    check(doc["cases_drawn"] > first["cases_drawn"] and doc["guided"], f"draws {first['cases_drawn']} -> {doc['cases_drawn']}")
    one, _ = dry(tmp, "as_segments", 9, doc["cases_drawn"])
    check(one["digest"] == doc["draws_digest"],
          f"two segments draw what one dry draw of {doc['cases_drawn']} cases draws ({doc['draws_digest']} / {one['digest']})")
    # a malformed drawing state is refused (exit 3) naming the field, before anything runs
    path = os.path.join(out, "explore.json")
    for field, change in [("draw_guide.form_score", lambda d: d["draw_guide"]["form_score"].update({"x": -1})),
                          ("draws_digest", lambda d: d.update({"draws_digest": "12"})),
                          ("draw_guide.tried", lambda d: d["draw_guide"].update({"tried": []}))]:
        bad = json.load(open(path))
        change(bad)
        json.dump(bad, open(path, "w"))
        p = explore(base + ["--time", "1", "--resume", out])
        check(p.returncode == 3 and field in p.stderr, f"--resume with a malformed {field}: exit 3 naming it ({p.returncode}: {p.stderr.strip()[:160]})")
        json.dump(doc, open(path, "w"))


def bad_input():
    for args, word in [(["--dry-draw", "0"], "--dry-draw"), (["--dry-draw", "x"], "--dry-draw"),
                       (["--dry-draw", "10", "--resume", "/nonexistent"], "--resume"),
                       (["--dry-draw", "10", "--family", "nope"], "nope")]:
        p = explore(args)
        check(p.returncode == 2 and word in p.stderr, f"{' '.join(args)}: exit 2 naming {word} ({p.returncode}: {p.stderr.strip()[:120]})")


def buildable(tmp):
    # The one draw of the H100 exploration of seed 20261130 the workers could not build (draw 95,807: a store of a
    # 16U4_ALIGN16B map, a type the chapter gives no .global.shared::cta copy): every draw up to it builds now.
    doc, _ = dry(tmp, "store-packing", 20261130, 96000)
    check(doc.get("unbuildable") == 0, f"seed 20261130: every one of 96,000 drawn cases builds ({doc.get('first_unbuildable')})")


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        determinism(tmp, coverage(tmp))
        segments(tmp)
        buildable(tmp)
        bad_input()
    print(f"{len(failures)} failure(s)")
    sys.exit(1 if failures else 0)
