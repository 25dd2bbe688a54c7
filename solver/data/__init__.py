"""Everything between a user's file and the solvers' binary matrices."""

from solver.data.binarize import Roles, make_problem, parse_method
from solver.data.table import DataError, ReadLimits, Table, profile, read_table

__all__ = ["DataError", "ReadLimits", "Roles", "Table", "make_problem", "parse_method", "profile", "read_file", "read_table"]


def read_file(path, limits=ReadLimits()):
    """Read a CSV/TSV file from ``path`` into a ``Table``."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise DataError(f"Cannot read {path}: {e.strerror}.") from None
    return read_table(data, limits)
