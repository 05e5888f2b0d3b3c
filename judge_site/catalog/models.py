"""Problems as stored in the database; the packages on disk (problems/) are the source."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from judge_site.core.constraints import one_per
from sandbox.grader.manifest import language_of


class Difficulty(models.TextChoices):
    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


class Device(models.TextChoices):
    CPU = "cpu"
    GPU = "gpu"
    ANY = "any"


class Problem(models.Model):
    number = models.PositiveIntegerField(unique=True)
    slug = models.SlugField(max_length=100, unique=True)
    title = models.CharField(max_length=200)
    difficulty = models.CharField(max_length=10, choices=Difficulty.choices)
    chapter = models.CharField(max_length=200, blank=True)
    tags = models.JSONField(default=list, blank=True)
    device = models.CharField(max_length=5, choices=Device.choices, default=Device.CPU)
    statement_md = models.TextField()
    starter_code = models.TextField()
    # Limits, tolerances, feedback policy and benchmark as read from problem.toml.
    manifest = models.JSONField(default=dict)
    # Public examples only (name + rendered inputs/outputs); hidden tests never stored here.
    public_examples = models.JSONField(default=list, blank=True)
    # Folder of the package on disk (the built-in catalog or the instance's upload storage).
    package_dir = models.CharField(max_length=500)
    # Content hash of the package; every submission records the version that judged it.
    version = models.CharField(max_length=64)
    published = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["number"]

    def __str__(self) -> str:
        return f"{self.number}. {self.title}"

    @property
    def language(self) -> str:
        """What the student writes: problem.toml's ``language`` (python, cuda, cpp; the editor's
        mode). A C++ / CUDA C++ practice problem imported before packages had a language says so
        in its ``[practice] harness`` only."""
        return language_of(self.manifest if isinstance(self.manifest, dict) else {})


class Draft(models.Model):
    """The code a user last had in a problem's editor, kept on the server so that it follows
    them to another browser or machine. One per user and problem; Reset deletes it."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="drafts"
    )
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="drafts")
    code = models.TextField()
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = one_per("one_draft_per_user_problem", "user", "problem")

    def __str__(self) -> str:
        return f"draft of {self.user_id} for problem {self.problem_id}"
