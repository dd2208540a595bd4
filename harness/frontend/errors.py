"""The one error of the front-end tier, with the exit code the command line gives it."""
USAGE = 2       # an unknown front-end name, a front-end not installed, a wheel missing offline
MALFORMED = 3   # a malformed catalog, description or mapping entry; a library that fails to load; a bad checksum


class FrontendError(Exception):
    def __init__(self, message, code=USAGE):
        super().__init__(message)
        self.code = code
