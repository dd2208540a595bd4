"""Tests of the results package (CTest label `results`); fixtures/ holds small hand-built documents."""
