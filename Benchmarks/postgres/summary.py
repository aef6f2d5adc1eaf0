"""Prints the two benchmark tables of Benchmarks/postgres/run.sh and the figures the PostgreSQL backend is held to."""
import re
import sys


def rows(path):
    """Scenario name -> requests per second, plus the full sync's seconds and the peak memory, from a bench table."""
    text = open(path).read()
    rates = {}
    sync_seconds = None
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 7 and cells[1].replace(".", "").isdigit():
            rates[cells[0]] = float(cells[1])
            sync = re.match(r"full changes/zone sync \((\d+) records\)", cells[0])
            if sync and float(cells[2]) > 0:
                sync_seconds = int(sync.group(1)) / float(cells[2])
    memory = re.search(r"peak resident memory: (\d+) MB", text)
    return text, rates, sync_seconds, int(memory.group(1)) if memory else None


def find(rates, prefix):
    return next((rate for name, rate in rates.items() if name.startswith(prefix)), 0.0)


postgres_text, postgres, postgres_sync, postgres_memory = rows(sys.argv[1])
sqlite_text, sqlite, _, _ = rows(sys.argv[2])
pgbench = float(sys.argv[3])
print("## Stratus on PostgreSQL\n\n" + postgres_text + "\n")
print("## Stratus on SQLite\n\n" + sqlite_text + "\n")
print(f"## pgbench, one-row INSERT at 16 clients: {pgbench:.0f} transactions/s\n")
creates = find(postgres, "create 1 record (16")
lookup_ratio = find(sqlite, "lookup 1 record") / max(find(postgres, "lookup 1 record"), 1e-9)
query_ratio = find(sqlite, "query cat") / max(find(postgres, "query cat"), 1e-9)
checks = [
    ("creates at 16 clients, share of pgbench", f"{creates / pgbench:.0%}", "at least 40%", creates / pgbench >= 0.4),
    ("lookups: SQLite ÷ PostgreSQL", f"{lookup_ratio:.2f}x", "at most 2x", lookup_ratio <= 2),
    ("equality + range + sort query: SQLite ÷ PostgreSQL", f"{query_ratio:.2f}x", "at most 2x", query_ratio <= 2),
    ("full sync of the dataset", f"{postgres_sync:.2f} s" if postgres_sync else "-", "under 5 s", bool(postgres_sync) and postgres_sync < 5),
    ("server peak memory on PostgreSQL", f"{postgres_memory} MB" if postgres_memory else "-", "under 200 MB", bool(postgres_memory) and postgres_memory < 200),
]
print("| figure | measured | target | met |\n|---|---:|---|---|")
for name, measured, target, met in checks:
    print(f"| {name} | {measured} | {target} | {'yes' if met else 'no'} |")
