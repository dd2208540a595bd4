#!/usr/bin/env python3
"""A fresh set of bad inputs, none of them a row of the table (rows.toml): the measure of how the suite meets
inputs it was not tuned to. Run once by hand, quiet and then loaded with CPU hogs; not a CTest (the table is).

    PTXCTS_BUILD=build python3 harness/tests/bad_inputs/fresh_set.py [--hogs N] [--md FILE] [ID-SUBSTRING...]

Each input is classed:
    clear    exit 2 or 3, and standard error names the input (every fragment of `names`); for an input marked
             `skip` (a GPU verb on a host without a GPU), exit 77 and the reason named
    unclear  exit 2 or 3, but the message does not name the input; or another exit code that is not a crash
    silent   exit 0 or 1: the bad input was accepted
    crash    a traceback, a C++ terminate or abort, an internal error (exit 70), or death by a signal
    lost     a file the input prepared was changed or removed (whatever the exit)
The inputs use the table's format (test_bad_inputs.py: argv, env, files, placeholders) plus `names`. An input that
is, argv and environment alike, a row of the table is refused: the set must be fresh.
"""
import argparse
import concurrent.futures as cf
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_bad_inputs as table  # noqa: E402

TIMEOUT_S = 90   # a bad input is refused in seconds (a compiler's probe gives up after 60 s); one still
#                  running then hangs or started real work
RUN = "harness/results/tests/fixtures/runs/compile/results.json"   # a compile document to spoil
H100 = "harness/results/tests/fixtures/runs/h100"                   # a run-tier run (three shards)
SHARD = "harness/results/tests/fixtures/runs/h100/shard-0/results.json"


def doc(path, old, new):
    return {"path": path, "copy": RUN, "replace": [old, new]}


INPUTS = [
    # ---- cases, gen, modules ------------------------------------------------------------------------------------
    dict(id="cases.target_letter_o", argv=["{ptxcts}", "cases", "--target", "sm_9O"], names=["sm_9O"]),
    dict(id="cases.ptx_three_parts", argv=["{ptxcts}", "cases", "--ptx", "8.6.1"], names=["8.6.1"]),
    dict(id="cases.root_is_a_file", argv=["{ptxcts}", "cases", "--root", "{tmp}/afile"], names=["{tmp}/afile"],
         files=[{"path": "afile", "text": "x\n"}]),
    dict(id="cases.family_trailing_blank", argv=["{ptxcts}", "cases", "--family", "cp.async "], names=["cp.async "]),
    dict(id="cases.rules_and_ids", argv=["{ptxcts}", "cases", "--rules", "--ids"], names=["--ids"]),
    dict(id="gen.check_with_value", argv=["{ptxcts}", "gen", "--check=yes"], names=["--check"]),
    dict(id="modules.ptx_unknown", argv=["{ptxcts}", "modules", "--target", "sm_90", "--ptx", "99.9", "--out",
                                         "{tmp}/o"], names=["99.9"]),
    dict(id="modules.out_is_a_file", argv=["{ptxcts}", "modules", "--target", "sm_90", "--ptx", "8.6", "--out",
                                           "{tmp}/afile"], names=["{tmp}/afile"],
         files=[{"path": "afile", "text": "x\n"}]),
    dict(id="modules.target_unknown", argv=["{ptxcts}", "modules", "--target", "sm_91", "--ptx", "8.6", "--out",
                                            "{tmp}/o"], names=["sm_91"]),
    # ---- compile ------------------------------------------------------------------------------------------------
    dict(id="compile.jobs_zero", argv=["{ptxcts}", "compile", "-j", "0", "--out", "{tmp}/o"], names=["--jobs"]),
    dict(id="compile.module_size_huge", argv=["{ptxcts}", "compile", "--module-size", "99999999", "--out",
                                              "{tmp}/o"], names=["--module-size"]),
    dict(id="compile.limit_negative", argv=["{ptxcts}", "compile", "--limit", "-5", "--out", "{tmp}/o"],
         names=["--limit"]),
    dict(id="compile.ptx_one_number", argv=["{ptxcts}", "compile", "--ptx", "8", "--out", "{tmp}/o"],
         names=["--ptx 8"]),
    dict(id="compile.target_upper_case", argv=["{ptxcts}", "compile", "--target", "SM_90", "--out", "{tmp}/o"],
         names=["SM_90"]),
    dict(id="compile.manifest_missing", argv=["{ptxcts}", "compile", "--manifest", "{tmp}/nomanifest", "--out",
                                              "{tmp}/o"], names=["{tmp}/nomanifest"]),
    dict(id="compile.expectations_not_toml", argv=["{ptxcts}", "compile", "--expectations", "{tmp}/exp.toml",
                                                   "--limit", "1", "--out", "{tmp}/o"],
         names=["{tmp}/exp.toml"], files=[{"path": "exp.toml", "text": "[[finding]\nid = 1\n"}]),
    dict(id="compile.expectations_is_a_folder", argv=["{ptxcts}", "compile", "--expectations", "{tmp}/d",
                                                      "--limit", "1", "--out", "{tmp}/o"],
         names=["{tmp}/d", "folder"], files=[{"path": "d", "dir": True}]),
    dict(id="compile.resume_a_run_tier_run", argv=["{ptxcts}", "compile", "--resume", "{tmp}/r"], names=["{tmp}/r"],
         files=[{"path": "r/results.json", "copy": SHARD}]),
    dict(id="compile.keep_modules_is_a_file", argv=["{ptxcts}", "compile", "--keep-modules", "{tmp}/afile",
                                                    "--limit", "1", "--out", "{tmp}/o"],
         names=["{tmp}/afile"], files=[{"path": "afile", "text": "x\n"}]),
    dict(id="compile.verdicts_upper_case", argv=["{ptxcts}", "compile", "--verdicts", "NVJITLINK", "--out",
                                                 "{tmp}/o"], names=["NVJITLINK"]),
    dict(id="compile.toolchain_env_blank", argv=["{ptxcts}", "compile", "--limit", "1", "--out", "{tmp}/o"],
         env={"PTXCTS_TOOLCHAIN": "  "}, names=["PTXCTS_TOOLCHAIN"]),
    dict(id="compile.toolchain_full_version", argv=["{ptxcts}", "compile", "--toolchain", "13.0.88", "--out",
                                                    "{tmp}/o"], names=["13.0.88"]),
    dict(id="compile.toolchain_a_script", argv=["{ptxcts}", "compile", "--toolchain", "{tmp}/ptxas", "--limit",
                                                "1", "--out", "{tmp}/o"], names=["{tmp}/ptxas"],
         files=[{"path": "ptxas", "text": "#!/bin/sh\necho hello\n", "mode": 0o755}]),
    dict(id="compile.family_twice_in_one_value", argv=["{ptxcts}", "compile", "--family", "cp.async,,cp.async.bulk",
                                                       "--out", "{tmp}/o"], names=["--family"]),
    dict(id="compile.resume_and_out_differ", argv=["{ptxcts}", "compile", "--resume", "{tmp}/r", "--out", "{tmp}/o"],
         names=["--resume"], files=[{"path": "r/results.json", "copy": RUN}]),
    # ---- lower, frontend, toolchains ----------------------------------------------------------------------------
    dict(id="lower.target_bad", argv=["{ptxcts}", "lower", "--target", "sm_9x", "--out", "{tmp}/o"], names=["sm_9x"]),
    dict(id="lower.family_unknown", argv=["{ptxcts}", "lower", "--family", "cp.nope", "--out", "{tmp}/o"],
         names=["cp.nope"]),
    dict(id="lower.gate_missing", argv=["{ptxcts}", "lower", "--gate", "{tmp}/missing"], names=["{tmp}/missing"]),
    dict(id="frontend.run_unknown", argv=["{ptxcts}", "frontend", "run", "--frontend", "llvm-99", "--out",
                                          "{tmp}/o"], names=["llvm-99"]),
    dict(id="toolchains.install_unknown", argv=["{ptxcts}", "toolchains", "install", "99.9"], names=["99.9"]),
    dict(id="toolchains.describe_not_ptxas", argv=["{ptxcts}", "toolchains", "describe", "{tmp}/afile"],
         names=["{tmp}/afile"], files=[{"path": "afile", "text": "x\n"}]),
    dict(id="toolchains.resolve_two_names", argv=["{ptxcts}", "toolchains", "resolve", "13.0", "13.5"],
         names=["13.5"]),
    # ---- results: report, gate, diff, merge, validate, bundle, stale ----------------------------------------------
    dict(id="report.empty_folder", argv=["{ptxcts}", "report", "{tmp}/empty", "--out", "{tmp}/rep"],
         names=["{tmp}/empty"], files=[{"path": "empty", "dir": True}]),
    dict(id="gate.waivers_version_2", argv=["{ptxcts}", "gate", "{tmp}/run", "--waivers", "{tmp}/w.toml"],
         names=["{tmp}/w.toml", "version"],
         files=[{"path": "run/results.json", "copy": RUN}, {"path": "w.toml", "text": "version = 2\n"}]),
    dict(id="gate.list_negative", argv=["{ptxcts}", "gate", "{tmp}/run", "--list", "-3"], names=["--list"],
         files=[{"path": "run/results.json", "copy": RUN}]),
    dict(id="gate.json_is_a_folder", argv=["{ptxcts}", "gate", "{tmp}/run", "--json", "{tmp}/d"], names=["{tmp}/d"],
         files=[{"path": "run/results.json", "copy": RUN}, {"path": "d", "dir": True}]),
    dict(id="diff.one_side_only", argv=["{ptxcts}", "diff", "{tmp}/a"], names=["required"],
         files=[{"path": "a/results.json", "copy": RUN}]),
    dict(id="diff.json_is_a_folder", argv=["{ptxcts}", "diff", "{tmp}/a", "{tmp}/a", "--json", "{tmp}/d"],
         names=["{tmp}/d"], files=[{"path": "a/results.json", "copy": RUN}, {"path": "d", "dir": True}]),
    dict(id="merge.run_id_with_blank", argv=["{ptxcts}", "merge", "{tmp}/a", "--out", "{tmp}/m", "--run-id",
                                             "bad id"], names=["bad id"],
         files=[{"path": "a/results.json", "copy": RUN}]),
    dict(id="merge.out_is_a_file", argv=["{ptxcts}", "merge", "{tmp}/a", "--out", "{tmp}/afile", "--run-id", "x"],
         names=["{tmp}/afile"], files=[{"path": "a/results.json", "copy": RUN}, {"path": "afile", "text": "x\n"}]),
    dict(id="validate.started_not_a_date", argv=["{ptxcts}", "validate", "{tmp}/run"], names=["started"],
         files=[doc("run/results.json", '"started": "2026-11-22T18:00:00Z"', '"started": "yesterday"')]),
    dict(id="validate.class_a_number", argv=["{ptxcts}", "validate", "{tmp}/run"], names=["class"],
         files=[doc("run/results.json", '"class": "pass"', '"class": 5')]),
    dict(id="validate.byte_order_mark", argv=["{ptxcts}", "validate", "{tmp}/run/results.json"],
         names=["{tmp}/run/results.json"], files=[doc("run/results.json", "{", "\ufeff{")]),
    dict(id="validate.gz_that_is_text", argv=["{ptxcts}", "validate", "{tmp}/run/results.json.gz"],
         names=["{tmp}/run/results.json.gz"], files=[{"path": "run/results.json.gz", "text": "{}\n"}]),
    dict(id="validate.shard_deal_unknown", argv=["{ptxcts}", "validate", "{tmp}/run"], names=["deal", "random"],
         files=[doc("run/results.json", '"count": 1', '"count": 1, "deal": "random"')]),
    dict(id="validate.tier_capitalised", argv=["{ptxcts}", "validate", "{tmp}/run"], names=["Compile"],
         files=[doc("run/results.json", '"tier": "compile"', '"tier": "Compile"')]),
    dict(id="validate.cases_an_object", argv=["{ptxcts}", "validate", "{tmp}/run"], names=["cases"],
         files=[{"path": "run/results.json", "text": "{\"schema\": \"ptxcts-results\", \"version\": 2, \"run_id\": "
                 "\"r\", \"tier\": \"compile\", \"started\": \"2026-11-22T18:00:00Z\", \"finished\": "
                 "\"2026-11-22T18:00:00Z\", \"seed\": null, \"shard\": {\"index\": 0, \"count\": 1}, \"host\": {}, "
                 "\"toolchain\": {}, \"device\": null, \"cases\": {}}\n"}]),
    dict(id="validate.run_id_with_blank", argv=["{ptxcts}", "validate", "{tmp}/run"], names=["run_id"],
         files=[doc("run/results.json", '"run_id": "2026-11-22T18-00-00Z-compile"', '"run_id": "my run"')]),
    dict(id="validate.duration_negative", argv=["{ptxcts}", "validate", "{tmp}/run"], names=["duration_ms"],
         files=[doc("run/results.json", '"duration_ms": 3.5', '"duration_ms": -3.5')]),
    dict(id="validate.seed_a_string", argv=["{ptxcts}", "validate", "{tmp}/run"], names=["seed"],
         files=[doc("run/results.json", '"seed": null', '"seed": "1"')]),
    dict(id="bundle.missing", argv=["{ptxcts}", "bundle", "{tmp}/nobundle"], names=["{tmp}/nobundle"]),
    dict(id="stale.stray_argument", argv=["{ptxcts}", "stale", "extra-arg"], names=["extra-arg"]),
    # ---- run, explore, litmus (options are checked before the device: no GPU is needed to refuse them) ---------
    dict(id="run.seed_negative", argv=["{ptxcts}", "run", "--seed", "-1", "--list"], names=["--seed"]),
    dict(id="run.timeout_zero", argv=["{ptxcts}", "run", "--timeout", "0", "--list"], names=["--timeout"]),
    dict(id="run.case_glob_matches_nothing", argv=["{ptxcts}", "run", "--case", "nonexistent*", "--list"],
         names=["nonexistent*"]),
    dict(id="run.model_fault_unknown", argv=["{ptxcts}", "run", "--device", "model:nosuchfault", "--family",
                                             "cp.async", "--out", "{tmp}/o"], names=["nosuchfault"]),
    dict(id="run.shard_index_past_count", argv=["{ptxcts}", "run", "--shard", "3/2", "--list"], names=["3/2"]),
    dict(id="run.load_path_twice", argv=["{ptxcts}", "run", "--load-path", "jit,jit", "--list"], names=["jit"]),
    dict(id="run.deadline_negative", argv=["{ptxcts}", "run", "--deadline", "-5", "--list"], names=["--deadline"]),
    dict(id="explore.cases_zero", argv=["{ptxcts}", "explore", "--cases", "0", "--device", "model", "--out",
                                        "{tmp}/e"], names=["--cases"]),
    dict(id="explore.time_negative", argv=["{ptxcts}", "explore", "--time", "-1", "--out", "{tmp}/e"],
         names=["--time"]),
    dict(id="explore.dry_draw_zero", argv=["{ptxcts}", "explore", "--dry-draw", "0"], names=["--dry-draw"]),
    dict(id="explore.seed_past_2_64", argv=["{ptxcts}", "explore", "--seed", "18446744073709551616", "--out",
                                            "{tmp}/e"], names=["--seed"]),
    dict(id="explore.model_fault_unknown", argv=["{ptxcts}", "explore", "--device", "model:bogus", "--cases", "5",
                                                 "--out", "{tmp}/e"], names=["bogus"]),
    dict(id="litmus.iters_past_limit", argv=["{ptxcts}", "litmus", "--iters", "1000001"], names=["--iters"]),
    dict(id="litmus.cold_mib_small", argv=["{ptxcts}", "litmus", "--cold-mib", "10"], names=["--cold-mib"]),
    dict(id="litmus.seed_not_a_number", argv=["{ptxcts}", "litmus", "--seed", "0x10"], names=["--seed"]),
    # ---- selftest, test, build, shell verbs, fleet, devcheck ----------------------------------------------------
    dict(id="selftest.lower_target_bad", argv=["{ptxcts}", "selftest", "--tier", "lower", "--target", "sm_9z"],
         names=["sm_9z"]),
    dict(id="selftest.repeat_zero", argv=["{ptxcts}", "selftest", "--repeat", "0"], names=["--repeat"]),
    dict(id="selftest.budget_negative", argv=["{ptxcts}", "selftest", "--budget", "-1"], names=["--budget"]),
    dict(id="test.timeout_negative", argv=["{ptxcts}", "test", "--timeout", "-5"], names=["--timeout"]),
    dict(id="test.exclude_everything", argv=["{ptxcts}", "test", "-E", "."], names=["-E ."]),
    dict(id="build.target_with_blank", argv=["{ptxcts}", "build", "--target", "no such"], names=["no such"]),
    dict(id="build.jobs_zero", argv=["{ptxcts}", "build", "-j", "0"], names=["-j"]),
    dict(id="matrix.jobs_zero", argv=["{ptxcts}", "matrix", "--toolchains", "13.0", "-j", "0", "--out", "{tmp}/m"],
         names=["-j"]),
    dict(id="matrix.out_is_a_file", argv=["{ptxcts}", "matrix", "--toolchains", "13.0", "--out", "{tmp}/afile"],
         names=["{tmp}/afile", "not a folder"], files=[{"path": "afile", "text": "x\n"}]),
    dict(id="matrix.toolchains_leading_comma", argv=["{ptxcts}", "matrix", "--toolchains", ",13.0", "--out",
                                                     "{tmp}/m"], names=["--toolchains"]),
    dict(id="all.wheels_without_value", argv=["{ptxcts}", "all", "--wheels"], names=["--wheels"]),
    dict(id="all.wheels_env_missing", argv=["{ptxcts}", "all"], env={"PTXCTS_WHEELS": "{tmp}/none"},
         names=["PTXCTS_WHEELS"]),
    dict(id="all.toolchains_blank_item", argv=["{ptxcts}", "all", "--toolchains", "13.0, 13.5"],
         names=["--toolchains"]),
    dict(id="setup.frontends_unknown", argv=["{ptxcts}", "setup", "--frontends", "llvm-99"], names=["llvm-99"]),
    dict(id="setup.toolchains_twice", argv=["{ptxcts}", "setup", "--toolchains", "13.5,13.5"], names=["13.5"]),
    dict(id="fleet.status_without_folder", argv=["{ptxcts}", "fleet", "status"], names=["RESULTS"]),
    dict(id="fleet.plan_version_a_string", argv=["{ptxcts}", "fleet", "submit", "--slurm", "{tmp}/plan.toml",
                                                 "--dry-run"], names=["{tmp}/plan.toml", "version"],
         files=[{"path": "plan.toml", "text": "version = \"1\"\nname = \"p\"\nresults = \"r\"\n"
                 "toolchains = [\"13.0\"]\n[tiers.compile]\n"}]),
    dict(id="devcheck.unknown_option", argv=["{ptxcts}", "devcheck", "--bogus"], names=["--bogus"]),
    # ---- files that are not files: FIFOs, links in a loop, devices, names too long ----------------------------------
    dict(id="validate.results_a_fifo", argv=["{ptxcts}", "validate", "{tmp}/run"], names=["{tmp}/run/results.json"],
         setup="mkdir run && mkfifo run/results.json"),
    dict(id="validate.link_loop", argv=["{ptxcts}", "validate", "{tmp}/run/results.json"],
         names=["{tmp}/run/results.json"], setup="mkdir run && ln -s results.json run/results.json"),
    dict(id="validate.dev_zero", argv=["{ptxcts}", "validate", "/dev/zero"], names=["/dev/zero"]),
    dict(id="cases.root_dev_null", argv=["{ptxcts}", "cases", "--root", "/dev/null"], names=["/dev/null"]),
    dict(id="gate.json_dev_full", argv=["{ptxcts}", "gate", "{tmp}/run", "--json", "/dev/full"],
         names=["/dev/full"], files=[{"path": "run/results.json", "copy": RUN}]),
    dict(id="diff.markdown_dev_full", argv=["{ptxcts}", "diff", "{tmp}/a", "{tmp}/a", "--markdown", "/dev/full"],
         names=["/dev/full"], files=[{"path": "a/results.json", "copy": RUN}]),
    dict(id="compile.out_name_too_long", argv=["{ptxcts}", "compile", "--limit", "1", "--out", "{tmp}/" + "n" * 300],
         names=["File name too long"]),
    dict(id="compile.out_dev_null", argv=["{ptxcts}", "compile", "--limit", "1", "--out", "/dev/null"],
         names=["/dev/null"]),
    dict(id="compile.toolchain_bin_false", argv=["{ptxcts}", "compile", "--toolchain", "/bin/false", "--limit", "1",
                                                 "--out", "{tmp}/o"], names=["/bin/false"]),
    dict(id="compile.toolchain_that_hangs", argv=["{ptxcts}", "compile", "--toolchain", "{tmp}/ptxas", "--limit",
                                                  "1", "--out", "{tmp}/o"], names=["{tmp}/ptxas"],
         files=[{"path": "ptxas", "text": "#!/bin/sh\nsleep 600\n", "mode": 0o755}]),
    dict(id="compile.expectations_a_fifo", argv=["{ptxcts}", "compile", "--expectations", "{tmp}/exp.toml",
                                                 "--limit", "1", "--out", "{tmp}/o"],
         names=["{tmp}/exp.toml"], setup="mkfifo exp.toml"),
    dict(id="explore.resume_state_a_fifo", argv=["{ptxcts}", "explore", "--resume", "{tmp}/ex", "--cases-file",
                                                 "none"], names=["{tmp}/ex/explore.json"],
         setup="mkdir ex && mkfifo ex/explore.json"),
    dict(id="report.out_under_proc", argv=["{ptxcts}", "report", "{tmp}/run", "--out", "/proc/ptxcts-report"],
         names=["/proc/ptxcts-report"], files=[{"path": "run/results.json", "copy": RUN}]),
    dict(id="merge.gz_empty", argv=["{ptxcts}", "merge", "{tmp}/a", "--out", "{tmp}/m", "--run-id", "x"],
         names=["{tmp}/a/results.json.gz"], files=[{"path": "a/results.json.gz", "text": ""}]),
    dict(id="bundle.garbage", argv=["{ptxcts}", "bundle", "{tmp}/b"], names=["{tmp}/b"],
         files=[{"path": "b/bundle.json", "text": "\u0000\u0001garbage"}]),
    dict(id="env.root_without_tree", argv=["{ptxcts}", "cases", "--count"], env={"PTXCTS_ROOT": "{tmp}/empty"},
         names=["{tmp}/empty"], files=[{"path": "empty", "dir": True}]),
    dict(id="env.build_a_file", argv=["{ptxcts}", "run", "--list"], env={"PTXCTS_BUILD": "{tmp}/afile"},
         names=["{tmp}/afile"], files=[{"path": "afile", "text": "x\n"}]),
    dict(id="lower.toolchain_that_hangs", argv=["{ptxcts}", "lower", "--toolchain", "{tmp}/ptxas", "--out",
                                                "{tmp}/o"], names=["{tmp}/ptxas"],
         files=[{"path": "ptxas", "text": "#!/bin/sh\nsleep 600\n", "mode": 0o755}]),
    dict(id="fleet.results_under_proc", argv=["{ptxcts}", "fleet", "submit", "--slurm", "{tmp}/plan.toml",
                                              "--dry-run"], names=["/proc/ptxcts-fleet"],
         files=[{"path": "plan.toml", "text": "version = 1\nname = \"p\"\nresults = \"/proc/ptxcts-fleet\"\n"
                 "toolchains = [\"13.0\"]\n[tiers.compile]\n"}]),
    # ---- environment ----------------------------------------------------------------------------------------------
    dict(id="env.gtest_total_shards_zero", argv=["{ptxcts}", "run", "--list"],
         env={"GTEST_TOTAL_SHARDS": "0", "GTEST_SHARD_INDEX": "0"}, names=["GTEST_TOTAL_SHARDS"]),
    dict(id="env.resource_group_not_an_id", argv=["{ptxcts}", "run", "--list"],
         env={"CTEST_RESOURCE_GROUP_COUNT": "1", "CTEST_RESOURCE_GROUP_0_GPUS": "id:x,slots:1"},
         names=["CTEST_RESOURCE_GROUP_0_GPUS"]),
    # PTXCTS_RUN_EXPECTATIONS is read by `results known` (the run tests' judge), not by ptxcts-run: the first pass
    # gave it to `run --list`, which rightly ignores it (counted silent there); it is now given to its reader
    dict(id="env.run_expectations_a_folder", argv=["{python}", "-m", "results", "known", "--check"],
         cwd="{root}/harness", env={"PYTHONPATH": "{root}/generator", "PTXCTS_RUN_EXPECTATIONS": "{tmp}/d"},
         names=["PTXCTS_RUN_EXPECTATIONS={tmp}/d", "folder"], files=[{"path": "d", "dir": True}]),
    dict(id="env.toolchain_cache_blank", argv=["{ptxcts}", "toolchains", "list"],
         env={"PTXCTS_TOOLCHAIN_CACHE": " "}, names=["PTXCTS_TOOLCHAIN_CACHE"]),
]


