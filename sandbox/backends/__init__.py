"""Sandbox backends, registered by name. Importing this package registers the built-ins."""

from sandbox.backends.base import Backend, Sandbox, SandboxSpec, get_backend, register

__all__ = ["Backend", "Sandbox", "SandboxSpec", "get_backend", "register"]

# Built-in backends register themselves on import; each module must not import torch.
for _name in ("local", "docker"):
    try:
        __import__(f"sandbox.backends.{_name}")
    except ModuleNotFoundError as exc:  # not written yet, or docker SDK missing
        if exc.name != f"sandbox.backends.{_name}" and exc.name != "docker":
            raise
