"""The one error of the toolchains layer, with the exit code the command line gives it."""
from framework.boundary import EXIT_INPUT, EXIT_USAGE, VerbError

USAGE = EXIT_USAGE       # an unknown name, a path that is not a working ptxas, a toolchain that is not installed
MALFORMED = EXIT_INPUT   # a malformed catalog or description, a wheel that fails its checksum


class ToolchainError(VerbError):
    code = USAGE


def cache_entry(root, name, what="toolchain"):
    """root/name, the cache's folder for an install of `name`; ToolchainError (usage) when something there is not a
    folder (a file left by hand, a broken link): neither "not installed" nor a failed removal later says what is
    wrong."""
    import os
    d = os.path.join(root, name)
    if os.path.lexists(d) and not os.path.isdir(d):
        kind = "a broken link" if os.path.islink(d) and not os.path.exists(d) else "a file"
        raise ToolchainError(f"{d}: the cache's entry for {what} {name} is {kind}, not the folder an install makes "
                             f"(remove it, then install {name} again)", USAGE)
    return d
