#!/bin/bash
# Entrypoint of the compose stack's proxy (docker/proxy.Dockerfile; service "proxy").
#   serve   write the nginx configuration from the environment, then run nginx
#   health  the container's health check: nginx answers on JUDGE_BIND:JUDGE_PORT
#
# Why it exists: Docker's userland proxy (docker-proxy) relays every connection to a published
# port that arrives on loopback, so web would see one address, the bridge's gateway, for every
# such client, and the per-address counters (log-in lock, sign-up cap, queued judgings) would
# count the whole site as one client. This nginx runs in the host's network namespace and sees
# each client's own address; it forwards to web over a unix socket in a volume only the two of
# them mount (JUDGE_PROXY_SOCKET) and sets X-Forwarded-For to that address, replacing whatever
# the client sent. Django takes the address from that header only for requests on the socket.
#
# Environment:
#   JUDGE_BIND, JUDGE_PORT   where to listen (default 127.0.0.1:8000), as before for web
#   JUDGE_TRUSTED_PROXIES    your own reverse proxies in front of this one, comma-separated
#                            addresses or CIDRs (e.g. 127.0.0.1, or 10.0.0.5,fd00::/64): from
#                            them the client's address is taken from their X-Forwarded-For
#                            (nginx realip, rightmost untrusted entry) and X-Forwarded-Proto is
#                            passed on; from anyone else it is "http". Empty: trust none.
#   JUDGE_PROXY_SOCKET       web's socket (default /run/tensor-judge/web.sock)
#   JUDGE_PROXY_MAX_BODY     largest request body (default 16m: packages are at most 5 MiB)
set -euo pipefail

BIND="${JUDGE_BIND:-127.0.0.1}"
JUDGE_TRUSTED_PROXIES="${JUDGE_TRUSTED_PROXIES:-}"
PORT="${JUDGE_PORT:-8000}"
SOCKET="${JUDGE_PROXY_SOCKET:-/run/tensor-judge/web.sock}"
MAX_BODY="${JUDGE_PROXY_MAX_BODY:-16m}"
CONF=/tmp/judge-proxy/nginx.conf
HEALTH_HOST=judge-proxy-health.invalid

die() { echo "proxy: $*" >&2; exit 1; }

# An IPv4 or IPv6 address, or (cidr=1) a network: only the characters they are written with,
# so that nothing from the environment can add a line to the configuration.
is_address() {
    local value="$1" cidr="${2:-}"
    if [[ -n "$cidr" ]]; then [[ "$value" =~ ^[0-9A-Fa-f.:]+(/[0-9]{1,3})?$ ]]
    else [[ "$value" =~ ^[0-9A-Fa-f.:]+$ ]]; fi
}

check_env() {
    is_address "$BIND" || die "JUDGE_BIND=$BIND is not an IP address"
    [[ "$PORT" =~ ^[0-9]{1,5}$ ]] && ((PORT >= 1 && PORT <= 65535)) \
        || die "JUDGE_PORT=$PORT is not a port"
    [[ "$SOCKET" =~ ^/[A-Za-z0-9_./-]+$ ]] || die "JUDGE_PROXY_SOCKET=$SOCKET is not a path"
    [[ "$MAX_BODY" =~ ^[0-9]+[kKmMgG]?$ ]] || die "JUDGE_PROXY_MAX_BODY=$MAX_BODY is not a size"
}

# host:port for a listen directive or a connection ([v6]:port).
host_port() { if [[ "$1" == *:* ]]; then printf '[%s]:%s' "$1" "$2"; else printf '%s:%s' "$1" "$2"; fi; }

