# shellcheck shell=bash
# Extension of scripts/build_images (sourced; uses its helpers `wheelhouse` and `log`): the
# images of the compose stack, built offline from the local base image and host wheelhouses.
#   .cache/wheelhouse/stack-web     requirements/web.txt     (web image: no torch)
#   .cache/wheelhouse/stack-worker  requirements/worker.txt  (worker image: + torch, numpy)
#   tensor-judge-{web,worker,redis,postgres,proxy}:offline via docker-compose.offline.yml
#   (proxy: nginx from Debian's packages, the stack's front door: docker/proxy.Dockerfile)
# Docker's layer cache makes a second run fast; only changed layers rebuild.

stack_requirements() { grep -v '^\s*#' "$ROOT/$1" | grep -v '^\s*$'; }

build_ext_stack() {
    local -a web worker
    mapfile -t web < <(stack_requirements requirements/web.txt)
    mapfile -t worker < <(stack_requirements requirements/worker.txt)
    wheelhouse stack-web "${web[@]}"
    wheelhouse stack-worker "${worker[@]}"
    # The web image refuses a context without KaTeX and CodeMirror (cached: instant when built).
    "$ROOT/scripts/build_assets" >&2
    local start=$SECONDS
    log "compose stack images (offline build from $BASE_IMAGE)"
    # Interpolation needs these two set; they are not used by the build itself.
    # Build with the same builder as `docker compose up --build` (the smoke test, users), so
    # they share one layer cache: scripts/build_images exports DOCKER_BUILDKIT=0 for its own
    # builds, which would select the classic builder and a separate cache.
    # Output goes to a log, shown only on failure.
    local build_log="$CACHE/stack-build.log"
    if ! (cd "$ROOT" && SECRET_KEY="${SECRET_KEY:-build-only}" \
            POSTGRES_PASSWORD="${POSTGRES_PASSWORD:-build-only}" \
            LOCAL_BASE_IMAGE="$BASE_IMAGE" env -u DOCKER_BUILDKIT docker compose -f docker-compose.yml \
            -f docker-compose.offline.yml build web worker redis postgres proxy) >"$build_log" 2>&1; then
        tail -n 40 "$build_log" >&2
        log "compose stack images failed, full log: $build_log"
        return 1
    fi
    log "compose stack images ready in $((SECONDS - start)) s"
}
