# Host<->device copy rates of PyTorch on this GPU (the peer of `bench-user --only transfers`): 2^26 f32, pageable and pinned host memory, median of 10.
import time, torch
n = 64 << 20
x = torch.randn(n)
p = x.pin_memory()
d = torch.empty(n, device="cuda")
def med(f, reps=10):
    f(); torch.cuda.synchronize(); ts = []
    for _ in range(reps):
        s = time.perf_counter(); f(); torch.cuda.synchronize(); ts.append(time.perf_counter() - s)
    ts.sort(); return ts[len(ts) // 2]
for name, f in [("torch h2d pageable", lambda: d.copy_(x)), ("torch h2d pinned", lambda: d.copy_(p, non_blocking=True)),
                ("torch d2h pageable", lambda: x.copy_(d)), ("torch d2h pinned", lambda: p.copy_(d, non_blocking=True))]:
    s = med(f); print(f"| {name} | {s*1e3:.2f} | {n*4/s/1e9:.1f} |")
