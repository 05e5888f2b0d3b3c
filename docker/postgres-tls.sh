#!/bin/sh
# Postgres for worker hosts on other machines (docker-compose.publish.yml makes this the
# postgres service's entrypoint once they may join: scripts/up --join-line).
#   (no argument)  install the server's certificate and key, write the client rules, then start
#                  Postgres through its image's own entrypoint with TLS on
#   install        install the certificate and key again (scripts/up --rotate-certs, followed
#                  by pg_reload_conf(): Postgres loads them without a restart)
# Client rules (hba_file): from inside the container and from the compose network (the site's
# own services) a password over plain TCP, as before; from anywhere else (the published port,
# which on this machine arrives from the network's gateway) a password over TLS only: a plain
# connection from a worker host is refused ("no pg_hba.conf entry ... no encryption").
# Works with the official image (starts as root, then drops to postgres) and with
# docker/postgres.Dockerfile (runs as postgres).
set -eu
TLS_DIR=/tls
OWN=/var/lib/postgresql/tls

install_keys() {
    mkdir -p "$OWN"
    # Postgres refuses a key that others may read: a copy of its own, 0600.
    cp "$TLS_DIR/server.pem" "$OWN/server.pem.new"
    cp "$TLS_DIR/server.key" "$OWN/server.key.new"
    chmod 0600 "$OWN/server.key.new"
    chmod 0644 "$OWN/server.pem.new"
    if [ "$(id -u)" = 0 ]; then chown -R postgres:postgres "$OWN"; fi
    mv "$OWN/server.pem.new" "$OWN/server.pem"
    mv "$OWN/server.key.new" "$OWN/server.key"
}

# The default route's gateway, from /proc/net/route (little-endian hex; no ip(8) in the image).
gateway() {
    while read -r iface dest gw _rest; do
        if [ "$dest" = 00000000 ] && [ "$gw" != 00000000 ]; then
            printf '%d.%d.%d.%d\n' "0x$(echo "$gw" | cut -c7-8)" "0x$(echo "$gw" | cut -c5-6)" \
                "0x$(echo "$gw" | cut -c3-4)" "0x$(echo "$gw" | cut -c1-2)"
            return
        fi
    done </proc/net/route
}

write_hba() {
    gw="$(gateway)"
    {
        echo "# Written by postgres-tls.sh at each start (docker-compose.publish.yml)."
        echo "local all all trust"
        echo "host all all 127.0.0.1/32 scram-sha-256"
        echo "host all all ::1/128 scram-sha-256"
        # The gateway is in the compose network's subnet, but what comes from it came through
        # the published port: TLS only.
        [ -z "$gw" ] || echo "hostnossl all all $gw/32 reject"
        echo "host all all samenet scram-sha-256"
        echo "hostssl all all all scram-sha-256"
    } >"$OWN/pg_hba.conf.new"
    if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$OWN/pg_hba.conf.new"; fi
    mv "$OWN/pg_hba.conf.new" "$OWN/pg_hba.conf"
}

case "${1:-start}" in
install)
    install_keys
    exit 0
    ;;
esac

[ -s "$TLS_DIR/server.pem" ] || {
    echo "postgres-tls: no certificate in $TLS_DIR: run scripts/up --join-line (it makes them)" >&2
    exit 1
}
install_keys
write_hba
set -- -c ssl=on -c "ssl_cert_file=$OWN/server.pem" -c "ssl_key_file=$OWN/server.key" \
    -c ssl_min_protocol_version=TLSv1.2 -c "hba_file=$OWN/pg_hba.conf"
if command -v docker-entrypoint.sh >/dev/null 2>&1; then
    exec docker-entrypoint.sh postgres "$@"  # the official image
fi
exec /bin/sh /usr/local/bin/postgres-entrypoint.sh "$@"  # docker/postgres.Dockerfile
