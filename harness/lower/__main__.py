import sys

from lower.cli import main

sys.exit(main(sys.argv[1:]))
