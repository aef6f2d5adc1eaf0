#!/usr/bin/env bash
# Stratus as a cluster behind nginx (deploy/nginx/stratus.conf) on one throwaway PostgreSQL cluster: every workload
# through the proxy with one node and with three, then the notification latency when the save goes to one node and
# the waiting client is on another, beside the same with both on one node. Prints the tables.
#
#   bash Benchmarks/cluster/run.sh [--seconds 5] [--records 20000]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=5
records=20000
source Benchmarks/options.sh
nginx=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$nginx" ] || { echo "nginx is not installed (apt-get install nginx)" >&2; exit 1; }
work=$(mktemp -d /tmp/stratus-cluster-bench-XXXXXX)
pids=()
stop_all() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    pids=()
}
trap 'stop_all; rm -rf "$work"' EXIT

swift build --package-path Server -c release --product stratus >&2
stratus=Server/.build/release/stratus
server=$(bash .ci/postgres-cluster --until-pid $$)
database() { echo "${server%/postgres}/$1"; }
free_port() {
    while :; do
        port=$((RANDOM % 10000 + 30000))
        (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return; }
    done
}
wait_for() { for _ in $(seq 1 200); do (echo >"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return; sleep 0.05; done; echo "nothing listens on $1" >&2; exit 1; }

# Starts `count` nodes on a fresh database and nginx in front; sets proxy_port and node_ports.
start_cluster() {
    local count=$1
    psql -q "$server" -c "CREATE DATABASE stratus_cluster_$count" >/dev/null
    proxy_port=$(free_port)
    node_ports=()
    for index in $(seq 1 "$count"); do
        local port
        port=$(free_port)
        "$stratus" serve --database "$(database "stratus_cluster_$count")" --port "$port" --data "$work/node-$count-$index" \
            --admin-key bench --quiet --node-name "node-$index" --public-url "http://127.0.0.1:$proxy_port" \
            --trust-forwarded-for --max-connections-per-address 10000 > "$work/node-$count-$index.log" 2>&1 &
        pids+=($!)
        wait_for "$port"
        node_ports+=("$port")
    done
    local folder="$work/nginx-$count"
    mkdir -p "$folder"
    local servers=""
    for port in "${node_ports[@]}"; do servers+="    server 127.0.0.1:$port max_fails=1 fail_timeout=5s;\n"; done
    sed -e '/^    server 10\.0\.0\./d' -e "s|upstream stratus_nodes {|upstream stratus_nodes {\n$servers|" \
        -e "s|listen 80;|listen 127.0.0.1:$proxy_port;|" deploy/nginx/stratus.conf > "$folder/stratus.conf"
    cat > "$folder/nginx.conf" <<CONF
daemon off;
worker_processes auto;
pid $folder/nginx.pid;
error_log $folder/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $folder/body;
    proxy_temp_path $folder/proxy;
    fastcgi_temp_path $folder/fastcgi;
    uwsgi_temp_path $folder/uwsgi;
    scgi_temp_path $folder/scgi;
    include $folder/stratus.conf;
}
CONF
    local user=()
    [ "$(id -u)" = 0 ] && user=(-g "user root;")
    "$nginx" -p "$folder" -e "$folder/error.log" -c "$folder/nginx.conf" "${user[@]}" &
    pids+=($!)
    wait_for "$proxy_port"
}

for count in 1 3; do
    echo "$count node(s) behind nginx..." >&2
    start_cluster "$count"
    "$stratus" bench --url "http://127.0.0.1:$proxy_port" --admin-key bench --seconds "$seconds" --records "$records" > "$work/proxy-$count.md"
    if [ "$count" = 3 ]; then
        echo "notifications: saved on node 1, waited for on node 1, then on node 2..." >&2
        "$stratus" bench --url "http://127.0.0.1:${node_ports[0]}" --admin-key bench --notifications-only --seconds "$seconds" > "$work/same-node.md"
        "$stratus" bench --url "http://127.0.0.1:${node_ports[0]}" --listen-url "http://127.0.0.1:${node_ports[1]}" \
            --admin-key bench --notifications-only --seconds "$seconds" > "$work/cross-node.md"
    fi
    stop_all
done

echo "## One node behind nginx"; cat "$work/proxy-1.md"; echo
echo "## Three nodes behind nginx"; cat "$work/proxy-3.md"; echo
echo "## Notifications, save and wait on one node (of three)"; cat "$work/same-node.md"; echo
echo "## Notifications, save on node 1, wait on node 2"; cat "$work/cross-node.md"
