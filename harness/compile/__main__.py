import sys

from compile.cli import main

sys.exit(main(sys.argv[1:]))
