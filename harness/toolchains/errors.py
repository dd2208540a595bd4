"""The one error of the toolchains layer, with the exit code the command line gives it."""
USAGE = 2       # an unknown name, a path that is not a working ptxas, a toolchain that is not installed
MALFORMED = 3   # a malformed catalog or description, a wheel that fails its checksum


class ToolchainError(Exception):
    def __init__(self, message, code=USAGE):
        super().__init__(message)
        self.code = code
