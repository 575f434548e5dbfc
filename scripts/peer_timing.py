"""How the suite times a peer (a torch function): imported by
bench-suite.py and timing-noise.py, so that the noise measured is the
suite's."""
import time

import torch


def events_ms(fn, runs, warmup_ms=0):
    """Median of `runs` timed calls after 3 warm-up ones (and more, until
    `warmup_ms` of wall time has passed, synchronised as they go: a
    sustained load's clocks, as `tile-run --bench-warmup-ms`), with CUDA
    events."""
    for _ in range(3):
        fn()
    start = time.monotonic()
    while (time.monotonic() - start) * 1e3 < warmup_ms:
        fn()
        torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record(); fn(); end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return sorted(times)[len(times) // 2]