# ---- third batch: written after the fixes the first two found, measured once, not tuned to --------------------
THIRD = [
    dict(id="compile.selection_matches_nothing", argv=["{ptxcts}", "compile", "--family", "cp.async", "--target",
                                                       "sm_90", "--ptx", "7.0", "--out", "{tmp}/o"],
         names=["--ptx", "7.0"]),
    dict(id="run.target_too_old", argv=["{ptxcts}", "run", "--family", "cp.async", "--target", "sm_75", "--list"],
         names=["sm_75"]),
    dict(id="report.baselines_mode_unknown", argv=["{ptxcts}", "report", "{tmp}/run", "--out", "{tmp}/rep",
                                                   "--baselines", "bogus-mode"], names=["bogus-mode"],
         files=[{"path": "run/results.json", "copy": RUN}]),
    dict(id="gate.across_unknown", argv=["{ptxcts}", "gate", "{tmp}/run", "--across", "gpu"], names=["gpu"],
         files=[{"path": "run/results.json", "copy": RUN}]),
    dict(id="diff.family_empty", argv=["{ptxcts}", "diff", "{tmp}/a", "{tmp}/a", "--family", ""], names=["--family"],
         files=[{"path": "a/results.json", "copy": RUN}]),
    dict(id="validate.version_true", argv=["{ptxcts}", "validate", "{tmp}/run"], names=["version"],
         files=[doc("run/results.json", '"version": 1', '"version": true')]),
    dict(id="validate.host_a_list", argv=["{ptxcts}", "validate", "{tmp}/run"], names=["host"],
         files=[doc("run/results.json", '"host": {', '"host": [], "host_was": {')]),
    dict(id="validate.case_target_unknown", argv=["{ptxcts}", "validate", "{tmp}/run"], names=["sm_90x"],
         files=[doc("run/results.json", '"target": "sm_90"}', '"target": "sm_90x"}')]),
    dict(id="validate.finished_bad_offset", argv=["{ptxcts}", "validate", "{tmp}/run"], names=["finished"],
         files=[doc("run/results.json", '"finished": "2026-11-22T18:04:10Z"', '"finished": "2026-11-22T18:04:10+25:00"')]),
    dict(id="validate.two_documents", argv=["{ptxcts}", "validate", "{tmp}/run"], names=["{tmp}/run/results.json"],
         files=[{"path": "run/results.json", "copy": RUN, "append": "{}\n"}]),
    dict(id="modules.family_unknown", argv=["{ptxcts}", "modules", "--target", "sm_90", "--ptx", "8.6", "--family",
                                            "nope", "--out", "{tmp}/o"], names=["nope"]),
    dict(id="modules.jobs_negative", argv=["{ptxcts}", "modules", "--target", "sm_90", "--ptx", "8.6", "--frontend",
                                           "llvm-22", "--jobs", "-3", "--out", "{tmp}/o"], names=["-3"]),
    dict(id="lower.out_is_a_file", argv=["{ptxcts}", "lower", "--out", "{tmp}/afile"], names=["{tmp}/afile"],
         files=[{"path": "afile", "text": "x\n"}]),
    dict(id="frontend.probe_unknown", argv=["{ptxcts}", "frontend", "probe", "llvm-99"], names=["llvm-99"]),
    dict(id="toolchains.install_wheels_missing", argv=["{ptxcts}", "toolchains", "install", "13.5", "--wheels",
                                                       "{tmp}/nowheels"], names=["{tmp}/nowheels"]),
    dict(id="toolchains.probe_a_text_file", argv=["{ptxcts}", "toolchains", "probe", "{tmp}/afile"],
         names=["{tmp}/afile"], files=[{"path": "afile", "text": "x\n"}]),
    dict(id="explore.jobs_zero", argv=["{ptxcts}", "explore", "--jobs", "0", "--device", "model", "--cases", "3",
                                       "--out", "{tmp}/e"], names=["--jobs"]),
    dict(id="explore.timeout_negative", argv=["{ptxcts}", "explore", "--timeout", "-2", "--device", "model",
                                              "--out", "{tmp}/e"], names=["--timeout"]),
    dict(id="explore.family_unknown", argv=["{ptxcts}", "explore", "--family", "nope", "--device", "model",
                                            "--out", "{tmp}/e"], names=["nope"]),
    dict(id="run.jobs_huge", argv=["{ptxcts}", "run", "--jobs", "99999", "--list"], names=["--jobs"]),
    dict(id="run.lower_targets_bad", argv=["{ptxcts}", "run", "--lower-targets", "sm_1", "--list"], names=["sm_1"]),
    dict(id="run.resume_args_only", argv=["{ptxcts}", "run", "--resume", "{tmp}/r"], names=["{tmp}/r"],
         files=[{"path": "r/run-args.json", "text": "{\"args\": [], \"toolchain\": \"13.0\"}\n"}]),
    dict(id="selftest.family_unknown", argv=["{ptxcts}", "selftest", "--family", "nope"], names=["nope"]),
    dict(id="stale.json_is_a_folder", argv=["{ptxcts}", "stale", "--json", "{tmp}/d"], names=["{tmp}/d"],
         files=[{"path": "d", "dir": True}]),
    dict(id="fleet.requeue_empty_folder", argv=["{ptxcts}", "fleet", "requeue", "{tmp}/r"], names=["{tmp}/r"],
         files=[{"path": "r", "dir": True}]),
    dict(id="test.jobs_zero", argv=["{ptxcts}", "test", "-j", "0"], names=["-j"]),
    dict(id="all.toolchain_path_missing", argv=["{ptxcts}", "all", "--toolchain", "/nonexistent/ptxas"],
         names=["/nonexistent/ptxas"]),
    dict(id="setup.wheels_a_file", argv=["{ptxcts}", "setup", "--wheels", "{tmp}/afile"], names=["{tmp}/afile"],
         files=[{"path": "afile", "text": "x\n"}]),
    dict(id="matrix.verdicts_driver_without_gpu", argv=["{ptxcts}", "matrix", "--toolchains", "13.0", "--verdicts",
                                                        "driver", "--out", "{tmp}/m"], names=["driver"]),
    dict(id="devcheck.wheels_missing", argv=["{ptxcts}", "devcheck", "--wheels", "{tmp}/none"], names=["{tmp}/none"]),
    dict(id="env.shard_index_past_total", argv=["{ptxcts}", "run", "--list"],
         env={"GTEST_SHARD_INDEX": "5", "GTEST_TOTAL_SHARDS": "2"}, names=["GTEST_SHARD_INDEX"]),
    dict(id="env.root_a_file_for_compile", argv=["{ptxcts}", "compile", "--limit", "1", "--out", "{tmp}/o"],
         env={"PTXCTS_ROOT": "{tmp}/afile"}, names=["PTXCTS_ROOT"], files=[{"path": "afile", "text": "x\n"}]),
    dict(id="report.no_arguments", argv=["{ptxcts}", "report"], names=["RUN"]),
    dict(id="bundle.not_a_bundle", argv=["{ptxcts}", "bundle", "{tmp}/run"], names=["{tmp}/run"],
         files=[{"path": "run/results.json", "copy": RUN}]),
    dict(id="compile.case_glob_unbalanced", argv=["{ptxcts}", "compile", "--case", "cp.async/[", "--out", "{tmp}/o"],
         names=["cp.async/["]),
    dict(id="gate.waivers_glob_unbalanced", argv=["{ptxcts}", "gate", "{tmp}/run", "--waivers", "{tmp}/w.toml"],
         names=["{tmp}/w.toml"], files=[{"path": "run/results.json", "copy": RUN},
                                        {"path": "w.toml", "text": "version = 1\n[[waiver]]\ncase = \"cp.async/[\"\n"
                                         "reason = \"x\"\nexpires = \"2030-01-01\"\n"}]),
]



