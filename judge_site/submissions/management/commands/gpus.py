"""``manage.py gpus [--count] [--require]``: the GPUs this host's worker would hand to sandboxes.

JUDGE_GPU_IDS where set, else the UUIDs ``nvidia-smi -L`` lists (judge_site/worker/gpus.py).
``--count`` prints only how many (docker/entrypoint.sh runs one judging process per GPU);
``--require`` fails with a message where there is none (a GPU worker must not start without).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from judge_site.worker import gpus


class Command(BaseCommand):
    help = "List the GPUs a GPU worker on this host would use (one judging process each)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--count", action="store_true", help="print only how many")
        parser.add_argument("--require", action="store_true", help="fail when there is none")

    def handle(self, *args: Any, **options: Any) -> None:
        ids = gpus.discover()
        if options["require"] and not ids:
            raise CommandError(
                "no GPU found: nvidia-smi -L lists none and JUDGE_GPU_IDS is empty (install the "
                "NVIDIA driver and container toolkit, or set JUDGE_GPU_IDS)"
            )
        if options["count"]:
            self.stdout.write(str(len(ids)))
            return
        for gpu_id in ids:
            self.stdout.write(gpu_id)
