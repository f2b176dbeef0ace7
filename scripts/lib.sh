# Shared by gregor's scripts: logging, paths, ports. Sourced, not run.
GREGOR_DEPS=${GREGOR_DEPS:-$HOME/.local/share/gregor-deps}
GREGOR_RUN=${GREGOR_RUN:-/tmp/gregor-services}
BROKER_PORT=${BROKER_PORT:-9092}
ZK_PORT=${ZK_PORT:-2181}
# The security brokers (services.sh start security): TLS, SASL/SCRAM, both.
TLS_PORT=${TLS_PORT:-9093}
SASL_PORT=${SASL_PORT:-9094}
SASL_SSL_PORT=${SASL_SSL_PORT:-9095}
CERTS_DIR=${CERTS_DIR:-$GREGOR_RUN/certs}
export PATH="$HOME/.cargo/bin:$GREGOR_DEPS/librdkafka/bin:$PATH"
mkdir -p "$GREGOR_DEPS" "$GREGOR_RUN"

log() { printf '[gregor %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# port_open PORT: true if something listens on 127.0.0.1:PORT
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# wait_port PORT SECONDS
wait_port() {
    local i
    for ((i = 0; i < $2 * 10; i++)); do
        port_open "$1" && return 0
        sleep 0.1
    done
    return 1
}

# start_test_services: starts the broker, ZooKeeper and the security brokers
# that are not running yet (remembering which, for stop_test_services) and
# exports the GREGOR_TEST_* variables the tests read.
GREGOR_STARTED=()
start_test_services() {
    local s port
    for s in broker zookeeper; do
        if [ "$s" = broker ]; then port=$BROKER_PORT; else port=$ZK_PORT; fi
        if ! port_open "$port"; then
            scripts/services.sh start "$s"
            GREGOR_STARTED+=("$s")
        fi
    done
    # The TLS and SASL brokers (tests/security.rs fails without them).
    if ! { port_open "$TLS_PORT" && port_open "$SASL_PORT" && port_open "$SASL_SSL_PORT"; }; then
        # A failure here fails tests/security.rs, not the whole run.
        scripts/services.sh start security || log "the security brokers did not all start: tests/security.rs will fail"
        GREGOR_STARTED+=(security)
    fi
    export GREGOR_TEST_BROKER="127.0.0.1:$BROKER_PORT"
    export GREGOR_TEST_ZOOKEEPER="127.0.0.1:$ZK_PORT"
    export GREGOR_TEST_BROKER_TLS="127.0.0.1:$TLS_PORT"
    export GREGOR_TEST_BROKER_SASL="127.0.0.1:$SASL_PORT"
    export GREGOR_TEST_BROKER_SASL_SSL="127.0.0.1:$SASL_SSL_PORT"
    export GREGOR_TEST_CERTS="$CERTS_DIR"
}

# stop_test_services: stops what start_test_services started.
stop_test_services() {
    local s
    for s in "${GREGOR_STARTED[@]}"; do scripts/services.sh stop "$s" || true; done
}