# ---- fourth batch: odd spellings (--opt=value, repeats, abbreviations), numbers at edges (NaN, hex, floats, huge),
# unicode and whitespace in names, environment variables, spoiled files of kinds not spoiled before, links that make
# an output one of the inputs; measured once, before anything it found was fixed. Run as root: a folder without
# permission does not stop root, so none is here.
PLAN = "version = 1\nname = \"p\"\nresults = \"r\"\ntoolchains = [\"13.0\"]\n"
WAIVER = "version = 1\n[[waiver]]\ncase = \"cp.async/*\"\nreason = \"x\"\nlink = \"https://example.invalid/1\"\n"
FOURTH = [
    # option spellings
    dict(id="compile.out_given_twice_differently", argv=["{ptxcts}", "compile", "--limit", "1", "--out={tmp}/o",
                                                         "--out={tmp}/p"], names=["--out"]),
    dict(id="explore.seed_given_twice_differently", argv=["{ptxcts}", "explore", "--seed=1", "--seed=2", "--device",
                                                          "model", "--cases", "3", "--out", "{tmp}/e"],
         names=["--seed"]),
    dict(id="compile.abbreviation_ambiguous", argv=["{ptxcts}", "compile", "--t", "13.0", "--out", "{tmp}/o"],
         names=["--t"]),
    dict(id="compile.family_abbreviated_unknown", argv=["{ptxcts}", "compile", "--fam=cp.async", "--fam=cp.nope",
                                                        "--out", "{tmp}/o"], names=["cp.nope"]),
    dict(id="report.out_equals_empty", argv=["{ptxcts}", "report", "{tmp}/run", "--out="], names=["--out"],
         files=[{"path": "run/results.json", "copy": RUN}]),
    # numbers at the edges
    dict(id="run.jobs_a_float", argv=["{ptxcts}", "run", "--jobs", "2.5", "--list"], names=["--jobs"]),
    dict(id="run.timeout_nan", argv=["{ptxcts}", "run", "--timeout", "nan", "--list"], names=["--timeout"]),
    dict(id="run.seed_a_float", argv=["{ptxcts}", "run", "--seed", "1.0", "--list"], names=["--seed"]),
    dict(id="run.shard_count_zero", argv=["{ptxcts}", "run", "--shard", "0/0", "--list"], names=["0/0"]),
    dict(id="explore.time_nan", argv=["{ptxcts}", "explore", "--time", "nan", "--device", "model", "--cases", "3",
                                      "--out", "{tmp}/e"], names=["--time"]),
    dict(id="explore.shrink_time_negative", argv=["{ptxcts}", "explore", "--shrink-time", "-1", "--device", "model",
                                                  "--cases", "3", "--out", "{tmp}/e"], names=["--shrink-time"]),
    dict(id="explore.dry_draw_past_limit", argv=["{ptxcts}", "explore", "--dry-draw", "99999999999"],
         names=["--dry-draw"]),
    dict(id="compile.limit_exponent", argv=["{ptxcts}", "compile", "--limit", "1e3", "--out", "{tmp}/o"],
         names=["--limit"]),
    dict(id="gate.list_hex", argv=["{ptxcts}", "gate", "{tmp}/run", "--list", "0x10"], names=["--list"],
         files=[{"path": "run/results.json", "copy": RUN}]),
    dict(id="gate.today_february_30", argv=["{ptxcts}", "gate", "{tmp}/run", "--today", "2026-02-30"],
         names=["2026-02-30"], files=[{"path": "run/results.json", "copy": RUN}]),
    dict(id="litmus.cold_mib_nan", argv=["{ptxcts}", "litmus", "--cold-mib", "nan"], names=["--cold-mib"]),
    dict(id="selftest.cases_per_form_zero", argv=["{ptxcts}", "selftest", "--cases-per-form", "0"],
         names=["--cases-per-form"]),
    dict(id="bundle.max_bytes_negative", argv=["{ptxcts}", "bundle", "{tmp}/b", "--max-bytes", "-1"],
         names=["--max-bytes"], files=[{"path": "b", "dir": True}]),
    # unicode and whitespace in names
    dict(id="cases.family_cyrillic_er", argv=["{ptxcts}", "cases", "--family", "c\u0440.async"],
         names=["c\u0440.async"]),
    dict(id="cases.target_fullwidth_digit", argv=["{ptxcts}", "cases", "--target", "sm_\uff190"],
         names=["sm_\uff190"]),
    dict(id="compile.ptx_fullwidth_digit", argv=["{ptxcts}", "compile", "--ptx", "\uff18.6", "--out", "{tmp}/o"],
         names=["\uff18.6"]),
    dict(id="merge.run_id_with_slashes", argv=["{ptxcts}", "merge", "{tmp}/a", "--out", "{tmp}/m", "--run-id",
                                               "x/../../y"], names=["x/../../y"],
         files=[{"path": "a/results.json", "copy": RUN}]),
    dict(id="validate.path_zero_width_space", argv=["{ptxcts}", "validate", "{tmp}/r\u00e9sults\u200b"],
         names=["{tmp}/r\u00e9sults\u200b"]),
    dict(id="validate.path_with_newline", argv=["{ptxcts}", "validate", "{tmp}/run\nx"], names=["{tmp}/run"]),
    # environment variables
    dict(id="env.waivers_missing_for_known", argv=["{python}", "-m", "results", "known", "--check"],
         cwd="{root}/harness", env={"PYTHONPATH": "{root}/generator", "PTXCTS_WAIVERS": "{tmp}/nowaivers"},
         names=["PTXCTS_WAIVERS", "{tmp}/nowaivers"]),
    dict(id="env.build_unicode_missing", argv=["{ptxcts}", "run", "--list"],
         env={"PTXCTS_BUILD": "{tmp}/b\u00fcild \u00e9"}, names=["{tmp}/b\u00fcild \u00e9"]),
    dict(id="env.toolchain_trailing_blank", argv=["{ptxcts}", "compile", "--limit", "1", "--out", "{tmp}/o"],
         env={"PTXCTS_TOOLCHAIN": "13.0 "}, names=["PTXCTS_TOOLCHAIN"]),
    dict(id="env.toolchain_cache_link_loop", argv=["{ptxcts}", "toolchains", "list"],
         env={"PTXCTS_TOOLCHAIN_CACHE": "{tmp}/loop"}, names=["{tmp}/loop"], setup="ln -s loop loop"),
    dict(id="env.run_id_with_slash", argv=["{ptxcts}", "run", "--device", "model", "--family",
                                           "cp.async.bulk.prefetch", "--out", "{tmp}/o"],
         env={"PTXCTS_RUN_ID": "a/b"}, names=["PTXCTS_RUN_ID"]),
    # spoiled files of kinds not spoiled before
    dict(id="gate.baseline_truncated", argv=["{ptxcts}", "gate", "{tmp}/run", "--baseline", "{tmp}/b.json"],
         names=["{tmp}/b.json"], files=[{"path": "run/results.json", "copy": RUN},
                                        {"path": "b.json", "copy": "harness/results/tests/fixtures/baselines/"
                                         "compile.json", "head": 4}]),
    dict(id="gate.baseline_schema_of_results", argv=["{ptxcts}", "gate", "{tmp}/run", "--baseline", "{tmp}/b.json"],
         names=["{tmp}/b.json", "schema"],
         files=[{"path": "run/results.json", "copy": RUN},
                {"path": "b.json", "copy": "harness/results/tests/fixtures/baselines/compile.json",
                 "replace": ["\"schema\": \"ptxcts-baseline\"", "\"schema\": \"ptxcts-results\""]}]),
    dict(id="gate.waiver_expires_a_string", argv=["{ptxcts}", "gate", "{tmp}/run", "--waivers", "{tmp}/w.toml"],
         names=["{tmp}/w.toml", "expires"], files=[{"path": "run/results.json", "copy": RUN},
                                                   {"path": "w.toml", "text": WAIVER + "expires = \"2030-01-01\"\n"}]),
    dict(id="gate.waiver_class_unknown", argv=["{ptxcts}", "gate", "{tmp}/run", "--waivers", "{tmp}/w.toml"],
         names=["{tmp}/w.toml", "passs"],
         files=[{"path": "run/results.json", "copy": RUN},
                {"path": "w.toml", "text": WAIVER + "classes = [\"passs\"]\nexpires = 2030-01-01\n"}]),
    dict(id="compile.expectations_verdict_unknown", argv=["{ptxcts}", "compile", "--expectations", "{tmp}/exp.toml",
                                                          "--limit", "1", "--out", "{tmp}/o"],
         names=["{tmp}/exp.toml", "maybe"],
         files=[{"path": "exp.toml", "copy": "results/expectations/ptxas.toml",
                 "replace": ["verdict = \"accepts\"", "verdict = \"maybe\""]}]),
    dict(id="compile.toolchain_a_catalog_json", argv=["{ptxcts}", "compile", "--toolchain", "{tmp}/13.0.json",
                                                      "--limit", "1", "--out", "{tmp}/o"], names=["{tmp}/13.0.json"],
         files=[{"path": "13.0.json", "copy": "toolchains/13.0.json"}]),
    dict(id="explore.resume_state_truncated", argv=["{ptxcts}", "explore", "--resume", "{tmp}/ex", "--device",
                                                    "model", "--cases-file", "none"], names=["{tmp}/ex/explore.json"],
         files=[{"path": "ex/explore.json", "text": "{\"schema\": \"ptxcts-explore\", \"seed\": "}]),
    dict(id="explore.resume_state_a_list", argv=["{ptxcts}", "explore", "--resume", "{tmp}/ex", "--device", "model",
                                                 "--cases-file", "none"], names=["{tmp}/ex/explore.json"],
         files=[{"path": "ex/explore.json", "text": "[]\n"}]),
    dict(id="fleet.plan_shards_zero", argv=["{ptxcts}", "fleet", "submit", "--slurm", "{tmp}/plan.toml", "--dry-run"],
         names=["shards"], files=[{"path": "plan.toml", "text": PLAN + "[tiers.run]\nshards = 0\n[devices.d]\n"
                                   "constraint = \"h100\"\n"}]),
    dict(id="fleet.plan_name_unicode_blank", argv=["{ptxcts}", "fleet", "submit", "--slurm", "{tmp}/plan.toml",
                                                   "--dry-run"], names=["name"],
         files=[{"path": "plan.toml", "text": PLAN.replace("\"p\"", "\"n\u00e4cht ly\"") + "[tiers.compile]\n"}]),
    dict(id="fleet.plan_args_shard_equals", argv=["{ptxcts}", "fleet", "submit", "--slurm", "{tmp}/plan.toml",
                                                  "--dry-run"], names=["--shard"],
         files=[{"path": "plan.toml", "text": PLAN + "[tiers.compile]\nargs = [\"--shard=0/2\"]\n"}]),
    dict(id="fleet.kube_without_image", argv=["{ptxcts}", "fleet", "submit", "--kube", "{tmp}/jobs.json",
                                              "{tmp}/plan.toml"], names=["image"],
         files=[{"path": "plan.toml", "text": PLAN + "[tiers.compile]\n"}]),
    dict(id="fleet.status_of_a_file", argv=["{ptxcts}", "fleet", "status", "{tmp}/afile"], names=["{tmp}/afile"],
         files=[{"path": "afile", "text": "x\n"}]),
    dict(id="stale.baseline_missing", argv=["{ptxcts}", "stale", "--baseline", "{tmp}/nob.json"],
         names=["{tmp}/nob.json"]),
    dict(id="stale.rundoc_not_json", argv=["{ptxcts}", "stale", "{tmp}/x.json"], names=["{tmp}/x.json"],
         files=[{"path": "x.json", "text": "not json\n"}]),
    dict(id="bundle.check_a_file", argv=["{ptxcts}", "bundle", "--check", "{tmp}/afile"], names=["{tmp}/afile"],
         files=[{"path": "afile", "text": "x\n"}]),
    dict(id="litmus.case_unknown", argv=["{ptxcts}", "litmus", "--case", "nosuchcase"], names=["nosuchcase"]),
    dict(id="selftest.kind_unknown", argv=["{ptxcts}", "selftest", "--kind", "bogus"], names=["bogus"]),
    dict(id="devcheck.out_is_a_file", argv=["{ptxcts}", "devcheck", "--out", "{tmp}/afile"], names=["{tmp}/afile"],
         files=[{"path": "afile", "text": "x\n"}]),
    # outputs that are inputs, through a link or by name (nothing may be overwritten)
    dict(id="merge.out_is_the_input", argv=["{ptxcts}", "merge", "{tmp}/a", "--out", "{tmp}/a", "--run-id", "x"],
         names=["{tmp}/a"], files=[{"path": "a/results.json", "copy": RUN}]),
    dict(id="gate.json_a_link_to_the_run_document", argv=["{ptxcts}", "gate", "{tmp}/run", "--json",
                                                          "{tmp}/l.json"], names=["{tmp}/l.json"],
         files=[{"path": "run/results.json", "copy": RUN}], setup="ln -s run/results.json l.json"),
    dict(id="report.out_a_link_to_the_run", argv=["{ptxcts}", "report", "{tmp}/run", "--out", "{tmp}/link"],
         names=["{tmp}/link"], files=[{"path": "run/results.json", "copy": RUN}], setup="ln -s run link"),
    dict(id="diff.markdown_a_link_to_a_side", argv=["{ptxcts}", "diff", "{tmp}/a", "{tmp}/b", "--markdown",
                                                    "{tmp}/l.md"], names=["{tmp}/l.md"],
         files=[{"path": "a/results.json", "copy": RUN}, {"path": "b/results.json", "copy": RUN}],
         setup="ln -s a/results.json l.md"),
]


# ---- fifth batch: compressed documents spoiled, byte-order marks and CRLF, JSON and TOML nested 100000 deep, NUL
# characters in names read from files, standard output full or closed, TMPDIR and HOME that cannot be used, few file
# descriptors and a small file-size limit, shard specs at the edges, committed inputs spoiled in a copy of the tree,
# two verbs racing for one --out, folders where a file is expected, and documents that disagree with each other;
# written after the fixes of batch 4, measured once before anything it found was fixed.
GZ_RUN = {"path": "run/full.gz", "copy": RUN, "gzip": True}
DEEP = "[" * 100000 + "]" * 100000
TREE_TOOLCHAINS = {"path": "tree/toolchains", "copy": "toolchains"}
MANIFEST = {"path": "g/manifest", "copy": "generated/manifest"}


def both(first, second):
    """Two commands started at once, each to the end: exit 0 when both ended 0, else the larger code (the one that
    refused); standard error holds both messages."""
    return ["bash", "-c", f"{first} & a=$!; {second} & b=$!; wait $a; ra=$?; wait $b; rb=$?; "
            "[ $ra -gt $rb ] && exit $ra; exit $rb"]


