# Stand-in for the official postgres:15 image, for hosts without a registry: Debian's
# PostgreSQL 15 on the local base image. Same contract as the official image for what the
# stack uses: POSTGRES_USER / POSTGRES_PASSWORD / POSTGRES_DB, data in /var/lib/postgresql/data,
# pg_isready for the health check. Build context: docker/.
ARG BASE_IMAGE=tensor-judge-base:bookworm
FROM ${BASE_IMAGE}
RUN mkdir -p /etc/postgresql-common \
    && echo "create_main_cluster = false" > /etc/postgresql-common/createcluster.conf \
    && apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15 \
    && rm -rf /var/lib/apt/lists/* \
    && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
    && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql \
    && chmod 0700 /var/lib/postgresql/data
COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
ENV PATH=/usr/lib/postgresql/15/bin:$PATH \
    PGDATA=/var/lib/postgresql/data
USER postgres
EXPOSE 5432
ENTRYPOINT ["/bin/sh", "/usr/local/bin/postgres-entrypoint.sh"]
