"""How the suite times a peer (a torch function): imported by
bench-suite.py and timing-noise.py, so that the noise measured is the
suite's."""
import torch


def events_ms(fn, runs):
    """Median of `runs` timed calls after 3 warm-up ones, with CUDA events."""
    for _ in range(3):
        fn()
    times = []
    for _ in range(runs):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record(); fn(); end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return sorted(times)[len(times) // 2]
