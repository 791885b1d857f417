"""agv.draw(loss, group="module"): each nn module's ops in a labelled box, or
one box per module with collapse=True."""

import re

import autogradviz as agv
import autogradviz.nn as nn
import autogradviz.nn.functional as F


def small_cnn():
    agv.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(64, 3)
    )
    x = agv.rand(2, 1, 8, 8)
    loss = F.cross_entropy(model(x), agv.tensor([0, 2]))
    return model, x, loss


def clusters(source: str) -> dict[str, str]:
    """cluster label -> the DOT text of that cluster."""
    found = {}
    for block in source.split("subgraph cluster_")[1:]:
        label = re.search(r"label=<([^\n]*)>", block).group(1)
        found[label] = block.split("}")[0]
    return found


def test_each_module_is_a_labelled_cluster_holding_its_ops_and_parameters():
    model, x, loss = small_cnn()
    source = agv.draw(loss, group="module", names={"x": x, "loss": loss}).source
    found = clusters(source)
    # (sorted: W.t() needs nothing from the input, so the Linear's box can come first in the source)
    assert sorted(found) == [
        "0 Conv2d(1, 4, k=3)",
        "1 ReLU(inplace=True)",
        "2 MaxPool2d(2)",
        "3 Flatten(start_dim=1, end_dim=-1)",
        "4 Linear(64, 3)",
    ]
    # the parameters are named by their qualified names, inside their module's box
    assert (
        "<B>0.weight</B>" in found["0 Conv2d(1, 4, k=3)"] and "<B>0.bias</B>" in found["0 Conv2d(1, 4, k=3)"]
    )
    assert "<B>4.weight</B>" in found["4 Linear(64, 3)"]
    assert "<B>conv2d</B>" in found["0 Conv2d(1, 4, k=3)"]
    assert "<B>relu</B>" in found["1 ReLU(inplace=True)"]  # an in-place ReLU still gets its own box
    # nn.Linear records PyTorch's nodes: W.t() (TBackward0) and addmm (AddmmBackward0), both inside its box
    assert "<B>addmm</B>" in found["4 Linear(64, 3)"] and "<B>t</B>" in found["4 Linear(64, 3)"]
    # the loss and the input belong to no module
    assert all("<B>loss</B>" not in body and "<B>x</B>" not in body for body in found.values())


def test_collapsed_view_is_one_box_per_module_with_its_output_shape():
    _, x, loss = small_cnn()
    view = agv.draw(loss, group="module", collapse=True, names={"x": x, "loss": loss})
    groups = re.findall(r"<B>([^<]*)</B></TD></TR><TR><TD[^>]*><FONT[^>]*>([^<]*)</FONT>", view.source)
    by_title = dict(groups)
    assert by_title["0 Conv2d(1, 4, k=3)"] == "(2, 4, 8, 8) float32"
    assert by_title["2 MaxPool2d(2)"] == "(2, 4, 4, 4) float32"
    assert by_title["4 Linear(64, 3)"] == "(2, 3) float32"
    assert view.source.count('class="agv-node agv-group"') == 5


def test_vgg11_collapsed_fits_one_screen():
    agv.manual_seed(0)
    model = agv.models.vgg11(num_classes=10)
    x = agv.rand(1, 3, 32, 32)  # small: AdaptiveAvgPool2d((7, 7)) still gives 512×7×7
    loss = F.cross_entropy(model(x), agv.tensor([3]))
    view = agv.draw(loss, group="module", collapse=True, names={"x": x, "loss": loss})
    titles = re.findall(r'class="agv-node agv-group"', view.source)
    # 21 in features, avgpool, 7 in the classifier; the flatten VGG.forward runs between them is
    # an op of the model itself, which calls other modules, so it is drawn as an op, not a layer
    assert len(titles) == 29
    assert "<B>reshape</B>" in view.source  # torch.flatten records a reshape
    assert "features.0 Conv2d(3, 64, k=3)" in view.source and "classifier.6 Linear(4096, 10)" in view.source
    assert view.nodes < 40  # readable: the whole network in a few dozen boxes
