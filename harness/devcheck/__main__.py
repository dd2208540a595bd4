import sys

from devcheck.cli import main

sys.exit(main(sys.argv[1:]))
