"""The fleet tier: the suite's tiers spread over a fleet of GPU hosts through its scheduler (Slurm job arrays, or
Kubernetes Indexed Jobs), one results tree, one report and one gate per device (README.md)."""
