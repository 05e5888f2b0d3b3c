"""Accounts: sign-up, the log-in throttle (django-axes), e-mail and password resets."""

from __future__ import annotations

from datetime import timedelta

from django.core.exceptions import ImproperlyConfigured

from judge_site.env import envbool, envchoice, envint, envlist, envstr, envtable

# Accounts. Sign-up: open, invite (a code from JUDGE_SIGNUP_INVITE_CODES is asked) or closed
# (staff create accounts in the admin).
JUDGE_SIGNUP = envchoice("JUDGE_SIGNUP", "open", ("open", "invite", "closed"))
JUDGE_SIGNUP_INVITE_CODES = envlist("JUDGE_SIGNUP_INVITE_CODES", "")
if JUDGE_SIGNUP == "invite" and not JUDGE_SIGNUP_INVITE_CODES:
    raise ImproperlyConfigured(
        "JUDGE_SIGNUP=invite needs JUDGE_SIGNUP_INVITE_CODES (one or more codes, comma-separated)"
    )
# Log-in throttle (django-axes, on the site's and the admin's log-in; the rules are explained
# in judge_site/accounts/lockout.py): after this many failed attempts for one account from one
# client address, and from one address for any accounts, that pair (that address) is refused
# for the cool-off time, even with the right password. JUDGE_LOGIN_LOCKOUT lists what is
# counted: "username", "ip_address", or both joined by "+" (that pair), comma-separated; a plain
# "username" lets anyone lock any account (the owner included) and is not advised.
AXES_FAILURE_LIMIT = envint("JUDGE_LOGIN_FAILURE_LIMIT", "10")
AXES_COOLOFF_TIME = timedelta(minutes=envint("JUDGE_LOGIN_COOLOFF_MIN", "15"))
AXES_LOCKOUT_PARAMETERS = [
    item.split("+") if "+" in item else item
    for item in envlist("JUDGE_LOGIN_LOCKOUT", "username+ip_address,ip_address")
]
AXES_HANDLER = "judge_site.accounts.lockout.LockoutHandler"
if not AXES_LOCKOUT_PARAMETERS or any(
    part not in ("username", "ip_address")
    for item in AXES_LOCKOUT_PARAMETERS
    for part in ([item] if isinstance(item, str) else item)
):
    raise ImproperlyConfigured(
        "JUDGE_LOGIN_LOCKOUT lists username, ip_address or username+ip_address, comma-separated"
    )
AXES_LOCKOUT_CALLABLE = "judge_site.accounts.views.locked_out"
AXES_CLIENT_IP_CALLABLE = "judge_site.core.inputs.client_ip"
AXES_USERNAME_CALLABLE = "judge_site.accounts.usernames.axes_username"
# A success does not clear the failures: axes would clear every failure from that address,
# so an attacker could reset the counters by logging in to an account of their own.
AXES_RESET_ON_SUCCESS = False
# A lockout ends after the cool-off even while someone keeps guessing (else anyone could keep
# a student's account locked for ever).
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_HTTP_RESPONSE_CODE = 429
# No start-up banner or per-request detail in the logs (commands print one-line errors);
# lockouts are still logged as warnings.
AXES_VERBOSE = False

# E-mail (docs/email.md): password reset links, address verification, rejudge notices. Django's
# own names. No EMAIL_HOST (the default): the site sends no mail, and its pages say so.
EMAIL_HOST = envstr("EMAIL_HOST", "")
EMAIL_TIMEOUT = 10  # s: a mail server that hangs holds the maintenance worker this long at most
EMAIL_BACKEND = (
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.dummy.EmailBackend"
)
# Sign-up asks for an address and mails a signed link to confirm it; only confirmed addresses
# get password reset mail. Off: the address is optional and used as given.
JUDGE_EMAIL_VERIFY = envbool("JUDGE_EMAIL_VERIFY", "False")
if JUDGE_EMAIL_VERIFY and not EMAIL_HOST:
    raise ImproperlyConfigured(
        "JUDGE_EMAIL_VERIFY=true needs EMAIL_HOST (the mail server that sends the links)"
    )
# The site's address as students reach it (https://judge.example.org), for links in mail sent
# by workers (rejudge notices); empty: those mails name the submissions without links.
JUDGE_SITE_URL = envstr("JUDGE_SITE_URL", "").rstrip("/")

# The plain ones: each NAME read by its reader, with its default.
globals().update(envtable({
    # At most this many accounts created from one client address per JUDGE_SIGNUP_WINDOW_MIN.
    "JUDGE_SIGNUPS_PER_ADDRESS": (envint, "10"),
    "JUDGE_SIGNUP_WINDOW_MIN": (envint, "60"),
    # The slower log-in rate per account, from all addresses together (0: none). The address
    # the account last logged in from is exempt, so that it cannot lock its owner out.
    "JUDGE_LOGIN_USERNAME_FAILURE_LIMIT": (envint, "50"),
    # E-mail: Django's own names.
    "EMAIL_PORT": (envint, "587"),
    "EMAIL_USE_TLS": (envbool, "True"),  # STARTTLS on EMAIL_PORT
    "EMAIL_HOST_USER": (envstr, ""),
    "EMAIL_HOST_PASSWORD": (envstr, ""),
    "DEFAULT_FROM_EMAIL": (envstr, "Tensor Judge <judge@localhost>"),
    # Password reset requests within JUDGE_RESET_WINDOW_MIN: per e-mail address asked for, and
    # per client address (a class behind one NAT shares it, hence the larger default).
    "JUDGE_RESETS_PER_EMAIL": (envint, "10"),
    "JUDGE_RESETS_PER_CLIENT": (envint, "30"),
    "JUDGE_RESET_WINDOW_MIN": (envint, "60"),
}))
