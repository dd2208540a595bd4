"""The errors `./ptxcts fleet` expects: each ends the verb with one line naming the input, and an exit code
(docs/CLI.md): 2 for usage (an unknown tier, device or toolchain, a results folder that cannot be used, a
scheduler that is missing or unreachable, a job that is not the plan's), 3 for a malformed file."""
from framework import boundary


class FleetError(boundary.VerbError):
    """A usage error: exit 2."""
    code = boundary.EXIT_USAGE


class MalformedFile(boundary.VerbError):
    """A plan or a record of the results tree that is not TOML/JSON or has a field of the wrong type: exit 3."""
    code = boundary.EXIT_INPUT
