"""The handbook's runtime modules as test.py sees them in the grader: proxies of the modules the
student's sandbox imported (sandbox/practice/runtime.py says where they come from). They run
only in the sandbox; ``gs.to_device(x)`` in a test makes the device array there, beside the
student's kernel that writes it, and the test reads it back with ``copy_to_host()`` as data.
An assignment (a spy on ``gpusim.launch``) sets the attribute there, a function of the test
becoming a callback (sandbox/practice/proxies.py).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from sandbox.practice.proxies import Remote


class RuntimeModule(ModuleType):
    """A module of the package's runtime, every attribute read and set in the sandbox."""

    def __init__(self, remote: Remote, name: str) -> None:
        super().__init__(name)
        object.__setattr__(self, "_remote", remote)

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        remote: Remote = object.__getattribute__(self, "_remote")
        try:
            return remote.call("__pj_module_get", self.__name__, attr)
        except AttributeError:
            raise AttributeError(f"module {self.__name__!r} has no attribute {attr!r}") from None

    def __setattr__(self, attr: str, value: Any) -> None:
        remote: Remote = object.__getattribute__(self, "_remote")
        remote.call("__pj_module_set", self.__name__, attr, value)


def runtime_modules(remote: Remote, names: list[str]) -> dict[str, ModuleType]:
    """Name -> proxy, for test.py's imports of the package's runtime ``names``."""
    return {name: RuntimeModule(remote, name) for name in names}
