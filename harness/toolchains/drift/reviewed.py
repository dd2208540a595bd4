"""The reviewed list of the drift detector (results/expectations/drift.toml): spellings a toolchain accepts that
the model does not know, each with the toolchains it was reviewed for and the reason."""
import fnmatch
import os
from framework import paths
from framework.boundary import VerbError
from framework.documents import tomldoc
from framework.toolchains import ToolchainError
from framework.toolchains.errors import MALFORMED


def load_reviewed(path=None):
    """[{id, spellings (globs), unless (globs), toolchains (globs), targets and verdicts (optional), reason}] of
    results/expectations/drift.toml (or `path`)."""
    path = path or os.path.join(paths.root(), "results", "expectations", "drift.toml")
    if not os.path.exists(path):
        return []
    try:
        doc = tomldoc.read(path)   # the file and line named: not TOML, not UTF-8, a FIFO, nested too deeply
    except OSError as e:
        raise ToolchainError(f"{path}: {e.strerror or e}", MALFORMED) from None
    except VerbError as e:
        raise ToolchainError(str(e), MALFORMED) from None
    out = []
    for i, e in enumerate(doc.get("listed", [])):
        for k in ("id", "spellings", "toolchains", "reason"):
            if k not in e:
                raise ToolchainError(f"{path}: [[listed]] #{i + 1} has no '{k}'", MALFORMED)
        out.append(e)
    return out


def reviewed_for(entries, toolchain, spelling, target, verdict):
    for e in entries:
        if not any(fnmatch.fnmatchcase(toolchain, g) for g in e["toolchains"]):
            continue
        if e.get("verdicts") and verdict not in e["verdicts"]:
            continue
        if e.get("targets") and not any(fnmatch.fnmatchcase(target, g) for g in e["targets"]):
            continue
        if any(fnmatch.fnmatchcase(spelling, g) for g in e.get("unless", ())):
            continue
        if any(fnmatch.fnmatchcase(spelling, g) for g in e["spellings"]):
            return e
    return None
