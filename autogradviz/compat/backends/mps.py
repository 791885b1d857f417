"""`agv.backends.mps`: Apple's GPU backend, which autogradviz does not have."""


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False
