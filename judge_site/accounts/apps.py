from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "judge_site.accounts"
    label = "accounts"
