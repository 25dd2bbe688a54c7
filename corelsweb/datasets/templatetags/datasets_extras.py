from django import template

from solver.data.source import DELIMITER_WORDS
from solver.predicates import format_number

register = template.Library()

COLUMN_FIELD_PREFIXES = ("missing_", "cost_", "order_", "levels_")


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
    """Format a whole number with thousands separators (a dash for a number the result does not hold)."""
    if value is None or value == "":
        return "—"
    return f"{int(value):,}"


@register.filter
def outcome_summary(dataset):
    """Return what a dataset predicts, in words: the label column, or a survival table's events and time range."""
    from corelsweb.datasets.services import survival_summary

    survival = survival_summary(dataset)
    if survival is not None and "error" in survival:
        return "survival: choose the event value"
    if survival is not None:
        rate = "" if survival["event_rate"] is None else f"{100 * survival['event_rate']:.0f} % events, "
        span = (
            ""
            if survival["time_min"] is None
            else f"time {format_number(survival['time_min'])}–{format_number(survival['time_max'])}"
        )
        return f"survival: {rate}{span}".rstrip(", ")
    return dataset.roles.get("label") or "—"
