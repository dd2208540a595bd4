"""SASS judged by the lowering rules of the generator (ptxcts_gen.lowering): the lowering key of a form's
instructions (key) and the verdict of its rules (judge). The lowering tier and the self-test's catch of planted
faults judge alike through it."""
