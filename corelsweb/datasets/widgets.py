"""Form widgets that render in Python, for forms with thousands of them (a dataset page of 2,000 columns).

Django renders every widget, and every option of a select, through a template: a page with seven role selects
of 2,000 options and a row of inputs per column took seconds. These render the same HTML by string joining,
with every value and label escaped.
"""

from django import forms
from django.utils.html import escape, format_html
from django.utils.safestring import mark_safe


def _attrs(attrs):
    return mark_safe("".join(format_html(' {}="{}"', k, v) for k, v in attrs.items() if v not in (None, False)))


class FastSelect(forms.Select):
    """``forms.Select`` rendered without a template per option."""

    def render(self, name, value, attrs=None, renderer=None):
        chosen = {str(v) for v in (value if isinstance(value, (list, tuple)) else [value]) if v is not None}
        options = "".join(
            f'<option value="{escape(v)}"{" selected" if str(v) in chosen else ""}>{escape(label)}</option>'
            for v, label in self.choices
        )
        final = self.build_attrs(self.attrs, attrs)
        multiple = " multiple" if self.allow_multiple_selected else ""
        return mark_safe(f'<select name="{escape(name)}"{_attrs(final)}{multiple}>{options}</select>')


class FastSelectMultiple(FastSelect, forms.SelectMultiple):
    """``forms.SelectMultiple`` rendered without a template per option."""

    allow_multiple_selected = True


class FastInput(forms.widgets.Input):
    """A text or number input rendered without a template."""

    def render(self, name, value, attrs=None, renderer=None):
        final = self.build_attrs(self.attrs, attrs)
        shown = self.format_value(value)
        value_attr = "" if shown is None else format_html(' value="{}"', shown)
        return format_html('<input type="{}" name="{}"{}{}>', self.input_type, name, value_attr, _attrs(final))


class FastNumberInput(FastInput, forms.NumberInput):
    pass


class FastTextInput(FastInput, forms.TextInput):
    pass
