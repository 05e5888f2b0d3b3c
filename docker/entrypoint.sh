#!/bin/sh
# Entrypoint of the web and worker containers.
#   web     wait for Postgres/Redis, migrate, ensure the admin, sync the problem catalog, gunicorn
#   worker  wait for Postgres/Redis, then a Celery worker on $WORKER_QUEUES (default: cpu)
#   beat    wait for Postgres/Redis, then Celery beat (periodic tasks: the stuck-judging reaper),
#           embedded in a one-process worker of the maintenance queue that runs the reaper
#   other   run it as a command (e.g. "python manage.py shell")
# A wrong DATABASE_URL/REDIS_URL or a bad setting ends here with one line naming the variable.
set -eu
role="${1:-web}"

# A worker host's CA (docker-compose.worker.yml: the join line's JUDGE_TLS_CA, base64 of its
# PEM): the file that REDIS_URL's ssl_ca_certs and DATABASE_URL's sslrootcert name
# (scripts/up.d/tls.sh, TLS_CA_IN_WORKER).
if [ -n "${JUDGE_TLS_CA:-}" ]; then
    printf '%s' "$JUDGE_TLS_CA" | base64 -d >/tmp/tensor-judge-ca.pem.new \
        || { echo "entrypoint: JUDGE_TLS_CA is not base64: join again with a new line" >&2; exit 1; }
    mv /tmp/tensor-judge-ca.pem.new /tmp/tensor-judge-ca.pem
fi

wait_for_services() {
    python3 manage.py wait_for_services --timeout "${WAIT_FOR_SERVICES_S:-60}"
}

case "$role" in
web)
    wait_for_services
    python3 manage.py migrate --noinput
    # The worker hosts' database role (grants follow the tables migrate just made).
    python3 manage.py worker_role
    python3 manage.py ensure_admin
    if python3 manage.py help sync_problems >/dev/null 2>&1; then
        python3 manage.py sync_problems
    else
        echo "entrypoint: no sync_problems command yet, catalog not loaded"
    fi
    exec gunicorn --config /app/docker/gunicorn.conf.py judge_site.wsgi
    ;;
worker)
    wait_for_services
    concurrency="${WORKER_CONCURRENCY:-2}"
    case ",${WORKER_QUEUES:-cpu}," in
    *,gpu,*)
        # One judging process per GPU found (or WORKER_CONCURRENCY where set); none: refuse.
        gpus="$(python3 manage.py gpus --require --count)" || exit 1
        concurrency="${WORKER_CONCURRENCY:-$gpus}"
        echo "entrypoint: $gpus GPU(s): $concurrency judging process(es) on the gpu queue"
        ;;
    esac
    # A stop (SIGTERM: docker compose stop, an upgrade, scripts/up --down) is Celery's cold
    # shutdown with its soft part (CELERY_WORKER_SOFT_SHUTDOWN_TIMEOUT_S): the running judgings
    # get that long to end, then they are cancelled and go back to the queue (acks_late), and
    # the shutdown hooks remove the warm sandboxes. Celery's warm shutdown (plain SIGTERM)
    # waited for the judgings however long they took, past the stop grace, and was killed.
    export REMAP_SIGTERM="${REMAP_SIGTERM:-SIGQUIT}"
    exec celery -A judge_site worker \
        --queues "${WORKER_QUEUES:-cpu}" \
        --concurrency "$concurrency" \
        --hostname "${WORKER_NAME:-worker}@%h" \
        --loglevel "${LOG_LEVEL:-INFO}"
    ;;
beat)
    wait_for_services
    exec celery -A judge_site worker --beat --schedule /tmp/celerybeat-schedule \
        --queues "${JUDGE_MAINTENANCE_QUEUE:-maintenance}" \
        --pool solo --concurrency 1 --hostname "beat@%h" \
        --without-gossip --without-mingle \
        --loglevel "${LOG_LEVEL:-INFO}"
    ;;
*)
    exec "$@"
    ;;
esac
