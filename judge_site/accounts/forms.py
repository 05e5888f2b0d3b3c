"""The sign-up form: Django's UserCreationForm with safe usernames, an e-mail address (optional;
required when JUDGE_EMAIL_VERIFY asks to confirm it) and, in invite mode, a code.

The address is optional by default: the compose stack sends no mail until EMAIL_HOST is set,
and a class may not want to collect addresses; it is then only what a password reset by e-mail
and rejudge notices need. Sign-up never says an address is already used (that would tell who
has an account); a reset to a shared address mails each of its accounts."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib.auth.forms import UserCreationForm

from judge_site.accounts import services, usernames


class SignupForm(UserCreationForm):
    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["username"].help_text = usernames.RULE.capitalize() + "."
        self.fields["username"].max_length = usernames.MAX_LENGTH
        email = self.fields["email"]
        email.required = settings.JUDGE_EMAIL_VERIFY
        email.label = "E-mail address" + ("" if email.required else " (optional)")
        email.help_text = (
            "For a password reset by e-mail and notices when a rejudge changes a verdict; "
            "never shown to others."
            + (" We mail you a link to confirm it." if email.required else "")
        )
        if settings.JUDGE_SIGNUP == "invite":
            self.fields["invite_code"] = forms.CharField(
                label="Invitation code",
                max_length=100,
                help_text="Your course's code, from your instructor.",
            )

    def clean_username(self) -> str:
        name = super().clean_username()  # None when taken (Django adds that error itself)
        if not name:
            return name
        problem = usernames.username_problem(name)
        if problem:
            raise forms.ValidationError(problem)
        return name

    def clean_invite_code(self) -> str:
        code = self.cleaned_data.get("invite_code", "")
        if not services.invite_code_valid(code):
            raise forms.ValidationError(
                "This invitation code is not valid: check it with your instructor."
            )
        return code