# PROXIES: the entries of JUDGE_TRUSTED_PROXIES, each checked.
PROXIES=()
read_trusted_proxies() {
    local entry
    for entry in ${JUDGE_TRUSTED_PROXIES//,/ }; do
        is_address "$entry" cidr || die "JUDGE_TRUSTED_PROXIES: $entry is not an address or network"
        PROXIES+=("$entry")
    done
}

write_config() {
    local listen proto_var='$scheme' trust="" p
    listen="        listen $(host_port "$BIND" "$PORT") default_server;"
    # 0.0.0.0 served IPv6 too when Docker published the port: keep that where the host has it.
    if [[ "$BIND" == 0.0.0.0 && -s /proc/net/if_inet6 ]]; then
        listen+=$'\n'"        listen [::]:$PORT default_server ipv6only=on;"
    fi
    if ((${#PROXIES[@]})); then
        trust+="    real_ip_header X-Forwarded-For;"$'\n'"    real_ip_recursive on;"$'\n'
        for p in "${PROXIES[@]}"; do trust+="    set_real_ip_from $p;"$'\n'; done
        trust+='    geo $realip_remote_addr $judge_from_proxy {'$'\n''        default 0;'$'\n'
        for p in "${PROXIES[@]}"; do trust+="        $p 1;"$'\n'; done
        trust+='    }'$'\n'
        trust+='    map $judge_from_proxy $judge_proto { 1 $http_x_forwarded_proto; default $scheme; }'$'\n'
        proto_var='$judge_proto'
    fi
    mkdir -p "$(dirname "$CONF")"
    cat >"$CONF" <<CONF
# Written by proxy-entrypoint at start (from JUDGE_BIND, JUDGE_PORT, JUDGE_TRUSTED_PROXIES).
user www-data;
worker_processes 2;
pid /tmp/judge-proxy/nginx.pid;
error_log stderr warn;
events { worker_connections 1024; }
http {
    access_log off;  # web's log has each request with the client's address
    server_tokens off;
    client_max_body_size $MAX_BODY;
    client_body_temp_path /var/lib/nginx/judge/body;
    proxy_temp_path /var/lib/nginx/judge/proxy;
    fastcgi_temp_path /var/lib/nginx/judge/fastcgi;
    uwsgi_temp_path /var/lib/nginx/judge/uwsgi;
    scgi_temp_path /var/lib/nginx/judge/scgi;
$trust
    upstream web { server unix:$SOCKET; }
    server {
$listen
        location / {
            proxy_pass http://web;
            proxy_set_header Host \$http_host;
            # The client's address as this proxy saw it (after JUDGE_TRUSTED_PROXIES): the
            # only entry, so nothing a client writes in the header reaches Django.
            proxy_set_header X-Forwarded-For \$remote_addr;
            proxy_set_header X-Forwarded-Proto $proto_var;
            proxy_set_header X-Forwarded-Ssl "";
            proxy_set_header X-Forwarded-Protocol "";
            proxy_set_header Forwarded "";
            proxy_redirect off;
            proxy_connect_timeout 5s;
            proxy_read_timeout 120s;
            proxy_send_timeout 120s;
        }
    }
    # The health check's own name (proxy-entrypoint health): answered here, never by web.
    server {
$(sed 's/ default_server//' <<<"$listen")
        server_name $HEALTH_HOST;
        location / { return 204; }
    }
}
CONF
}

case "${1:-serve}" in
serve)
    check_env
    read_trusted_proxies
    write_config
    nginx -t -q -c "$CONF" || die "nginx refused the configuration (above)"
    echo "proxy: listening on $(host_port "$BIND" "$PORT"), forwarding to unix:$SOCKET" \
         "(trusted proxies: ${JUDGE_TRUSTED_PROXIES:-none})"
    exec nginx -c "$CONF" -g 'daemon off;'
    ;;
health)
    host="$BIND"
    [[ "$host" == 0.0.0.0 ]] && host=127.0.0.1
    [[ "$host" == "::" ]] && host=::1
    exec 3<>"/dev/tcp/$host/$PORT"
    printf 'HEAD / HTTP/1.0\r\nHost: %s\r\n\r\n' "$HEALTH_HOST" >&3
    read -r -t 3 status <&3
    [[ "$status" == "HTTP/1."?" 204"* ]] || { echo "proxy: answered ${status:-nothing}" >&2; exit 1; }
    ;;
*)
    exec "$@"
    ;;
esac
