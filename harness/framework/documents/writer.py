"""write_run(dir, doc): the one way a tier writes its results folder (results.json + junit.xml)."""
import os

from . import junit, schema
from .runio import atomic_write


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
    for name, text in texts:
        atomic_write(os.path.join(directory, name), text)
    return os.path.join(directory, "results.json")
