"""What a browser sends back from a console change page, for tests that post one."""

from __future__ import annotations

from typing import Any

from django import forms


def page_forms(response: Any) -> Any:
    """The change page's main form (a tournament's carries its plan's forms as ``.plan``)."""
    assert response.status_code == 200, response
    return response.context["adminform"].form


def posted_back(response: Any, **changed: Any) -> dict[str, Any]:
    """Every field of the page that is not disabled, as shown (a tournament's settings and rules
    forms included, and the inlines' management forms), with ``changed`` by a field's HTML name
    (``rules-<option>`` for a rule)."""
    form = page_forms(response)
    plan = getattr(form, "plan", None)
    shown = [*((plan.settings, plan.rules) if plan is not None else ()), form]
    data: dict[str, Any] = {"_save": "Save"}
    for inline in response.context["inline_admin_formsets"]:
        management = inline.formset.management_form
        for bound in management:
            data[bound.html_name] = str(bound.value())
        shown += inline.formset.forms
    for each in shown:
        for bound in each:
            if bound.field.disabled:
                continue
            value = bound.value()
            if isinstance(bound.field, forms.BooleanField):
                if value:
                    data[bound.html_name] = "on"
            elif isinstance(value, list):
                data[bound.html_name] = [str(v) for v in value]
            else:
                data[bound.html_name] = "" if value is None else str(value)
    data.update(changed)
    return data
