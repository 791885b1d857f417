"""`agv.backends`: the flags of PyTorch's torch.backends that tutorials touch.

    if torch.backends.mps.is_available(): ...          # Apple's GPU: not here
    torch.backends.cudnn.deterministic = True          # for reproducible GPU runs
    torch.backends.cudnn.benchmark = False

Both run unchanged. There is no GPU, so nothing reads these flags; numpy's
results are deterministic anyway. Reading order: `mps.py`, then `cudnn.py`.
"""

from . import cudnn, mps

__all__ = ["cudnn", "mps"]
