"""The harness appended to a student's file for a practice problem (sandbox/practice/proxies.py).

Its source is read as text and appended to the submission, so it runs in the student's own
module, inside the sandbox: it holds no test, no expected value and no solution, only the
generic moves a proxy needs. Every ``__pj_*`` function is called through the runner's ``call``
op; what it returns travels back through the wire codec:

- ``__pj_call(name, args, kwargs)``: call the module's global ``name`` (looked up at call time,
  so a replaced helper is seen);
- ``__pj_call_saved(name, args, kwargs)``: the same for a name a test has replaced (see below);
- ``__pj_get(name)``: a module global (a function or class is described, not sent);
- ``__pj_invoke(h, args, kwargs)``, ``__pj_attr(h, name)``, ``__pj_setattr(h, name, value)``,
  ``__pj_iter(h)``, ``__pj_next(h)``, ``__pj_len(h)``, ``__pj_item(h, key)``: on an object kept
  here (an instance of the student's class, a closure, a generator) and known to the grader by
  its handle number;
- ``__pj_set(name, value)`` / ``__pj_restore(name)``: a test replaces ``solution.<name>`` (by a
  function of its own: a callback, below) and puts the original back;
- ``__pj_module_get(module, name)`` / ``__pj_module_set(module, name, value)``: an attribute of
  a module the package gave the sandbox (the handbook's runtime, sandbox/practice/runtime.py),
  which the test uses through a proxy (a ``gpusim`` device array lives here, beside the kernel
  that writes it; a spy on ``gpusim.launch`` is set here);
- ``__pj_item`` also takes a global's name: ``kernel[grid, block]``;
- ``__pj_repr(h)``: the object's own repr (a gpusim ``Stats`` in a test's failure message).

A value that is not data (tensors, numpy values, numbers, strings, lists, tuples, dicts) is kept
here and sent as ``{"__practice_handle__": n, "callable": bool, "type": name}``; the grader
sends ``{"__practice_handle__": n}`` or ``{"__practice_global__": name}`` back in arguments, and
``{"__practice_callback__": n}`` for a function of the test (a lambda, a replacement of
``solution.<name>``): calling it here sends a ``callback`` frame on the runner's channel and
waits for the grader's ``callback_return`` (serving the grader's nested ``call`` requests
meanwhile), so the function runs in the grader on the values the student's code passed it.
The student may patch all of this: it only changes what the grader observes, and the grader
compares everything itself.
"""


