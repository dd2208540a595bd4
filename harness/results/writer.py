"""write_run(dir, doc): the one way a tier writes its results folder (results.json + junit.xml)."""
import os

from . import junit, schema


def write_run(directory, doc):
    """Validate `doc` (a result document, docs/ARCHITECTURE.md section 3) and write DIR/results.json and
    DIR/junit.xml. The folder is created if needed. Raises results.errors.InputError if the document breaks
    the schema (nothing is written then). Returns the path of results.json."""
    schema.validate(doc, file=f"<document for {os.path.join(str(directory), 'results.json')}>")
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "results.json")
    for name, text in (("results.json", schema.dumps(doc)), ("junit.xml", junit.to_xml(doc))):
        tmp = os.path.join(directory, f".{name}.tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, os.path.join(directory, name))
    return path
