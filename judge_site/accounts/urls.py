"""Account URLs under /accounts/: signup, login, logout (POST only), password_change, password
reset by e-mail at Django's own paths (judge_site/accounts/reset.py), the e-mail page."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import URLPattern, path

from judge_site.accounts import email_views, reset, token_views, views

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
    path("password_reset/", reset.ResetRequestView.as_view(), name="password_reset"),
    path("password_reset/done/", reset.ResetDoneView.as_view(), name="password_reset_done"),
    path(
        "reset/<uidb64>/<token>/",
        reset.ResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path("reset/done/", reset.ResetCompleteView.as_view(), name="password_reset_complete"),
    path("email/", email_views.email_settings, name="email_settings"),
    path("email/verify/<str:token>/", email_views.email_verify, name="email_verify"),
]
