"""The console's fair-play review (issue 24): the queue of pairs whose score reaches a threshold,
per event and over a league's season, and a pair's page with its evidence and the decision form.

- ``admin/tournaments/tournament/<id>/fairplay/``: the event's queue, highest score first
  (``selectors.fairplay.pairs_flagged``); ``?threshold=`` lowers (or raises) the bar.
- ``admin/tournaments/tournament/<id>/fairplay/pairs/<pair id>/``: one pair: its terms side by
  side (what each did to the other against what was expected of it), the games they shared
  (each to its replay) and each term's moves (to the replay at that move); the decision
  (``services.fairplay.pair_decide``: cleared, warned, disqualified, with a reason; the
  service checks who decides and audits it) and the decisions so far.
- ``admin/tournaments/league/<id>/fairplay/``: the season's queue
  (``selectors.fairplay.league_pairs_flagged``) over the league's events its reader referees;
  decisions stay per event, so each row links each event's pair page.

Who may read: the event's referees and organiser and superusers
(``permissions.can_referee``); an event out of the reader's console scope is the 404 of a
missing one, as on every console page. A league's page follows the league table's rule (the
league in the reader's console, ``selectors.visibility.leagues_managed_by``), and its rows pool
only the events the reader referees: another event's evidence is not its to read. Nothing here
computes: the selectors do; nothing here reads a bot's kind or seats.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from durak_site.errors import Forbidden, ServiceError
from tournaments.console.admin_base import console_page
from tournaments.console.progress import visible_or_refused
from tournaments.form_errors import form_error
from tournaments.models import League, PairEvidence, Tournament
from tournaments.permissions import can_referee
from tournaments.selectors.fairplay import (
    THRESHOLD,
    league_pairs_flagged,
    pair_review,
    pairs_flagged,
    queue_counts,
    season_counts,
    season_players,
)
from tournaments.selectors.visibility import tournaments_managed_by
from tournaments.services.fairplay import pair_decide

QUEUE_TEMPLATE = "admin/tournaments/fairplay/queue.html"
SEASON_TEMPLATE = "admin/tournaments/fairplay/season.html"
PAIR_TEMPLATE = "admin/tournaments/fairplay/pair.html"

#: What each kind of term counts, in a referee's words: "<mover> … <other>".
KIND_LABELS: dict[str, Any] = {
    "threw_in": pgettext_lazy("fair play", "threw in on"),
    "attacked": pgettext_lazy("fair play", "attacked with several cards"),
    "transferred": pgettext_lazy("fair play", "transferred onto"),
    "beat": pgettext_lazy("fair play", "beat"),
    "took": pgettext_lazy("fair play", "took from"),
}
#: When a move counts as a chance of each kind.
KIND_CHANCES: dict[str, Any] = {
    "threw_in": _("its turn to throw in while the other defended and it held a card to throw"),
    "attacked": _("its opening on the other while it could open with several cards"),
    "transferred": _("its defence while it could transfer onto the other"),
    "beat": _("its defence against the other's unbeaten cards"),
    "took": _("the same, when it could cover every one of the other's cards"),
}


class ThresholdForm(forms.Form):
    """The queue's bar: a score (z) from 0 up; the default is the selectors' ``THRESHOLD``."""

    threshold = forms.FloatField(
        label=_("Threshold (z)"),
        min_value=0.0,
        max_value=100.0,
        required=False,
        widget=forms.NumberInput(attrs={"step": "0.1", "size": 5}),
        help_text=_("Pairs scoring this or more are listed."),
    )


class DecisionForm(forms.Form):
    """A referee's decision on a pair; disqualifying asks for a confirmation first."""

    decision = forms.ChoiceField(
        label=_("Decision"),
        choices=[c for c in PairEvidence.Decision.choices if c[0]],
        widget=forms.RadioSelect,
    )
    reason = forms.CharField(
        label=_("Reason"),
        max_length=300,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text=_("Required; kept with the decision and in the audit log."),
    )
    confirm = forms.BooleanField(
        label=_("I confirm: both players' entries in this tournament are disqualified"),
        required=False,
    )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        disqualifying = cleaned.get("decision") == PairEvidence.Decision.DISQUALIFIED
        if disqualifying and not cleaned.get("confirm"):
            self.add_error(
                "confirm",
                _("Disqualifying removes both players from the tournament: confirm it."),
            )
        return cleaned


def _threshold(request: HttpRequest) -> tuple[ThresholdForm, float | None]:
    """The bar asked for (``?threshold=``, else the default) and its form; None if the value
    asked for is not a number in the range (the form says why)."""
    if "threshold" not in request.GET:
        return ThresholdForm(initial={"threshold": THRESHOLD}), THRESHOLD
    form = ThresholdForm(request.GET)
    if not form.is_valid():
        return form, None
    found = form.cleaned_data["threshold"]
    return form, THRESHOLD if found is None else float(found)


