"""Summarises Benchmarks/before-after/run.sh: per backend and scenario, the median over its rounds of each build's
requests/s divided by the same run's /healthz requests/s, their quotient (after / before), and the median p50."""
import glob
import os
import statistics
import sys


def scenarios(path):
    """Scenario -> (requests/s, p50 ms), read from one `stratus bench` table."""
    found = {}
    with open(path) as table:
        for line in table:
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if len(cells) < 7 or cells[0] == "scenario" or cells[0].startswith("---"):
                continue
            try:
                found[cells[0]] = (float(cells[1]), float(cells[3]))
            except ValueError:
                continue
    return found


def ratios(run):
    """Scenario -> (requests/s ÷ the run's /healthz requests/s, p50 ms)."""
    baseline = next((rate for name, (rate, _) in run.items() if name.startswith("GET /healthz")), None)
    return {name: (rate / baseline if baseline else 0.0, p50) for name, (rate, p50) in run.items()}


def main(work):
    for backend in ("sqlite", "postgres"):
        runs = {
            side: [ratios(scenarios(path)) for path in sorted(glob.glob(os.path.join(work, f"{backend}-{side}-*.md")))]
            for side in ("before", "after")
        }
        if not runs["before"] or not runs["after"]:
            continue
        print(f"## {backend}: medians over {len(runs['before'])} interleaved rounds\n")
        print("| scenario | before ÷ healthz | after ÷ healthz | after ÷ before | before p50 ms | after p50 ms |")
        print("|---|---:|---:|---:|---:|---:|")
        for scenario in runs["before"][0]:
            values = {}
            for side in ("before", "after"):
                measured = [run[scenario] for run in runs[side] if scenario in run]
                values[side] = (statistics.median(m[0] for m in measured), statistics.median(m[1] for m in measured)) if measured else None
            if not values["before"] or not values["after"]:
                continue
            (before, before_p50), (after, after_p50) = values["before"], values["after"]
            change = f"{after / before:.2f}" if before else "-"
            print(f"| {scenario} | {before:.4f} | {after:.4f} | {change} | {before_p50:.2f} | {after_p50:.2f} |")
        print()


if __name__ == "__main__":
    main(sys.argv[1])
