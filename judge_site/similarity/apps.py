from django.apps import AppConfig


class SimilarityConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "judge_site.similarity"
    label = "similarity"
    verbose_name = "Similarity: pairs of students' code per assignment"
