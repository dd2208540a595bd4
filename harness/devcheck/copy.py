"""The fresh copy the device check runs in: a clone of HEAD where the tree is a git checkout (what lands is what
is committed), else (a runner given the files alone) the tree's files without its build folders and run outputs."""
import os
import re
import shutil
import subprocess

# what a tree's own runs leave that a fresh clone never has: build folders, ./ptxcts all's stamped outputs, caches
_LEFT_BY_RUNS = re.compile(r"^(build(-.*)?|\.device|__pycache__)$")
_STAMPED_RUN = re.compile(r"^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ-")


def _git(root, *args):
    return subprocess.run(["git", "-C", root, *args], capture_output=True, text=True)


def _one_commit(dest, message, force=False):
    """Make the copy a git checkout of one commit holding its files, so that what the tests read through git (the
    tracked files, the generated tree's freshness) sees the copy as a clone would. force: every file copied, as the
    source's git listed them (tracked files .gitignore would refuse, such as committed run folders, included);
    else what .gitignore lets in."""
    if not shutil.which("git"):
        return
    for args in (["init", "--quiet"], ["add", "--all"] + (["--force"] if force else []),
                 ["-c", "user.name=ptxcts devcheck", "-c", "user.email=devcheck@localhost", "commit", "--quiet",
                  "--no-verify", "--message", message]):
        r = _git(dest, *args)
        if r.returncode != 0:
            raise OSError(f"git {' '.join(args)} in {dest}: {r.stderr.strip()}")


def tree_id(dest):
    """The git tree object of the copy's one commit: a hash of the files' content alone, which equals
    `git rev-parse COMMIT^{tree}` of the commit the files came from when nothing was changed or added."""
    return _git(dest, "rev-parse", "--short=12", "HEAD^{tree}").stdout.strip() or "(unknown)"


def describe_source(root):
    """(kind, text): 'git' with HEAD's commit and whether the work tree has changes HEAD lacks, or 'files'."""
    if shutil.which("git") and _git(root, "rev-parse", "--is-inside-work-tree").stdout.strip() == "true":
        head = _git(root, "rev-parse", "--short=12", "HEAD").stdout.strip()
        dirty = [line for line in _git(root, "status", "--porcelain", "--untracked-files=no").stdout.splitlines()
                 if line.strip()]
        return "git", head, len(dirty)
    return "files", None, 0


def fresh_copy(root, dest, worktree=False):
    """Fill dest (an empty folder) with the tree to check; returns a line saying what it holds."""
    kind, head, dirty = describe_source(root)
    if kind == "git" and not worktree:
        r = subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", root, dest], capture_output=True, text=True)
        if r.returncode != 0:
            raise OSError(f"git clone {root} {dest}: {r.stderr.strip()}")
        note = f"a clone of HEAD {head}"
        if dirty:
            note += f" ({dirty} changed file(s) of the work tree are not in it: commit them, or --worktree)"
        return note
    if kind == "git":
        names = _git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").stdout.split("\0")
        for name in filter(None, names):
            src = os.path.join(root, name)
            if os.path.isfile(src) or os.path.islink(src):
                os.makedirs(os.path.dirname(os.path.join(dest, name)), exist_ok=True)
                shutil.copy2(src, os.path.join(dest, name), follow_symlinks=False)
        _one_commit(dest, f"the work tree of HEAD {head} as it is", force=True)
        return (f"the work tree as it is, git tree {tree_id(dest)} (tracked and untracked files; its .git names HEAD "
                f"{head} with {dirty} changed file(s), which is stale where the files came without their .git: "
                f"compare the tree with `git rev-parse COMMIT^{{tree}}`)")

    def ignore(folder, names):
        skip = {n for n in names if _LEFT_BY_RUNS.match(n)}
        if os.path.basename(folder) == "results" and os.path.dirname(folder) == root:
            skip |= {n for n in names if _STAMPED_RUN.match(n)}
        return skip

    shutil.copytree(root, dest, ignore=ignore, symlinks=True, dirs_exist_ok=True)
    _one_commit(dest, "the tree's files as given")
    return "the tree's files (no git here): without build folders and earlier runs' outputs"
