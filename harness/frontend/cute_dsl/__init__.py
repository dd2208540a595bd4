"""The CUTLASS Python DSL as a front-end (kind "cute-dsl"): DSL kernels whose PTX libNVVM writes, with no GPU.

    backend.py   importing the DSL, the kernel of each mapping spelling, compiling a batch in a child, the engine,
                 the probe
"""
