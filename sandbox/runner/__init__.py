"""What runs inside the student's sandbox: the generic runner (server.py, started as
``python -I -m sandbox.runner``), its framing and value codec (framing.py, wire.py, tensors.py),
observed calls (calls.py), benchmark inputs (inputs.py), keyed digests (digests.py) and the
practice harness appended to a student's file (practice_shim.py).

The ground floor of the package: it imports the standard library, torch and itself only, never
the grader or the host (tests/sandbox/test_layers.py reads it from the import graph). The image
holds this folder alone, at /opt/judge/sandbox/runner (scripts/build_images).
"""
