# The compose stack's front door (service "proxy"): Debian's nginx in the host's network
# namespace, listening on JUDGE_BIND:JUDGE_PORT, so that it sees every client's own address
# (Docker's userland proxy, docker-proxy, would hand web its bridge's gateway address for
# every client on loopback). It forwards to web over a unix socket in a volume that only web
# and this service mount, and writes X-Forwarded-For itself; docker/proxy-entrypoint.sh writes
# the configuration from the environment at start. Its temporary directories are the worker
# user's from the start, so the master needs no CAP_CHOWN (compose drops every capability but
# binding a port and switching to that user).
# Online: FROM the app's base image (python:3.11-slim-bookworm, Debian). Offline: the local
# Debian base (scripts/build_images). Build context: docker/.
ARG BASE_IMAGE=python:3.11-slim-bookworm
FROM ${BASE_IMAGE}
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nginx \
    && rm -rf /var/lib/apt/lists/* /etc/nginx/sites-enabled/* /etc/nginx/conf.d/* \
    && cd /var/lib/nginx && mkdir -p judge/body judge/proxy judge/fastcgi judge/uwsgi judge/scgi \
    && chown -R www-data:www-data judge && chmod 0700 judge/* && chmod 0755 judge
COPY proxy-entrypoint.sh /usr/local/bin/proxy-entrypoint
RUN chmod 0755 /usr/local/bin/proxy-entrypoint
LABEL tensor-judge.image=proxy
ENTRYPOINT ["/usr/local/bin/proxy-entrypoint"]
CMD ["serve"]
