"""A stand-in for makemore's names.txt (a download): 200 made-up lowercase names,
the same on every run (built from syllables with Python's random.Random(2024))."""

import random

_ONSETS = [
    "",
    "b",
    "br",
    "c",
    "ch",
    "d",
    "el",
    "f",
    "g",
    "h",
    "j",
    "k",
    "l",
    "m",
    "n",
    "p",
    "r",
    "s",
    "sh",
    "t",
    "v",
    "w",
    "z",
]
_VOWELS = ["a", "e", "i", "o", "u", "ia", "ae", "y", "ee", "oa"]
_CODAS = ["", "", "n", "l", "r", "s", "x", "th", "q"]


def words(n: int = 200) -> list[str]:
    rng = random.Random(2024)
    names = []
    while len(names) < n:
        name = "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) for _ in range(rng.randint(1, 3)))
        name += rng.choice(_CODAS)
        if 2 <= len(name) <= 10 and name not in names:
            names.append(name)
    return names
