# shellcheck shell=bash
# Worker hosts, for scripts/up (sourced; uses its env_value, compose, log, die, random_hex,
# decide_images, local_base, build_offline, OFFLINE_FILES, ENV_FILE, ROOT).
#   join_line       scripts/up --join-line   (the main host)
#   worker_up LINE  scripts/up --worker LINE (a worker host; LINE empty: the .env's values)
# TLS between the hosts: tls.sh (the CA, the certificates, --rotate-certs).

PUBLISH_FILE="docker-compose.publish.yml"
WORKER_FILES="docker-compose.worker.yml"
HOSTNET_FILE="docker-compose.worker.hostnet.yml"
# What a join line may set on a worker host, and nothing else (a line is pasted from
# elsewhere: it must not choose COMPOSE_FILE, images or mounts).
# JOIN_VERSION 2 (TLS) adds JUDGE_TLS_CA, the base64 of the main host's CA certificate; a
# line of version 1 (a main host from before TLS) is still taken: plain connections, a warning.
JOIN_KEYS=(JOIN_VERSION REDIS_URL DATABASE_URL JUDGE_PACKAGE_SOURCE JUDGE_WORKER_TOKEN
           JUDGE_MAIN_REVISION JUDGE_HEARTBEAT_STALE_S CELERY_TASK_SOFT_TIME_LIMIT
           CELERY_TASK_TIME_LIMIT JUDGE_TLS_CA)
# What a value of a join line may hold: no quote, space, "$" or backslash (compose interpolates
# "$" in the env file; the rest could end the value).
JOIN_VALUE_RE='^[A-Za-z0-9_.:/@%+=?&-]*$'
ZERO_HASH="0000000000000000000000000000000000000000000000000000000000000000"
# shellcheck source=scripts/up.d/tls.sh
source "$(dirname "${BASH_SOURCE[0]}")/tls.sh"

# A variable from the environment, else the env file, else DEFAULT.
setting() {
    local value="${!1:-}"
    [[ -n "$value" ]] || value="$(env_value "$1")"
    printf '%s\n' "${value:-${2:-}}"
}

# KEY=VALUE in the env file, replacing its assignments (VALUE: hex, digits, names, paths).
set_env() {
    if grep -q "^[[:space:]]*$1=" "$ENV_FILE"; then
        sed -i "s|^[[:space:]]*$1=.*|$1=$2|" "$ENV_FILE"
    else
        printf '%s=%s\n' "$1" "$2" >>"$ENV_FILE"
    fi
}

# KEY=VALUE unless the env file already gives KEY a value (generated once, kept after).
ensure_env() { [[ -n "$(env_value "$1")" ]] || set_env "$1" "$2"; }

is_loopback() { [[ "$1" == 127.* || "$1" == localhost || "$1" == "::1" || "$1" == "[::1]" ]]; }

