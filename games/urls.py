from django.urls import path

from games import views

urlpatterns = [
    path("games/<int:game_id>/verify", views.game_verify, name="game-verify"),
    path("games/<int:game_id>/replay/", views.game_replay_page, name="game-replay"),
]
