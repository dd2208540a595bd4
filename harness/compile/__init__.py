"""The compile tier: ptxas must accept every valid case of the manifest and reject every invalid one.

Cases are assembled many to a module (one module per (target, PTX version, validity) chunk), ptxas's per-line
diagnostics are mapped back to the cases by the line ranges of their entries, and every disagreement with the
manifest is classified per docs/ARCHITECTURE.md section 3.
"""
