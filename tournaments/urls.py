from django.urls import path

from tournaments import views

urlpatterns = [
    path("tables/<int:table_id>/", views.table_page, name="table"),
]
