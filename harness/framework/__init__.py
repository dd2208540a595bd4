"""The framework every tier runs on: what the tiers share, so that a tier imports the framework and the generator's
public interface (ptxcts_gen), never another tier (docs/ARCHITECTURE.md, "Layers").

    boundary        the error boundary every verb runs inside; `python3 -m framework MODULE ARGS` (__main__)
    manifest        reading the generator's manifest (generated/manifest/)
    modules         modules of many cases, assembled by the generator, and the map of their lines to the cases
    progress        the progress lines of a long run (done/total, rate, time left)
    pool            the worker pool: its size, and how it stops on an interrupt
    documents/      result documents: schema, writer, JUnit, atomic writes and locks, JSON locations, merging runs,
                    baselines, waivers, reviewed expectations and findings, lowering keys
    toolchains/     the toolchains under test: descriptions, resolving, installing, and calling ptxas, nvJitLink and
                    nvdisasm (with their diagnostics and listings)
    lowering/       SASS judged by the generator's lowering rules (the lowering tier's verdict, and the self-test's)
"""

import importlib.util as _util
import os as _os
import sys as _sys

# A layer started on its own (`python3 -m compile` in harness/, docs/CLI.md) without the generator on PYTHONPATH:
# the generator is the checkout's generator/, beside harness/ -- found there rather than ending in an import
# traceback before the error boundary exists.
if _util.find_spec("ptxcts_gen") is None:
    _sys.path.append(_os.path.join(_os.path.dirname(_os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))),
                                   "generator"))

