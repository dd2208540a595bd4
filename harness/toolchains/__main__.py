import sys

from toolchains.cli import main

sys.exit(main())