def _answer(response: HttpResponse, threshold: float | None) -> HttpResponse:
    """A page asked with a bad threshold is a 400 (its form says why), never a 500."""
    if threshold is None:
        response.status_code = 400
    return response


def _decision_label(after: Any) -> str:
    """The decision an audit row recorded, in words (its code if it is no longer one)."""
    code = after.get("decision", "") if isinstance(after, dict) else ""
    labels = dict(PairEvidence.Decision.choices)
    return str(labels.get(code, code))


def _refereed(
    model_admin: admin.ModelAdmin[Tournament], request: HttpRequest, object_id: str
) -> Tournament:
    """The event ``object_id`` if its reader referees it: a 404 out of its console scope, a 403
    in it without the right (deny by default)."""
    tournament = visible_or_refused(model_admin, request, object_id)
    if not can_referee(request.user, tournament):
        raise PermissionDenied
    return tournament


def tournament_fairplay_view(
    model_admin: admin.ModelAdmin[Tournament], request: HttpRequest, object_id: str
) -> HttpResponse:
    """GET: the event's queue (a bad ``threshold`` is a 400 that says why)."""
    tournament = _refereed(model_admin, request, object_id)
    form, threshold = _threshold(request)
    pairs = list(pairs_flagged(tournament, threshold=threshold)) if threshold is not None else []
    response = console_page(
        model_admin,
        request,
        QUEUE_TEMPLATE,
        title=gettext("Fair play of %(name)s") % {"name": tournament.name},
        original=tournament,
        form=form,
        threshold=threshold,
        default_threshold=THRESHOLD,
        counts=queue_counts(tournament),
        pairs=pairs,
    )
    return _answer(response, threshold)


def league_fairplay_view(
    model_admin: admin.ModelAdmin[League], request: HttpRequest, object_id: str
) -> HttpResponse:
    """GET: the season's queue of the league ``object_id`` over its events its reader
    referees."""
    league = visible_or_refused(model_admin, request, object_id)
    events = tournaments_managed_by(request.user).filter(league=league)
    form, threshold = _threshold(request)
    season = (
        league_pairs_flagged(league, threshold=threshold, tournaments=events)
        if threshold is not None
        else []
    )
    players = season_players(season)
    response = console_page(
        model_admin,
        request,
        SEASON_TEMPLATE,
        title=gettext("Fair play over the season of %(name)s") % {"name": league},
        original=league,
        form=form,
        threshold=threshold,
        default_threshold=THRESHOLD,
        events=list(events.order_by("created_at", "pk")),
        counts=season_counts(league, events),
        season=[(row, players[row.first], players[row.second]) for row in season],
    )
    return _answer(response, threshold)


def pair_fairplay_view(
    model_admin: admin.ModelAdmin[Tournament],
    request: HttpRequest,
    object_id: str,
    pair_id: int,
) -> HttpResponse:
    """GET: a pair's evidence and the decision form; POST: the decision
    (``services.fairplay.pair_decide``), then back here with what came of it."""
    tournament = _refereed(model_admin, request, object_id)
    pair = (
        PairEvidence.objects.filter(tournament=tournament, pk=pair_id)
        .select_related("first", "second", "decided_by", "tournament")
        .first()
    )
    if pair is None:
        raise Http404(gettext("There is no such object, or it is not yours to see."))
    form = DecisionForm(request.POST if request.method == "POST" else None)
    if form.is_valid():
        try:
            pair_decide(
                pair=pair,
                decision=form.cleaned_data["decision"],
                reason=form.cleaned_data["reason"],
                actor=request.user,
            )
        except Forbidden:
            raise PermissionDenied from None
        except ServiceError as exc:
            form_error(form, exc)
        else:
            messages.success(
                request,
                gettext("The decision on %(first)s and %(second)s is recorded: %(decision)s.")
                % {
                    "first": pair.first.display_name,
                    "second": pair.second.display_name,
                    "decision": PairEvidence.Decision(form.cleaned_data["decision"]).label,
                },
            )
            return HttpResponseRedirect(request.path)
    review = pair_review(pair)
    return console_page(
        model_admin,
        request,
        PAIR_TEMPLATE,
        title=gettext("Fair play: %(first)s and %(second)s")
        % {"first": pair.first.display_name, "second": pair.second.display_name},
        original=tournament,
        queue=reverse("admin:tournaments_tournament_fairplay", args=[tournament.pk]),
        review=review,
        terms=[(term, KIND_LABELS.get(term.kind, term.kind)) for term in review.terms],
        chances=[(KIND_LABELS[k], text) for k, text in KIND_CHANCES.items()],
        history=[(event, _decision_label(event.after)) for event in review.history],
        form=form,
    )
