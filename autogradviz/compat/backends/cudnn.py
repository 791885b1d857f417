"""`agv.backends.cudnn`: NVIDIA's cuDNN library, which autogradviz does not use.

Its flags are plain attributes, as in PyTorch, so a tutorial's
`torch.backends.cudnn.deterministic = True` works; nothing reads them.
"""

enabled = True
deterministic = False
benchmark = False
allow_tf32 = True


def is_available() -> bool:
    return False


def version() -> None:
    return None
