"""The stages part of the stage-plan page: one row per stage (a formset)."""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.forms.formsets import BaseFormSet, formset_factory
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from tournaments.console.widgets import number_input
from tournaments.models import Stage
from tournaments.plan_options import TIE_BREAK_CHOICES

__all__ = ["MAX_STAGES", "BaseStageFormSet", "StageForm", "StageFormSet"]

# Enough for any sensible event; the formset refuses more rows than this.
MAX_STAGES = 12


FORMAT_CHOICES = [
    ("", "---------"),
    (Stage.Format.SWISS.value, _("Swiss")),
    (Stage.Format.ROUND_ROBIN.value, _("Round robin")),
    (Stage.Format.KNOCKOUT.value, _("Knockout")),
]
SERIES_CHOICES = [
    (Stage.SeriesFormat.SINGLE.value, _("Single game")),
    (Stage.SeriesFormat.BEST_OF.value, _("Best of N")),
    (Stage.SeriesFormat.FIRST_TO.value, _("First to N points")),
    (Stage.SeriesFormat.LONG.value, _("Long durak")),
]
ADVANCE_NONE, ADVANCE_TOP, ADVANCE_PER_TABLE = "none", "top", "per_table"
ADVANCE_CHOICES = [
    (ADVANCE_NONE, _("None (last stage)")),
    (ADVANCE_TOP, _("Top N overall")),
    (ADVANCE_PER_TABLE, _("Top K per table or group")),
]
# Which count each format needs (the others are ignored for it, and hidden by the page's script).
FORMAT_COUNT = {
    Stage.Format.SWISS.value: "rounds",
    Stage.Format.ROUND_ROBIN.value: "groups",
    Stage.Format.KNOCKOUT.value: "advance_per_table",
}
COUNTED_SERIES = (Stage.SeriesFormat.BEST_OF.value, Stage.SeriesFormat.FIRST_TO.value)


class StageForm(forms.Form):
    """One stage as a row: the fields a stage spec has (``plan_schema.StageSpecSerializer``)."""

    format = forms.ChoiceField(
        label=_("Format"),
        choices=FORMAT_CHOICES,
        help_text=_(
            "A knockout ends with its own final table (its last table is the final), so it is "
            "the last stage. For a lone final table, let as many go on to a knockout as one "
            "table seats."
        ),
    )
    name = forms.CharField(
        label=_("Name"), required=False, widget=forms.TextInput(attrs={"size": 14})
    )
    table_size = forms.TypedChoiceField(
        label=pgettext_lazy("seats per table", "Seats"),
        coerce=int,
        initial=4,
        choices=[(n, str(n)) for n in range(2, 7)],
        help_text=_("Seats per table (a team table: twice the team size)."),
    )
    rounds = forms.IntegerField(
        label=_("Rounds"),
        required=False,
        widget=number_input("4.5em"),
        help_text=_("Swiss: the number of rounds."),
    )
    groups = forms.IntegerField(
        label=_("Groups"),
        required=False,
        widget=number_input("4.5em"),
        help_text=_("Round robin: the number of groups."),
    )
    advance_per_table = forms.IntegerField(
        label=_("Go on per table"),
        required=False,
        widget=number_input("4.5em"),
        help_text=_("Knockout: how many of each table go on to the next table."),
    )
    series_format = forms.ChoiceField(
        label=_("Series"), choices=SERIES_CHOICES, initial=Stage.SeriesFormat.SINGLE.value
    )
    series_target = forms.IntegerField(
        label=_("N"),
        required=False,
        initial=1,
        widget=number_input("4.5em"),
        help_text=_("Best of N games, or first to N points."),
    )
    advance_rule = forms.ChoiceField(
        label=_("Advance"), choices=ADVANCE_CHOICES, initial=ADVANCE_NONE
    )
    advance_count = forms.IntegerField(
        label=_("How many"),
        required=False,
        widget=number_input("5em"),
        help_text=_("N overall, or K per table or group."),
    )
    tiebreaks = forms.MultipleChoiceField(
        label=_("Tie-breaks"),
        required=False,
        choices=TIE_BREAK_CHOICES,
        widget=forms.CheckboxSelectMultiple,
        help_text=_(
            "Ties are broken in this order (Buchholz: the opponents' points); "
            "none ticked: all of them."
        ),
    )
    points = forms.CharField(
        label=_("Points by place"),
        required=False,
        widget=forms.TextInput(attrs={"size": 12, "placeholder": "3, 2, 1, 0"}),
        help_text=_(
            "Points for the first out, the second, …, the fool; another table size after a "
            "semicolon (3, 2, 1, 0; 2, 1, 0). Empty: places count k−1, …, 0."
        ),
    )

    # A stage row's two lines: the stage's shape, then its scoring and who advances.
    LINES = (
        (
            "format",
            "name",
            "table_size",
            "rounds",
            "groups",
            "advance_per_table",
            "series_format",
            "series_target",
        ),
        ("advance_rule", "advance_count", "points", "tiebreaks"),
    )
    COLUMNS = tuple(name for line in LINES for name in line)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)

    def clean_points(self) -> dict[str, list[int | str]]:
        text: str = self.cleaned_data.get("points") or ""
        tables: dict[str, list[int | str]] = {}
        for chunk in text.split(";"):
            values = [v for v in re.split(r"[\s,]+", chunk) if v]
            if not values:
                continue
            size = str(len(values))
            if size in tables:
                raise forms.ValidationError(
                    gettext("Two lists of %(size)s values: one per table size."),
                    params={"size": size},
                )
            tables[size] = [int(v) if v.isascii() and v.isdigit() else v for v in values]
        return tables

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        rule = data.get("advance_rule")
        if rule in (ADVANCE_TOP, ADVANCE_PER_TABLE) and data.get("advance_count") is None:
            self.add_error("advance_count", gettext("Say how many advance."))
        return data

    def spec(self) -> dict[str, Any]:
        """The stage spec of this row (``plan_schema``'s shape); fields another format or series
        uses are left out."""
        data = self.cleaned_data
        fmt = data["format"]
        spec: dict[str, Any] = {
            "name": data["name"],
            "format": fmt,
            "table_size": data["table_size"],
        }
        count = FORMAT_COUNT.get(fmt)
        if count is not None:
            spec[count] = data[count]
        series: dict[str, Any] = {"format": data["series_format"]}
        if data["series_format"] in COUNTED_SERIES and data["series_target"] is not None:
            series["target"] = data["series_target"]
        spec["series"] = series
        rule = data["advance_rule"]
        if rule in (ADVANCE_TOP, ADVANCE_PER_TABLE):
            spec["advance"] = {rule: data["advance_count"]}
        if data["points"]:
            spec["scoring"] = {"tables": data["points"]}
        spec["tiebreaks"] = list(data["tiebreaks"])
        return spec


class BaseStageFormSet(BaseFormSet[StageForm]):
    def filled_forms(self) -> list[StageForm]:
        """The rows that make stages, in order: not deleted, not left blank."""
        return [
            form
            for form in self.forms
            if form.has_changed() and not getattr(form, "cleaned_data", {}).get("DELETE")
        ]


StageFormSet = formset_factory(
    StageForm,
    formset=BaseStageFormSet,
    extra=4,
    can_delete=True,
    max_num=MAX_STAGES,
    validate_max=True,
    absolute_max=MAX_STAGES,
)