FIFTH = [
    # compressed documents spoiled
    dict(id="validate.gz_truncated", argv=["{ptxcts}", "validate", "{tmp}/run/results.json.gz"],
         names=["{tmp}/run/results.json.gz"], files=[GZ_RUN],
         setup="head -c 400 run/full.gz > run/results.json.gz && rm run/full.gz"),
    dict(id="gate.run_gz_of_plain_text", argv=["{ptxcts}", "gate", "{tmp}/run"], names=["{tmp}/run/results.json.gz"],
         files=[{"path": "run/results.json.gz", "text": "hello, this is not JSON\n", "gzip": True}]),
    dict(id="report.run_gz_zero_bytes", argv=["{ptxcts}", "report", "{tmp}/run", "--out", "{tmp}/rep"],
         names=["{tmp}/run/results.json.gz"], files=[{"path": "run/results.json.gz", "text": ""}]),
    dict(id="diff.side_gz_a_zip", argv=["{ptxcts}", "diff", "{tmp}/a", "{tmp}/b"], names=["{tmp}/a/results.json.gz"],
         files=[{"path": "a/results.json.gz", "text": "PK\u0003\u0004\u0014\u0000\u0000\u0000zipped"},
                {"path": "b/results.json", "copy": RUN}]),
    dict(id="gate.baseline_gz_truncated", argv=["{ptxcts}", "gate", "{tmp}/run", "--baseline", "{tmp}/b.json.gz"],
         names=["{tmp}/b.json.gz"],
         files=[{"path": "run/results.json", "copy": RUN},
                {"path": "full.gz", "copy": "harness/results/tests/fixtures/baselines/compile.json", "gzip": True}],
         setup="head -c 120 full.gz > b.json.gz && rm full.gz"),
    dict(id="merge.plain_and_gz_disagree", argv=["{ptxcts}", "merge", "{tmp}/a", "--out", "{tmp}/m", "--run-id", "x"],
         names=["{tmp}/a"], files=[{"path": "a/results.json", "copy": RUN},
                                   {"path": "a/results.json.gz", "copy": SHARD, "gzip": True}]),
    dict(id="run.rejudge_gz_truncated", argv=["{ptxcts}", "run", "--rejudge", "{tmp}/r.json.gz"],
         names=["{tmp}/r.json.gz"], files=[{"path": "full.gz", "copy": SHARD, "gzip": True}],
         setup="head -c 300 full.gz > r.json.gz && rm full.gz"),
    dict(id="stale.rundoc_gz_of_plain_text", argv=["{ptxcts}", "stale", "{tmp}/x.json.gz"], names=["{tmp}/x.json.gz"],
         files=[{"path": "x.json.gz", "text": "not json at all\n", "gzip": True}]),
    # byte-order marks, CRLF line ends
    dict(id="gate.waivers_with_bom", argv=["{ptxcts}", "gate", "{tmp}/run", "--waivers", "{tmp}/w.toml"],
         names=["{tmp}/w.toml"], files=[{"path": "run/results.json", "copy": RUN},
                                        {"path": "w.toml", "text": "\ufeff" + WAIVER + "expires = 2030-01-01\n"}]),
    dict(id="fleet.plan_with_bom", argv=["{ptxcts}", "fleet", "submit", "--slurm", "{tmp}/plan.toml", "--dry-run"],
         names=["{tmp}/plan.toml"], files=[{"path": "plan.toml", "text": "\ufeff" + PLAN + "[tiers.compile]\n"}]),
    dict(id="explore.resume_state_with_bom", argv=["{ptxcts}", "explore", "--resume", "{tmp}/ex", "--device", "model",
                                                   "--cases-file", "none"], names=["{tmp}/ex/explore.json"],
         files=[{"path": "ex/explore.json", "text": "\ufeff{\"schema\": \"ptxcts-explore\"}\n"}]),
    dict(id="run.resume_results_with_bom", argv=["{ptxcts}", "run", "--resume", "{tmp}/r"],
         names=["{tmp}/r/results.json"],
         files=[{"path": "r/results.json", "copy": SHARD, "replace": ["{", "\ufeff{"]},
                {"path": "r/run-args.json", "text": "{\"args\": [], \"toolchain\": \"13.0\"}\n"}]),
    dict(id="compile.manifest_tsv_crlf", argv=["{ptxcts}", "compile", "--manifest", "{tmp}/g/manifest", "--family",
                                               "cp.async.bulk.groups", "--limit", "2", "--out", "{tmp}/o"],
         names=["cp.async.bulk.groups.tsv"], files=[MANIFEST],
         setup="sed -i 's/$/\\r/' g/manifest/cases/cp.async.bulk.groups.tsv"),
    dict(id="cases.manifest_tsv_with_bom", argv=["{ptxcts}", "cases", "--root", "{tmp}/g", "--count"],
         names=["cp.async.tsv"], files=[MANIFEST], setup="sed -i '1s/^/\\xef\\xbb\\xbf/' g/manifest/cases/cp.async.tsv"),
    # nested 100000 deep
    dict(id="validate.nested_100000_deep", argv=["{ptxcts}", "validate", "{tmp}/run/results.json"],
         names=["{tmp}/run/results.json"], files=[{"path": "run/results.json", "text": DEEP}]),
    dict(id="run.rejudge_nested_100000_deep", argv=["{ptxcts}", "run", "--rejudge", "{tmp}/d.json"],
         names=["{tmp}/d.json"], files=[{"path": "d.json", "text": "{\"cases\": " + DEEP + "}"}]),
    dict(id="explore.resume_state_nested_deep", argv=["{ptxcts}", "explore", "--resume", "{tmp}/ex", "--device",
                                                      "model", "--cases-file", "none"], names=["{tmp}/ex/explore.json"],
         files=[{"path": "ex/explore.json", "text": DEEP}]),
    dict(id="gate.waivers_nested_100000_deep", argv=["{ptxcts}", "gate", "{tmp}/run", "--waivers", "{tmp}/w.toml"],
         names=["{tmp}/w.toml"], files=[{"path": "run/results.json", "copy": RUN},
                                        {"path": "w.toml", "text": "version = 1\nx = " + DEEP + "\n"}]),
    dict(id="fleet.status_state_nested_deep", argv=["{ptxcts}", "fleet", "status", "{tmp}/r"],
         names=["{tmp}/r/fleet.json"], files=[{"path": "r/fleet.json", "text": DEEP}]),
    # NUL characters in names read from files
    dict(id="fleet.plan_results_with_nul", argv=["{ptxcts}", "fleet", "submit", "--slurm", "{tmp}/plan.toml",
                                                 "--dry-run"], names=["results"],
         files=[{"path": "plan.toml", "text": PLAN.replace("results = \"r\"", "results = \"r\\u0000x\"")
                 + "[tiers.compile]\n"}]),
    dict(id="fleet.plan_name_with_nul", argv=["{ptxcts}", "fleet", "submit", "--slurm", "{tmp}/plan.toml",
                                              "--dry-run"], names=["name"],
         files=[{"path": "plan.toml", "text": PLAN.replace("\"p\"", "\"p\\u0000q\"") + "[tiers.compile]\n"}]),
    dict(id="run.resume_args_family_with_nul", argv=["{ptxcts}", "run", "--resume", "{tmp}/r"], names=["--family"],
         files=[{"path": "r/results.json", "copy": SHARD},
                {"path": "r/run-args.json", "text": "{\"args\": [\"--family\", \"cp.async\\u0000x\"], "
                 "\"toolchain\": \"13.0\"}\n"}]),
    dict(id="report.selftest_schema_with_nul", argv=["{ptxcts}", "report", "{tmp}/run", "--out", "{tmp}/rep",
                                                           "--selftest", "{tmp}/s.json"], names=["{tmp}/s.json"],
         files=[{"path": "run/results.json", "copy": RUN},
                {"path": "s.json", "text": "{\"schema\": \"ptxcts-selftest\u0000\", \"version\": 1}\n"}]),
    # standard output full or closed
    dict(id="cases.stdout_full", argv=["bash", "-c", "{ptxcts} cases --family cp.async > /dev/full"],
         names=["No space left"]),
    dict(id="run.list_stdout_full", argv=["bash", "-c", "{ptxcts} run --list > /dev/full"], names=["No space left"]),
    dict(id="explore.dry_draw_stdout_full", argv=["bash", "-c", "{ptxcts} explore --dry-draw 20 > /dev/full"],
         names=["No space left"]),
    dict(id="gate.stdout_full", argv=["bash", "-c", "{ptxcts} gate {tmp}/run > /dev/full"], names=["No space left"],
         files=[{"path": "run/results.json", "copy": RUN}]),
    dict(id="toolchains.list_stdout_closed", argv=["bash", "-c", "{ptxcts} toolchains list >&-"], names=["output"]),
    dict(id="litmus.list_stdout_full", argv=["bash", "-c", "{ptxcts} litmus --list > /dev/full"],
         names=["No space left"]),
    # TMPDIR and HOME that cannot be used, a locale that cannot print the name
    dict(id="compile.tmpdir_a_file", argv=["{ptxcts}", "compile", "--family", "cp.async.bulk.groups", "--limit", "3",
                                           "--quiet", "--out", "{tmp}/o"], env={"TMPDIR": "{tmp}/afile"},
         names=["TMPDIR"], files=[{"path": "afile", "text": "x\n"}]),
    dict(id="modules.tmpdir_missing", argv=["{ptxcts}", "modules", "--target", "sm_90", "--ptx", "8.6", "--family",
                                            "cp.async.bulk.groups", "--out", "{tmp}/o"], env={"TMPDIR": "{tmp}/none"},
         names=["TMPDIR"]),
    dict(id="toolchains.home_empty", argv=["{ptxcts}", "toolchains", "list"], env={"HOME": ""}, names=["HOME"]),
    dict(id="toolchains.home_a_file", argv=["{ptxcts}", "toolchains", "list"], env={"HOME": "{tmp}/afile"},
         names=["{tmp}/afile"], files=[{"path": "afile", "text": "x\n"}]),
    dict(id="validate.ascii_locale_unicode_path", argv=["{ptxcts}", "validate", "{tmp}/r\u00e9sum\u00e9"],
         env={"PYTHONIOENCODING": "ascii", "LC_ALL": "C"}, names=["{tmp}/r"]),
    # few file descriptors, a small file-size limit
    dict(id="compile.sixteen_descriptors", argv=["bash", "-c", "ulimit -n 16; {ptxcts} compile --family cp.async "
                                                 "--limit 40 --quiet --out {tmp}/o"], names=["open files"]),
    dict(id="run.sixteen_descriptors", argv=["bash", "-c", "ulimit -n 16; {ptxcts} run --device model --family "
                                             "cp.async --jobs 4 --quiet --out {tmp}/o"], names=["open files"]),
    dict(id="merge.file_size_limit", argv=["bash", "-c", "ulimit -f 4; {ptxcts} merge {root}/" + H100 + " --out "
                                           "{tmp}/m --run-id x"], names=["File too large"]),
    dict(id="report.file_size_limit", argv=["bash", "-c", "ulimit -f 8; {ptxcts} report {tmp}/run --out {tmp}/rep"],
         names=["File too large"], files=[{"path": "run/results.json", "copy": RUN}]),
    dict(id="run.file_size_limit", argv=["bash", "-c", "ulimit -f 2; {ptxcts} run --device model --family "
                                         "cp.async.bulk.prefetch --quiet --out {tmp}/o"], names=["File too large"]),
    dict(id="compile.file_size_limit", argv=["bash", "-c", "ulimit -f 2; {ptxcts} compile --family "
                                             "cp.async.bulk.groups --limit 40 --quiet --out {tmp}/o"],
         names=["File too large"]),
    # shard specs at the edges
    dict(id="run.shard_count_negative", argv=["{ptxcts}", "run", "--shard", "1/-1", "--list"], names=["1/-1"]),
    dict(id="run.shard_three_parts", argv=["{ptxcts}", "run", "--shard", "0/2/4", "--list"], names=["0/2/4"]),
    dict(id="run.shard_count_past_int", argv=["{ptxcts}", "run", "--shard", "0/99999999999", "--list"],
         names=["0/99999999999"]),
    dict(id="env.total_shards_past_int", argv=["{ptxcts}", "run", "--list"],
         env={"GTEST_SHARD_INDEX": "0", "GTEST_TOTAL_SHARDS": "99999999999"}, names=["GTEST_TOTAL_SHARDS"]),
    dict(id="fleet.plan_shards_negative", argv=["{ptxcts}", "fleet", "submit", "--slurm", "{tmp}/plan.toml",
                                                "--dry-run"], names=["shards"],
         files=[{"path": "plan.toml", "text": PLAN + "[tiers.run]\nshards = -1\n[devices.d]\nconstraint = \"h100\"\n"}]),
    # committed inputs spoiled in a copy of the tree
    dict(id="toolchains.catalog_spoiled_in_a_tree_copy", argv=["{ptxcts}", "toolchains", "list"],
         env={"PTXCTS_ROOT": "{tmp}/tree"}, names=["{tmp}/tree/toolchains/catalog.toml"],
         files=[TREE_TOOLCHAINS, {"path": "tree/toolchains/catalog.toml", "copy": "toolchains/catalog.toml",
                                  "replace": ["version = 1", "version = 1\n[toolchain.\"13.0\"\nptxas = 3"]}]),
    dict(id="toolchains.description_spoiled_in_a_tree_copy", argv=["{ptxcts}", "toolchains", "describe", "13.0"],
         env={"PTXCTS_ROOT": "{tmp}/tree"}, names=["13.0.json"],
         files=[TREE_TOOLCHAINS, {"path": "tree/toolchains/13.0.json", "copy": "toolchains/13.0.json",
                                  "replace": ["\"archs\": [", "\"archs\": 5, \"was\": ["]}]),
    dict(id="frontend.catalog_spoiled_in_a_tree_copy", argv=["{ptxcts}", "frontend", "list"],
         env={"PTXCTS_ROOT": "{tmp}/tree"}, names=["frontends.toml"],
         files=[TREE_TOOLCHAINS, {"path": "tree/toolchains/frontends.toml", "copy": "toolchains/frontends.toml",
                                  "append": "\n[frontend.\"llvm-22\"]\nkind = 7\n"}]),
    dict(id="cases.targets_json_spoiled_in_a_copy", argv=["{ptxcts}", "cases", "--root", "{tmp}/g", "--count"],
         names=["targets.json"], files=[MANIFEST, {"path": "g/manifest/targets.json",
                                                   "copy": "generated/manifest/targets.json", "head": 6}]),
    dict(id="compile.manifest_forms_line_truncated", argv=["{ptxcts}", "compile", "--manifest", "{tmp}/g/manifest",
                                                           "--family", "cp.async.bulk.groups", "--limit", "2",
                                                           "--out", "{tmp}/o"], names=["forms.jsonl"],
         files=[MANIFEST], setup="sed -i '3s/.\\{40\\}$//' g/manifest/forms.jsonl"),
    dict(id="gate.committed_baseline_trailing_garbage", argv=["{ptxcts}", "gate", "{tmp}/run", "--baseline",
                                                              "{tmp}/b.json.gz"], names=["{tmp}/b.json.gz"],
         files=[{"path": "run/results.json", "copy": RUN},
                {"path": "b.json.gz", "copy": "results/baselines/compile/13.0.json.gz", "append": "}\n",
                 "gzip": True}]),
    dict(id="gate.default_waivers_spoiled_in_a_tree_copy", argv=["{ptxcts}", "gate", "{tmp}/run", "--baseline",
                                                                 "{root}/harness/results/tests/fixtures/baselines/"
                                                                 "compile.json"],
         env={"PTXCTS_ROOT": "{tmp}/tree"}, names=["{tmp}/tree/results/waivers.toml"],
         files=[{"path": "run/results.json", "copy": RUN},
                {"path": "tree/results/waivers.toml", "text": WAIVER + "expires = \"soon\"\n"}]),
    # two verbs racing for one --out
    dict(id="compile.twice_at_once_one_out",
         argv=both("{ptxcts} compile --family cp.async.bulk.groups --limit 30 --quiet --out {tmp}/o",
                   "{ptxcts} compile --family cp.async.bulk.groups --limit 30 --quiet --out {tmp}/o"),
         names=["{tmp}/o"]),
    dict(id="run.and_compile_at_once_one_out",
         argv=both("{ptxcts} run --device model --family cp.async.bulk --quiet --out {tmp}/o",
                   "{ptxcts} compile --family cp.async.bulk.groups --limit 30 --quiet --out {tmp}/o"),
         names=["{tmp}/o"]),
    dict(id="merge.and_report_at_once_one_out",
         argv=both("{ptxcts} merge {root}/" + H100 + " --out {tmp}/o --run-id x",
                   "{ptxcts} report {root}/" + H100 + " --out {tmp}/o"), names=["{tmp}/o"]),
    # folders where a file is expected
    dict(id="fleet.plan_a_folder", argv=["{ptxcts}", "fleet", "submit", "--slurm", "{tmp}/d", "--dry-run"],
         names=["{tmp}/d"], files=[{"path": "d", "dir": True}]),
    dict(id="gate.waivers_a_folder", argv=["{ptxcts}", "gate", "{tmp}/run", "--waivers", "{tmp}/d"], names=["{tmp}/d"],
         files=[{"path": "run/results.json", "copy": RUN}, {"path": "d", "dir": True}]),
    dict(id="gate.baseline_a_folder", argv=["{ptxcts}", "gate", "{tmp}/run", "--baseline", "{tmp}/d"],
         names=["{tmp}/d"], files=[{"path": "run/results.json", "copy": RUN}, {"path": "d", "dir": True}]),
    dict(id="explore.cases_file_a_folder", argv=["{ptxcts}", "explore", "--device", "model", "--cases", "3",
                                                 "--cases-file", "{tmp}/d", "--out", "{tmp}/e"], names=["{tmp}/d"],
         files=[{"path": "d", "dir": True}]),
    dict(id="report.selftest_a_folder", argv=["{ptxcts}", "report", "{tmp}/run", "--out", "{tmp}/rep", "--selftest",
                                              "{tmp}/d"], names=["{tmp}/d"],
         files=[{"path": "run/results.json", "copy": RUN}, {"path": "d", "dir": True}]),
    dict(id="compile.toolchain_a_folder", argv=["{ptxcts}", "compile", "--toolchain", "{tmp}/d", "--limit", "1",
                                                "--out", "{tmp}/o"], names=["{tmp}/d"],
         files=[{"path": "d", "dir": True}]),
    dict(id="lower.gate_a_plain_file", argv=["{ptxcts}", "lower", "--gate", "{tmp}/afile"], names=["{tmp}/afile"],
         files=[{"path": "afile", "text": "x\n"}]),
    # documents that disagree with each other or with themselves
    dict(id="merge.compile_and_run_tiers", argv=["{ptxcts}", "merge", "{tmp}/a", "{tmp}/b", "--out", "{tmp}/m",
                                                 "--run-id", "x"], names=["tier"],
         files=[{"path": "a/results.json", "copy": RUN}, {"path": "b/results.json", "copy": SHARD}]),
    dict(id="merge.one_run_twice", argv=["{ptxcts}", "merge", "{tmp}/a", "{tmp}/a", "--out", "{tmp}/m", "--run-id",
                                         "x"], names=["{tmp}/a"], files=[{"path": "a/results.json", "copy": RUN}]),
    dict(id="diff.compile_against_run", argv=["{ptxcts}", "diff", "{tmp}/a", "{tmp}/b"], names=["tier"],
         files=[{"path": "a/results.json", "copy": RUN}, {"path": "b/results.json", "copy": SHARD}]),
    dict(id="gate.baseline_of_the_lower_tier", argv=["{ptxcts}", "gate", "{tmp}/run", "--baseline", "{tmp}/b.json.gz"],
         names=["{tmp}/b.json.gz"], files=[{"path": "run/results.json", "copy": RUN},
                                           {"path": "b.json.gz", "copy": "results/baselines/lower/13.0.json.gz",
                                            "gzip": True}]),
    dict(id="validate.case_listed_twice", argv=["{ptxcts}", "validate", "{tmp}/run"],
         names=["{tmp}/run/results.json", "cp.async.bulk.tensor/2d.shared_cluster.global.tile.mbarrier_complete_tx_bytes"
                "@sm_80.ptx70"],
         files=[doc("run/results.json", "\"cases\": [", "\"cases\": [{\"class\": \"fail\", \"duration_ms\": 3.5, "
                    "\"family\": \"cp.async.bulk.tensor\", \"form\": \"cp.async.bulk.tensor/2d.shared_cluster.global."
                    "tile.mbarrier_complete_tx_bytes\", \"id\": \"cp.async.bulk.tensor/2d.shared_cluster.global.tile."
                    "mbarrier_complete_tx_bytes@sm_80.ptx70\", \"load_path\": \"ptxas\", \"ptx\": \"7.0\", "
                    "\"target\": \"sm_80\"}, ")]),
    dict(id="validate.finished_before_started", argv=["{ptxcts}", "validate", "{tmp}/run"], names=["finished"],
         files=[doc("run/results.json", "\"finished\": \"2026-11-22T18:04:10Z\"",
                    "\"finished\": \"2026-11-21T18:04:10Z\"")]),
    dict(id="validate.invalid_utf8_in_a_string", argv=["{ptxcts}", "validate", "{tmp}/run"],
         names=["{tmp}/run/results.json"], files=[{"path": "run/results.json", "copy": RUN}],
         setup="sed -i '0,/\"class\": \"pass\"/s//\"class\": \"pa\\xffss\"/' run/results.json"),
    dict(id="gate.waivers_invalid_utf8", argv=["{ptxcts}", "gate", "{tmp}/run", "--waivers", "{tmp}/w.toml"],
         names=["{tmp}/w.toml"], files=[{"path": "run/results.json", "copy": RUN},
                                        {"path": "w.toml", "text": WAIVER + "expires = 2030-01-01\n"}],
         setup="sed -i 's/reason = \"x\"/reason = \"\\xe9t\\xe9\"/' w.toml"),
    dict(id="report.lone_surrogate_in_a_message", argv=["{ptxcts}", "report", "{tmp}/run", "--out", "{tmp}/rep"],
         names=["{tmp}/run/results.json"],
         files=[doc("run/results.json", "\"class\": \"pass\"", "\"class\": \"pass\", \"message\": \"\\ud800\"")]),
    dict(id="fleet.status_state_truncated", argv=["{ptxcts}", "fleet", "status", "{tmp}/r"],
         names=["{tmp}/r/fleet.json"], files=[{"path": "r/fleet.json", "text": "{\"schema\": \"ptxcts-fleet\", "}]),
    dict(id="bundle.case_json_truncated", argv=["{ptxcts}", "bundle", "--check", "{tmp}/b"], names=["{tmp}/b/case.json"],
         files=[{"path": "b/case.json", "text": "{\"id\": \"cp.async/x\", "}]),
    dict(id="fleet.plan_toolchains_empty", argv=["{ptxcts}", "fleet", "submit", "--slurm", "{tmp}/plan.toml",
                                                 "--dry-run"], names=["toolchains"],
         files=[{"path": "plan.toml", "text": PLAN.replace("[\"13.0\"]", "[]") + "[tiers.compile]\n"}]),
    dict(id="fleet.plan_tier_unknown", argv=["{ptxcts}", "fleet", "submit", "--slurm", "{tmp}/plan.toml", "--dry-run"],
         names=["bogus"], files=[{"path": "plan.toml", "text": PLAN + "[tiers.bogus]\n"}]),
    # environment variables set but unusable, outputs under a file
    dict(id="run.frontend_env_blank", argv=["{ptxcts}", "run", "--device", "model", "--family",
                                            "cp.async.bulk.prefetch", "--quiet", "--out", "{tmp}/o"],
         env={"PTXCTS_FRONTEND": " "}, names=["PTXCTS_FRONTEND"]),
    dict(id="run.frontend_env_unknown", argv=["{ptxcts}", "run", "--device", "model", "--family",
                                              "cp.async.bulk.prefetch", "--quiet", "--out", "{tmp}/o"],
         env={"PTXCTS_FRONTEND": "llvm-99"}, names=["llvm-99"]),
    dict(id="compile.out_under_a_file", argv=["{ptxcts}", "compile", "--limit", "1", "--out", "{tmp}/afile/o"],
         names=["{tmp}/afile"], files=[{"path": "afile", "text": "x\n"}]),
    dict(id="explore.out_under_a_file", argv=["{ptxcts}", "explore", "--device", "model", "--cases", "3", "--out",
                                              "{tmp}/afile/e"], names=["{tmp}/afile"],
         files=[{"path": "afile", "text": "x\n"}]),
    dict(id="run.out_under_a_file", argv=["{ptxcts}", "run", "--device", "model", "--family", "cp.async.bulk.prefetch",
                                          "--quiet", "--out", "{tmp}/afile/o"], names=["{tmp}/afile"],
         files=[{"path": "afile", "text": "x\n"}]),
    dict(id="litmus.json_parent_missing", argv=["{ptxcts}", "litmus", "--json", "{tmp}/no/x.json"],
         names=["{tmp}/no"]),
]


