"""Stratus against PocketBase, seeded alike and loaded alike with wrk, in one run.

Three workloads, each for a signed-in user with 16 connections: single-record creates, lookups by name, and
the query apps run most (the current items of one kind, newest first: cat = 'c3' AND n > R, sorted by n
descending, 50 per page). The two servers take turns on each workload, so that a noisy machine weighs on both.

    python3 Benchmarks/peer/peer.py --stratus .build/release/stratus [--records 10000] [--seconds 10] [--workloads create,lookup,query]
"""

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor

CONTAINER = "iCloud.com.example.Peer"
SCHEMA = """DEFINE SCHEMA
    RECORD TYPE Item (
        "___recordID" REFERENCE QUERYABLE,
        cat STRING QUERYABLE,
        n   INT64 QUERYABLE SORTABLE,
        INDEX (cat, n),
        GRANT READ TO "_world", GRANT CREATE TO "_icloud", GRANT WRITE TO "_creator"
    );
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(base, method, path, body=None, headers=None, raw=False):
    data = body.encode() if isinstance(body, str) else (json.dumps(body).encode() if body is not None else None)
    request = urllib.request.Request(base + path, method=method, data=data, headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            payload = response.read()
            return response.status, payload if raw else json.loads(payload or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def wait_until_up(url, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            urllib.request.urlopen(url, timeout=2)
            return
        except Exception:
            time.sleep(0.2)
    raise SystemExit(f"{url} did not answer within {seconds} s")


def record_name(index):
    """15 characters, the form PocketBase ids take, used as the record name on both servers."""
    return f"r{index:014d}"


class Stratus:
    name = "Stratus"

    def __init__(self, executable, folder, settings=()):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [executable, "serve", "--quiet", "--port", str(self.port), "--data", folder, "--admin-key", "peer-admin-key", *settings],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until_up(self.base + "/healthz")
        admin = {"Authorization": "Bearer peer-admin-key"}
        status, created = call(self.base, "POST", "/admin/1/containers", {"containerID": CONTAINER}, admin)
        token = created["apiToken"]
        call(self.base, "PUT", f"/admin/1/{CONTAINER}/development/schema", SCHEMA, admin, raw=True)
        status, user = call(self.base, "POST", f"/auth/1/{CONTAINER}/development/signup?ckAPIToken={token}",
                            {"emailAddress": "peer@example.com", "password": "a long password"})
        web = urllib.parse.quote(user["ckWebAuthToken"], safe="")
        self.database = f"/database/1/{CONTAINER}/development/public"
        self.query = f"ckAPIToken={token}&ckWebAuthToken={web}"

    def seed(self, count):
        for start in range(0, count, 200):
            operations = [{"operationType": "create", "record": {"recordName": record_name(i), "recordType": "Item",
                           "fields": {"cat": {"value": f"c{i % 10}"}, "n": {"value": i}}}} for i in range(start, min(count, start + 200))]
            status, answer = call(self.base, "POST", f"{self.database}/records/modify?{self.query}", {"operations": operations})
            assert status == 200 and all("serverErrorCode" not in r for r in answer["records"]), answer

    def scripts(self, count):
        path = f"{self.database}/records/%s?{self.query}"
        return {
            "create": f"""
wrk.method = "POST"
request = function()
  local i = math.random(0, 1000000)
  return wrk.format(nil, "{path % 'modify'}", nil,
    '{{"operations":[{{"operationType":"create","record":{{"recordType":"Item","fields":{{"cat":{{"value":"c' .. (i % 10) .. '"}},"n":{{"value":' .. i .. '}}}}}}}}]}}')
end""",
            "lookup": f"""
wrk.method = "POST"
request = function()
  return wrk.format(nil, "{path % 'lookup'}", nil,
    string.format('{{"records":[{{"recordName":"r%014d"}}]}}', math.random(0, {count - 1})))
end""",
            "query": f"""
wrk.method = "POST"
request = function()
  return wrk.format(nil, "{path % 'query'}", nil,
    '{{"resultsLimit":50,"query":{{"recordType":"Item","filterBy":[' ..
    '{{"comparator":"EQUALS","fieldName":"cat","fieldValue":{{"value":"c3"}}}},' ..
    '{{"comparator":"GREATER_THAN","fieldName":"n","fieldValue":{{"value":' .. math.random(0, {count}) .. '}}}}],' ..
    '"sortBy":[{{"fieldName":"n","ascending":false}}]}}}}')
end""",
        }

    def stop(self):
        self.process.terminate()
        self.process.wait()


class PocketBase:
    name = "PocketBase"

    def __init__(self, folder):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        subprocess.run(["pocketbase", "superuser", "upsert", "admin@example.com", "admin password 1", "--dir", folder],
                       check=True, stdout=subprocess.DEVNULL)
        self.process = subprocess.Popen(["pocketbase", "serve", "--http", f"127.0.0.1:{self.port}", "--dir", folder],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until_up(self.base + "/api/health")
        status, admin = call(self.base, "POST", "/api/collections/_superusers/auth-with-password",
                             {"identity": "admin@example.com", "password": "admin password 1"})
        headers = {"Authorization": admin["token"]}
        signed_in = "@request.auth.id != ''"
        status, _ = call(self.base, "POST", "/api/collections", {
            "name": "items", "type": "base", "fields": [{"name": "cat", "type": "text"}, {"name": "n", "type": "number"}],
            "indexes": ["CREATE INDEX idx_items_cat_n ON items (cat, n)"],
            "listRule": signed_in, "viewRule": signed_in, "createRule": signed_in}, headers)
        assert status == 200
        call(self.base, "POST", "/api/collections/users/records",
             {"email": "peer@example.com", "password": "a long password", "passwordConfirm": "a long password"}, headers)
        status, user = call(self.base, "POST", "/api/collections/users/auth-with-password",
                            {"identity": "peer@example.com", "password": "a long password"})
        self.token = user["token"]

    def seed(self, count):
        def create(i):
            status, answer = call(self.base, "POST", "/api/collections/items/records",
                                  {"id": record_name(i), "cat": f"c{i % 10}", "n": i}, {"Authorization": self.token})
            assert status == 200, answer
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(create, range(count)))

    def scripts(self, count):
        auth = f'wrk.headers["Authorization"] = "{self.token}"\nwrk.headers["Content-Type"] = "application/json"\n'
        return {
            "create": auth + """
