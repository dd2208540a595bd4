"""The one error of the front-end tier, with the exit code the command line gives it."""
from framework.boundary import EXIT_INPUT, EXIT_USAGE, VerbError

USAGE = EXIT_USAGE       # an unknown front-end name, a front-end not installed, a wheel missing offline
MALFORMED = EXIT_INPUT   # a malformed catalog, description or mapping entry; a library that fails to load; a bad
                         # checksum


class FrontendError(VerbError):
    code = USAGE
