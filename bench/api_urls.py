"""The site's URLs and one more for ``bench.api``: the final standings of a tournament as a plain
view (``.values()`` and ``JsonResponse``, no DRF, no visibility rule, no cache), the floor the
API's standings are measured against. Served only when ``DURAK_ROOT_URLCONF`` names this module.
"""

from __future__ import annotations

from django.db.models import OuterRef, Subquery, Sum
from django.http import HttpRequest, JsonResponse
from django.urls import path

from durak_site.urls import urlpatterns as site_urlpatterns
from tournaments.models import Entry, Payout, RankRecord, Tournament


def plain_standings(request: HttpRequest, slug: str) -> JsonResponse:
    """The same rows as the API's final standings (place, entry, name, status, pogony, rank,
    payout; not the last stage's points, which only the scoring code computes)."""
    tournament = Tournament.objects.only("pk").get(slug=slug)
    payout = (
        Payout.objects.filter(entry=OuterRef("pk"))
        .values("entry")
        .annotate(total=Sum("amount"))
        .values("total")
    )
    record = RankRecord.objects.filter(tournament=tournament, player=OuterRef("player"))
    rows = list(
        Entry.objects.filter(tournament=tournament, final_place__isnull=False)
        .annotate(
            payout=Subquery(payout[:1]),
            rank=Subquery(record.values("rank")[:1]),
            pogony_given=Subquery(record.values("pogony_given")[:1]),
            pogony_received=Subquery(record.values("pogony_received")[:1]),
        )
        .order_by("final_place", "pk")
        .values(
            "final_place",
            "pk",
            "player__display_name",
            "status",
            "pogony_given",
            "pogony_received",
            "rank",
            "payout",
        )
    )
    return JsonResponse({"rows": rows})


urlpatterns = [
    path("bench/plain-standings/<slug:slug>/", plain_standings),
    *site_urlpatterns,
]
