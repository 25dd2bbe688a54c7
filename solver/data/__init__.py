"""Everything between a user's file and the solvers' binary matrices.

``profile_file`` describes a file in one bounded-memory pass (for the web
page); ``read_table`` / ``read_file`` read it whole into typed columns (for
the solvers); ``make_problem`` binarizes a table under column ``Roles``.
"""

from solver.data.binarize import Roles, make_problem, parse_method
from solver.data.profile import Profile, profile_file
from solver.data.reader import read_file, read_table
from solver.data.table import DataError, ReadLimits, Table

__all__ = [
    "DataError",
    "Profile",
    "ReadLimits",
    "Roles",
    "Table",
    "make_problem",
    "parse_method",
    "profile_file",
    "read_file",
    "read_table",
]
