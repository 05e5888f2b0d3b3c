from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "judge_site.accounts"
    label = "accounts"

    def ready(self) -> None:
        from judge_site.accounts import signals  # noqa: F401  (connects the receivers)