# ---- sixth batch: written after the fixes of batch 5, not tuned to them; measured once, quiet and loaded. Option
# spellings at the edges of `--opt=value`, environment variables set to what cannot be used, documents from another
# run, tier or encoding (UTF-16, empty), resumes of the wrong kind of folder, fleet plans with values at their
# edges, outputs in places that cannot hold them.
SHARD1 = "harness/results/tests/fixtures/runs/h100/shard-1/results.json"
SIXTH = [
    # --opt=value at its edges
    dict(id="run.seed_double_equals", argv=["{ptxcts}", "run", "--seed==1", "--list"], names=["--seed"]),
    dict(id="explore.family_equals_empty", argv=["{ptxcts}", "explore", "--family=", "--dry-draw", "3"],
         names=["--family"]),
    dict(id="run.resume_equals_empty", argv=["{ptxcts}", "run", "--resume="], names=["--resume"]),
    dict(id="litmus.json_equals_a_folder", argv=["{ptxcts}", "litmus", "--json={tmp}/d"], names=["{tmp}/d"],
         files=[{"path": "d", "dir": True}]),
    dict(id="run.rejudge_two_documents", argv=["{ptxcts}", "run", "--rejudge", "{tmp}/a.json", "--rejudge={tmp}/b.json"],
         names=["--rejudge"], files=[{"path": "a.json", "copy": SHARD}, {"path": "b.json", "copy": SHARD1}]),
    dict(id="run.level_equals_three", argv=["{ptxcts}", "run", "--level=3", "--list"], names=["--level"]),
    dict(id="run.device_name_with_a_tab", argv=["{ptxcts}", "run", "--device", "model", "--device-name", "a\tb",
                                                "--family", "cp.async.bulk.prefetch", "--out", "{tmp}/o"],
         names=["--device-name"]),
    dict(id="cases.family_with_a_newline", argv=["{ptxcts}", "cases", "--family", "cp.async\n"], names=["cp.async"]),
    # environment variables set to what cannot be used
    dict(id="env.rescue_blank", argv=["{ptxcts}", "run", "--device", "model", "--family", "cp.async.bulk.prefetch",
                                      "--quiet", "--out", "{tmp}/o"], env={"PTXCTS_RESCUE": " "},
         names=["PTXCTS_RESCUE"]),
    dict(id="env.explored_cases_blank", argv=["{ptxcts}", "run", "--list"], env={"PTXCTS_EXPLORED_CASES": " "},
         names=["PTXCTS_EXPLORED_CASES"]),
    dict(id="env.nvdisasm_missing", argv=["{ptxcts}", "lower", "--family", "cp.async.bulk.prefetch", "--out",
                                          "{tmp}/o"], env={"PTXCTS_NVDISASM": "{tmp}/none"}, names=["{tmp}/none"]),
    dict(id="env.waivers_blank", argv=["{python}", "-m", "results", "known", "--check"], cwd="{root}/harness",
         env={"PYTHONPATH": "{root}/generator", "PTXCTS_WAIVERS": " "}, names=["PTXCTS_WAIVERS"]),
    dict(id="env.root_relative_missing", argv=["{ptxcts}", "cases", "--count"], env={"PTXCTS_ROOT": "nosuch"},
         names=["nosuch"]),
    dict(id="env.build_a_relative_dot", argv=["{ptxcts}", "run", "--list"], env={"PTXCTS_BUILD": "."},
         names=["PTXCTS_BUILD"]),
    dict(id="env.toolchain_a_folder", argv=["{ptxcts}", "compile", "--limit", "1", "--out", "{tmp}/o"],
         env={"PTXCTS_TOOLCHAIN": "{tmp}/d"}, names=["{tmp}/d"], files=[{"path": "d", "dir": True}]),
    dict(id="env.nvidia_smi_missing_for_devcheck", argv=["{ptxcts}", "devcheck", "--out", "{tmp}/o"],
         env={"PTXCTS_NVIDIA_SMI": "{tmp}/none"}, names=["{tmp}/none"]),
    # documents from another run, tier or encoding
    dict(id="gate.run_with_no_cases", argv=["{ptxcts}", "gate", "{tmp}/run"], names=["{tmp}/run"],
         files=[{"path": "run/results.json", "copy": RUN, "head": 21, "append": " \"cases\": []\n}\n"}]),
    dict(id="merge.shards_disagree_on_count", argv=["{ptxcts}", "merge", "{tmp}/h", "--out", "{tmp}/m", "--run-id",
                                                    "x"], names=["count"],
         files=[{"path": "h", "copy": H100},
                {"path": "h/shard-1/results.json", "copy": SHARD1, "replace": ["\"count\": 3", "\"count\": 4"]}]),
    dict(id="merge.shards_of_two_runs", argv=["{ptxcts}", "merge", "{tmp}/h", "--out", "{tmp}/m", "--run-id", "x"],
         names=["run_id"],
         files=[{"path": "h", "copy": H100},
                {"path": "h/shard-1/results.json", "copy": SHARD1,
                 "replace": ["2026-11-22T18-30-00Z-h100-run", "2026-11-23T09-00-00Z-h100-run"]}]),
    dict(id="merge.out_inside_its_input", argv=["{ptxcts}", "merge", "{tmp}/a", "--out", "{tmp}/a/m", "--run-id",
                                                "x"], names=["{tmp}/a"], files=[{"path": "a/results.json", "copy": RUN}]),
    dict(id="validate.utf16_document", argv=["{ptxcts}", "validate", "{tmp}/run"], names=["{tmp}/run/results.json"],
         files=[{"path": "run/x.json", "copy": RUN}],
         setup="iconv -f utf-8 -t utf-16 run/x.json > run/results.json && rm run/x.json"),
    dict(id="gate.waivers_utf16", argv=["{ptxcts}", "gate", "{tmp}/run", "--waivers", "{tmp}/w.toml"],
         names=["{tmp}/w.toml"], files=[{"path": "run/results.json", "copy": RUN},
                                        {"path": "x.toml", "text": WAIVER + "expires = 2030-01-01\n"}],
         setup="iconv -f utf-8 -t utf-16 x.toml > w.toml && rm x.toml"),
    dict(id="validate.empty_object", argv=["{ptxcts}", "validate", "{tmp}/run"], names=["{tmp}/run/results.json"],
         files=[{"path": "run/results.json", "text": "{}\n"}]),
    dict(id="compile.expectations_with_bom", argv=["{ptxcts}", "compile", "--expectations", "{tmp}/exp.toml",
                                                   "--limit", "1", "--out", "{tmp}/o"], names=["{tmp}/exp.toml"],
         files=[{"path": "exp.toml", "copy": "results/expectations/ptxas.toml", "replace": ["#", "\ufeff#"]}]),
    # resumes of the wrong kind of folder
    dict(id="lower.resume_a_compile_run", argv=["{ptxcts}", "lower", "--resume", "{tmp}/r"], names=["{tmp}/r"],
         files=[{"path": "r/results.json", "copy": RUN}]),
    dict(id="explore.resume_a_run_folder", argv=["{ptxcts}", "explore", "--resume", "{tmp}/r", "--device", "model",
                                                 "--cases-file", "none"], names=["{tmp}/r"],
         files=[{"path": "r/results.json", "copy": SHARD}]),
    dict(id="run.resume_args_a_string", argv=["{ptxcts}", "run", "--resume", "{tmp}/r"], names=["run-args.json"],
         files=[{"path": "r/results.json", "copy": SHARD},
                {"path": "r/run-args.json", "text": "{\"args\": \"--family cp.async\", \"toolchain\": \"13.0\"}\n"}]),
    dict(id="run.resume_without_args", argv=["{ptxcts}", "run", "--resume", "{tmp}/r"], names=["run-args.json"],
         files=[{"path": "r/results.json", "copy": SHARD}]),
    dict(id="compile.resume_of_another_toolchain", argv=["{ptxcts}", "compile", "--resume", "{tmp}/r"],
         names=["12.4"], files=[{"path": "r/results.json", "copy": RUN,
                                 "replace": ["\"ptxas\": \"13.0.88\"", "\"name\": \"12.4\", \"ptxas\": \"12.4.131\""]}]),
    # options of the results verbs at their edges
    dict(id="diff.examples_negative", argv=["{ptxcts}", "diff", "{tmp}/a", "{tmp}/a", "--examples", "-1"],
         names=["--examples"], files=[{"path": "a/results.json", "copy": RUN}]),
    dict(id="diff.manifest_missing", argv=["{ptxcts}", "diff", "{tmp}/a", "{tmp}/a", "--manifest", "{tmp}/none"],
         names=["{tmp}/none"], files=[{"path": "a/results.json", "copy": RUN}]),
    dict(id="report.baselines_a_file", argv=["{ptxcts}", "report", "{tmp}/run", "--out", "{tmp}/rep", "--baselines",
                                             "{tmp}/afile"], names=["{tmp}/afile"],
         files=[{"path": "run/results.json", "copy": RUN}, {"path": "afile", "text": "x\n"}]),
    dict(id="report.manifest_a_file", argv=["{ptxcts}", "report", "{tmp}/run", "--out", "{tmp}/rep", "--manifest",
                                            "{tmp}/afile"], names=["{tmp}/afile"],
         files=[{"path": "run/results.json", "copy": RUN}, {"path": "afile", "text": "x\n"}]),
    dict(id="gate.today_with_a_time", argv=["{ptxcts}", "gate", "{tmp}/run", "--today", "2026-11-29T10:00"],
         names=["--today"], files=[{"path": "run/results.json", "copy": RUN}]),
    dict(id="gate.across_twice", argv=["{ptxcts}", "gate", "{tmp}/run", "--across", "device,device"],
         names=["device"], files=[{"path": "run/results.json", "copy": RUN}]),
    dict(id="bundle.max_bytes_zero", argv=["{ptxcts}", "bundle", "{tmp}/b", "--max-bytes", "0"], names=["--max-bytes"],
         files=[{"path": "b", "dir": True}]),
    dict(id="stale.json_to_dev_full", argv=["{ptxcts}", "stale", "{tmp}/run", "--json", "/dev/full"],
         names=["/dev/full"], files=[{"path": "run/results.json", "copy": SHARD}]),
    # fleet plans with values at their edges
    dict(id="fleet.requeue_state_a_list", argv=["{ptxcts}", "fleet", "requeue", "{tmp}/r"], names=["{tmp}/r/fleet.json"],
         files=[{"path": "r/fleet.json", "text": "[]\n"}]),
    dict(id="fleet.plan_constraint_empty", argv=["{ptxcts}", "fleet", "submit", "--slurm", "{tmp}/plan.toml",
                                                 "--dry-run"], names=["constraint"],
         files=[{"path": "plan.toml", "text": PLAN + "[tiers.run]\n[devices.d]\nconstraint = \"\"\n"}]),
    dict(id="fleet.plan_seed_negative", argv=["{ptxcts}", "fleet", "submit", "--slurm", "{tmp}/plan.toml",
                                              "--dry-run"], names=["seed"],
         files=[{"path": "plan.toml", "text": PLAN + "seed = -1\n[tiers.compile]\n"}]),
    dict(id="fleet.plan_toolchain_unknown", argv=["{ptxcts}", "fleet", "submit", "--slurm", "{tmp}/plan.toml",
                                                  "--dry-run"], names=["99.9"],
         files=[{"path": "plan.toml", "text": PLAN.replace("13.0", "99.9") + "[tiers.compile]\n"}]),
    # outputs in places that cannot hold them, and options of the build and test verbs
    dict(id="frontend.run_out_a_file", argv=["{ptxcts}", "frontend", "run", "--frontend", "llvm-22", "--out",
                                             "{tmp}/afile"], names=["{tmp}/afile"], files=[{"path": "afile", "text": "x\n"}]),
    dict(id="modules.out_under_proc", argv=["{ptxcts}", "modules", "--target", "sm_90", "--ptx", "8.6", "--family",
                                            "cp.async.bulk.groups", "--out", "/proc/ptxcts-modules"],
         names=["/proc/ptxcts-modules"]),
    dict(id="selftest.out_under_a_file", argv=["{ptxcts}", "selftest", "--tier", "lower", "--family",
                                               "cp.async.bulk.prefetch", "--out", "{tmp}/afile/s"], names=["{tmp}/afile"],
         files=[{"path": "afile", "text": "x\n"}]),
    dict(id="explore.cases_file_under_a_file", argv=["{ptxcts}", "explore", "--device", "model", "--cases", "3",
                                                     "--cases-file", "{tmp}/afile/x.jsonl", "--out", "{tmp}/e"],
         names=["{tmp}/afile"], files=[{"path": "afile", "text": "x\n"}]),
    dict(id="run.modules_a_file", argv=["{ptxcts}", "run", "--modules", "{tmp}/afile", "--list"], names=["{tmp}/afile"],
         files=[{"path": "afile", "text": "x\n"}]),
    dict(id="test.regex_unbalanced", argv=["{ptxcts}", "test", "-R", "("], names=["("]),
    dict(id="build.target_empty", argv=["{ptxcts}", "build", "--target", ""], names=["--target"]),
    dict(id="matrix.verdicts_empty", argv=["{ptxcts}", "matrix", "--toolchains", "13.0", "--verdicts", "", "--out",
                                           "{tmp}/m"], names=["--verdicts"]),
]


