#!/usr/bin/python3
"""PyTorch side of the network benchmarks: the same architectures, data size,
batch size, precision (float64) and optimiser as bench/nn_bench.cpp, on one
thread. Reads Google Benchmark's JSON output of mbdrom_bench and prints the
ratios. A benchmark comparison only: PyTorch is never a dependency of mbdrom.

usage: torch_nn_bench.py results.json
"""
import json
import sys
import time

import torch

torch.set_num_threads(1)
torch.set_default_dtype(torch.float64)


def autoencoder():
    return torch.nn.Sequential(
        torch.nn.Linear(30, 64), torch.nn.Sigmoid(),
        torch.nn.Linear(64, 32), torch.nn.Sigmoid(),
        torch.nn.Linear(32, 1),
        torch.nn.Linear(1, 32), torch.nn.Sigmoid(),
        torch.nn.Linear(32, 64), torch.nn.Sigmoid(),
        torch.nn.Linear(64, 30))


def best_of(fn, repeats=5, seconds=1.0):
    """Best per-iteration time over `repeats` runs of about `seconds` each."""
    n = 10
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t0
        if dt > 0.2:
            break
        n *= 2
    n = max(1, int(n * seconds / dt))
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    return best


def training_step_time():
    torch.manual_seed(42)
    net = autoencoder()
    data = torch.rand(1024, 30) * 2 - 1
    opt = torch.optim.RMSprop(net.parameters(), lr=1e-3, alpha=0.9, eps=1e-8)
    state = {"at": 0}

    def step():
        at = state["at"]
        xb = data[at:at + 64]
        state["at"] = (at + 64) % 1024
        opt.zero_grad(set_to_none=True)
        loss = torch.mean((net(xb) - xb) ** 2)
        loss.backward()
        opt.step()

    return best_of(step)


def decoder_jacobian_curvature_time():
    torch.manual_seed(2)
    dec = torch.nn.Sequential(torch.nn.Linear(1, 32), torch.nn.Sigmoid(),
                              torch.nn.Linear(32, 64), torch.nn.Sigmoid(),
                              torch.nn.Linear(64, 30))
    x = torch.tensor([0.3])
    v = torch.tensor([1.0])

    def first(xx):
        return torch.func.jvp(dec, (xx,), (v,))[1] if hasattr(torch, "func") else \
            torch.autograd.functional.jvp(dec, xx, v, create_graph=True)[1]

    def both():
        J = torch.autograd.functional.jacobian(dec, x)
        d2 = torch.autograd.functional.jvp(first, x, v)[1]
        return J, d2

    return best_of(both, repeats=3, seconds=0.5)


def ours(results_path):
    with open(results_path) as f:
        results = json.load(f)
    times = {}
    for b in results["benchmarks"]:
        scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b.get("time_unit", "ns")]
        times[b["name"]] = b["real_time"] * scale
    return times


def main():
    mine = ours(sys.argv[1]) if len(sys.argv) > 1 else {}
    t_train = training_step_time()
    t_dec = decoder_jacobian_curvature_time()
    print(f"PyTorch {torch.__version__}, float64, 1 thread")
    print(f"  auto-encoder training step (batch 64): {t_train * 1e6:9.1f} us  -> {64 / t_train:10.0f} samples/s")
    print(f"  decoder Jacobian + 2nd derivative:    {t_dec * 1e6:9.1f} us")
    if "BM_NnAutoencoderTrainingStep" in mine:
        m = mine["BM_NnAutoencoderTrainingStep"]
        print(f"mbdrom: training step {m * 1e6:.1f} us -> {64 / m:.0f} samples/s; "
              f"throughput ratio mbdrom/PyTorch = {t_train / m:.2f}x (goal >= 2)")
    if "BM_NnDecoderJacobianCurvature" in mine:
        m = mine["BM_NnDecoderJacobianCurvature"]
        print(f"mbdrom: decoder Jacobian + 2nd derivative {m * 1e6:.2f} us (goal <= 3 us); "
              f"PyTorch/mbdrom = {t_dec / m:.0f}x")


if __name__ == "__main__":
    main()
