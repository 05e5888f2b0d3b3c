"""Sandbox backends, registered by name. Importing this package registers the built-ins."""

from sandbox.host.backends.base import Backend, Sandbox, SandboxSpec, get_backend, register

__all__ = ["Backend", "Sandbox", "SandboxSpec", "get_backend", "register"]

# Built-in backends register themselves on import; each module must not import torch.
for _name in ("local", "docker"):
    try:
        __import__(f"sandbox.host.backends.{_name}")
    except ModuleNotFoundError as exc:  # not written yet, or docker SDK missing
        # Without the SDK, "docker" may still import as a namespace package (the repository's
        # docker/ folder when the root is on sys.path), and the miss is then "docker.errors".
        missing = exc.name or ""
        if missing != f"sandbox.host.backends.{_name}" and missing.partition(".")[0] != "docker":
            raise