# ---- seventh batch: written after the audit of paths and variables (framework.given, ptxcts/given.hpp), before any
# fix of its own findings; measured once, quiet and loaded. Paths given in spellings the audit did not try (relative,
# trailing slash, '~', '-', a link to a FIFO or to a folder, an empty file), variables crossed with the verbs that read
# them, documents of one tier given to another's verb, baselines of another toolchain or tier, truncated documents of
# every kind the suite reads, options repeated, abbreviated, negative or huge on verbs not tried yet.
EXPLORE = "results/explore/2026-11-28T05-14-03.658Z-sm_90-explore-1705"
LOWER_BASE = "results/baselines/lower/13.0.json.gz"
COMPILE_BASE = "results/baselines/compile/13.0.json.gz"
SEVENTH = [
    # paths in spellings the audit did not try
    dict(id="gate.waivers_a_link_to_a_fifo", argv=["{ptxcts}", "gate", "{tmp}/run", "--waivers", "{tmp}/w.toml"],
         names=["{tmp}/w.toml"], files=[{"path": "run/results.json", "copy": RUN}],
         setup="mkfifo f && ln -s f w.toml"),
    dict(id="compile.expectations_a_link_to_a_folder", argv=["{ptxcts}", "compile", "--expectations", "{tmp}/e.toml",
                                                             "--limit", "1", "--out", "{tmp}/o"],
         names=["{tmp}/e.toml"], files=[{"path": "d", "dir": True}], setup="ln -s d e.toml"),
    dict(id="gate.baseline_an_empty_file", argv=["{ptxcts}", "gate", "{tmp}/run", "--baseline", "{tmp}/b.json"],
         names=["{tmp}/b.json"], files=[{"path": "run/results.json", "copy": RUN}, {"path": "b.json", "text": ""}]),
    dict(id="diff.side_a_dash", argv=["{ptxcts}", "diff", "-", "{tmp}/a"], names=["-"],
         files=[{"path": "a/results.json", "copy": RUN}]),
    dict(id="report.out_tilde_unexpanded", argv=["{ptxcts}", "report", "{tmp}/run", "--out", "~/x"], names=["~"],
         files=[{"path": "run/results.json", "copy": RUN}], cwd="{tmp}/afile_dir",
         setup="mkdir afile_dir && touch afile_dir/~"),
    dict(id="validate.run_with_trailing_dot", argv=["{ptxcts}", "validate", "{tmp}/afile/."], names=["{tmp}/afile"],
         files=[{"path": "afile", "text": "x\n"}]),
    dict(id="merge.out_relative_under_a_file", argv=["{ptxcts}", "merge", "{tmp}/a", "--out", "afile/m", "--run-id",
                                                     "x"], names=["afile"],
         files=[{"path": "a/results.json", "copy": RUN}, {"path": "afile", "text": "x\n"}]),
    dict(id="lower.gate_an_empty_folder", argv=["{ptxcts}", "lower", "--gate", "{tmp}/d"], names=["{tmp}/d"],
         files=[{"path": "d", "dir": True}]),
    dict(id="stale.json_under_a_file", argv=["{ptxcts}", "stale", "{tmp}/run", "--json", "{tmp}/afile/v.json"],
         names=["{tmp}/afile"], files=[{"path": "run/results.json", "copy": SHARD}, {"path": "afile", "text": "x\n"}]),
    dict(id="frontend.coverage_json_a_folder", argv=["{ptxcts}", "frontend", "coverage", "--json", "{tmp}/d"],
         names=["{tmp}/d"], files=[{"path": "d", "dir": True}]),
    dict(id="toolchains.drift_json_dev_full", argv=["{ptxcts}", "toolchains", "drift", "13.0", "--max-candidates", "1",
                                                   "--family", "cp.async.bulk.prefetch", "--json", "/dev/full"],
         names=["/dev/full"]),
    dict(id="frontend.check_modules_a_file", argv=["{ptxcts}", "frontend", "check-modules", "{tmp}/afile"],
         names=["{tmp}/afile"], files=[{"path": "afile", "text": "x\n"}]),
    dict(id="fleet.requeue_a_link_loop", argv=["{ptxcts}", "fleet", "requeue", "{tmp}/loop"], names=["{tmp}/loop"],
         setup="ln -s loop loop"),
    dict(id="explore.resume_trailing_slash_of_a_file", argv=["{ptxcts}", "explore", "--resume", "{tmp}/afile/",
                                                             "--device", "model"], names=["{tmp}/afile"],
         files=[{"path": "afile", "text": "x\n"}]),
    dict(id="run.rejudge_a_link_loop", argv=["{ptxcts}", "run", "--rejudge", "{tmp}/loop"], names=["{tmp}/loop"],
         setup="ln -s loop loop"),
    dict(id="litmus.json_a_link_to_a_folder", argv=["{ptxcts}", "litmus", "--json", "{tmp}/l.json"],
         names=["{tmp}/l.json"], files=[{"path": "d", "dir": True}], setup="ln -s d l.json"),
    dict(id="selftest.clean_a_fifo", argv=["{ptxcts}", "selftest", "--clean", "{tmp}/f"], names=["{tmp}/f"],
         setup="mkfifo f"),
    dict(id="bundle.out_a_fifo", argv=["{ptxcts}", "bundle", "{tmp}/b", "--out", "{tmp}/f"], names=["{tmp}/f"],
         files=[{"path": "b", "dir": True}], setup="mkfifo f"),
    # variables crossed with the verbs that read them
    dict(id="env.rescue_a_file_for_compile", argv=["{ptxcts}", "compile", "--limit", "1", "--out", "{tmp}/o"],
         env={"PTXCTS_RESCUE": "{tmp}/afile"}, names=["PTXCTS_RESCUE"], files=[{"path": "afile", "text": "x\n"}]),
    dict(id="env.rescue_under_a_file_for_lower", argv=["{ptxcts}", "lower", "--family", "cp.async.bulk.prefetch",
                                                       "--out", "{tmp}/o"],
         env={"PTXCTS_RESCUE": "{tmp}/afile/r"}, names=["PTXCTS_RESCUE"], files=[{"path": "afile", "text": "x\n"}]),
    dict(id="env.rescue_a_fifo_for_explore", argv=["{ptxcts}", "explore", "--device", "model", "--cases", "3",
                                                   "--out", "{tmp}/e"],
         env={"PTXCTS_RESCUE": "{tmp}/f"}, names=["PTXCTS_RESCUE"], setup="mkfifo f"),
    dict(id="env.rescue_blank_for_merge", argv=["{ptxcts}", "merge", "{root}/" + H100, "--out", "{tmp}/m", "--run-id",
                                                "x"], env={"PTXCTS_RESCUE": "  "}, names=["PTXCTS_RESCUE"]),
    dict(id="env.nvidia_smi_a_folder_for_run_gpus", argv=["{ptxcts}", "run", "--gpus", "all", "--out", "{tmp}/o"],
         env={"PTXCTS_NVIDIA_SMI": "{tmp}/d"}, names=["PTXCTS_NVIDIA_SMI"], files=[{"path": "d", "dir": True}]),
    dict(id="env.nvidia_smi_not_executable_for_compile", argv=["{ptxcts}", "compile", "--verdicts", "driver",
                                                               "--limit", "1", "--out", "{tmp}/o"],
         env={"PTXCTS_NVIDIA_SMI": "{tmp}/smi"}, names=["PTXCTS_NVIDIA_SMI"],
         files=[{"path": "smi", "text": "#!/bin/sh\necho 0\n"}]),
    dict(id="env.toolchain_cache_a_fifo_for_compile", argv=["{ptxcts}", "compile", "--toolchain", "13.5", "--limit",
                                                           "1", "--out", "{tmp}/o"],
         env={"PTXCTS_TOOLCHAIN_CACHE": "{tmp}/f"}, names=["PTXCTS_TOOLCHAIN_CACHE"], setup="mkfifo f"),
    dict(id="env.home_a_link_loop_for_lower", argv=["{ptxcts}", "lower", "--family", "cp.async.bulk.prefetch",
                                                    "--out", "{tmp}/o"],
         env={"HOME": "{tmp}/loop"}, names=["HOME"], setup="ln -s loop loop"),
    dict(id="env.xdg_cache_relative_for_setup", argv=["{ptxcts}", "toolchains", "list"],
         env={"XDG_CACHE_HOME": "cache"}, names=["XDG_CACHE_HOME"]),
    dict(id="env.nvdisasm_a_folder_for_selftest", argv=["{ptxcts}", "selftest", "--tier", "lower", "--family",
                                                        "cp.async.bulk.prefetch", "--out", "{tmp}/s"],
         env={"PTXCTS_NVDISASM": "{tmp}/d"}, names=["{tmp}/d"], files=[{"path": "d", "dir": True}]),
    dict(id="env.toolchain_a_fifo_for_lower", argv=["{ptxcts}", "lower", "--family", "cp.async.bulk.prefetch",
                                                    "--out", "{tmp}/o"],
         env={"PTXCTS_TOOLCHAIN": "{tmp}/f"}, names=["{tmp}/f"], setup="mkfifo f"),
    dict(id="env.frontend_blank_for_frontend_run", argv=["{ptxcts}", "frontend", "run", "--out", "{tmp}/o"],
         env={"PTXCTS_FRONTEND": " "}, names=["PTXCTS_FRONTEND"]),
    dict(id="env.wheels_a_file_for_all", argv=["{ptxcts}", "all"], env={"PTXCTS_WHEELS": "{tmp}/afile"},
         names=["PTXCTS_WHEELS"], files=[{"path": "afile", "text": "x\n"}]),
    dict(id="env.explored_cases_a_link_loop_for_explore", argv=["{ptxcts}", "explore", "--dry-draw", "3"],
         env={"PTXCTS_EXPLORED_CASES": "{tmp}/loop"}, names=["PTXCTS_EXPLORED_CASES"], setup="ln -s loop loop"),
    dict(id="env.cuda_visible_minus_one_for_compile_driver", argv=["{ptxcts}", "compile", "--verdicts", "driver",
                                                                  "--limit", "1", "--out", "{tmp}/o"],
         env={"CUDA_VISIBLE_DEVICES": "-1"}, names=["driver"]),
    # documents of one tier given to another's verb
    dict(id="gate.an_exploration", argv=["{ptxcts}", "gate", "{tmp}/e"], names=["{tmp}/e"],
         files=[{"path": "e", "copy": EXPLORE}]),
    dict(id="lower.gate_a_compile_run", argv=["{ptxcts}", "lower", "--gate", "{tmp}/r"], names=["{tmp}/r"],
         files=[{"path": "r/results.json", "copy": RUN}]),
    dict(id="report.selftest_a_run_document", argv=["{ptxcts}", "report", "{tmp}/run", "--out", "{tmp}/rep",
                                                    "--selftest", "{tmp}/run/results.json"],
         names=["{tmp}/run/results.json"], files=[{"path": "run/results.json", "copy": RUN}]),
    dict(id="report.explore_a_run_folder", argv=["{ptxcts}", "report", "{tmp}/run", "--out", "{tmp}/rep",
                                                 "--explore", "{tmp}/other"], names=["{tmp}/other"],
         files=[{"path": "run/results.json", "copy": RUN}, {"path": "other/results.json", "copy": SHARD}]),
    dict(id="validate.a_litmus_report", argv=["{ptxcts}", "validate", "{tmp}/l/results.json"],
         names=["{tmp}/l/results.json"], files=[{"path": "l/results.json", "copy": "results/selftest/litmus-h100.json"}]),
    dict(id="frontend.compare_a_compile_run", argv=["{ptxcts}", "frontend", "compare", "{tmp}/r"], names=["{tmp}/r"],
         files=[{"path": "r/results.json", "copy": RUN}]),
    dict(id="diff.a_baseline_as_a_side", argv=["{ptxcts}", "diff", "{tmp}/a", "{root}/" + LOWER_BASE],
         names=["13.0.json.gz"], files=[{"path": "a/results.json", "copy": RUN}]),
    dict(id="fleet.status_of_a_run_folder", argv=["{ptxcts}", "fleet", "status", "{tmp}/r"], names=["{tmp}/r"],
         files=[{"path": "r/results.json", "copy": RUN}]),
    dict(id="bundle.check_a_run_folder", argv=["{ptxcts}", "bundle", "--check", "{tmp}/r"], names=["{tmp}/r"],
         files=[{"path": "r/results.json", "copy": RUN}]),
    # baselines of another toolchain, tier or device
    dict(id="gate.compile_run_with_a_lower_baseline", argv=["{ptxcts}", "gate", "{tmp}/run", "--baseline",
                                                           "{tmp}/b.json.gz"], names=["{tmp}/b.json.gz"],
         files=[{"path": "run/results.json", "copy": RUN}, {"path": "b.json.gz", "copy": LOWER_BASE}]),
    dict(id="gate.compile_run_with_another_toolchains_baseline",
         argv=["{ptxcts}", "gate", "{tmp}/run", "--baseline", "{root}/results/baselines/compile/12.4.json.gz"],
         names=["12.4"], files=[{"path": "run/results.json", "copy": RUN}]),
    dict(id="lower.gate_with_a_compile_baseline", argv=["{ptxcts}", "lower", "--gate", "{tmp}/r", "--baseline",
                                                        "{root}/" + COMPILE_BASE], names=[COMPILE_BASE],
         files=[{"path": "r/results.json", "copy": RUN}]),
    dict(id="stale.baseline_of_another_tier", argv=["{ptxcts}", "stale", "{tmp}/run", "--baseline",
                                                    "{root}/" + COMPILE_BASE], names=[COMPILE_BASE],
         files=[{"path": "run/results.json", "copy": SHARD}]),
    # truncated documents of every kind the suite reads
    dict(id="stale.rundoc_gz_truncated", argv=["{ptxcts}", "stale", "{tmp}/run"], names=["{tmp}/run/results.json.gz"],
         files=[{"path": "run/x", "copy": SHARD}],
         setup="gzip -c run/x | head -c 200 > run/results.json.gz && rm run/x"),
    dict(id="diff.side_b_gz_truncated", argv=["{ptxcts}", "diff", "{tmp}/a", "{tmp}/b"], names=["{tmp}/b/results.json.gz"],
         files=[{"path": "a/results.json", "copy": RUN}, {"path": "b/x", "copy": RUN}],
         setup="gzip -c b/x | head -c 300 > b/results.json.gz && rm b/x"),
    dict(id="lower.from_lowered_truncated", argv=["{ptxcts}", "lower", "--from-lowered", "{tmp}/l", "--out", "{tmp}/o"],
         names=["{tmp}/l/lowered.json.gz"], files=[{"path": "l/results.json", "copy": RUN}],
         setup="printf '{\"forms\": [' | gzip -c | head -c 15 > l/lowered.json.gz"),
    dict(id="run.resume_args_truncated", argv=["{ptxcts}", "run", "--resume", "{tmp}/r"], names=["run-args.json"],
         files=[{"path": "r/results.json", "copy": SHARD}, {"path": "r/run-args.json", "text": "{\"args\": [\"--fam"}]),
    dict(id="fleet.requeue_state_truncated", argv=["{ptxcts}", "fleet", "requeue", "{tmp}/r"],
         names=["{tmp}/r/fleet.json"], files=[{"path": "r/fleet.json", "text": "{\"schema\": \"ptxcts-fleet\", \"vers"}]),
    dict(id="frontend.frontends_toml_truncated", argv=["{ptxcts}", "frontend", "list"], env={"PTXCTS_ROOT": "{tmp}/tree"},
         names=["{tmp}/tree/toolchains/frontends.toml"],
         files=[{"path": "tree/toolchains", "copy": "toolchains"},
                {"path": "tree/toolchains/frontends.toml", "copy": "toolchains/frontends.toml", "head": 3,
                 "append": "[frontend.\"x\n"}]),
    dict(id="report.selftest_truncated", argv=["{ptxcts}", "report", "{tmp}/run", "--out", "{tmp}/rep", "--selftest",
                                               "{tmp}/s.json"], names=["{tmp}/s.json"],
         files=[{"path": "run/results.json", "copy": RUN},
                {"path": "s.json", "copy": "results/selftest/model-equivalent.json", "head": 4}]),
    dict(id="frontend.compare_run_gz_truncated", argv=["{ptxcts}", "frontend", "compare", "{tmp}/r"],
         names=["{tmp}/r/results.json.gz"], files=[{"path": "r/x", "copy": SHARD}],
         setup="gzip -c r/x | head -c 250 > r/results.json.gz && rm r/x"),
    dict(id="fleet.plan_truncated_mid_table", argv=["{ptxcts}", "fleet", "submit", "--slurm", "{tmp}/plan.toml",
                                                    "--dry-run"], names=["{tmp}/plan.toml"],
         files=[{"path": "plan.toml", "text": PLAN + "[tiers.comp"}]),
    dict(id="known.expectations_truncated_mid_table", argv=["{python}", "-m", "results", "known", "--check",
                                                            "--expectations", "{tmp}/r.toml"], cwd="{root}/harness",
         env={"PYTHONPATH": "{root}/generator"}, names=["{tmp}/r.toml"],
         files=[{"path": "r.toml", "copy": "results/expectations/run.toml", "head": 12, "append": "[[finding\n"}]),
    dict(id="compile.manifest_tsv_truncated_mid_row", argv=["{ptxcts}", "compile", "--manifest", "{tmp}/m", "--limit",
                                                            "1", "--out", "{tmp}/o"], names=["{tmp}/m"],
         files=[{"path": "m", "copy": "generated/manifest"}],
         setup="f=$(ls m/cases/*.tsv | head -1) && head -c 300 \"$f\" > x && mv x \"$f\""),
    # options repeated, abbreviated, negative or huge on verbs not tried yet
    dict(id="diff.examples_abbreviated_negative", argv=["{ptxcts}", "diff", "{tmp}/a", "{tmp}/a", "--exam", "-4"],
         names=["-4"], files=[{"path": "a/results.json", "copy": RUN}]),
    dict(id="bundle.max_bytes_past_2_64", argv=["{ptxcts}", "bundle", "{tmp}/b", "--max-bytes", "99999999999999999999999"],
         names=["--max-bytes"], files=[{"path": "b", "dir": True}]),
    dict(id="gate.list_in_floating_form", argv=["{ptxcts}", "gate", "{tmp}/run", "--list", "1e3"], names=["--list"],
         files=[{"path": "run/results.json", "copy": RUN}]),
    dict(id="lower.min_kill_nan", argv=["{ptxcts}", "lower", "--selftest", "--min-kill", "nan", "--family",
                                        "cp.async.bulk.prefetch", "--out", "{tmp}/o"], names=["--min-kill"]),
    dict(id="lower.min_kill_past_100", argv=["{ptxcts}", "lower", "--selftest", "--min-kill", "150", "--family",
                                             "cp.async.bulk.prefetch", "--out", "{tmp}/o"], names=["--min-kill"]),
    dict(id="toolchains.drift_candidates_negative", argv=["{ptxcts}", "toolchains", "drift", "13.0",
                                                          "--max-candidates", "-1"], names=["--max-candidates"]),
    dict(id="toolchains.drift_jobs_zero", argv=["{ptxcts}", "toolchains", "drift", "13.0", "--jobs", "0"],
         names=["--jobs"]),
    dict(id="fleet.status_job_negative", argv=["{ptxcts}", "fleet", "status", "{tmp}/r", "--job", "-1"],
         names=["-1"], files=[{"path": "r/fleet.json", "text": "{\"schema\": \"ptxcts-fleet\", \"version\": 1, \"plan\": {}, "
                                         "\"groups\": [], \"jobs\": [], \"results\": \"r\", \"root\": \"r\"}\n"}]),
    dict(id="frontend.coverage_frontend_twice", argv=["{ptxcts}", "frontend", "coverage", "--frontend", "llvm-22",
                                                     "--frontend", "llvm-22"], names=["llvm-22"]),
    dict(id="selftest.cases_per_form_negative", argv=["{ptxcts}", "selftest", "--cases-per-form", "-2"],
         names=["--cases-per-form"]),
    dict(id="report.title_given_twice_differently", argv=["{ptxcts}", "report", "{tmp}/run", "--out", "{tmp}/rep",
                                                          "--title", "a", "--title", "b"], names=["--title"],
         files=[{"path": "run/results.json", "copy": RUN}]),
    dict(id="explore.timeout_past_double", argv=["{ptxcts}", "explore", "--timeout", "1e400", "--dry-draw", "3"],
         names=["--timeout"]),
    dict(id="run.seed_past_2_64", argv=["{ptxcts}", "run", "--seed", "99999999999999999999999", "--list"],
         names=["--seed"]),
    dict(id="litmus.case_twice", argv=["{ptxcts}", "litmus", "--case", "cp_async.wait_group", "--case",
                                          "cp_async.wait_group"], names=["cp_async.wait_group"]),
    dict(id="compile.module_size_minus_zero", argv=["{ptxcts}", "compile", "--module-size", "-0", "--out", "{tmp}/o"],
         names=["--module-size"]),
]


