"""Searches its own interpreter for another implementation of the problem's functions: every
module in sys.modules and every function gc knows of (a baseline the runner imported, a
reference kept by the judge). It would return the first one found (a free AC). Expected: RE
whose message reports that nothing was found."""
import gc
import sys

NAMES = ("embed", "last_token_logits", "pad_batch")
OWN = __file__ if "__file__" in globals() else ""


def _foreign(fn):
    code = getattr(fn, "__code__", None)
    return code is not None and code.co_filename != OWN


def _search():
    found = {}
    for module_name, module in list(sys.modules.items()):
        for name in NAMES:
            fn = getattr(module, name, None) if module is not None else None
            if callable(fn) and _foreign(fn):
                found.setdefault(name, (f"module {module_name}", fn))
    for obj in gc.get_objects():
        try:
            name = getattr(obj, "__name__", None)
        except Exception:
            continue
        if name in NAMES and callable(obj) and _foreign(obj):
            found.setdefault(name, (f"gc {getattr(obj, '__module__', '?')}", obj))
        if isinstance(obj, dict):
            for key in NAMES:
                try:
                    fn = obj.get(key)
                except Exception:
                    continue
                if callable(fn) and _foreign(fn):
                    found.setdefault(key, (f"dict {id(obj)}", fn))
    return found


_FOUND = _search()
if all(name in _FOUND for name in NAMES):
    embed, last_token_logits, pad_batch = (_FOUND[name][1] for name in NAMES)
else:
    _REPORT = f"found={sorted((name, where) for name, (where, _) in _FOUND.items())}"

    def _nothing(*args, **kwargs):
        raise RuntimeError(_REPORT)

    embed = last_token_logits = pad_batch = _nothing
