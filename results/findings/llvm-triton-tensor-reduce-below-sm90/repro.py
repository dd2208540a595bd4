"""Triton's bundled LLVM selects cp.reduce.async.bulk.tensor below sm_90 / PTX ISA 8.0 (the tensor store is refused).

    python3 repro.py FILE.ll CPU PTX         e.g. python3 repro.py reduce_tensor.ll sm_89 80

Prints the PTX that triton._C.libtriton.llvm.translate_to_asm writes (or LLVM's error, which ends the process).
Needs only the triton wheel (no GPU); PYTHONPATH may name its install folder.
"""
import sys

from triton._C.libtriton import llvm

path, cpu, ptx = sys.argv[1:4]
llvm.init_targets()   # translate_to_asm segfaults without it
with open(path) as f:
    print(llvm.translate_to_asm(f.read(), "nvptx64-nvidia-cuda", cpu, "+ptx" + ptx, [], False, False, False))
