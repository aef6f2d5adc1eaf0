# Sourced by the benchmark scripts: reads `--seconds N` and `--records N` into $seconds and $records, which the
# script sets to its defaults before sourcing this.
while [ $# -gt 0 ]; do
    case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --records) records=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
done
