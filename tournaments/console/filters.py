"""The console's list filters by a related event (a tournament, a league), each told apart from
another of the same name: "Кубок (12.03.2026)", else by its slug, "Кубок (kubok-2)"."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest
from django.utils import formats, timezone


def _when(obj: Model) -> str:
    """The planned start's date of ``obj`` (an event), "" if it has none."""
    starts_at = getattr(obj, "starts_at", None)
    if starts_at is None:
        return ""
    return formats.date_format(timezone.localtime(starts_at).date(), "SHORT_DATE_FORMAT")


def distinct_labels(objects: Iterable[Model]) -> dict[Any, str]:
    """Each object's name by its pk; where several share a name, each with what tells it apart:
    its planned start's date if that alone does, else its slug (else its id)."""
    named: dict[str, list[Model]] = defaultdict(list)
    for obj in objects:
        named[str(obj)].append(obj)
    labels: dict[Any, str] = {}
    for name, same in named.items():
        if len(same) == 1:
            labels[same[0].pk] = name
            continue
        dates = [_when(obj) for obj in same]
        by_date = all(dates) and len(set(dates)) == len(dates)
        for obj, date in zip(same, dates, strict=True):
            tell = date if by_date else getattr(obj, "slug", "") or f"#{obj.pk}"
            labels[obj.pk] = f"{name} ({tell})"
    return labels


class DistinctRelatedFilter(admin.RelatedOnlyFieldListFilter):
    """``RelatedOnlyFieldListFilter`` whose choices of the same name are told apart
    (:func:`distinct_labels`)."""

    def field_choices(self, field: Any, request: HttpRequest, model_admin: Any) -> list[Any]:
        choices = super().field_choices(field, request, model_admin)
        named = Counter(label for _pk, label in choices)
        shared = [pk for pk, label in choices if named[label] > 1]
        if not shared:
            return choices
        labels = distinct_labels(field.remote_field.model._default_manager.filter(pk__in=shared))
        return [(pk, labels.get(pk, label)) for pk, label in choices]
