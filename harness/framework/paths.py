"""Where the source tree is: $PTXCTS_ROOT (./ptxcts sets it; a test may point it at a tree of its own), else the
checkout this file lies in. Every tier asks here, so that the tree is found one way."""
import os

_CHECKOUT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def root():
    """The source tree the verbs read: $PTXCTS_ROOT when set (and not empty), else this checkout."""
    return os.environ.get("PTXCTS_ROOT") or _CHECKOUT
