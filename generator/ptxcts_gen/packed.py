"""The committed form of generated/'s large files: gzip-compressed, X.gz beside the expanded copy X that every
reader opens (manifest.py writes both; git ignores X). Standard library only: the entry point (./ptxcts, started
without site packages) loads this file alone to expand generated/ before any verb."""
import gzip
import os


def compressed(rel):
    """Whether the file (relative to generated/) is committed gzip-compressed, as rel + '.gz'."""
    return rel == "manifest/forms.jsonl" or rel.startswith(("manifest/cases/", "kernels/"))


def pack(data):
    """The committed form of a compressed file: gzip without a name or a time stamp, so a rerun is byte-identical."""
    return gzip.compress(data, compresslevel=9, mtime=0)


def read(path, packed=False):
    """The file's bytes, decompressed when packed; None for a packed file that is not gzip or is cut short."""
    with open(path, "rb") as fh:
        data = fh.read()
    if not packed:
        return data
    try:
        return gzip.decompress(data)
    except (OSError, EOFError):
        return None


def expand(top):
    """Write X from each X.gz under the folder top (generated/) wherever X is missing or older than X.gz (a fresh
    clone, a pull); the number of files written. ValueError naming an X.gz that is not gzip."""
    n = 0
    for base, _, names in sorted(os.walk(top)):
        for name in sorted(names):
            if not name.endswith(".gz"):
                continue
            gz = os.path.join(base, name)
            plain = gz[:-3]
            if os.path.exists(plain) and os.path.getmtime(plain) >= os.path.getmtime(gz):
                continue
            data = read(gz, packed=True)
            if data is None:
                raise ValueError(f"{gz}: not a gzip file, or cut short (./ptxcts gen writes it again)")
            with open(plain + ".tmp", "wb") as fh:
                fh.write(data)
            os.replace(plain + ".tmp", plain)
            n += 1
    return n
