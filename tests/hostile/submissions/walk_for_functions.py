"""Walks the whole file system for .py/.pyc files that define the problem's functions (a
reference, a baseline, a cached module), and would exec the first one it found (a free AC).
Installed packages (site-packages: torch, sympy, numpy...; tens of thousands of files), the
standard library and /usr/share are skipped so that the walk ends within the import's time
limit on a busy machine: the image scan in test_no_solution_in_reach.py reads all of them but
torch's, numpy's and triton's own. Expected: RE whose message reports
that nothing was found."""
import marshal
import os

WANTED = (b"embed", b"last_token_logits", b"pad_batch")
MAX_BYTES = 4 << 20
LIBRARIES = ("-packages", "/opt/triton", "/usr/lib/python3.11", "/usr/share")


def _defines_all(data, suffix):
    if suffix == ".py":
        return all(b"def " + name + b"(" in data for name in WANTED)
    return all(name in data for name in WANTED)  # names of code objects in bytecode


# Its own folder (this file and the bytecode cached for it) is no one else's solution.
OWN = os.path.dirname(os.path.abspath(__file__))


def _search():
    found = []
    for root, dirs, files in os.walk("/", onerror=lambda e: None):
        if root in ("/proc", "/sys", "/dev") or root.endswith(LIBRARIES) or root.startswith(OWN):
            dirs[:] = []
            continue
        for name in files:
            suffix = os.path.splitext(name)[1]
            if suffix not in (".py", ".pyc"):
                continue
            path = os.path.join(root, name)
            try:
                if os.path.getsize(path) > MAX_BYTES:
                    continue
                with open(path, "rb") as f:
                    data = f.read()
            except OSError:
                continue
            if _defines_all(data, suffix):
                found.append(path)
    return found


def _load(path):
    namespace = {"__name__": "stolen"}
    with open(path, "rb") as f:
        data = f.read()
    code = compile(data, path, "exec") if path.endswith(".py") else marshal.loads(data[16:])
    exec(code, namespace)
    return namespace


_FOUND = _search()
_STOLEN = None
for _path in _FOUND:
    try:
        _ns = _load(_path)
        if all(callable(_ns.get(n.decode())) for n in WANTED):
            _STOLEN = _ns
            break
    except Exception:
        pass

if _STOLEN is not None:
    embed, last_token_logits, pad_batch = (_STOLEN[n.decode()] for n in WANTED)
else:
    _REPORT = f"found={sorted(p for p in _FOUND if '-packages/' not in p)}"

    def _nothing(*args, **kwargs):
        raise RuntimeError(_REPORT)

    embed = last_token_logits = pad_batch = _nothing
