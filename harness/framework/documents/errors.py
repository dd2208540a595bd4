"""Exit codes of the results tools and the errors that carry them.

0  success (gate: no unwaived regression)
1  gate: at least one unwaived regression (or a missing case, unless --partial)
2  usage: bad arguments, a path that does not exist, no baseline for the run's architecture
3  malformed or inconsistent input: a results.json, baseline, waiver file or repro bundle that breaks its
   format (the message names the file, the line and the field), an unknown schema version, a merge conflict,
   a shard missing where the verb needs a complete run, a bundle over the size limit
"""
from framework.boundary import EXIT_INPUT, EXIT_USAGE, VerbError

EXIT_OK = 0
EXIT_REGRESSION = 1


class ResultsError(VerbError):
    """Base: an error the CLI prints as one message and turns into an exit code."""
    exit_code = EXIT_INPUT

    @property
    def code(self):
        """The exit code, as boundary.VerbError names it."""
        return self.exit_code


class UsageError(ResultsError):
    exit_code = EXIT_USAGE


class InputError(ResultsError):
    """A file that breaks its format. Rendered as 'FILE:LINE: FIELD: what is wrong'."""
    exit_code = EXIT_INPUT

    def __init__(self, file, line, field, what):
        self.file, self.line, self.field, self.what = file, line, field, what
        where = str(file) if line is None else f"{file}:{line}"
        super().__init__(f"{where}: {field}: {what}" if field else f"{where}: {what}")


class MergeConflict(ResultsError):
    """The same result key in two runs (or two shards), without --prefer-later."""
    exit_code = EXIT_INPUT


class IncompleteRun(ResultsError):
    """A shard missing where the verb needs the whole run (gate without --partial)."""
    exit_code = EXIT_INPUT
