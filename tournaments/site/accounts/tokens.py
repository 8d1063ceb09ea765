"""``accounts/tokens/``: the signed-in user's personal API tokens, listed, made and revoked
(``services.tokens``). A new token's key is shown once, on the answer to the form's POST (never
stored, never cached: ``no-store``), with a copy button; then only its first characters."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext

from durak_site.errors import NotFound, ServiceError
from tournaments.form_errors import form_error
from tournaments.selectors.tokens import ACTIVE, MAX_LIVE_TOKENS, token_rows
from tournaments.services.tokens import api_token_create, api_token_revoke
from tournaments.site.accounts.forms import ApiTokenForm


@login_required
def api_tokens(request: HttpRequest) -> HttpResponse:
    """The list, and the form of a new token; its POST answers with the new key, once."""
    form = ApiTokenForm(request.POST if request.method == "POST" else None)
    created = None
    if request.method == "POST" and form.is_valid():
        try:
            created = api_token_create(
                actor=request.user,
                name=form.cleaned_data["name"],
                scope=form.cleaned_data["scope"],
                expires_at=form.expires_at(timezone.now()),
            )
        except ServiceError as exc:
            form_error(form, exc)
        else:
            form = ApiTokenForm()
    rows = token_rows(request.user)
    response = render(
        request,
        "accounts/tokens.html",
        {
            "form": form,
            "created": created,
            "rows": rows,
            "live": sum(row.status == ACTIVE for row in rows),
            "max_live": MAX_LIVE_TOKENS,
            "ACTIVE": ACTIVE,
        },
    )
    add_never_cache_headers(response)
    return response


@login_required
def api_token_revoke_page(request: HttpRequest, token_id: int) -> HttpResponse:
    """``accounts/tokens/<id>/revoke/``: asks first (GET), revokes on the POST. Another
    user's token is a 404, as if it did not exist."""
    row = next((r for r in token_rows(request.user) if r.id == token_id), None)
    if row is None:
        raise Http404("no such token")
    if request.method == "POST":
        try:
            api_token_revoke(actor=request.user, token_id=token_id)
        except NotFound:
            raise Http404("no such token") from None
        messages.success(
            request,
            gettext("The token “%(name)s” is revoked: it no longer works.") % {"name": row.name},
        )
        return redirect("api-tokens")
    return render(request, "accounts/token_revoke.html", {"row": row, "ACTIVE": ACTIVE})
