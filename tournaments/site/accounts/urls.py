"""Public pages: accounts (mounted at the site's root by ``durak_site.urls``)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from tournaments.site.accounts import tokens, views

urlpatterns: list[URLPattern | URLResolver] = [
    path("accounts/login/", views.PlayerLoginView.as_view(), name="login"),
    path("accounts/logout/", views.PlayerLogoutView.as_view(), name="logout"),
    path("accounts/signup/", views.sign_up, name="signup"),
    path("accounts/profile/", views.profile, name="profile"),
    path("accounts/tokens/", tokens.api_tokens, name="api-tokens"),
    path(
        "accounts/tokens/<int:token_id>/revoke/",
        tokens.api_token_revoke_page,
        name="api-token-revoke",
    ),
    path("accounts/password/", views.PasswordChangeView.as_view(), name="password_change"),
    path("accounts/password-reset/", views.PasswordResetView.as_view(), name="password_reset"),
    path(
        "accounts/password-reset/sent/",
        views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "accounts/password-reset/<uidb64>/<token>/",
        views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "accounts/password-reset/done/",
        views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    path(
        "accounts/invitation/<str:token>/",
        views.referee_invitation,
        name="referee-invitation",
    ),
    path("me/", views.my_games_page, name="my-games"),
    path("me/entries/<slug:slug>/<str:action>/", views.entry_action, name="entry-action"),
]
