from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "judge_site.accounts"
    label = "accounts"

    def ready(self) -> None:
        from judge_site.accounts import signals  # noqa: F401  (connects the receivers)
        from judge_site.accounts.tokens import user_for_key
        from judge_site.core import api

        api.register_token_reader(user_for_key)  # the API's token auth (judge_site/core/api.py)
