"""Where the source tree is: $PTXCTS_ROOT (./ptxcts sets it; a test may point it at a tree of its own), else the
checkout this file lies in. Every tier asks here, so that the tree is found one way."""
import os

from framework import given

_CHECKOUT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def root():
    """The source tree the verbs read: $PTXCTS_ROOT when set, else this checkout. Set, it is checked as ./ptxcts
    checks it, also for a layer run without ./ptxcts (python3 -m results ...): blank, missing or not a folder is
    refused naming the variable (given.GivenPathError, exit 2), never taken as the checkout."""
    return given.env("PTXCTS_ROOT", given.FOLDER, "the source tree the verbs read", default=_CHECKOUT)
