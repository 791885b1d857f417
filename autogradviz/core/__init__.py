"""The core: tensors, the graph they record, and how an op records into it.

Reading order:

1. `tensor.py`: the Tensor, a numpy array plus autograd's bookkeeping
   (`requires_grad`, `grad`, `grad_fn`, the version counter);
2. `graph.py`: the backward nodes (`Node`, `AccumulateGrad`): edges, saved
   values and their version checks; `graph_api.py`, the read-only part of a
   node that drawings and the stepper use;
3. `record.py`: `record()`, the one function every op ends with: it wraps
   the result and links it into the graph;
4. `views.py`: tensors that share memory with a base, and how their history
   follows an in-place change of the base;
5. `protocol.py`: the graph API as two small protocols, so that another
   library's graph can feed the same drawings;
6. the helpers: `grad_mode.py` (no_grad), `dtypes.py`, `creation.py`
   (`tensor`, `zeros`, `rand`, ...), `random.py` (the seeded generator),
   `printing.py` (PyTorch's tensor printing).

The ops that use `record()` are the formula sheet in `autogradviz/ops/`, and
the walk that runs the nodes is `autogradviz/engine.py`. Nothing in the core
imports them.
"""
