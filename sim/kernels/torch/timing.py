"""CUDA-event timing shared by the PyTorch measurement scripts of this folder."""
import torch


def event():
    return torch.cuda.Event(enable_timing=True)


def warm_up(fn, ms, batch):
    """Calls fn in batches of `batch` until `ms` milliseconds of GPU time have passed, so that the
    clocks settle at the level they sustain under fn."""
    s, e = event(), event()
    s.record()
    while True:
        for _ in range(batch):
            fn()
        e.record()
        e.synchronize()
        if s.elapsed_time(e) > ms:
            return


def median_time(fn, reps):
    """Median seconds of `reps` calls, one CUDA event pair around each."""
    pairs = []
    for _ in range(reps):
        s, e = event(), event()
        s.record()
        fn()
        e.record()
        pairs.append((s, e))
    torch.cuda.synchronize()
    times = sorted(a.elapsed_time(b) / 1e3 for a, b in pairs)
    return times[len(times) // 2]


def mean_time(fn, reps):
    """Mean seconds of `reps` back-to-back calls, one CUDA event pair around all of them."""
    s, e = event(), event()
    s.record()
    for _ in range(reps):
        fn()
    e.record()
    torch.cuda.synchronize()
    return s.elapsed_time(e) / 1e3 / reps