# ---- eighth batch: categories the first seven did not try -- integers of thousands of digits and numbers a
# 64-bit float cannot hold inside documents (JSON and TOML, Python and C++ readers), documents of a future
# version or another schema, keys given twice, fields of the wrong type in waivers, findings, plans and fleet
# records, run folders holding something else under a document's name, shards that overlap, case IDs no model
# knows, a working folder deleted under the command, each layer's own command line (python3 -m LAYER, the C++
# binaries) given what ./ptxcts would refuse, option values that are 100 KB long, past PATH_MAX, start with '-' or
# hold bytes that are not UTF-8, numeric options not tried yet (hex, empty, NaN, floats, infinity), the deprecated
# PTXCTS_PTXAS, and odd CUDA_VISIBLE_DEVICES on GPU verbs (no GPU here: exit 77 naming why is right, 0 never:
# `skip = True`). Measured once, before anything it found was fixed.
BIG = "9" * 5000   # past Python's 4300-digit limit for int(): json and tomllib raise a bare ValueError
SELFTEST_DOC = "{\"schema\": \"ptxcts-selftest\", \"version\": 1}\n"
FLEET_DOC = ("{\"schema\": \"ptxcts-fleet\", \"version\": 1, \"plan\": {}, \"groups\": [], \"jobs\": [], "
             "\"results\": \"r\", \"root\": \"r\"}\n")
RUN_BIN = "{build}/harness/run/ptxcts-run"
EXPLORE_BIN = "{build}/harness/run/ptxcts-explore"
EXPLORE_DOC = EXPLORE + "/explore.json.gz"
ARGS_DOC = "{\"args\": [\"--family\", \"cp.async.bulk.prefetch\"], \"toolchain\": \"13.0\"}\n"


def gone(cmd):
    """cmd run in a working folder deleted under it ({tmp}/d: made, entered, removed)."""
    return ["bash", "-c", "mkdir d && cd d && rmdir ../d && exec " + cmd]


EIGHTH = [
    # integers of 5000 digits and numbers past a double, inside documents
    dict(id="validate.seed_of_5000_digits", argv=["{ptxcts}", "validate", "{tmp}/run"],
         names=["{tmp}/run/results.json"], files=[doc("run/results.json", '"seed": null', '"seed": ' + BIG)]),
    dict(id="gate.baseline_version_of_5000_digits", argv=["{ptxcts}", "gate", "{tmp}/run", "--baseline",
                                                         "{tmp}/b.json"], names=["{tmp}/b.json"],
         files=[{"path": "run/results.json", "copy": RUN},
                {"path": "b.json", "copy": "harness/results/tests/fixtures/baselines/compile.json",
                 "replace": ["\"version\": 1", "\"version\": " + BIG]}]),
    dict(id="merge.shard_index_of_5000_digits", argv=["{ptxcts}", "merge", "{tmp}/a", "--out", "{tmp}/m",
                                                     "--run-id", "x"], names=["{tmp}/a/results.json"],
         files=[{"path": "a/results.json", "copy": SHARD, "replace": ["\"index\": 0", "\"index\": " + BIG]}]),
    dict(id="report.selftest_version_of_5000_digits", argv=["{ptxcts}", "report", "{tmp}/run", "--out", "{tmp}/rep",
                                                           "--selftest", "{tmp}/s.json"], names=["{tmp}/s.json"],
         files=[{"path": "run/results.json", "copy": RUN},
                {"path": "s.json", "text": SELFTEST_DOC.replace("\"version\": 1", "\"version\": " + BIG)}]),
    dict(id="fleet.status_record_version_of_5000_digits", argv=["{ptxcts}", "fleet", "status", "{tmp}/r"],
         names=["{tmp}/r/fleet.json"], files=[{"path": "r/fleet.json", "text": FLEET_DOC.replace(
             "\"version\": 1", "\"version\": " + BIG)}]),
    dict(id="gate.waivers_version_of_5000_digits", argv=["{ptxcts}", "gate", "{tmp}/run", "--waivers", "{tmp}/w.toml"],
         names=["{tmp}/w.toml"], files=[{"path": "run/results.json", "copy": RUN},
                                        {"path": "w.toml", "text": "version = " + BIG + "\n"}]),
    dict(id="fleet.plan_seed_of_5000_digits", argv=["{ptxcts}", "fleet", "submit", "--slurm", "{tmp}/plan.toml",
                                                   "--dry-run"], names=["{tmp}/plan.toml"],
         files=[{"path": "plan.toml", "text": PLAN + "seed = " + BIG + "\n[tiers.compile]\n"}]),
    dict(id="compile.expectations_number_of_5000_digits", argv=["{ptxcts}", "compile", "--expectations",
                                                                "{tmp}/exp.toml", "--limit", "1", "--out", "{tmp}/o"],
         names=["{tmp}/exp.toml"], files=[{"path": "exp.toml", "text": "[[finding]]\nid = " + BIG + "\n"}]),
    dict(id="known.expectations_number_of_5000_digits", argv=["{python}", "-m", "results", "known", "--check",
                                                              "--expectations", "{tmp}/r.toml"], cwd="{root}/harness",
         env={"PYTHONPATH": "{root}/generator"}, names=["{tmp}/r.toml"],
         files=[{"path": "r.toml", "text": "[[finding]]\nid = \"x\"\nreviewed = " + BIG + "\n"}]),
    dict(id="explore.resume_state_seed_of_5000_digits", argv=["{ptxcts}", "explore", "--resume", "{tmp}/ex",
                                                              "--device", "model", "--cases-file", "none"],
         names=["{tmp}/ex/explore.json"],
         files=[{"path": "ex/explore.json", "copy": EXPLORE_DOC, "replace": ["\"seed\": 20261130", "\"seed\": " + BIG]}]),
    dict(id="run.rejudge_duration_past_a_double", argv=["{ptxcts}", "run", "--rejudge", "{tmp}/a.json"],
         names=["{tmp}/a.json"], files=[{"path": "a.json", "copy": SHARD, "replace": ["\"duration_ms\": 0.8",
                                                                                      "\"duration_ms\": 1e400"]}]),
    dict(id="run.resume_args_number_past_a_double", argv=["{ptxcts}", "run", "--resume", "{tmp}/r"],
         names=["run-args.json"], files=[{"path": "r/results.json", "copy": SHARD},
                                         {"path": "r/run-args.json", "text": "{\"args\": [\"--timeout\", \"5\"], "
                                          "\"toolchain\": \"13.0\", \"timeout\": 1e999}\n"}]),
    dict(id="fleet.plan_probe_every_nan", argv=["{ptxcts}", "fleet", "submit", "--slurm", "{tmp}/plan.toml",
                                               "--dry-run"], names=["probe_every"],
         files=[{"path": "plan.toml", "text": PLAN + "[tiers.run]\n[devices.d]\nconstraint = \"h100\"\n"
                 "probe = [\"nvidia-smi\", \"-L\"]\nprobe_every = nan\n"}]),
    dict(id="fleet.plan_shards_inf", argv=["{ptxcts}", "fleet", "submit", "--slurm", "{tmp}/plan.toml", "--dry-run"],
         names=["shards"], files=[{"path": "plan.toml", "text": PLAN + "[tiers.run]\nshards = inf\n[devices.d]\n"
                                   "constraint = \"h100\"\n"}]),
    # documents of a future version or another schema
    dict(id="gate.baseline_of_a_future_version", argv=["{ptxcts}", "gate", "{tmp}/run", "--baseline", "{tmp}/b.json"],
         names=["{tmp}/b.json", "version"],
         files=[{"path": "run/results.json", "copy": RUN},
                {"path": "b.json", "copy": "harness/results/tests/fixtures/baselines/compile.json",
                 "replace": ["\"version\": 1", "\"version\": 7"]}]),
    dict(id="report.selftest_of_a_future_version", argv=["{ptxcts}", "report", "{tmp}/run", "--out", "{tmp}/rep",
                                                        "--selftest", "{tmp}/s.json"], names=["{tmp}/s.json", "9"],
         files=[{"path": "run/results.json", "copy": RUN},
                {"path": "s.json", "text": SELFTEST_DOC.replace("\"version\": 1", "\"version\": 9")}]),
    dict(id="fleet.status_record_of_a_future_version", argv=["{ptxcts}", "fleet", "status", "{tmp}/r"],
         names=["{tmp}/r/fleet.json", "version"],
         files=[{"path": "r/fleet.json", "text": FLEET_DOC.replace("\"version\": 1", "\"version\": 2")}]),
    dict(id="explore.resume_state_of_the_results_schema", argv=["{ptxcts}", "explore", "--resume", "{tmp}/ex",
                                                                "--device", "model", "--cases-file", "none"],
         names=["{tmp}/ex/explore.json", "schema"],
         files=[{"path": "ex/explore.json", "copy": EXPLORE_DOC, "replace": ["\"schema\": \"ptxcts-explore\"",
                                                                            "\"schema\": \"ptxcts-results\""]}]),
    dict(id="frontend.compare_a_future_results_version", argv=["{ptxcts}", "frontend", "compare", "{tmp}/r"],
         names=["{tmp}/r", "version"], files=[{"path": "r/results.json", "copy": SHARD,
                                               "replace": ["\"version\": 1", "\"version\": 3"]}]),
    dict(id="stale.rundoc_of_a_future_version", argv=["{ptxcts}", "stale", "{tmp}/run"],
         names=["{tmp}/run", "version"], files=[{"path": "run/results.json", "copy": SHARD,
                                                 "replace": ["\"version\": 1", "\"version\": 3"]}]),
    dict(id="run.rejudge_a_future_version", argv=["{ptxcts}", "run", "--rejudge", "{tmp}/a.json"],
         names=["{tmp}/a.json", "version"], files=[{"path": "a.json", "copy": SHARD,
                                                    "replace": ["\"version\": 1", "\"version\": 3"]}]),
    # keys given twice
    dict(id="run.rejudge_a_key_twice", argv=["{ptxcts}", "run", "--rejudge", "{tmp}/a.json"],
         names=["{tmp}/a.json", "tier"], files=[{"path": "a.json", "copy": SHARD,
                                                 "replace": ["\"tier\": \"run\"", "\"tier\": \"run\", \"tier\": \"run\""]}]),
    dict(id="explore.resume_state_a_key_twice", argv=["{ptxcts}", "explore", "--resume", "{tmp}/ex", "--device",
                                                      "model", "--cases-file", "none"],
         names=["{tmp}/ex/explore.json", "seed"],
         files=[{"path": "ex/explore.json", "copy": EXPLORE_DOC, "replace": ["\"seed\": 20261130",
                                                                            "\"seed\": 20261130, \"seed\": 1"]}]),
    dict(id="run.resume_args_a_key_twice", argv=["{ptxcts}", "run", "--resume", "{tmp}/r"],
         names=["run-args.json", "toolchain"],
         files=[{"path": "r/results.json", "copy": SHARD},
                {"path": "r/run-args.json", "text": ARGS_DOC.replace("\"toolchain\": \"13.0\"",
                                                                     "\"toolchain\": \"13.0\", \"toolchain\": \"12.4\"")}]),
    dict(id="fleet.plan_a_table_twice", argv=["{ptxcts}", "fleet", "submit", "--slurm", "{tmp}/plan.toml", "--dry-run"],
         names=["{tmp}/plan.toml"], files=[{"path": "plan.toml", "text": PLAN + "[tiers.compile]\n[tiers.compile]\n"}]),
    dict(id="report.selftest_a_key_twice", argv=["{ptxcts}", "report", "{tmp}/run", "--out", "{tmp}/rep",
                                                 "--selftest", "{tmp}/s.json"], names=["{tmp}/s.json", "version"],
         files=[{"path": "run/results.json", "copy": RUN},
                {"path": "s.json", "text": SELFTEST_DOC.replace("\"version\": 1", "\"version\": 1, \"version\": 1")}]),
    # fields of the wrong type
    dict(id="gate.waiver_case_an_integer", argv=["{ptxcts}", "gate", "{tmp}/run", "--waivers", "{tmp}/w.toml"],
         names=["{tmp}/w.toml", "case"],
         files=[{"path": "run/results.json", "copy": RUN},
                {"path": "w.toml", "text": WAIVER.replace("case = \"cp.async/*\"", "case = 5") + "expires = 2030-01-01\n"}]),
    dict(id="gate.waiver_link_a_table", argv=["{ptxcts}", "gate", "{tmp}/run", "--waivers", "{tmp}/w.toml"],
         names=["{tmp}/w.toml", "link"],
         files=[{"path": "run/results.json", "copy": RUN},
                {"path": "w.toml", "text": WAIVER.replace("link = \"https://example.invalid/1\"", "link = {a = 1}")
                 + "expires = 2030-01-01\n"}]),
    dict(id="compile.expectations_cases_a_string", argv=["{ptxcts}", "compile", "--expectations", "{tmp}/exp.toml",
                                                         "--limit", "1", "--out", "{tmp}/o"],
         names=["{tmp}/exp.toml", "cases"],
         files=[{"path": "exp.toml", "copy": "results/expectations/ptxas.toml",
                 "replace": ["cases = [\"cp.async/*.shared_cta.global*@*.ptx7[0-7]\"]",
                             "cases = \"cp.async/*.shared_cta.global*@*.ptx7[0-7]\""]}]),
    dict(id="fleet.plan_devices_a_list", argv=["{ptxcts}", "fleet", "submit", "--slurm", "{tmp}/plan.toml", "--dry-run"],
         names=["devices"], files=[{"path": "plan.toml", "text": PLAN + "devices = [\"h100\"]\n[tiers.run]\n"}]),
    dict(id="fleet.plan_tier_args_a_string", argv=["{ptxcts}", "fleet", "submit", "--slurm", "{tmp}/plan.toml",
                                                  "--dry-run"], names=["args"],
         files=[{"path": "plan.toml", "text": PLAN + "[tiers.compile]\nargs = \"--limit 1\"\n"}]),
    dict(id="fleet.status_jobs_an_object", argv=["{ptxcts}", "fleet", "status", "{tmp}/r"],
         names=["{tmp}/r/fleet.json", "jobs"],
         files=[{"path": "r/fleet.json", "text": FLEET_DOC.replace("\"jobs\": []", "\"jobs\": {}")}]),
    dict(id="gate.baseline_source_a_string", argv=["{ptxcts}", "gate", "{tmp}/run", "--baseline", "{tmp}/b.json"],
         names=["{tmp}/b.json", "source"],
         files=[{"path": "run/results.json", "copy": RUN},
                {"path": "b.json", "copy": "harness/results/tests/fixtures/baselines/compile.json",
                 "replace": ["\"source\": {", "\"source\": \"ci\", \"source_was\": {"]}]),
    # a run folder holding something else under a document's name
    dict(id="validate.results_json_a_folder", argv=["{ptxcts}", "validate", "{tmp}/run"],
         names=["{tmp}/run/results.json"], files=[{"path": "run/results.json/x", "text": "{}\n"}]),
    dict(id="gate.run_results_json_a_folder_beside_its_gz", argv=["{ptxcts}", "gate", "{tmp}/run"],
         names=["{tmp}/run/results.json"],
         files=[{"path": "run/results.json/x", "text": "{}\n"}, {"path": "run/results.json.gz", "copy": RUN,
                                                                   "gzip": True}]),
    dict(id="report.run_with_an_empty_results_json_below", argv=["{ptxcts}", "report", "{tmp}/run", "--out", "{tmp}/rep"],
         names=["{tmp}/run/old/results.json"], files=[{"path": "run/results.json", "copy": RUN},
                                                      {"path": "run/old/results.json", "text": ""}]),
    # shards that overlap
    dict(id="merge.two_shards_with_one_index", argv=["{ptxcts}", "merge", "{tmp}/a", "{tmp}/b", "--out", "{tmp}/m",
                                                    "--run-id", "x"], names=["index"],
         files=[{"path": "a/results.json", "copy": SHARD},
                {"path": "b/results.json", "copy": SHARD1, "replace": ["\"index\": 1", "\"index\": 0"]}]),
    dict(id="merge.shards_with_the_same_cases", argv=["{ptxcts}", "merge", "{tmp}/a", "{tmp}/b", "--out", "{tmp}/m",
                                                     "--run-id", "x"], names=["{tmp}/b/results.json"],
         files=[{"path": "a/results.json", "copy": SHARD},
                {"path": "b/results.json", "copy": SHARD, "replace": ["\"index\": 0", "\"index\": 1"]}]),
    dict(id="gate.shards_with_the_same_cases", argv=["{ptxcts}", "gate", "{tmp}/h"], names=["{tmp}/h/shard-1"],
         files=[{"path": "h/shard-0/results.json", "copy": SHARD},
                {"path": "h/shard-1/results.json", "copy": SHARD, "replace": ["\"index\": 0", "\"index\": 1"]}]),
    # case IDs no model knows
    dict(id="run.rejudge_a_case_of_no_form", argv=["{ptxcts}", "run", "--rejudge", "{tmp}/a.json"],
         names=["cp.async/no.such.form"], files=[{"path": "a.json", "copy": SHARD1, "replace": [
             "\"id\": \"cp.async.bulk.tensor/2d.shared_cluster.global.tile.mbarrier_complete_tx_bytes#box_64x8.coords_0_0\"",
             "\"id\": \"cp.async/no.such.form#box_64x8.coords_0_0\""]}]),
    dict(id="stale.rundoc_a_case_of_no_form", argv=["{ptxcts}", "stale", "{tmp}/run"], names=["cp.async/no.such.form"],
         files=[{"path": "run/results.json", "copy": SHARD1, "replace": [
             "\"id\": \"cp.async.bulk.tensor/2d.shared_cluster.global.tile.mbarrier_complete_tx_bytes#box_64x8.coords_0_0\"",
             "\"id\": \"cp.async/no.such.form#box_64x8.coords_0_0\""]}]),
    # a working folder deleted under the command
    dict(id="cases.working_folder_deleted", argv=gone("{ptxcts} cases --count"), names=["{tmp}/d"]),
    dict(id="compile.out_relative_working_folder_deleted", argv=gone("{ptxcts} compile --limit 1 --out o"),
         names=["{tmp}/d"]),
    dict(id="validate.relative_run_working_folder_deleted", argv=gone("{ptxcts} validate run"), names=["{tmp}/d"]),
    dict(id="run.out_relative_working_folder_deleted", argv=gone(RUN_BIN + " --device model --family "
                                                                 "cp.async.bulk.prefetch --out o"), names=["{tmp}/d"]),
    dict(id="results.gate_relative_working_folder_deleted",
         argv=gone("env PYTHONPATH={root}/generator:{root}/harness {python} -m results gate run"), names=["{tmp}/d"]),
    # each layer's own command line, given what ./ptxcts refuses
    dict(id="layer.compile_jobs_zero", argv=["{python}", "-m", "compile", "--jobs", "0", "--out", "{tmp}/o"],
         cwd="{root}/harness", env={"PYTHONPATH": "{root}/generator"}, names=["--jobs"]),
    dict(id="layer.compile_without_the_generator_on_the_path", argv=["{python}", "-m", "compile", "--jobs", "0"],
         cwd="{root}/harness", env={"PYTHONPATH": ""}, names=["--jobs"]),
    dict(id="layer.toolchains_cache_blank", argv=["{python}", "-m", "toolchains", "list"], cwd="{root}/harness",
         env={"PYTHONPATH": "{root}/generator", "PTXCTS_TOOLCHAIN_CACHE": "  "}, names=["PTXCTS_TOOLCHAIN_CACHE"]),
    dict(id="layer.generator_family_unknown", argv=["{python}", "-m", "ptxcts_gen", "cases", "--family", "cp.nope"],
         cwd="{root}/generator", names=["cp.nope"]),
    dict(id="layer.run_binary_jobs_hex", argv=[RUN_BIN, "--jobs", "0x4", "--list"], names=["--jobs"]),
    dict(id="layer.explore_binary_out_blank", argv=[EXPLORE_BIN, "--device", "model", "--cases", "3", "--out", "  "],
         names=["--out"]),
    dict(id="layer.selftest_repeat_a_float", argv=["{python}", "-m", "selftest.selftest", "--repeat", "2.5"],
         cwd="{root}/harness", env={"PYTHONPATH": "{root}/generator"}, names=["--repeat"]),
    # option values: 100 KB, past PATH_MAX, a leading '-', bytes that are not UTF-8, '=' inside
    dict(id="merge.run_id_of_100_kb", argv=["{ptxcts}", "merge", "{tmp}/a", "--out", "{tmp}/m", "--run-id",
                                            "r" * 100000], names=["--run-id"],
         files=[{"path": "a/results.json", "copy": RUN}]),
    dict(id="compile.out_past_path_max", argv=["{ptxcts}", "compile", "--limit", "1", "--out", "{tmp}/" + "a/" * 2100],
         names=["--out"]),
    dict(id="run.out_past_path_max", argv=["{ptxcts}", "run", "--device", "model", "--family",
                                           "cp.async.bulk.prefetch", "--out", "{tmp}/" + "a/" * 2100], names=["--out"]),
    dict(id="env.toolchain_of_100_kb_for_compile", argv=["{ptxcts}", "compile", "--limit", "1", "--out", "{tmp}/o"],
         env={"PTXCTS_TOOLCHAIN": "t" * 100000}, names=["PTXCTS_TOOLCHAIN"]),
    dict(id="run.case_of_100_kb", argv=["{ptxcts}", "run", "--case", "c" * 100000, "--list"], names=["--case"]),
    dict(id="explore.out_a_leading_dash", argv=["{ptxcts}", "explore", "--device", "model", "--cases", "3", "--out",
                                                "-e"], names=["--out"]),
    dict(id="gate.json_a_leading_dash", argv=["{ptxcts}", "gate", "{tmp}/run", "--json", "-j"], names=["--json"],
         files=[{"path": "run/results.json", "copy": RUN}]),
    dict(id="report.title_not_utf8", argv=["{ptxcts}", "report", "{tmp}/run", "--out", "{tmp}/rep", "--title",
                                           "caf\udce9"], names=["--title"],
         files=[{"path": "run/results.json", "copy": RUN}]),
    dict(id="merge.out_not_utf8_under_a_file", argv=["{ptxcts}", "merge", "{tmp}/a", "--out", "{tmp}/afile/\udcff",
                                                     "--run-id", "x"], names=["{tmp}/afile/"],
         files=[{"path": "a/results.json", "copy": RUN}, {"path": "afile", "text": "x\n"}]),
    dict(id="run.device_name_not_utf8", argv=["{ptxcts}", "run", "--device", "model", "--device-name", "gpu\udcff",
                                              "--family", "cp.async.bulk.prefetch", "--out", "{tmp}/o"],
         names=["--device-name"]),
    dict(id="gate.today_equals_inside", argv=["{ptxcts}", "gate", "{tmp}/run", "--today=2026-01-01=x"],
         names=["2026-01-01=x"], files=[{"path": "run/results.json", "copy": RUN}]),
    # numeric options not tried yet
    dict(id="run.timeout_infinite", argv=["{ptxcts}", "run", "--timeout", "inf", "--list"], names=["--timeout"]),
    dict(id="run.deadline_equals_empty", argv=["{ptxcts}", "run", "--deadline=", "--list"], names=["--deadline"]),
    dict(id="explore.cases_a_float", argv=["{ptxcts}", "explore", "--cases", "1.5", "--device", "model", "--out",
                                           "{tmp}/e"], names=["--cases"]),
    dict(id="explore.shrink_time_infinite", argv=["{ptxcts}", "explore", "--shrink-time", "inf", "--device", "model",
                                                  "--cases", "3", "--out", "{tmp}/e"], names=["--shrink-time"]),
    dict(id="litmus.iters_hex", argv=["{ptxcts}", "litmus", "--iters", "0x10"], names=["--iters"]),
    dict(id="selftest.budget_nan", argv=["{ptxcts}", "selftest", "--budget", "nan"], names=["--budget"]),
    dict(id="selftest.seed_negative", argv=["{ptxcts}", "selftest", "--seed", "-1"], names=["--seed"]),
    dict(id="gate.list_empty", argv=["{ptxcts}", "gate", "{tmp}/run", "--list", ""], names=["--list"],
         files=[{"path": "run/results.json", "copy": RUN}]),
    dict(id="diff.examples_a_float", argv=["{ptxcts}", "diff", "{tmp}/a", "{tmp}/a", "--examples", "1.5"],
         names=["--examples"], files=[{"path": "a/results.json", "copy": RUN}]),
    dict(id="compile.limit_of_5000_digits", argv=["{ptxcts}", "compile", "--limit", BIG, "--out", "{tmp}/o"],
         names=["--limit"]),
    dict(id="lower.jobs_negative", argv=["{ptxcts}", "lower", "--jobs", "-1", "--out", "{tmp}/o"], names=["--jobs"]),
    dict(id="lower.module_size_zero", argv=["{ptxcts}", "lower", "--module-size", "0", "--out", "{tmp}/o"],
         names=["--module-size"]),
    dict(id="build.jobs_hex", argv=["{ptxcts}", "build", "-j", "0x2"], names=["-j"]),
    dict(id="matrix.jobs_a_float", argv=["{ptxcts}", "matrix", "--toolchains", "13.0", "-j", "1.5", "--out", "{tmp}/m"],
         names=["-j"]),
    dict(id="test.timeout_nan", argv=["{ptxcts}", "test", "--timeout", "nan"], names=["--timeout"]),
    dict(id="modules.max_entries_a_float", argv=["{ptxcts}", "modules", "--target", "sm_90", "--ptx", "8.6",
                                                 "--max-entries", "2.5", "--out", "{tmp}/o"], names=["--max-entries"]),
    # the deprecated PTXCTS_PTXAS
    dict(id="env.ptxas_deprecated_blank_for_run", argv=["{ptxcts}", "run", "--device", "model", "--family",
                                                        "cp.async.bulk.prefetch", "--out", "{tmp}/o"],
         env={"PTXCTS_PTXAS": "  "}, names=["PTXCTS_PTXAS"]),
    dict(id="env.ptxas_deprecated_a_folder_for_run", argv=["{ptxcts}", "run", "--device", "model", "--family",
                                                           "cp.async.bulk.prefetch", "--out", "{tmp}/o"],
         env={"PTXCTS_PTXAS": "{tmp}/d"}, names=["PTXCTS_PTXAS"], files=[{"path": "d", "dir": True}]),
    # GPU verbs, no GPU here, CUDA_VISIBLE_DEVICES odd: exit 77 naming why is right, 0 is not
    dict(id="run.cuda_visible_not_an_index", argv=["{ptxcts}", "run", "--family", "cp.async.bulk.prefetch", "--out",
                                                  "{tmp}/o"], env={"CUDA_VISIBLE_DEVICES": "abc"},
         names=["skipped, no GPU here"], skip=True),
    dict(id="litmus.cuda_visible_blank", argv=["{ptxcts}", "litmus", "--case", "cp_async.wait_group"],
         env={"CUDA_VISIBLE_DEVICES": "  "}, names=["skipped, no GPU here", "CUDA_VISIBLE_DEVICES"], skip=True),
    dict(id="explore.cuda_visible_minus_one", argv=["{ptxcts}", "explore", "--cases", "3", "--out", "{tmp}/e"],
         env={"CUDA_VISIBLE_DEVICES": "-1"}, names=["skipped, no GPU here"], skip=True),
    dict(id="selftest.cuda_visible_an_unknown_uuid", argv=["{ptxcts}", "selftest", "--kind", "redop", "--out",
                                                           "{tmp}/s"], env={"CUDA_VISIBLE_DEVICES": "GPU-00000000"},
         names=["skipped, no GPU here"], skip=True),
]


