"""Ready-made networks: VGG-11 with torchvision's layout, and small MLPs.

model = agv.models.vgg11()
model.state_dict().keys()  # features.0.weight, ..., classifier.6.bias: torchvision's keys
"""

from __future__ import annotations

from . import nn, ops

# VGG-11 ("configuration A"): channels of each 3x3 convolution, "M" for a 2x2 max-pool
_VGG11 = [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"]


class VGG(nn.Module):
    """Convolutions with ReLU and max-pooling (`features`), average-pooled to 7x7,
    then three fully connected layers with dropout (`classifier`)."""

    def __init__(self, features: nn.Sequential, num_classes: int = 1000, dropout: float = 0.5):
        super().__init__()
        self.features = features
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        self.classifier = nn.Sequential(
            nn.Linear(512 * 7 * 7, 4096),
            nn.ReLU(True),
            nn.Dropout(p=dropout),
            nn.Linear(4096, 4096),
            nn.ReLU(True),
            nn.Dropout(p=dropout),
            nn.Linear(4096, num_classes),
        )
        # torchvision's initialisation, which replaces the layers' defaults
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0, 0.01)
                nn.init.zeros_(m.bias)

    def forward(self, x):
        x = self.features(x)
        x = self.avgpool(x)
        x = ops.flatten(x, 1)
        return self.classifier(x)


def _vgg_features(config: list) -> nn.Sequential:
    layers, channels = [], 3
    for v in config:
        if v == "M":
            layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
        else:
            layers += [nn.Conv2d(channels, v, kernel_size=3, padding=1), nn.ReLU(inplace=True)]
            channels = v
    return nn.Sequential(*layers)


def vgg11(num_classes: int = 1000, dropout: float = 0.5) -> VGG:
    """VGG-11 with random weights (seeded by agv.manual_seed), for 3x224x224 images."""
    return VGG(_vgg_features(_VGG11), num_classes, dropout)


_ACTIVATIONS = {"relu": nn.ReLU, "tanh": nn.Tanh, "sigmoid": nn.Sigmoid}


def mlp(sizes: list[int], activation="relu") -> nn.Sequential:
    """Linear layers of the given sizes, with an activation between them (not
    after the last): mlp([2, 16, 2]) is Linear(2, 16), ReLU(), Linear(16, 2).
    `activation` is "relu", "tanh", "sigmoid", or a Module class."""
    if len(sizes) < 2:
        raise ValueError(f"mlp needs at least an input and an output size, got {sizes}")
    if isinstance(activation, str):
        if activation not in _ACTIVATIONS:
            raise ValueError(
                f"unknown activation {activation!r}; use one of {sorted(_ACTIVATIONS)} or a Module class"
            )
        activation = _ACTIVATIONS[activation]
    layers = []
    for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers.append(nn.Linear(n_in, n_out))
        if i < len(sizes) - 2:
            layers.append(activation())
    return nn.Sequential(*layers)
