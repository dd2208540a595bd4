"""The Triton language as a front-end (kind "triton"): Gluon kernels compiled by `triton.compile` with no GPU.

    backend.py   importing a Triton, the kernel of each mapping template, compiling in a child, the probe
    engine.py    the tier's engine: spell, build a batch, find the instruction under test, judge the claims
    site.py      `--frontend triton=PATH`: a Triton the user names (a folder, a checkout, a wheel)
"""
