"""Run-tier kernels for the front-ends whose kernels cannot take the run ABI (`triton`, `cute-dsl`): the
front-end's instruction under test in the run tier's own frame (splice.py, `./ptxcts modules --frontend NAME`)."""
