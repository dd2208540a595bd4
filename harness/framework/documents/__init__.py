"""Result documents: the result document (schema) and its one writer (JUnit XML beside it), atomic writes and the
output lock, JSON with locations, merging runs and shards, baselines, waivers, reviewed expectations and findings,
and the lowering tier's keys. Standard library only.

For the tiers:
    from framework.documents import new_run_id, OutputLock, write_run, mark_partial, atomic_write
    run_id = new_run_id("compile")          # sortable, unique: 2026-11-22T19-31-31.123Z-compile-4f2a9c
    with OutputLock(out):                   # exclusive; UsageError (exit 2) naming the holder's pid
        write_run(out, doc)                 # validated, atomic results.json + junit.xml, one case per line
    mark_partial(doc, "interrupted by SIGINT", done, total)   # before write_run, for a run that stopped early
"""
from .schema import (SCHEMA, VERSION, CLASSES, FINDINGS, validate, load, result_key, key_text,  # noqa: F401
                     toolchain_name)
from .writer import write_run  # noqa: F401
from .runio import (new_run_id, OutputLock, atomic_write, finished_time, interrupted_run, mark_partial,  # noqa: F401
                    refuse_existing_run, same_file)
