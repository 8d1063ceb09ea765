from django.conf import settings
from django.contrib import admin
from django.contrib.staticfiles.urls import staticfiles_urlpatterns
from django.urls import include, path

from durak_site.health import healthz

urlpatterns = [
    path("", include("tournaments.site.home.urls")),
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/v1/", include("tournaments.api.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("games.urls")),
    path("", include("tournaments.site.tables.urls")),
    path("", include("tournaments.site.accounts.urls")),
    path("", include("tournaments.site.events.urls")),
    path("", include("tournaments.site.people.urls")),
]

if settings.DEBUG:
    # In development (dev.py demo, the browser tests) Django serves the static files;
    # production serves them with WhiteNoise (settings.MIDDLEWARE).
    urlpatterns += staticfiles_urlpatterns()
