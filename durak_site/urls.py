from django.contrib import admin
from django.urls import include, path
from django.views.generic import TemplateView

from durak_site.health import healthz

urlpatterns = [
    path("", TemplateView.as_view(template_name="site/home.html"), name="home"),
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
]
