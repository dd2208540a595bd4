"""`./ptxcts devcheck`: the check a maintainer runs on a GPU runner before a change to the model, the judge, a
baseline or a GPU test lands (README "Landing a change"): a fresh copy of the tree, `./ptxcts all` and `./ptxcts
test` in it, the gates, and one verdict line. Files: cli.py (arguments, the steps), copy.py (the fresh copy),
verdict.py (what the steps left, read into one verdict)."""
