from django.urls import path

from tournaments import views

urlpatterns = [
    path("tournaments/<slug:slug>/", views.tournament_page, name="tournament"),
    path("tables/<int:table_id>/", views.table_page, name="table"),
]
