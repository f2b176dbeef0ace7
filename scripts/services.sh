#!/usr/bin/env bash
# Starts and stops the test services on 127.0.0.1, idempotently:
#   scripts/services.sh start [broker|zookeeper|security]...   (default: all)
#   scripts/services.sh stop  [broker|zookeeper|security]...
#   scripts/services.sh status
# The broker is nisshi (memory storage) on $BROKER_PORT (9092); ZooKeeper 3.8
# on $ZK_PORT (2181). "security" is three more nisshi instances for the TLS
# and SASL tests (tests/security.rs), with certificates from
# scripts/gen-certs.sh in $CERTS_DIR:
#   $TLS_PORT (9093)       TLS only, memory storage
#   $SASL_PORT (9094)      SASL/SCRAM (--authentication), sqlite storage
#   $SASL_SSL_PORT (9095)  SASL/SCRAM over TLS, sqlite storage
# with the SCRAM users gregor256/gregor-pw-256 (SCRAM-SHA-256) and
# gregor512/gregor-pw-512 (SCRAM-SHA-512) in each sqlite database.
# Logs and pids live in $GREGOR_RUN (/tmp/gregor-services).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

start_broker() {
    if port_open "$BROKER_PORT"; then
        log "broker: already listening on 127.0.0.1:$BROKER_PORT"
        return
    fi
    command -v nisshi >/dev/null || scripts/setup.sh broker
    log "broker: starting nisshi on 127.0.0.1:$BROKER_PORT"
    nohup nisshi broker \
        --listener-url "tcp://127.0.0.1:$BROKER_PORT" \
        --advertised-listener-url "tcp://127.0.0.1:$BROKER_PORT" \
        --storage-engine memory://nisshi/ \
        --group-initial-rebalance-delay 0s \
        >"$GREGOR_RUN/broker.log" 2>&1 </dev/null &
    echo $! >"$GREGOR_RUN/broker.pid"
    wait_port "$BROKER_PORT" 30 || { tail -20 "$GREGOR_RUN/broker.log"; die "broker did not start"; }
}

# run_nisshi NAME PORT ARGS...: starts one nisshi broker in the background.
run_nisshi() {
    local name=$1 port=$2
    shift 2
    nohup nisshi broker \
        --listener-url "tcp://127.0.0.1:$port" \
        --advertised-listener-url "tcp://127.0.0.1:$port" \
        --group-initial-rebalance-delay 0s \
        "$@" >"$GREGOR_RUN/$name.log" 2>&1 </dev/null &
    local pid=$! i
    echo "$pid" >"$GREGOR_RUN/$name.pid"
    for ((i = 0; i < 300; i++)); do
        port_open "$port" && return 0
        kill -0 "$pid" 2>/dev/null || break # exited: no use waiting
        sleep 0.1
    done
    tail -20 "$GREGOR_RUN/$name.log"
    die "$name did not start"
}

# sasl_db NAME PORT: a sqlite database holding the test SCRAM users. Users
# are created through a broker without --authentication on that database
# (an authenticating broker refuses requests before SASL), which is then
# stopped; done once per database.
sasl_db() {
    local name=$1 port=$2 db="$GREGOR_RUN/$1.db"
    if [ -f "$db.users" ]; then
        echo "$db"
        return
    fi
    rm -f "$db" "$db"-*
    run_nisshi "$name-setup" "$port" --storage-engine "sqlite:///$db"
    nisshi user create gregor256 gregor-pw-256 --mechanism scram256 \
        --broker "tcp://127.0.0.1:$port" >>"$GREGOR_RUN/$name-setup.log" 2>&1
    nisshi user create gregor512 gregor-pw-512 --mechanism scram512 \
        --broker "tcp://127.0.0.1:$port" >>"$GREGOR_RUN/$name-setup.log" 2>&1
    stop_one "$name-setup" >&2
    touch "$db.users"
    echo "$db"
}

nisshi_has_sqlite() {
    command -v nisshi >/dev/null && nisshi --help 2>/dev/null | grep '^Storage engines:' | grep -q libsql
}

