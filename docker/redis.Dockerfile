# Stand-in for the official redis image, for hosts without a registry: Debian's redis-server
# on the local base image (apt-get works inside builds; only registries are unreachable).
# Build context: docker/.
ARG BASE_IMAGE=tensor-judge-base:bookworm
FROM ${BASE_IMAGE}
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends redis-server \
    && rm -rf /var/lib/apt/lists/* \
    && mkdir -p /data && chown redis:redis /data
WORKDIR /data
USER redis
EXPOSE 6379
# The append-only file keeps the queue across restarts (mount a volume on /data).
VOLUME /data
CMD ["redis-server", "--bind", "0.0.0.0", "--protected-mode", "no", "--dir", "/data", \
     "--appendonly", "yes", "--appendfsync", "everysec"]
