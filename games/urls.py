from django.urls import path

from games import views

urlpatterns = [
    path("games/<int:game_id>/verify", views.game_verify, name="game-verify"),
]
