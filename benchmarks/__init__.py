"""Benchmarks of graphmem against raw FalkorDB doing the same work in the same run.

The machine a benchmark runs on is shared and noisy, so no figure here is an
absolute truth: each is reported beside a baseline measured moments before or
after it, and the ratio between the two is what is compared across runs.
"""
