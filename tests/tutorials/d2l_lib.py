"""The part of d2l's library (`from d2l import torch as d2l`, d2l-ai/d2l-en,
d2l/torch.py as saved by the chapters with `#@save`) that the ported chapters use,
built for whichever module is bound to `torch` (`build()` imports it).

What differs from d2l: `ProgressBoard.draw` records the points instead of
plotting them (the harness compares them), and `FashionMNIST` (a download) is
`GeneratedImages`: 28x28 images from torch.randn, labelled by a random linear
teacher, served by the same `get_tensorloader` as d2l's data modules.
"""

import inspect
from types import SimpleNamespace


def build():
    import random  # noqa: F401 - d2l's module imports it

    import torch
    from torch import nn
    from torch.nn import functional as F

    def add_to_class(Class):
        """Register functions as methods in created class."""

        def wrapper(obj):
            setattr(Class, obj.__name__, obj)

        return wrapper

    class HyperParameters:
        """The base class of hyperparameters."""

        def save_hyperparameters(self, ignore=[]):
            """Save function arguments into class attributes."""
            frame = inspect.currentframe().f_back
            _, _, _, local_vars = inspect.getargvalues(frame)
            self.hparams = {
                k: v
                for k, v in local_vars.items()
                if k not in set(ignore + ["self"]) and not k.startswith("_")
            }
            for k, v in self.hparams.items():
                setattr(self, k, v)

    class ProgressBoard(HyperParameters):
        """Records the points d2l would plot in an animation."""

        def __init__(self):
            self.points = []

        def draw(self, x, y, label, every_n=1):
            self.points.append((label, float(x), float(y)))

    class Module(nn.Module, HyperParameters):
        """The base class of models."""

        def __init__(self, plot_train_per_epoch=2, plot_valid_per_epoch=1):
            super().__init__()
            self.save_hyperparameters()
            self.board = ProgressBoard()

        def loss(self, y_hat, y):
            raise NotImplementedError

        def forward(self, X):
            assert hasattr(self, "net"), "Neural network is defined"
            return self.net(X)

        def plot(self, key, value, train):
            """Plot a point in animation."""
            assert hasattr(self, "trainer"), "Trainer is not inited"
            if train:
                x = self.trainer.train_batch_idx / self.trainer.num_train_batches
                n = self.trainer.num_train_batches / self.plot_train_per_epoch
            else:
                x = self.trainer.epoch + 1
                n = self.trainer.num_val_batches / self.plot_valid_per_epoch
            self.board.draw(
                x,
                value.to(torch.device("cpu")).detach().numpy(),
                ("train_" if train else "val_") + key,
                every_n=int(n),
            )

        def training_step(self, batch):
            l = self.loss(self(*batch[:-1]), batch[-1])  # noqa: E741 - d2l's name
            self.plot("loss", l, train=True)
            return l

        def validation_step(self, batch):
            l = self.loss(self(*batch[:-1]), batch[-1])  # noqa: E741
            self.plot("loss", l, train=False)

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=self.lr)

    class DataModule(HyperParameters):
        """The base class of data."""

        def __init__(self, root="../data", num_workers=4):
            self.save_hyperparameters()

        def get_dataloader(self, train):
            raise NotImplementedError

        def train_dataloader(self):
            return self.get_dataloader(train=True)

        def val_dataloader(self):
            return self.get_dataloader(train=False)

        def get_tensorloader(self, tensors, train, indices=slice(0, None)):
            tensors = tuple(a[indices] for a in tensors)
            dataset = torch.utils.data.TensorDataset(*tensors)
            return torch.utils.data.DataLoader(dataset, self.batch_size, shuffle=train)

    class Trainer(HyperParameters):
        """The base class for training models with data."""

        def __init__(self, max_epochs, num_gpus=0, gradient_clip_val=0):
            self.save_hyperparameters()
            assert num_gpus == 0, "No GPU support yet"

        def prepare_data(self, data):
            self.train_dataloader = data.train_dataloader()
            self.val_dataloader = data.val_dataloader()
            self.num_train_batches = len(self.train_dataloader)
            self.num_val_batches = len(self.val_dataloader) if self.val_dataloader is not None else 0

        def prepare_model(self, model):
            model.trainer = self
            self.model = model

        def fit(self, model, data):
            self.prepare_data(data)
            self.prepare_model(model)
            self.optim = model.configure_optimizers()
            self.epoch = 0
            self.train_batch_idx = 0
            self.val_batch_idx = 0
            for self.epoch in range(self.max_epochs):
                self.fit_epoch()

        def prepare_batch(self, batch):
            return batch

        def fit_epoch(self):
            self.model.train()
            for batch in self.train_dataloader:
                loss = self.model.training_step(self.prepare_batch(batch))
                self.optim.zero_grad()
                with torch.no_grad():
                    loss.backward()
                    self.optim.step()
                self.train_batch_idx += 1
            if self.val_dataloader is None:
                return
            self.model.eval()
            for batch in self.val_dataloader:
                with torch.no_grad():
                    self.model.validation_step(self.prepare_batch(batch))
                self.val_batch_idx += 1

    class SyntheticRegressionData(DataModule):
        """Synthetic data for linear regression."""

        def __init__(self, w, b, noise=0.01, num_train=1000, num_val=1000, batch_size=32):
            super().__init__()
            self.save_hyperparameters()
            n = num_train + num_val
            self.X = torch.randn(n, len(w))
            noise = torch.randn(n, 1) * noise
            self.y = torch.matmul(self.X, w.reshape((-1, 1))) + b + noise

        def get_dataloader(self, train):
            i = slice(0, self.num_train) if train else slice(self.num_train, None)
            return self.get_tensorloader((self.X, self.y), train, i)

    class SGD(HyperParameters):
        """Minibatch stochastic gradient descent."""

        def __init__(self, params, lr):
            self.save_hyperparameters()

        def step(self):
            for param in self.params:
                param -= self.lr * param.grad

        def zero_grad(self):
            for param in self.params:
                if param.grad is not None:
                    param.grad.zero_()

    class Classifier(Module):
        """The base class of classification models."""

        def validation_step(self, batch):
            Y_hat = self(*batch[:-1])
            self.plot("loss", self.loss(Y_hat, batch[-1]), train=False)
            self.plot("acc", self.accuracy(Y_hat, batch[-1]), train=False)

        def accuracy(self, Y_hat, Y, averaged=True):
            """Compute the number of correct predictions."""
            Y_hat = Y_hat.reshape((-1, Y_hat.shape[-1]))
            preds = Y_hat.argmax(axis=1).type(Y.dtype)
            compare = (preds == Y.reshape(-1)).type(torch.float32)
            return compare.mean() if averaged else compare

        def loss(self, Y_hat, Y, averaged=True):
            Y_hat = Y_hat.reshape((-1, Y_hat.shape[-1]))
            Y = Y.reshape((-1,))
            return F.cross_entropy(Y_hat, Y, reduction="mean" if averaged else "none")

    class GeneratedImages(DataModule):
        """Stands in for d2l.FashionMNIST (a download): 28x28 one-channel images."""

        def __init__(self, batch_size=64, resize=(28, 28), num_train=512, num_val=256):
            super().__init__()
            self.save_hyperparameters()
            n = num_train + num_val
            self.X = torch.randn(n, 1, 28, 28)
            teacher = torch.randn(28 * 28, 10)
            self.y = torch.matmul(self.X.reshape(n, -1), teacher).argmax(dim=1)

        def get_dataloader(self, train):
            i = slice(0, self.num_train) if train else slice(self.num_train, None)
            return self.get_tensorloader((self.X, self.y), train, i)

    return SimpleNamespace(
        add_to_class=add_to_class,
        HyperParameters=HyperParameters,
        ProgressBoard=ProgressBoard,
        Module=Module,
        DataModule=DataModule,
        Trainer=Trainer,
        SyntheticRegressionData=SyntheticRegressionData,
        SGD=SGD,
        Classifier=Classifier,
        FashionMNIST=GeneratedImages,
        # d2l binds these aliases when it is imported; looked up at call time here,
        # so that a missing function fails the chapter line that uses it
        normal=lambda *args, **kwargs: torch.normal(*args, **kwargs),
        zeros=lambda *args, **kwargs: torch.zeros(*args, **kwargs),
        matmul=lambda *args, **kwargs: torch.matmul(*args, **kwargs),
        reshape=lambda x, *args, **kwargs: x.reshape(*args, **kwargs),
        reduce_mean=lambda x, *args, **kwargs: x.mean(*args, **kwargs),
    )
