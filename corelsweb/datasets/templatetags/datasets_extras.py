from django import template

from solver.data.source import DELIMITER_WORDS
from solver.predicates import format_number

register = template.Library()

COLUMN_FIELD_PREFIXES = ("missing_", "cost_", "order_")


@register.filter
def delimiter_name(delimiter):
    """Return the word for a CSV delimiter (``tab``, ``comma``, ...)."""
    return DELIMITER_WORDS.get(delimiter, repr(delimiter))


@register.filter
def is_column_field(name):
    """Return True for the per-column fields that the columns table draws."""
    return name.startswith(COLUMN_FIELD_PREFIXES)


@register.filter
def number(value):
    """Format a number compactly (integers without a decimal point, else 6 significant digits)."""
    return "—" if value is None else format_number(value)


@register.filter
def thousands(value):
    """Format a whole number with thousands separators."""
    return f"{int(value):,}"