b64url_encode() { base64 -w0 | tr '+/' '-_' | tr -d '='; }
b64url_decode() {
    local s
    s="$(tr -- '-_' '+/')"
    while (( ${#s} % 4 )); do s+="="; done
    printf '%s' "$s" | base64 -d 2>/dev/null
}

join_line() {
    [[ -f "$ENV_FILE" ]] || die "no $ENV_FILE: start the judge first (scripts/up), then ask for the line"
    [[ "$(env_value JUDGE_ROLE)" != worker ]] \
        || die "this checkout is a worker host: ask the main host for the line"
    local bind address files
    bind="$(setting JUDGE_WORKER_BIND 127.0.0.1)"
    address="$(setting JUDGE_WORKER_ADDRESS "$bind")"
    if [[ "$address" == 0.0.0.0 || "$address" == "::" || "$address" == "[::]" ]]; then
        die "JUDGE_WORKER_BIND=$bind listens on every address: set JUDGE_WORKER_ADDRESS to" \
            "the one worker hosts reach this machine at"
    fi
    # Chosen once, kept in the env file (a later scripts/up publishes the same way).
    ensure_env JUDGE_WORKER_BIND "$bind"
    [[ "$address" == "$bind" ]] || ensure_env JUDGE_WORKER_ADDRESS "$address"
    ensure_env JUDGE_REDIS_PORT "$(setting JUDGE_REDIS_PORT 6379)"
    ensure_env JUDGE_POSTGRES_PORT "$(setting JUDGE_POSTGRES_PORT 5432)"
    ensure_env REDIS_PASSWORD "$(random_hex 24)"
    ensure_env REDIS_WORKER_PASSWORD "$(random_hex 24)"
    ensure_env JUDGE_WORKER_DB_PASSWORD "$(random_hex 24)"
    ensure_env JUDGE_WORKER_TOKEN "$(random_hex 32)"
    # Redis is given the worker password's hash only (kept in step with the password).
    set_env REDIS_WORKER_PASSWORD_SHA256 \
        "$(printf '%s' "$(env_value REDIS_WORKER_PASSWORD)" | sha256sum | cut -c1-64)"
    files="$(env_value COMPOSE_FILE)"
    if [[ -z "$files" ]]; then
        [[ "$(decide_images)" == offline ]] && files="$OFFLINE_FILES" || files="docker-compose.yml"
    fi
    if [[ ":$files:" != *":$PUBLISH_FILE:"* ]]; then
        set_env COMPOSE_FILE "$files:$PUBLISH_FILE"
        log "worker hosts may join: Redis and Postgres published on $bind over TLS (COMPOSE_FILE in $ENV_FILE)"
    fi
    # The CA (once) and the server certificate for the address above, before Redis and
    # Postgres start with TLS; the line carries the CA's certificate.
    local ca
    ca="$(tls_ensure | base64 -w0)"
    [[ -n "$ca" ]] || die "no CA certificate came back from docker/tls_certs.py"
    log "applying the credentials and ports made for workers: docker compose up -d --wait"
    compose up -d --wait --wait-timeout "${JUDGE_UP_TIMEOUT_S:-300}" >&2 \
        || { compose ps >&2; die "the stack did not become healthy: docker compose logs web"; }

    local source web_bind hosts
    source="$(setting JUDGE_PACKAGE_SOURCE)"
    web_bind="$(setting JUDGE_BIND 127.0.0.1)"
    if [[ -z "$source" ]]; then
        [[ "$web_bind" == "$bind" || "$web_bind" == 0.0.0.0 ]] \
            || die "worker hosts fetch problem versions from the web service, published on" \
                   "JUDGE_BIND=$web_bind: set JUDGE_BIND=$bind, or JUDGE_PACKAGE_SOURCE to the" \
                   "URL worker hosts reach it at (a proxy)"
        source="http://$address:$(setting JUDGE_PORT 8000)"
    fi
    hosts="localhost,$(setting ALLOWED_HOSTS 127.0.0.1)"
    if [[ "$source" == http://"$address":* && ",$hosts," != *",$address,"* ]]; then
        log "warning: add $address to ALLOWED_HOSTS in $ENV_FILE, or the web service refuses" \
            "the workers' requests"
    fi
    local revision
    revision="$(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)"
    {
        printf 'JOIN_VERSION=2\n'
        # TLS, the server checked against the CA below and the address against its certificate.
        printf 'REDIS_URL=rediss://worker:%s@%s:%s/0?ssl_cert_reqs=required&ssl_ca_certs=%s\n' \
            "$(env_value REDIS_WORKER_PASSWORD)" "$address" "$(env_value JUDGE_REDIS_PORT)" \
            "$TLS_CA_IN_WORKER"
        printf 'DATABASE_URL=postgres://judge_worker:%s@%s:%s/judge?sslmode=verify-full&sslrootcert=%s\n' \
            "$(env_value JUDGE_WORKER_DB_PASSWORD)" "$address" "$(env_value JUDGE_POSTGRES_PORT)" \
            "$TLS_CA_IN_WORKER"
        printf 'JUDGE_TLS_CA=%s\n' "$ca"
        printf 'JUDGE_PACKAGE_SOURCE=%s\n' "$source"
        printf 'JUDGE_WORKER_TOKEN=%s\n' "$(env_value JUDGE_WORKER_TOKEN)"
        printf 'JUDGE_MAIN_REVISION=%s\n' "$revision"
        printf 'JUDGE_HEARTBEAT_STALE_S=%s\n' "$(setting JUDGE_HEARTBEAT_STALE_S 30)"
        printf 'CELERY_TASK_SOFT_TIME_LIMIT=%s\n' "$(setting CELERY_TASK_SOFT_TIME_LIMIT 300)"
        printf 'CELERY_TASK_TIME_LIMIT=%s\n' "$(setting CELERY_TASK_TIME_LIMIT 360)"
    } | { printf 'tj1:'; b64url_encode; printf '\n'; }
    log "on a worker host, in a clone of this repository (same commit: $revision):" \
        "scripts/up --worker 'LINE'  (the line holds passwords: pass it on privately)"
}

# The variables of a join line, one KEY=VALUE a line, checked; fails on anything else.
join_values() {
    local line="$1" payload key value
    [[ "$line" == tj1:* ]] || { log "not a join line (it starts with tj1:): scripts/up --join-line prints one"; return 1; }
    payload="$(printf '%s' "${line#tj1:}" | b64url_decode)" || { log "the join line is damaged"; return 1; }
    while IFS= read -r entry; do
        [[ -n "$entry" ]] || continue
        key="${entry%%=*}"; value="${entry#*=}"
        [[ " ${JOIN_KEYS[*]} " == *" $key "* && "$entry" == *=* ]] \
            || { log "the join line sets $key, which a worker host takes from nobody"; return 1; }
        [[ "$value" =~ $JOIN_VALUE_RE ]] \
            || { log "the join line's $key holds characters it never has"; return 1; }
        printf '%s=%s\n' "$key" "$value"
    done <<<"$payload"
}

# The worker host's env file, written from the join line's values (LINE) or its own.
worker_env() {
    local values="$1" mode="$2" queues cpu_queues="" profiles="" q host gid=0 files image
    local secret revision redis_host
    queues="$(setting JUDGE_WORKER_QUEUES cpu)"
    for q in ${queues//,/ }; do
        if [[ "$q" == gpu ]]; then profiles+="${profiles:+,}gpu"
        else cpu_queues+="${cpu_queues:+,}$q"; fi
    done
    [[ -n "$cpu_queues" ]] && profiles="cpu${profiles:+,}$profiles"
    [[ -n "$profiles" ]] || die "JUDGE_WORKER_QUEUES=$queues names no queue"
    [[ -S /var/run/docker.sock ]] && gid="$(stat -c %g /var/run/docker.sock)"
    secret="$(env_value SECRET_KEY)"
    [[ -n "$secret" ]] || secret="$(random_hex 32)"  # this host's own: it signs nothing shared
    host="$(setting JUDGE_HOST_NAME "$(uname -n)")"
    files="$WORKER_FILES"
    redis_host="$(sed -n 's|^REDIS_URL=redis[s]*://[^@]*@\(.*\):[0-9]*/.*|\1|p' <<<"$values")"
    is_loopback "$redis_host" && files+=":$HOSTNET_FILE"
    if [[ "$mode" == offline ]]; then
        image="tensor-judge-worker:$(setting JUDGE_IMAGE_TAG offline)"
    else
        image="$(setting WORKER_IMAGE tensor-judge-worker:latest)"
    fi
    revision="$(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)"
    cat <<ENV
# Written by scripts/up --worker: this checkout is a worker host of the judge whose join line
# it was given (a new line rewrites the variables below; SECRET_KEY and the name stay).
JUDGE_ROLE=worker
JUDGE_IMAGES=$mode
COMPOSE_FILE=$files
COMPOSE_PROFILES=$profiles
JUDGE_HOST_NAME=$host
JUDGE_WORKER_QUEUES=$queues
JUDGE_WORKER_CPU_QUEUES=${cpu_queues:-cpu}
JUDGE_WORKER_HOST_IMAGE=$image
JUDGE_WORKER_REVISION=$revision
SECRET_KEY=$secret
DOCKER_GID=$gid
$values
ENV
}

worker_up() {
    local line="$1" values mode tmp start=$SECONDS
    if [[ -f "$ENV_FILE" && "$(env_value JUDGE_ROLE)" != worker ]]; then
        die "$ENV_FILE is a main host's: join from another clone (or set JUDGE_ENV_FILE and" \
            "COMPOSE_PROJECT_NAME for a second one here)"
    fi
    if [[ -n "$line" ]]; then
        values="$(join_values "$line")" || die "refused the join line"
    else
        values="$(grep -E "^($(IFS='|'; echo "${JOIN_KEYS[*]}"))=" "$ENV_FILE")"
    fi
    if ! grep -q '^JUDGE_TLS_CA=.' <<<"$values"; then
        log "warning: this join line carries no CA (a main host from before TLS): this host's" \
            "Redis and Postgres traffic crosses the network in clear. A main host at this" \
            "commit publishes TLS only and refuses it: ask it for a new line (--join-line)"
    fi
    mode="${JUDGE_IMAGES:-$(env_value JUDGE_IMAGES)}"
    [[ -n "$mode" ]] || mode="$(decide_images)"
    tmp="$(mktemp "$ENV_FILE.XXXXXX")"
    chmod 600 "$tmp"
    worker_env "$values" "$mode" >"$tmp"
    if [[ -f "$ENV_FILE" ]] && cmp -s "$tmp" "$ENV_FILE"; then
        rm -f "$tmp"
    else
        mv "$tmp" "$ENV_FILE"
        log "wrote $ENV_FILE (a worker host of $(sed -n 's|^JUDGE_PACKAGE_SOURCE=||p' <<<"$values"))"
    fi
    local main_rev here_rev
    main_rev="$(env_value JUDGE_MAIN_REVISION)"
    here_rev="$(env_value JUDGE_WORKER_REVISION)"
    [[ "$main_rev" == "$here_rev" || "$main_rev" == unknown ]] \
        || log "warning: the main host runs commit $main_rev, this checkout $here_rev:" \
               "check out the same one (a worker judges with its own code)"
    # Compose prefers the shell's variables to the env file's: the main host's addresses and
    # credentials come from the line alone (a REDIS_URL left in the shell would send this
    # host's workers elsewhere without a word).
    unset "${JOIN_KEYS[@]}" SECRET_KEY
    log "images: $mode"
    if [[ "$mode" == offline ]]; then
        export JUDGE_IMAGE_TAG
        JUDGE_IMAGE_TAG="$(setting JUDGE_IMAGE_TAG offline)"
        build_offline
    else
        local base
        base="$(setting APP_BASE_IMAGE python:3.11-slim-bookworm)"
        BASE_IMAGE="$base" scripts/build_images sandbox
        SECRET_KEY=build-only POSTGRES_PASSWORD=build-only APP_BASE_IMAGE="$base" \
            docker compose --env-file /dev/null -f docker-compose.yml build worker >&2
    fi
    log "docker compose up -d --wait (worker host $(env_value JUDGE_HOST_NAME))"
    compose up -d --wait --wait-timeout "${JUDGE_UP_TIMEOUT_S:-300}" \
        || { compose ps >&2; die "the workers did not become healthy: docker compose logs"; }
    log "ready in $((SECONDS - start)) s"
    printf 'Worker host %s is judging queues %s for %s\n' "$(env_value JUDGE_HOST_NAME)" \
        "$(env_value JUDGE_WORKER_QUEUES)" "$(env_value JUDGE_PACKAGE_SOURCE)"
    printf 'Leave: scripts/up --down; logs: docker compose logs -f\n'
}
