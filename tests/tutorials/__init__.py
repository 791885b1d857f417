"""Real tutorials written for PyTorch, each ported as a function that the harness
(harness.py) runs twice: with PyTorch, and with autogradviz bound to the name `torch`.
tests/test_tutorial_ports.py has one test per program."""
