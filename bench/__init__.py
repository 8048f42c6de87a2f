"""sathub's benchmarks: one door, `python -m bench.run --suite status|archive|faults|peers|scale|micro|all` (README.md).

Run every module from the repository's root (`python -m bench.status_load ...`); results go to
bench/out/ (not in git)."""
