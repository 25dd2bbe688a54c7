from django import template

from solver.data.source import DELIMITER_WORDS

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
