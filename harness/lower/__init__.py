"""The lowering tier (`./ptxcts lower`): every valid form's instruction under test, assembled by the toolchain's
ptxas at every target it knows, disassembled by nvdisasm, reduced to a lowering key and judged by the named
lowering rules of ptxcts_gen.lowering. See harness/lower/README.md."""