def key(r):
    """An input as the table would hold it: its argv, environment and prepared files, placeholders as written."""
    return (tuple(r["argv"]), tuple(sorted(r.get("env", {}).items())), json.dumps(r.get("files", []), sort_keys=True))


FOUND_HERE = "found by the fresh set"   # a row's note: the table took it from this set once it was fixed


def table_keys():
    return {key(r) for r in table.load_rows() if not r.get("note", "").startswith(FOUND_HERE)}


_HARNESS = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path[:0] = [_HARNESS, os.path.join(os.path.dirname(_HARNESS), "generator")]
from framework.documents.runio import RUN_FILES as RUN_DOCS  # noqa: E402  (a run folder's documents)


def replaced_runs(before, after):
    """A run folder the input prepared that now holds another run document beside (or instead of) its own: what
    it held was replaced or mixed with an output, even where the prepared file itself is intact."""
    held = {os.path.dirname(k) for k, v in before.items() if os.path.basename(k) in RUN_DOCS and v != "dir"}
    return [f"{k}: written into the prepared run folder {os.path.dirname(k) or '.'}, whose run was changed"
            for k in after if k not in before and os.path.basename(k) in RUN_DOCS and os.path.dirname(k) in held]


def classify(inp, problems, rc, err, out):
    lost = [p for p in problems if p.endswith(("was changed", "was removed"))]
    if lost:
        return "lost", "; ".join(lost)
    if any(m in err or m in out for m in table.CRASH_MARKS) or rc == 70 or "internal error" in err or \
            (rc is not None and (rc < 0 or rc > 128)):
        return "crash", f"exit {rc}"
    if rc in (0, 1):
        return "silent", f"exit {rc}"
    missing = [f for f in inp["names"] if f not in err]
    # a GPU verb on a host without a GPU (`skip`): its right answer is the skip, 77, saying why (docs/CLI.md)
    if rc in ((77,) if inp.get("skip") else (2, 3)) and not missing:
        return "clear", ""
    return "unclear", f"exit {rc}" + (f"; the message lacks {missing}" if missing else "")


def check(inp):
    row = dict(inp, verb=inp["id"].split(".")[0], exit=2, message=[])
    tmp = tempfile.mkdtemp(prefix="ptxcts-fresh-")
    t0 = time.monotonic()
    try:
        table.prepare(row, tmp)
        if "setup" in row:   # what the table's files cannot make: a FIFO, a symbolic link
            subprocess.run(["bash", "-c", table.subst(row["setup"], tmp)], cwd=tmp, check=True)
        before = table.snapshot(tmp)
        env = table.base_env()
        env["PTXCTS_RESCUE"] = os.path.join(tmp, "rescue")   # a rescued document stays in the input's folder
        for k, v in row.get("env", {}).items():
            env[k] = table.subst(v, tmp)
        p = table._start([table.subst(a, tmp) for a in row["argv"]], env, table.subst(row.get("cwd", "{tmp}"), tmp))
        end = table._finish(p, "", TIMEOUT_S)
        if end is None:
            return inp, "silent", f"ran past {TIMEOUT_S} s (it hangs, or real work started)", "", time.monotonic() - t0
        rc, out, err = end
        after = table.snapshot(tmp)
        problems = [f"{k} was removed" if k not in after else f"{k} was changed"
                    for k, v in before.items() if after.get(k) != v]
        problems += replaced_runs(before, after)
        names = [table.subst(f, tmp) for f in inp["names"]]
        kind, why = classify(dict(inp, names=names), problems, rc, err, out)
        first = next((ln for ln in err.splitlines() if ln.strip() and not ln.startswith(("usage:", " "))), "")
        return inp, kind, why, first.replace(tmp, "{tmp}")[:220], time.monotonic() - t0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run_set(inputs, hogs, jobs=2):
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(hogs)]
    try:
        with cf.ThreadPoolExecutor(max_workers=jobs) as pool:
            return list(pool.map(check, inputs))
    finally:
        for h in procs:
            h.kill()
            h.wait()


KINDS = ("clear", "unclear", "silent", "crash", "lost")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hogs", type=int, default=3, help="CPU hogs for the loaded pass (default 3)")
    ap.add_argument("--md", help="write the two passes' table here (results/bench/<date>-bad-inputs-fresh.md)")
    ap.add_argument("--batch", choices=("1-2", "3", "4", "5", "6", "7", "8", "all"), default="all",
                    help="the first two batches (their findings fixed), the third to the eighth (each measured once "
                    "before its fixes), or all")
    ap.add_argument("only", nargs="*")
    a = ap.parse_args()
    if not table.build_dir():
        sys.exit("fresh_set: PTXCTS_BUILD must name the build folder")
    seen = table_keys()
    dup = [i["id"] for i in INPUTS + THIRD + FOURTH + FIFTH + SIXTH + SEVENTH + EIGHTH if key(i) in seen]
    if dup:
        sys.exit(f"fresh_set: these inputs are rows of the table, not fresh: {dup}")
    if len({i["id"] for i in INPUTS + THIRD + FOURTH + FIFTH + SIXTH + SEVENTH + EIGHTH}) != len(INPUTS + THIRD + FOURTH + FIFTH + SIXTH + SEVENTH + EIGHTH):
        sys.exit("fresh_set: an id twice")
    pool = {"1-2": INPUTS, "3": THIRD, "4": FOURTH, "5": FIFTH, "6": SIXTH, "7": SEVENTH, "8": EIGHTH, "all": INPUTS + THIRD + FOURTH + FIFTH + SIXTH + SEVENTH + EIGHTH}[a.batch]
    inputs = [i for i in pool if not a.only or any(s in i["id"] for s in a.only)]
    passes = {}
    for name, hogs in (("quiet", 0), ("loaded", a.hogs)):
        t0 = time.monotonic()
        res = run_set(inputs, hogs)
        passes[name] = (res, time.monotonic() - t0, hogs)
        counts = {k: sum(1 for r in res if r[1] == k) for k in KINDS}
        sys.stderr.write(f"{name} ({hogs} hogs): {len(res)} inputs in {passes[name][1]:.0f} s: "
                         + ", ".join(f"{k} {v}" for k, v in counts.items())
                         + f" -- {100.0 * counts['clear'] / max(1, len(res)):.1f} % clear\n")
        for inp, kind, why, first, _ in res:
            if kind != "clear":
                sys.stderr.write(f"  {kind:8s} {inp['id']}: {why}: {first}\n")
    if a.md:
        write_md(a.md, inputs, passes)
    bad = any(r[1] != "clear" for res, _, _ in passes.values() for r in res)
    return 1 if bad else 0


def write_md(path, inputs, passes):
    lines = ["# Fresh bad inputs: how the suite meets inputs not in its table", "",
             f"{len(inputs)} inputs (harness/tests/bad_inputs/fresh_set.py), none of them a row of "
             "harness/tests/bad_inputs/rows.toml; each run in a fresh temporary folder, two at a time. "
             f"Machine: {os.cpu_count()} CPUs. Measured "
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.", "",
             "| pass | CPU hogs | inputs | clear | unclear | silent | crash | lost | clear % | seconds |",
             "|------|---------:|-------:|------:|--------:|-------:|------:|-----:|--------:|--------:|"]
    for name, (res, secs, hogs) in passes.items():
        c = {k: sum(1 for r in res if r[1] == k) for k in KINDS}
        lines.append(f"| {name} | {hogs} | {len(res)} | {c['clear']} | {c['unclear']} | {c['silent']} | "
                     f"{c['crash']} | {c['lost']} | {100.0 * c['clear'] / max(1, len(res)):.1f} | {secs:.0f} |")
    lines += ["", "Classes: clear = exit 2/3 naming the input; unclear = exit 2/3 not naming it, or another "
              "non-crash exit; silent = exit 0/1 (accepted); crash = traceback, terminate, exit 70 or a signal; "
              "lost = a prepared file changed or removed.", "", "## Every input (loaded pass)", "",
              "| input | class | exit / why | first line of the message |", "|---|---|---|---|"]
    res = passes.get("loaded", next(iter(passes.values())))[0]
    for inp, kind, why, first, _ in res:
        lines.append(f"| {inp['id']} | {kind} | {why or ('exit 77' if inp.get('skip') else 'exit 2/3')} | "
                     f"{first.replace('|', '/')} |")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