wrk.method = "POST"
request = function()
  local i = math.random(0, 1000000)
  return wrk.format(nil, "/api/collections/items/records", nil, '{"cat":"c' .. (i % 10) .. '","n":' .. i .. '}')
end""",
            "lookup": auth + f"""
request = function()
  return wrk.format("GET", string.format("/api/collections/items/records/r%014d", math.random(0, {count - 1})))
end""",
            "query": auth + f"""
request = function()
  local filter = "cat%3D%27c3%27%20%26%26%20n%3E" .. math.random(0, {count})
  return wrk.format("GET", "/api/collections/items/records?filter=" .. filter .. "&sort=-n&perPage=50&skipTotal=1")
end""",
        }

    def stop(self):
        self.process.terminate()
        self.process.wait()


def cpu_seconds(pid):
    """User and system CPU time of a process and every process under it (a launcher's child included), from /proc."""
    ticks = os.sysconf("SC_CLK_TCK")
    parents, times = {}, {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as file:
                fields = file.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # After the name: state, ppid, ..., utime (14th field of the line) and stime (15th).
        parents[int(entry)] = int(fields[1])
        times[int(entry)] = (int(fields[11]) + int(fields[12])) / ticks

    def under(candidate):
        while candidate > 1:
            if candidate == pid:
                return True
            candidate = parents.get(candidate, 0)
        return False

    return sum(seconds for process, seconds in times.items() if under(process))


def run_wrk(server, script, seconds, connections):
    """Requests per second, p99 in ms, non-2xx answers, and the server's CPU milliseconds per request."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as file:
        file.write(script)
    try:
        cpu_before = cpu_seconds(server.process.pid)
        output = subprocess.run(
            ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency", "-s", file.name, server.base],
            check=True, capture_output=True, text=True).stdout
        cpu = cpu_seconds(server.process.pid) - cpu_before
    finally:
        os.unlink(file.name)
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    requests = int(re.search(r"(\d+) requests in", output).group(1))
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", output)
    p99_ms = float(p99.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[p99.group(2)]
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    return rate, p99_ms, int(errors.group(1)) if errors else 0, 1000 * cpu / max(1, requests)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stratus", required=True, help="the stratus executable (a release build)")
    parser.add_argument("--records", type=int, default=10_000, help="records seeded in each server")
    parser.add_argument("--seconds", type=int, default=10, help="seconds each wrk run lasts")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--workloads", default="create,lookup,query", help="which workloads, comma-separated")
    parser.add_argument("--stratus-settings", default="", help="more `stratus serve` settings, space-separated")
    arguments = parser.parse_args()
    workloads = arguments.workloads.split(",")

    folder = tempfile.mkdtemp(prefix="stratus-peer-")
    servers = []
    try:
        servers = [Stratus(arguments.stratus, os.path.join(folder, "stratus"), arguments.stratus_settings.split()), PocketBase(os.path.join(folder, "pocketbase"))]
        for server in servers:
            started = time.time()
            server.seed(arguments.records)
            print(f"seeded {arguments.records} records in {server.name} in {time.time() - started:.1f} s", flush=True)
        results = {}
        for workload in workloads:
            for server in servers:
                rate, p99, errors, cpu = run_wrk(server, server.scripts(arguments.records)[workload], arguments.seconds, arguments.connections)
                results[(workload, server.name)] = (rate, p99, errors, cpu)
                print(f"{workload:7} {server.name:10} {rate:10.0f} req/s  p99 {p99:7.2f} ms  CPU {cpu:6.3f} ms/request  errors {errors}", flush=True)
        print()
        print(f"| workload ({arguments.connections} connections, {arguments.records} records) | Stratus req/s | p99 ms | CPU ms/req "
              f"| PocketBase req/s | p99 ms | CPU ms/req | Stratus ÷ PocketBase (req/s) | p99 ratio | CPU/req ratio |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        titles = {"create": "single-record create", "lookup": "lookup by name", "query": "cat = 'c3' AND n > R, n descending, 50"}
        for workload in workloads:
            s_rate, s_p99, s_errors, s_cpu = results[(workload, "Stratus")]
            p_rate, p_p99, p_errors, p_cpu = results[(workload, "PocketBase")]
            note = "" if s_errors + p_errors == 0 else f" (errors: {s_errors} / {p_errors})"
            print(f"| {titles[workload]}{note} | {s_rate:.0f} | {s_p99:.2f} | {s_cpu:.3f} | {p_rate:.0f} | {p_p99:.2f} | {p_cpu:.3f} "
                  f"| {s_rate / p_rate:.2f}x | {s_p99 / p_p99:.2f} | {s_cpu / max(p_cpu, 1e-9):.2f} |")
    finally:
        for server in servers:
            server.stop()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
