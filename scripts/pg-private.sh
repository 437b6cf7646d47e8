#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A PostgreSQL server of our own in DIR, for a study that several search
# workers share (make evolve-shared, scripts/tests/test_evolve_shared.sh):
# Debian's PostgreSQL binaries (the newest /usr/lib/postgresql/*/bin), a
# cluster of its own in DIR/data (initdb at the first start), its Unix
# socket in DIR itself, one database `evolve` of the superuser `evolve`.
# The system's cluster (pg_ctlcluster, its service) is neither used nor
# touched.
#
#   scripts/pg-private.sh start DIR [--port N] [--listen ADDRESSES]
#       start it (initdb first if DIR has no cluster) and print its URL;
#       port 55432 by default; TCP only with --listen (listen_addresses,
#       e.g. '*'), with the password in DIR/password
#   scripts/pg-private.sh url DIR [--remote]
#       the running server's URL for search.py --storage: through the
#       socket, or with --remote over TCP with the password and this
#       host's name, for workers on other machines
#   scripts/pg-private.sh stop DIR
#       stop it if it runs (fast shutdown); the data stay in DIR
#
# As root the server runs as the user postgres (initdb refuses root),
# which owns DIR; DIR's parents must let it in. The socket trusts every
# local user who can reach DIR (mode 700: root and that user); TCP asks
# for the password (scram-sha-256).
set -euo pipefail

die() { echo "pg-private: $*" >&2; exit 1; }

usage() { sed -n '12,21p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }

[ $# -ge 2 ] || usage
CMD=$1 DIR=$2
shift 2
PORT=55432 LISTEN='' REMOTE=''
while [ $# -gt 0 ]; do
	case $1 in
	--port) PORT=${2:?--port needs a value}; shift ;;
	--listen) LISTEN=${2:?--listen needs a value}; shift ;;
	--remote) REMOTE=1 ;;
	*) die "unknown argument '$1'" ;;
	esac
	shift
done
[[ $PORT =~ ^[0-9]+$ ]] || die "--port: a number"
[[ $DIR != *[[:space:]]* ]] || die "$DIR: a path with a space"
[ ! -d "$DIR" ] || DIR=$(cd "$DIR" && pwd -P)

BIN=$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin 2>/dev/null |
	sort -V | tail -n 1)
[ -n "$BIN" ] && [ -x "$BIN/initdb" ] ||
	die "no PostgreSQL server (apt-get install postgresql)"

# as_owner COMMAND...: as the server's user.
if [ "$(id -u)" = 0 ]; then
	OWNER=postgres
	id -u "$OWNER" > /dev/null 2>&1 ||
		die "no user $OWNER (apt-get install postgresql)"
	as_owner() { runuser -u "$OWNER" -- "$@"; }
else
	OWNER=$(id -un)
	as_owner() { "$@"; }
fi

# The running server's line N of DIR/data/postmaster.pid (4: port).
pid_line() {
	sed -n "${1}p" "$DIR/data/postmaster.pid" 2>/dev/null
}

running() {
	[ -d "$DIR/data" ] && as_owner "$BIN/pg_ctl" -D "$DIR/data" status > /dev/null 2>&1
}

url() {
	local port
	running || die "no server running in $DIR"
	port=$(pid_line 4)
	if [ -n "$REMOTE" ]; then
		[ -n "$(pid_line 6)" ] || die "the server in $DIR listens on no TCP address (start --listen)"
		echo "postgresql+psycopg2://evolve:$(cat "$DIR/password")@$(hostname -f 2>/dev/null || hostname):$port/evolve"
	else
		echo "postgresql+psycopg2://evolve@/evolve?host=$DIR&port=$port"
	fi
}

start() {
	local pw
	mkdir -p "$DIR"
	DIR=$(cd "$DIR" && pwd -P)
	# The socket's path: at most 107 bytes.
	[ $(( ${#DIR} + 18 )) -le 107 ] || die "$DIR: too long a path for a Unix socket"
	if running; then
		url
		return
	fi
	chown "$OWNER" "$DIR"
	chmod 700 "$DIR"
	as_owner test -w "$DIR" || die "$DIR: the user $OWNER cannot reach it (its parents' modes)"
	if [ ! -f "$DIR/data/PG_VERSION" ]; then
		pw=$DIR/password
		(umask 077; head -c 18 /dev/urandom | base64 | tr '+/' '-_' > "$pw")
		chown "$OWNER" "$pw"
		as_owner "$BIN/initdb" -D "$DIR/data" -U evolve --pwfile="$pw" \
			--auth-local=trust --auth-host=scram-sha-256 \
			-E UTF8 --locale=C.UTF-8 > "$DIR/initdb.log" 2>&1 ||
			{ tail -n 5 "$DIR/initdb.log" >&2; die "initdb failed"; }
		printf 'host all all 0.0.0.0/0 scram-sha-256\nhost all all ::/0 scram-sha-256\n' |
			as_owner tee -a "$DIR/data/pg_hba.conf" > /dev/null
	fi
	as_owner "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 60 \
		-o "-p $PORT -k $DIR -c listen_addresses='$LISTEN'" start > /dev/null ||
		{ tail -n 5 "$DIR/server.log" >&2; die "the server did not start"; }
	as_owner "$BIN/psql" -h "$DIR" -p "$PORT" -U evolve -d postgres -qAt \
		-c "SELECT 1 FROM pg_database WHERE datname = 'evolve'" | grep -q 1 ||
		as_owner "$BIN/createdb" -h "$DIR" -p "$PORT" -U evolve evolve ||
		die "createdb evolve failed"
	url
}

stop() {
	[ -d "$DIR/data" ] || return 0
	running || return 0
	as_owner "$BIN/pg_ctl" -D "$DIR/data" -m fast -w -t 60 stop > /dev/null ||
		as_owner "$BIN/pg_ctl" -D "$DIR/data" -m immediate -w stop > /dev/null
}

case $CMD in
start) start ;;
url) url ;;
stop) stop ;;
*) usage ;;
esac
