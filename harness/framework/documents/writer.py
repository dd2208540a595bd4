"""write_run(dir, doc): the one way a tier writes its results folder (results.json + junit.xml)."""
import os

from framework.boundary import describe_os_error

from . import junit, schema
from .errors import UsageError
from .runio import atomic_write, rescue_dir


def write_run(directory, doc):
    """Validate `doc` (a result document, docs/ARCHITECTURE.md section 3) and write DIR/results.json and
    DIR/junit.xml, each atomically (a reader never sees half a file; an interrupted write leaves the old one).
    The folder is created if needed. A document of an older schema version it reads is written as the current
    version (every older document is a valid current one). results.json is canonical: header indented, one case
    per line, cases sorted by key. Raises results.errors.InputError if the document breaks the schema (nothing
    is written then). Returns the path of results.json."""
    if doc.get("version") in schema.READS:
        doc = dict(doc, version=schema.VERSION)
    schema.validate(doc, file=f"<document for {os.path.join(str(directory), 'results.json')}>")
    texts = (("results.json", schema.dumps(doc)), ("junit.xml", junit.to_xml(doc)))
    try:
        for name, text in texts:
            atomic_write(os.path.join(directory, name), text)
    except OSError as e:   # a full disk, a folder remounted read-only: what was judged is not lost with it
        raise _rescued(directory, doc, texts, e) from None
    return os.path.join(directory, "results.json")


def _rescued(directory, doc, texts, error):
    """The UsageError (exit 2) for a results folder the disk refused: the same files written to
    rescue_dir()/<run ID>/ when that can be done, and the message says where and how to finish."""
    why = describe_os_error(error)
    keep = os.path.join(rescue_dir(), str(doc.get("run_id") or "run"))
    n = len(doc.get("cases") or ())
    try:
        for name, text in texts:
            atomic_write(os.path.join(keep, name), text)
    except OSError as e2:
        return UsageError(f"{why}; the {n} judged cases could not be kept elsewhere either ({describe_os_error(e2)}; "
                          f"PTXCTS_RESCUE names another folder)")
    return UsageError(f"{why}; the {n} judged cases are kept in {keep}/results.json instead: free the disk (or make "
                      f"{directory} writable) and copy that folder there; a partial run's --resume then finishes it")
