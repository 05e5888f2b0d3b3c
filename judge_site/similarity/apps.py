from django.apps import AppConfig


class SimilarityConfig(AppConfig):
    name = "judge_site.similarity"
    label = "similarity"
    verbose_name = "Similarity: pairs of students' code per assignment"
