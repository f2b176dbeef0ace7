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
