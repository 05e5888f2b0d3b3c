# shellcheck shell=bash
# TLS between hosts, for scripts/up (sourced by hosts.sh; uses scripts/up's compose, env_value,
# log, die and hosts.sh's setting). docs/hosts.md, "TLS between hosts".
#   tls_ensure          the private CA (once) and a server certificate for tls_names (made again
#                       only when the names change); prints the CA's certificate (PEM)
#   rotate_certs        scripts/up --rotate-certs: a new server certificate from the same CA,
#                       loaded by Redis and Postgres without a restart
# The certificates live in the main host's volumes "tls-ca" and "tls" (docker-compose.publish.yml),
# never in the checkout; docker/tls_certs.py makes them inside the web image.

# Where the worker hosts' containers find the CA's certificate: docker/entrypoint.sh writes the
# join line's JUDGE_TLS_CA there, and the URLs of the line name it.
TLS_CA_IN_WORKER=/tmp/tensor-judge-ca.pem

# The names in the server certificate: the address worker hosts reach this machine at, then
# JUDGE_TLS_NAMES (comma-separated: another address, a DNS name behind NAT or a VPN).
tls_names() {
    local bind
    bind="$(setting JUDGE_WORKER_BIND 127.0.0.1)"
    printf '%s\n' "$(setting JUDGE_WORKER_ADDRESS "$bind")"
    local extra
    extra="$(setting JUDGE_TLS_NAMES)"
    [[ -z "$extra" ]] || tr ',' '\n' <<<"$extra" | sed 's/[[:space:]]//g' | grep -v '^$'
}

# The web service's image (Python's cryptography is in it), as this stack names it.
tls_tool_image() {
    compose config web 2>/dev/null | sed -n '/^  web:$/,/^  [a-z]/ s/^    image: //p' | head -n1
}

# docker/tls_certs.py ACTION NAME... in a throwaway container; stdout: the CA's certificate.
tls_run() {
    local action="$1" image names
    image="$(tls_tool_image)"
    [[ -n "$image" ]] || die "cannot tell the web service's image: docker compose config web"
    mapfile -t names < <(tls_names)
    for name in "${names[@]}"; do
        [[ "$name" =~ ^[A-Za-z0-9.:_-]+$ ]] \
            || die "JUDGE_TLS_NAMES/JUDGE_WORKER_ADDRESS: '$name' is not an address or host name"
    done
    JUDGE_TLS_TOOL_IMAGE="$image" compose --profile tls-certs run --rm -T tls-certs \
        "$action" "${names[@]}" <"$ROOT/docker/tls_certs.py" \
        || die "could not make the TLS certificates (docker/tls_certs.py in $image)"
}

tls_ensure() { tls_run make; }

rotate_certs() {
    [[ -f "$ENV_FILE" ]] || die "no $ENV_FILE: nothing was started from this checkout"
    [[ "$(env_value JUDGE_ROLE)" != worker ]] \
        || die "this checkout is a worker host: rotate the certificates on the main host"
    [[ ":$(env_value COMPOSE_FILE):" == *":$PUBLISH_FILE:"* ]] \
        || die "worker hosts cannot join yet, so there is no certificate: scripts/up --join-line"
    tls_run rotate >/dev/null
    # Redis loads its TLS files again when they are set; Postgres on a reload (SIGHUP).
    compose exec -T redis sh -c 'REDISCLI_AUTH="$REDIS_PASSWORD" redis-cli CONFIG SET \
        tls-cert-file /tls/server.pem tls-key-file /tls/server.key' | grep -q OK \
        || die "Redis did not load the new certificate: docker compose logs redis"
    compose exec -T postgres sh /usr/local/bin/postgres-tls.sh install \
        && compose exec -T postgres psql -U judge -d judge -Atc 'SELECT pg_reload_conf()' \
            | grep -q t \
        || die "Postgres did not load the new certificate: docker compose logs postgres"
    log "new server certificate (same CA) loaded by Redis and Postgres; the worker hosts keep" \
        "their join line (new connections see the new certificate)"
}
