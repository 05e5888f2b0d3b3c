"""The account page of the user's API token: make one (shown once, on the answer to the
POST), replace it, revoke it; the page shows the token's prefix, when it was made and when it
was last used."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from judge_site.accounts import tokens
from judge_site.accounts.models import ApiToken


@never_cache
@require_http_methods(["GET", "POST"])
@login_required
def api_token(request: HttpRequest) -> HttpResponse:
    new_key = None
    if request.method == "POST":
        action = request.POST.get("action", "create")
        if action == "revoke":
            if tokens.token_revoke(request.user):  # type: ignore[arg-type]
                messages.success(request, "Your API token was revoked: it no longer works.")
            return redirect("api_token")
        if action != "create":
            messages.error(request, "Unknown action: use the buttons on this page.")
            return redirect("api_token")
        _, new_key = tokens.token_issue(request.user)  # type: ignore[arg-type]
    token = ApiToken.objects.filter(user_id=request.user.pk).first()
    return render(
        request,
        "accounts/api_token.html",
        {
            "token": token,
            "new_key": new_key,
            "base_url": request.build_absolute_uri("/").rstrip("/"),
        },
    )
