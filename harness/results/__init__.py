"""ptx-cts results: the result document (schema), JUnit XML, merging of runs and shards, the coverage report,
the regression gate against baselines and waivers, and repro bundles. Standard library only.

For the tiers: `from results import write_run; write_run(out_dir, doc)` writes results.json + junit.xml.
"""
from .schema import SCHEMA, VERSION, CLASSES, FINDINGS, validate, load, result_key, key_text  # noqa: F401
from .writer import write_run  # noqa: F401
