"""Triton's whole kernels on silicon: the kernels Triton writes around each instruction it can express (kernels.py),
compiled by that Triton end to end on any machine (write.py), launched on a GPU with the driver API alone
(cudadrv.py, run.py) and judged by the bytes they leave against the reference model's (expect.py)."""