start_security() {
    nisshi_has_sqlite || scripts/setup.sh broker
    scripts/gen-certs.sh "$CERTS_DIR"
    local tls=(--cert "$CERTS_DIR/broker.pem" --key "$CERTS_DIR/broker.key")
    if port_open "$TLS_PORT"; then
        log "tls broker: already listening on 127.0.0.1:$TLS_PORT"
    else
        log "tls broker: starting nisshi (TLS) on 127.0.0.1:$TLS_PORT"
        run_nisshi tls "$TLS_PORT" --storage-engine memory://tls/ "${tls[@]}"
    fi
    if port_open "$SASL_PORT"; then
        log "sasl broker: already listening on 127.0.0.1:$SASL_PORT"
    else
        log "sasl broker: starting nisshi (SASL/SCRAM, sqlite) on 127.0.0.1:$SASL_PORT"
        local db
        db=$(sasl_db sasl "$SASL_PORT")
        run_nisshi sasl "$SASL_PORT" --storage-engine "sqlite:///$db" --authentication
    fi
    if port_open "$SASL_SSL_PORT"; then
        log "sasl_ssl broker: already listening on 127.0.0.1:$SASL_SSL_PORT"
    else
        log "sasl_ssl broker: starting nisshi (SASL/SCRAM over TLS, sqlite) on 127.0.0.1:$SASL_SSL_PORT"
        local db
        db=$(sasl_db sasl_ssl "$SASL_SSL_PORT")
        run_nisshi sasl_ssl "$SASL_SSL_PORT" --storage-engine "sqlite:///$db" --authentication "${tls[@]}"
    fi
}

stop_security() {
    for n in tls sasl sasl_ssl; do stop_one "$n"; done
}

start_zookeeper() {
    if port_open "$ZK_PORT"; then
        log "zookeeper: already listening on 127.0.0.1:$ZK_PORT"
        return
    fi
    [ -f /usr/share/java/zookeeper.jar ] || scripts/setup.sh zookeeper
    local dir="$GREGOR_RUN/zookeeper"
    rm -rf "$dir/data"
    mkdir -p "$dir/data" "$dir/logs"
    cat >"$dir/zoo.cfg" <<CFG
tickTime=2000
dataDir=$dir/data
clientPort=$ZK_PORT
clientPortAddress=127.0.0.1
maxClientCnxns=0
admin.enableServer=false
4lw.commands.whitelist=ruok,srvr,stat,mntr
CFG
    log "zookeeper: starting on 127.0.0.1:$ZK_PORT"
    nohup java -Xmx256m \
        -cp /etc/zookeeper/conf:/usr/share/java/zookeeper.jar:/usr/share/java/slf4j-log4j12.jar:/usr/share/java/log4j-1.2.jar \
        -Dzookeeper.log.dir="$dir/logs" org.apache.zookeeper.server.quorum.QuorumPeerMain "$dir/zoo.cfg" \
        >"$dir/out.log" 2>&1 </dev/null &
    echo $! >"$GREGOR_RUN/zookeeper.pid"
    wait_port "$ZK_PORT" 30 || { tail -20 "$dir/out.log"; die "zookeeper did not start"; }
}

stop_one() {
    local name=$1 pidf="$GREGOR_RUN/$1.pid"
    [ -f "$pidf" ] || { log "$name: not started by these scripts"; return; }
    local pid
    pid=$(cat "$pidf")
    if kill "$pid" 2>/dev/null; then
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
        log "$name: stopped"
    fi
    rm -f "$pidf"
}

cmd=${1:-status}
shift || true
what=("$@")
[ ${#what[@]} -gt 0 ] || what=(broker zookeeper security)
case "$cmd" in
start) for w in "${what[@]}"; do "start_$w"; done ;;
stop) for w in "${what[@]}"; do
    if [ "$w" = security ]; then stop_security; else stop_one "$w"; fi
done ;;
status)
    for pair in broker:$BROKER_PORT zookeeper:$ZK_PORT tls:$TLS_PORT sasl:$SASL_PORT sasl_ssl:$SASL_SSL_PORT; do
        port_open "${pair#*:}" && echo "${pair%%:*}: up on ${pair#*:}" || echo "${pair%%:*}: down"
    done
    ;;
*) die "usage: $0 start|stop|status [broker|zookeeper|security]" ;;
esac
