"""torch's index kernel against the replica's, as Nsight Compute measured each on one faithful point
(ci/gpu-check STEPS=replica_ncu: `ncu --set full` around replica_gap.py --calls-only for torch and
`extern-audit run --check-only` for the replica, each exported with `ncu --import R --page raw --csv`):

    python3 tools/capture/ncu_compare.py --torch torch.csv --replica replica.csv --out ncu.json

Writes, per metric below, both values and replica / torch, plus both kernel names, and prints the
same as a table: what the replica gap's "same launch, the code differs" is made of. A metric the
export lacks is recorded as null with the reason, never guessed."""

import argparse
import csv
import io
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import atomic  # noqa: E402

SCHEMA = "extern-audit/replica-ncu"
VERSION = 1
KERNEL = "indexFunc"  # the row compared: ATen's indexFuncLargeIndex / indexFuncSmallIndex, either side
METRICS = (
    ("launch__registers_per_thread", "registers per thread"),
    ("launch__grid_size", "blocks"),
    ("launch__block_size", "threads per block"),
    ("gpu__time_duration.sum", "duration (ns)"),
    ("smsp__inst_executed.sum", "warp instructions executed"),
    ("sm__sass_thread_inst_executed.sum", "thread instructions executed"),
    ("smsp__sass_inst_executed_op_global_red.sum", "global reductions (RED) executed"),
    ("smsp__sass_inst_executed_op_global_atom.sum", "global atomics (ATOM) executed"),
    ("lts__t_requests_op_red.sum", "L2 requests, reductions"),
    ("lts__t_sectors_op_red.sum", "L2 sectors, reductions"),
    ("lts__t_requests_op_atom.sum", "L2 requests, atomics"),
    ("lts__t_sectors_op_atom.sum", "L2 sectors, atomics"),
    ("lts__t_sectors.sum", "L2 sectors, all"),
    ("dram__bytes_read.sum", "DRAM bytes read"),
    ("dram__bytes_write.sum", "DRAM bytes written"),
    ("sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy (%)"),
)


class NcuError(Exception):
    """An export that is not ncu's raw CSV page, or holds no index kernel; says which file and why."""


def _number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def kernel_row(text, path):
    """{"name", metric: value or None} of the first index kernel in an `ncu --page raw --csv` export:
    a header row naming "Kernel Name" and the metrics, a units row, then one row per profiled kernel."""
    rows = list(csv.reader(io.StringIO(text)))
    header = next((i for i, r in enumerate(rows) if "Kernel Name" in r), None)
    if header is None:
        raise NcuError(f"{path}: expected ncu's raw CSV page (a header row with \"Kernel Name\")")
    names = rows[header]
    col = names.index("Kernel Name")
    for r in rows[header + 1:]:
        if len(r) == len(names) and KERNEL in r[col]:
            cells = dict(zip(names, r))
            return {"name": r[col], **{m: _number(cells[m]) if m in cells else None for m, _ in METRICS}}
    raise NcuError(f"{path}: no profiled kernel named *{KERNEL}* (was the --kernel-name filter right?)")


def compare(torch_row, replica_row):
    out = {"torch_kernel": torch_row["name"], "replica_kernel": replica_row["name"], "metrics": []}
    for m, label in METRICS:
        t, r = torch_row[m], replica_row[m]
        entry = {"metric": m, "label": label, "torch": t, "replica": r,
                 "replica_over_torch": r / t if t and r is not None else None}
        if t is None or r is None:
            entry["note"] = "not in " + " and ".join(s for s, v in (("torch's", t), ("the replica's", r))
                                                      if v is None) + " export"
        out["metrics"].append(entry)
    return out


def table(doc):
    lines = [f"torch:   {doc['torch_kernel']}", f"replica: {doc['replica_kernel']}",
             f"{'metric':<36} {'torch':>16} {'replica':>16} {'replica/torch':>13}"]
    for e in doc["metrics"]:
        cell = lambda v: "-" if v is None else f"{v:,.0f}" if v >= 100 else f"{v:.3g}"  # noqa: E731
        ratio = "-" if e["replica_over_torch"] is None else f"{e['replica_over_torch']:.3f}"
        lines.append(f"{e['label']:<36} {cell(e['torch']):>16} {cell(e['replica']):>16} {ratio:>13}")
    return "\n".join(lines)


def main(argv):
    p = argparse.ArgumentParser(prog="ncu_compare.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--torch", required=True, help="torch's export (ncu --page raw --csv)")
    p.add_argument("--replica", required=True, help="the replica's export")
    p.add_argument("--out", help="the JSON file to write atomically")
    p.add_argument("--command", default="", help="the command that made the exports, recorded")
    args = p.parse_args(argv)
    try:
        rows = []
        for path in (args.torch, args.replica):
            with open(path, encoding="utf-8", errors="replace") as f:
                rows.append(kernel_row(f.read(), path))
    except (OSError, NcuError) as e:
        print(f"ncu_compare.py: {e}", file=sys.stderr)
        return 2
    doc = {"schema": SCHEMA, "schema_version": VERSION, "command": args.command, **compare(*rows)}
    print(table(doc))
    if args.out:
        atomic.write_json(args.out, doc)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
