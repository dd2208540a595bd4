"""The results tier: `python3 -m results report|gate|diff|merge|validate|bundle|known` (./ptxcts report, gate, ...)
over the result documents of every tier (framework/documents). The report is the package report/; the gate, the
diff, bundles and the staleness of baselines are the modules beside it."""
