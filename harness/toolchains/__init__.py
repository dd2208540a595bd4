"""The toolchains tier: `./ptxcts toolchains list|install|describe|probe|resolve` (cli.py) over what the framework
knows of the toolchains under test (framework/toolchains)."""
