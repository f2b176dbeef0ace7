#!/usr/bin/env bash
# Starts and stops the test services on 127.0.0.1, idempotently:
#   scripts/services.sh start [broker|zookeeper]...   (default: both)
#   scripts/services.sh stop  [broker|zookeeper]...
#   scripts/services.sh status
# The broker is nisshi (memory storage) on $BROKER_PORT (9092); ZooKeeper 3.8
# on $ZK_PORT (2181). Logs and pids live in $GREGOR_RUN (/tmp/gregor-services).
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
[ ${#what[@]} -gt 0 ] || what=(broker zookeeper)
case "$cmd" in
start) for w in "${what[@]}"; do "start_$w"; done ;;
stop) for w in "${what[@]}"; do stop_one "$w"; done ;;
status)
    port_open "$BROKER_PORT" && echo "broker: up on $BROKER_PORT" || echo "broker: down"
    port_open "$ZK_PORT" && echo "zookeeper: up on $ZK_PORT" || echo "zookeeper: down"
    ;;
*) die "usage: $0 start|stop|status [broker|zookeeper]" ;;
esac