def __pj_harness():  # noqa: ANN202, C901, PLR0915 - one closure keeps the module namespace tidy
    import builtins as _builtins
    import importlib as _importlib
    import os as _os
    import sys as _sys
    from typing import Any

    import torch as _torch

    g = globals()
    # The runner's server module and its channel modules, for callbacks.
    main: Any = _sys.modules.get("sandbox.runner.server")
    wire: Any = _sys.modules.get("sandbox.runner.wire")
    wire_decode: Any = _sys.modules.get("sandbox.runner.wire_decode")
    calls: Any = _sys.modules.get("sandbox.runner.calls")
    framing: Any = _sys.modules.get("sandbox.runner.framing")
    objects: dict[int, Any] = {}
    saved: dict[str, Any] = {}
    counter = [0]
    handle_key = "__practice_handle__"
    global_key = "__practice_global__"
    callback_key = "__practice_callback__"

    def is_data(value):
        kind = type(value)
        if value is None or kind in (bool, int, float, str, bytes):
            return True
        if isinstance(value, _torch.Tensor | _torch.dtype):
            return True
        module = str(getattr(kind, "__module__", "") or "")
        return module == "numpy" or module.startswith("numpy.")

    def keep(value):
        counter[0] += 1
        objects[counter[0]] = value
        name = getattr(type(value), "__name__", "object")
        return {handle_key: counter[0], "callable": callable(value), "type": str(name)[:100]}

    def walk(value, depth, each, leaf):
        """``value`` with ``each`` applied to the items of its lists and tuples (at most 40
        deep), and ``leaf(value, depth)`` to anything else."""
        kind = type(value)
        if depth > 40:
            return value
        if kind is list:
            return [each(v, depth + 1) for v in value]
        if kind is tuple:
            return tuple(each(v, depth + 1) for v in value)
        return leaf(value, depth)

    def wrap(value, depth=0):
        return walk(value, depth, wrap, wrap_leaf)

    def wrap_leaf(value, depth):
        kind = type(value)
        if kind is _torch.Size:
            return tuple(int(v) for v in value)
        if kind is dict and all(type(k) is str for k in value):
            return {k: wrap(v, depth + 1) for k, v in value.items()}
        if is_data(value):
            return value
        return keep(value)

    def unwrap(value, depth=0):
        return walk(value, depth, unwrap, unwrap_leaf)

    def unwrap_leaf(value, depth):
        if type(value) is dict:
            if set(value) == {handle_key}:
                return objects[value[handle_key]]
            if set(value) == {global_key}:
                return g[value[global_key]]
            if set(value) == {callback_key}:
                return grader_function(value[callback_key])
            return {k: unwrap(v, depth + 1) for k, v in value.items()}
        return value

    # ---- callbacks: a function of the test, run in the grader while the student's call waits

    def send(message, **values):
        message = dict(message)
        message["printed"] = int(_os.fstat(main._OUTPUT_FD).st_size)
        view = memoryview(wire.frame(message, **values))
        while view:
            view = view[_os.write(main._FRAME_OUT, view):]

    def read_exact(n):
        chunks = []
        while n:
            chunk = _os.read(main._FRAME_IN, min(n, 1 << 20))
            if not chunk:
                raise SystemExit(0)  # the grader is gone
            chunks.append(chunk)
            n -= len(chunk)
        return b"".join(chunks)

    def recv():
        length = framing.parse_header(read_exact(framing.HEADER.size))
        return framing.decode_payload(read_exact(length))

    def call_grader(ident, args, kwargs):
        """Ask the grader to run its function ``ident``; serve the grader's own calls of the
        student's code meanwhile (a spy calling the original); return its value or raise its
        exception (as the built-in exception class it derives from)."""
        send({"ok": True, "callback": ident}, args=wrap(list(args)), kwargs=wrap(dict(kwargs)))
        while True:
            msg, blob = recv()
            op = msg.get("op")
            if op == "callback_return":
                info = msg.get("raise")
                if isinstance(info, dict):
                    cls = getattr(_builtins, str(info.get("type")), None)
                    if not (isinstance(cls, type) and issubclass(cls, Exception)):
                        cls = RuntimeError
                    raise cls(str(info.get("message", "")))
                return unwrap(wire_decode.decode(msg.get("value"), blob, numpy=True))
            if op == "call" and str(msg.get("fn", "")).startswith("__pj_"):
                fn = g[str(msg["fn"])]
                call_args = wire_decode.decode(msg.get("args"), blob, numpy=True)
                call_kwargs = wire_decode.decode(msg.get("kwargs"), blob, numpy=True)
                obs = calls.execute_call(fn, call_args, call_kwargs, [], 0, g.get("__file__"))
                send({"ok": True}, obs=obs)
                continue
            send({"ok": False, "error": f"unexpected op {str(op)[:40]!r} during a callback"})

    def grader_function(ident):
        def grader_function(*args, **kwargs):
            return call_grader(ident, args, kwargs)

        return grader_function

    def lookup(name):
        if name not in g or name.startswith("__pj_"):
            raise AttributeError(f"your file defines no {name!r}")
        return g[name]

    def pj_call(name, args, kwargs):
        return wrap(lookup(name)(*unwrap(args), **unwrap(kwargs)))

    def pj_call_saved(name, args, kwargs):
        """The student's own ``name`` while a test has it replaced (a test's spy calling the
        original it kept)."""
        fn = saved.get(name) or lookup(name)
        return wrap(fn(*unwrap(args), **unwrap(kwargs)))

    def pj_get(name):
        value = lookup(name)
        if callable(value) and not is_data(value):
            return {global_key: name, "class": isinstance(value, type)}
        return wrap(value)

    def pj_invoke(handle, args, kwargs):
        return wrap(objects[handle](*unwrap(args), **unwrap(kwargs)))

    def pj_attr(handle, name):
        return wrap(getattr(objects[handle], name))

    def pj_setattr(handle, name, value):
        setattr(objects[handle], name, unwrap(value))

    def pj_iter(handle):
        return keep(iter(objects[handle]))

    def pj_next(handle):
        return wrap(next(objects[handle]))

    def pj_len(handle):
        return len(objects[handle])

    def pj_item(handle, key):
        target = lookup(handle) if type(handle) is str else objects[handle]
        return wrap(target[unwrap(key)])

    def pj_repr(handle):
        return str(repr(objects[handle]))[:2000]

    def pj_module_get(module, name):
        return wrap(getattr(_importlib.import_module(module), name))

    def pj_module_set(module, name, value):
        setattr(_importlib.import_module(module), name, unwrap(value))

    def pj_restore(name):
        if name in saved:
            g[name] = saved.pop(name)

    def pj_set(name, value):
        saved.setdefault(name, g.get(name))
        g[name] = unwrap(value)

    for fn in (
        pj_call, pj_call_saved, pj_get, pj_invoke, pj_attr, pj_setattr, pj_iter, pj_next, pj_len, pj_item,
        pj_restore, pj_set, pj_module_get, pj_module_set, pj_repr,
    ):
        g["__" + fn.__name__] = fn


__pj_harness()
del __pj_harness
