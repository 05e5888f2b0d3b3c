# shellcheck shell=bash
# Extension of scripts/build_images (sourced; uses its helpers `wheelhouse`, `build_hashed_image`,
# `log`, `image_exists`): the CPU sandbox image plus Triton, for problems whose problem.toml
# says `requires = ["triton"]` (problem 56). Selected per problem by JUDGE_SANDBOX_IMAGES.
#   .cache/wheelhouse/triton      pip download --no-deps triton==3.9.0 (no torch, never CUDA)
#   tensor-judge-sandbox:triton   FROM the content-hashed tensor-judge-sandbox:h-<hash> (the
#                                 CPU image just built) + triton, TRITON_INTERPRET=1
# Its content hash includes the CPU image's tag, so a changed runner/torch rebuilds it;
# unchanged, it is skipped. A CUDA + Triton image (speed on a GPU) is the GPU worker's
# business: see the note in sandbox/images/Dockerfile.triton.
TRITON_VERSION="${TRITON_VERSION:-3.9.0}"

# The content-hash tag (tensor-judge-sandbox:h-...) that tensor-judge-sandbox:cpu points at now.
cpu_sandbox_hash_tag() {
    local id tag
    id="$(docker image inspect -f '{{.Id}}' tensor-judge-sandbox:cpu 2>/dev/null)" \
        || { log "tensor-judge-sandbox:cpu missing: build it first (scripts/build_images sandbox)"; return 1; }
    tag="$(docker image inspect -f '{{range .RepoTags}}{{println .}}{{end}}' "$id" \
        | grep '^tensor-judge-sandbox:h-' | sort | head -n1)"
    [[ -n "$tag" ]] || { log "no tensor-judge-sandbox:h-* tag on $id"; return 1; }
    printf '%s\n' "$tag"
}

build_ext_triton() {
    # --no-deps: triton 3.x needs no other wheel at runtime; torch comes from the CPU image and
    # must not be downloaded again (nor replaced by a CUDA build).
    wheelhouse triton --no-deps "triton==$TRITON_VERSION"
    local dir="$CACHE/wheelhouse/triton"
    if compgen -G "$dir/torch-*.whl" >/dev/null || compgen -G "$dir/nvidia_*.whl" >/dev/null; then
        rm -f "$dir/.stamp"
        log "the triton wheelhouse holds torch or nvidia wheels: it must hold triton only"
        return 1
    fi
    local base
    base="$(cpu_sandbox_hash_tag)"
    build_hashed_image tensor-judge-sandbox triton sandbox/images/Dockerfile.triton \
        "$dir:wheels" -- --build-arg "SANDBOX_IMAGE=$base" --build-arg "TRITON_VERSION=$TRITON_VERSION"
    # Older builds (an earlier CPU image under them) hold a 1 GB layer each: untag them. An
    # image a container still uses stays (docker rmi refuses); it goes on a later run.
    local current ref id
    current="$(docker image inspect -f '{{.Id}}' tensor-judge-sandbox:triton)"
    docker images --no-trunc --filter label=tensor-judge.image=sandbox-triton \
        --format '{{.Repository}}:{{.Tag}} {{.ID}}' | while read -r ref id; do
        [[ "$id" == "$current" || "$ref" == *"<none>"* ]] && continue
        docker rmi "$ref" >/dev/null 2>&1 && log "removed the older $ref" || true
    done
    # The build stage, left dangling by the classic builder (only this file's label).
    docker image prune -f --filter label=tensor-judge.image=sandbox-triton-stage >/dev/null || true
}
