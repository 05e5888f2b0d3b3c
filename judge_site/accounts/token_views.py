"""The account page that shows (and can rotate) the user's API token."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from judge_site.accounts.models import ApiToken


@never_cache
@require_http_methods(["GET", "POST"])
@login_required
def api_token(request: HttpRequest) -> HttpResponse:
    token = ApiToken.objects.filter(user=request.user).first()
    if request.method == "POST":
        if token is None:
            token = ApiToken.objects.create(user=request.user, key=ApiToken.generate_key())
            messages.success(request, "Your API token was created.")
        else:
            token.key = ApiToken.generate_key()
            token.save(update_fields=["key"])
            messages.success(request, "Your API token was replaced; the old one no longer works.")
        return redirect("api_token")
    return render(
        request,
        "accounts/api_token.html",
        {"token": token, "base_url": request.build_absolute_uri("/").rstrip("/")},
    )
