"""`agv.utils`: PyTorch's `torch.utils` spellings, for code copied from tutorials.

    from autogradviz.utils.data import DataLoader, TensorDataset

Reading order: `data.py`, datasets, samplers, collating and the DataLoader
(the generated lesson datasets are in `autogradviz/data.py`).
"""

from . import data

__all__ = ["data"]
