#!/usr/bin/env python3
"""A baselines file before and after a schema migration, every number compared as the literal text the file holds.
usage: baselines-v3-compare.py OLD.json NEW.json   (docs/evidence/baselines-v3.md runs it)
Prints the time literals (each path's time and time_cold members, point_wall_s, launch_floor, the header's copy
bandwidth, launch_us and warmup_ms) and how many changed, every other number kept and how many changed, then what
was dropped, renamed and added, by JSON path with [] for any index. Exit 1 when a time or a kept number changed."""
import collections, json, re, sys

def load(path):
    num = lambda text: ("number", text)  # a number as its literal text: byte for byte, not float equality
    return json.load(open(path), parse_float=num, parse_int=num)

def leaves(v, at="$"):
    if isinstance(v, dict) and v:
        for k, x in v.items():
            yield from leaves(x, f"{at}.{k}")
    elif isinstance(v, list) and v:
        for i, x in enumerate(v):
            yield from leaves(x, f"{at}[{i}]")
    else:
        yield at, v

TIME = re.compile(r"\.paths\[\d+\]\.(time|time_cold)\.|\.point_wall_s$|^\$\.launch_floor\.|^\$\.copy_bandwidth\.|"
                  r"^\$\.(launch_us|warmup_ms)$")
old, new = dict(leaves(load(sys.argv[1]))), dict(leaves(load(sys.argv[2])))
isnum = lambda v: isinstance(v, tuple)
text = lambda v: v[1] if isnum(v) else json.dumps(v)
shape = lambda p: re.sub(r"\[\d+\]", "[]", p)
times = [p for p in old if TIME.search(p)]
times_changed = [p for p in times if new.get(p) != old[p]]
nums = [p for p in old if isnum(old[p]) and p in new and not TIME.search(p) and p != "$.schema_version"]
nums_changed = [p for p in nums if new[p] != old[p]]
objs = collections.Counter(m.group(1) for p in times for m in [re.search(r"\.(time|time_cold)\.median_us$", p)] if m)
print(f"{sys.argv[2]}: {len(times)} time literals ({objs['time']} time and {objs['time_cold']} time_cold objects, "
      f"{sum('point_wall_s' in p for p in times)} point_wall_s, {sum('launch_floor' in p for p in times)} launch_floor, "
      f"{sum(p.startswith(('$.copy', '$.launch_us', '$.warmup')) for p in times)} header), {len(times_changed)} changed; "
      f"{len(nums)} other numbers kept, {len(nums_changed)} changed; schema_version {text(old['$.schema_version'])} -> "
      f"{text(new['$.schema_version'])}")
for p in times_changed + nums_changed:
    print(f"  CHANGED {p}: {text(old[p])} -> {text(new.get(p, '(gone)'))}")
groups = collections.Counter()
for p in old:
    if p not in new:
        groups["dropped", shape(p), ""] += 1
    elif old[p] != new[p] and not isnum(old[p]) and p != "$.schema_version":
        groups["renamed", shape(p), " -> " + text(new[p])] += 1
for p in new:
    if p not in old:
        groups["added", shape(p), " = " + text(new[p])] += 1
for (what, p, to), n in sorted(groups.items()):
    print(f"  {what:7} {n:4d} x {p}{to}")
sys.exit(1 if times_changed or nums_changed else 0)
