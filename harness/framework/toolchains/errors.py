"""The one error of the toolchains layer, with the exit code the command line gives it."""
from framework.boundary import EXIT_INPUT, EXIT_USAGE, VerbError

USAGE = EXIT_USAGE       # an unknown name, a path that is not a working ptxas, a toolchain that is not installed
MALFORMED = EXIT_INPUT   # a malformed catalog or description, a wheel that fails its checksum


class ToolchainError(VerbError):
    code = USAGE
