"""Optimal trees over ordered features (ConTree's search, spec ``contree.md``), shared by STreeD and GOSDT.

A numeric column stays one feature: its rows are sorted once, a split is a
position in that order, and the search visits thresholds directly instead of
one 0/1 column per threshold. ``engine.Engine`` runs the search in bounded
chunks for ``solver/driver.py``.
"""
