"""G10: PyTorch under libvgpu with a 4 GiB limit.

PyTorch reaches the driver through cudart's cuGetProcAddress, not through direct symbol lookups, so
this checks the version-keyed lookup table with a real framework: the total it reports, a tensor
that fits, one that does not (a CUDA out-of-memory error, not a crash), and memory given back.
Prints key=value lines; exits 0 when torch ran, whatever it saw.
"""
import sys

try:
    import torch
except ImportError:
    print("torch=absent")
    sys.exit(0)

GIB = 1 << 30
print(f"torch={torch.__version__}")
if not torch.cuda.is_available():
    print("cuda=unavailable")
    sys.exit(0)
free, total = torch.cuda.mem_get_info()
print(f"total={total}")
print(f"free={free}")
a = torch.empty(3 * GIB, dtype=torch.uint8, device="cuda")
a.fill_(1)
torch.cuda.synchronize()
print(f"fits_3g={int(a[0].item() == 1 and a[-1].item() == 1)}")
try:
    b = torch.empty(2 * GIB, dtype=torch.uint8, device="cuda")
    b.fill_(1)
    torch.cuda.synchronize()
    print("oom_2g_more=0")
except torch.cuda.OutOfMemoryError as e:
    print("oom_2g_more=1")
    print("oom_message=" + str(e).splitlines()[0][:200])
    del e
del a
torch.cuda.empty_cache()
free2, _ = torch.cuda.mem_get_info()
print(f"free_after_release={free2}")
c = torch.empty(3 * GIB, dtype=torch.uint8, device="cuda")
torch.cuda.synchronize()
print(f"refits_3g={int(c.numel() == 3 * GIB)}")
x = torch.randn(4096, 4096, device="cuda")
print(f"matmul_ok={int(torch.isfinite(x @ x).all().item())}")
