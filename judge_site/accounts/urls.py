"""Account URLs under /accounts/: signup, login, logout (POST only), password_change."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import URLPattern, path

from judge_site.accounts import token_views, views

urlpatterns: list[URLPattern] = [
    path("signup/", views.signup, name="signup"),
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    # Own template names, so the admin's password change pages keep their own templates.
    path(
        "password/",
        auth_views.PasswordChangeView.as_view(template_name="registration/password_change.html"),
        name="password_change",
    ),
    path(
        "password/done/",
        auth_views.PasswordChangeDoneView.as_view(
            template_name="registration/password_change_finished.html"
        ),
        name="password_change_done",
    ),
    path("token/", token_views.api_token, name="api_token"),  # helper E
]
