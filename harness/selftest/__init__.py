"""Self-tests of the suite: ./ptxcts selftest-model (model_mutation.py)."""
