"""The model's forms kept between processes: model.all_forms() enumerates the whole product (about 3 s of one core
for 11,890 forms), and every tier process that renders modules (the compile, lowering, front-end and self-test
tiers, and each of their workers) needs them. load() reads them back from a pickle named by a digest of this
package's own files (every source and data file of the model, so any edit of the model, a mutant's included, is
another name) and of the Python version; a miss enumerates and stores. Best effort: a cache that cannot be read or
written is a miss, never an error, and PTXCTS_FORMS_CACHE=off turns it off.

Where: $PTXCTS_FORMS_CACHE when it names a folder, else $XDG_CACHE_HOME/ptxcts/forms or ~/.cache/ptxcts/forms.
Only the newest KEEP files stay there."""
import hashlib
import os
import pickle
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
KEEP = 4


def digest():
    """sha256 of every file of the package (its relative path and bytes, sorted), the Python version and the
    pickle protocol."""
    h = hashlib.sha256(f"{sys.version_info[:2]} {pickle.HIGHEST_PROTOCOL}\n".encode())
    for top, dirs, files in os.walk(HERE):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith((".pyc", ".tmp")):
                continue
            path = os.path.join(top, name)
            h.update(os.path.relpath(path, HERE).encode() + b"\0")
            with open(path, "rb") as f:
                h.update(f.read())
            h.update(b"\0")
    return h.hexdigest()


def folder():
    """The cache folder, or None when turned off or not an absolute path (HOME set to something else: the forms
    are enumerated, and nothing is written relative to the working folder)."""
    setting = os.environ.get("PTXCTS_FORMS_CACHE", "")
    if setting == "off":
        return None
    if not setting:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        setting = os.path.join(base, "ptxcts", "forms")
    return setting if os.path.isabs(setting) else None


def load(enumerate_forms):
    """The forms: from the cache when it holds this model's, else enumerate_forms() (stored for the next process)."""
    try:
        where = folder()
        path = where and os.path.join(where, digest() + ".pickle")
    except OSError:
        where = path = None
    if path:
        try:
            with open(path, "rb") as f:
                return pickle.load(f)
        except Exception:   # absent, unreadable or torn: a miss
            pass
    forms = enumerate_forms()
    if path:
        _store(where, path, forms)
    return forms


def _store(where, path, forms):
    try:
        os.makedirs(where, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=where, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                pickle.dump(forms, f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)   # atomic: a reader sees the whole file or none
        except BaseException:
            os.unlink(tmp)
            raise
        old = sorted((e for e in os.scandir(where) if e.name.endswith(".pickle")),
                     key=lambda e: e.stat().st_mtime, reverse=True)[KEEP:]
        for e in old:
            os.unlink(e.path)
    except Exception:   # a read-only or full disk, a HOME that is not a folder: the next process enumerates again
        pass
