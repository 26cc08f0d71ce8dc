#!/bin/sh
# The container's entrypoint (Containerfile): migrate the database, then run the server in its
# place (exec: it gets SIGTERM itself). Anything but "serve" runs as a gamester command, e.g.
#   podman run --rm -v gamester-data:/var/lib/gamester gamester db export --out /var/lib/gamester/backup.jsonl.gz
# The database: $GAMESTER_DB (a PostgreSQL password is best given as $PGPASSWORD, not in the URL).
set -eu
db="${GAMESTER_DB:-sqlite:////var/lib/gamester/gamester.db}"
if [ "$#" -eq 0 ] || [ "$1" = serve ]; then
    [ "$#" -gt 0 ] && shift
    gamester db upgrade --db "$db"
    exec gamester serve --db "$db" "$@"
fi
case "$1" in
    db) [ "$#" -ge 2 ] && sub="$2" && shift 2 && exec gamester db "$sub" --db "$db" "$@" ;;
esac
exec gamester "$@"
