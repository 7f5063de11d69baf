"""Per-call GPU time of a function, measured the way the C side measures replays: K calls
captured into one CUDA graph, the graph replayed R times, each replay timed with CUDA events.
A graph removes Python and launch overhead from the number, so eager and compiled are compared on
device time alone."""

import statistics
import time

CALLS_PER_REPLAY = 20
REPLAYS = 30
WARMUP_REPLAYS = 3


def summary(samples):
    """{"median_us", "q1_us", "q3_us", "samples"} of per-call times in microseconds."""
    if len(samples) < 2:
        raise ValueError("timing summary: expected at least two samples")
    q1, median, q3 = statistics.quantiles(samples, n=4, method="inclusive")
    return {"median_us": round(median, 3), "q1_us": round(q1, 3), "q3_us": round(q3, 3),
            "samples": len(samples)}


def method():
    return {"method": f"CUDA graph of {CALLS_PER_REPLAY} calls, {REPLAYS} replays",
            "calls_per_replay": CALLS_PER_REPLAY, "replays": REPLAYS}


def time_calls(fn, inputs, warmup_ms=0.0):
    """summary() of fn(*inputs)'s per-call time. warmup_ms: keep replaying untimed until the
    warm-up has also lasted this long (the C timer's 100 ms: an idle GPU starts at a fraction of
    its clock, which a few short replays do not lift)."""
    import torch
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            fn(*inputs)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(CALLS_PER_REPLAY):
            fn(*inputs)
    warm, started = 0, time.perf_counter()
    while warm < WARMUP_REPLAYS or (time.perf_counter() - started) * 1000.0 < warmup_ms:
        graph.replay()
        torch.cuda.synchronize()
        warm += 1
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    samples = []
    for _ in range(REPLAYS):
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) * 1000.0 / CALLS_PER_REPLAY)
    del graph
    torch.cuda.synchronize()
    return summary(samples)
