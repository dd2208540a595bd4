import sys

if sys.argv[1:2] == ["--whole-child"]:   # whole/run.py's child: kernels on the GPU, one answer line each
    from .whole.run import child
    sys.exit(child(sys.argv[2], sys.argv[3:]))

from .cli import main  # noqa: E402

sys.exit(main())
