"""Benchmarks: ``python -m bench`` (or ``make bench``) prints a table with the machine description."""
