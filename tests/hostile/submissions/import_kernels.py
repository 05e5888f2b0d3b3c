"""Imports the kernels package (every problem's reference and baseline) from any path it can
think of: plain import, sys.path games (/opt/judge, /opt, /, the runner's folder, the working
directory, every parent of every path), and importlib from any file named like a kernels
module. If it found one it would re-export its functions (a free AC). Expected: RE whose
message reports that nothing was found."""
import importlib
import importlib.util
import os
import sys

NAMES = ("embed", "last_token_logits", "pad_batch")


def _candidates():
    roots = {"/opt/judge", "/opt", "/", "/app", "/srv", "/work", "/work/main", "/tmp", os.getcwd()}
    for path in list(sys.path) + [getattr(sys.modules.get("__main__"), "__file__", "") or ""]:
        while path and path != "/":
            roots.add(path)
            path = os.path.dirname(path)
    return sorted(roots)


def _find():
    found = []
    try:
        module = importlib.import_module("kernels.embedding")
        found.append(("import", module))
    except Exception:
        pass
    saved = list(sys.path)
    for root in _candidates():
        sys.path[:] = [root] + saved
        for name in [n for n in list(sys.modules) if n == "kernels" or n.startswith("kernels.")]:
            del sys.modules[name]
        try:
            found.append((root, importlib.import_module("kernels.embedding")))
        except Exception:
            pass
        for file in (os.path.join(root, "kernels", "embedding.py"), os.path.join(root, "embedding.py")):
            try:
                spec = importlib.util.spec_from_file_location("stolen", file)
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
                found.append((file, module))
            except Exception:
                pass
    sys.path[:] = saved
    return [(where, m) for where, m in found if all(callable(getattr(m, n, None)) for n in NAMES)]


_FOUND = _find()
if _FOUND:
    embed, last_token_logits, pad_batch = (getattr(_FOUND[0][1], n) for n in NAMES)
else:

    def _nothing(*args, **kwargs):
        raise RuntimeError("kernels=[]")

    embed = last_token_logits = pad_batch = _nothing
