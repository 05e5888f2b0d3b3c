# The application image: target "web" (gunicorn, no torch) and target "worker" (Celery, the
# trusted grader: torch + numpy). Build context: the repository root (see .dockerignore).
#
# Online (default):  BASE_IMAGE=python:3.11-slim-bookworm, packages from the index.
# Offline / CI:      BASE_IMAGE=tensor-judge-base:bookworm (scripts/build_images), OFFLINE=1,
#                    WEB_WHEELS/ENGINE_WHEELS = host wheelhouses; pip never touches a network.
ARG BASE_IMAGE=python:3.11-slim-bookworm

# ---- web dependencies (a builder stage: the wheels never reach the final image)
FROM ${BASE_IMAGE} AS web-venv
ARG WEB_WHEELS=docker/no-wheels
ARG OFFLINE=0
COPY ${WEB_WHEELS}/ /wheels/web/
COPY requirements/web.txt requirements/worker.txt /requirements/
RUN python3 -m venv /opt/venv \
    && if [ "$OFFLINE" = 1 ]; then index="--no-index"; else index=""; fi \
    && /opt/venv/bin/pip install --no-cache-dir --disable-pip-version-check $index \
        --find-links /wheels/web -r /requirements/web.txt

# ---- web: gunicorn serving the site, static files by whitenoise
FROM ${BASE_IMAGE} AS web
RUN groupadd --gid 10002 app \
    && useradd --uid 10002 --gid 10002 --home-dir /app --no-create-home --shell /usr/sbin/nologin app
COPY --from=web-venv /opt/venv /opt/venv
ENV PATH=/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    DJANGO_SETTINGS_MODULE=judge_site.settings \
    STATIC_ROOT=/app/staticfiles
WORKDIR /app
COPY manage.py pyproject.toml /app/
COPY docker/entrypoint.sh docker/gunicorn.conf.py /app/docker/
COPY sandbox/ /app/sandbox/
COPY kernels/ /app/kernels/
COPY problems/ /app/problems/
COPY judge_site/ /app/judge_site/
# KaTeX and CodeMirror are staged on the host by scripts/build_assets (npm is not reachable
# from inside a build). Without them the pages degrade to raw TeX and a textarea: refuse.
RUN missing=""; \
    for f in katex/katex.min.js katex/katex.min.css katex/auto-render.min.js \
            codemirror/codemirror.js codemirror/codemirror.css codemirror/mode/python/python.js \
            codemirror/addon/edit/matchbrackets.js codemirror/addon/edit/closebrackets.js; do \
        test -s "judge_site/static/vendor/$f" || missing="$missing $f"; \
    done; \
    if [ -n "$missing" ]; then \
        echo "ERROR: the web image needs KaTeX and CodeMirror, missing in judge_site/static/vendor:$missing;" \
             "run scripts/build_assets before the build (scripts/up and scripts/build_images do)"; \
        exit 1; \
    fi
# collectstatic needs settings to load; this key exists only during this build step.
RUN DEBUG=false SECRET_KEY=collectstatic-only-not-a-runtime-key-0123456789abcdef \
        python3 manage.py collectstatic --noinput -v 0 \
    && python3 -m compileall -q judge_site sandbox kernels \
    && chmod 0755 /app/docker/entrypoint.sh \
    && mkdir -p /app/media/packages /run/tensor-judge \
    && chown 10002:10002 /app/media/packages /run/tensor-judge
# /run/tensor-judge: the volume of gunicorn's socket for the compose stack's proxy
# (JUDGE_PROXY_SOCKET); a new volume takes this directory's owner.
USER 10002:10002
EXPOSE 8000
ENTRYPOINT ["/app/docker/entrypoint.sh"]
CMD ["web"]

# ---- worker dependencies: web's plus the engine extra (torch, numpy)
FROM web-venv AS worker-venv
ARG ENGINE_WHEELS=docker/no-wheels
ARG OFFLINE=0
# For a CUDA-less online build of torch, pass e.g. https://download.pytorch.org/whl/cpu.
ARG TORCH_INDEX_URL=
COPY ${ENGINE_WHEELS}/ /wheels/engine/
RUN if [ "$OFFLINE" = 1 ]; then index="--no-index"; else index=""; fi \
    && if [ -n "$TORCH_INDEX_URL" ]; then extra="--extra-index-url $TORCH_INDEX_URL"; else extra=""; fi \
    && /opt/venv/bin/pip install --no-cache-dir --disable-pip-version-check $index $extra \
        --find-links /wheels/web --find-links /wheels/engine -r /requirements/worker.txt \
    && /opt/venv/bin/python -c "import torch; print('torch', torch.__version__)"

# ---- worker: the Celery worker (trusted grader); reaches the Docker engine to start sandboxes.
# Its own stage from the base (not FROM web) so that editing code never re-copies the 1 GB venv.
FROM ${BASE_IMAGE} AS worker
RUN groupadd --gid 10002 app \
    && useradd --uid 10002 --gid 10002 --home-dir /app --no-create-home --shell /usr/sbin/nologin app
COPY --from=worker-venv /opt/venv /opt/venv
ENV PATH=/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    DJANGO_SETTINGS_MODULE=judge_site.settings
WORKDIR /app
COPY manage.py pyproject.toml /app/
COPY docker/entrypoint.sh docker/gunicorn.conf.py /app/docker/
COPY sandbox/ /app/sandbox/
COPY kernels/ /app/kernels/
COPY problems/ /app/problems/
COPY judge_site/ /app/judge_site/
# Uploaded problem packages (JUDGE_PACKAGES_DIR): a volume shared with web, owned by the app user.
# /var/lock/tensor-judge (JUDGE_LOCK_DIR): the timing locks the workers share (a volume).
# /app on the venv's path by a .pth: `python -I -m sandbox.runner` (the local backend's runner)
# and the confined grader find the package from any working directory.
RUN python3 -m compileall -q judge_site sandbox kernels && chmod 0755 /app/docker/entrypoint.sh \
    && python3 -c "import site, pathlib; pathlib.Path(site.getsitepackages()[0], 'tensor-judge.pth').write_text('/app\\n')" \
    && mkdir -p /app/media/packages /var/lock/tensor-judge \
    && chown 10002:10002 /app/media/packages /var/lock/tensor-judge
USER 10002:10002
ENTRYPOINT ["/app/docker/entrypoint.sh"]
CMD ["worker"]
