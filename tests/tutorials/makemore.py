"""Karpathy's makemore lectures (karpathy/nn-zero-to-hero, lectures/makemore/).

Edits, in all three: `words = open('names.txt', 'r').read().splitlines()` becomes
`words = names.words()` (200 generated names instead of the download); matplotlib
cells are left out; a notebook cell's displayed value is printed.
part1: makemore_part1_bigrams.ipynb (bigram counts, sampling, the neural bigram).
       Edit: the lecture's 5 (the bigrams of its first word, "emma") is
       len(xs), the bigrams of our first word.
part2: makemore_part2_mlp.ipynb (the MLP). Edit: 200 steps instead of 200,000,
       the step decay at 100 instead of 100,000; the first scratch cells (random
       C, W1, ... before "now made respectable") are left out.
part4: makemore_part4_backprop.ipynb (backprop ninja: exercises 1-4, checked with
       cmp()). Edit: 200 training steps instead of 200,000.
"""

from . import names


def part1():
    words = names.words()
    print(words[:10])
    print(len(words))
    print(min(len(w) for w in words))
    print(max(len(w) for w in words))

    b = {}
    for w in words:
        chs = ["<S>"] + list(w) + ["<E>"]
        for ch1, ch2 in zip(chs, chs[1:]):
            bigram = (ch1, ch2)
            b[bigram] = b.get(bigram, 0) + 1
    print(sorted(b.items(), key=lambda kv: -kv[1])[:10])

    import torch

    N = torch.zeros((27, 27), dtype=torch.int32)

    chars = sorted(list(set("".join(words))))
    stoi = {s: i + 1 for i, s in enumerate(chars)}
    stoi["."] = 0
    itos = {i: s for s, i in stoi.items()}

    for w in words:
        chs = ["."] + list(w) + ["."]
        for ch1, ch2 in zip(chs, chs[1:]):
            ix1 = stoi[ch1]
            ix2 = stoi[ch2]
            N[ix1, ix2] += 1

    print(N[0])

    p = N[0].float()
    p = p / p.sum()
    print(p)

    g = torch.Generator().manual_seed(2147483647)
    ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
    print(itos[ix])

    g = torch.Generator().manual_seed(2147483647)
    p = torch.rand(3, generator=g)
    p = p / p.sum()
    print(p)

    print(torch.multinomial(p, num_samples=100, replacement=True, generator=g))
    print(p.shape)

    P = (N + 1).float()
    P /= P.sum(1, keepdims=True)
    print(P.shape)
    print(P.sum(1, keepdim=True).shape)
    print(P.sum(1).shape)

    g = torch.Generator().manual_seed(2147483647)

    for i in range(5):
        out = []
        ix = 0
        while True:
            p = P[ix]
            ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
            out.append(itos[ix])
            if ix == 0:
                break
        print("".join(out))

    log_likelihood = 0.0
    n = 0

    for w in words:
        chs = ["."] + list(w) + ["."]
        for ch1, ch2 in zip(chs, chs[1:]):
            ix1 = stoi[ch1]
            ix2 = stoi[ch2]
            prob = P[ix1, ix2]
            logprob = torch.log(prob)
            log_likelihood += logprob
            n += 1

    print(f"{log_likelihood=}")
    nll = -log_likelihood
    print(f"{nll=}")
    print(f"{nll / n}")

    # create the training set of bigrams (x,y)
    xs, ys = [], []

    for w in words[:1]:
        chs = ["."] + list(w) + ["."]
        for ch1, ch2 in zip(chs, chs[1:]):
            ix1 = stoi[ch1]
            ix2 = stoi[ch2]
            print(ch1, ch2)
            xs.append(ix1)
            ys.append(ix2)

    xs = torch.tensor(xs)
    ys = torch.tensor(ys)
    print(xs)
    print(ys)

    import torch.nn.functional as F

    xenc = F.one_hot(xs, num_classes=27).float()
    print(xenc)
    print(xenc.shape)
    print(xenc.dtype)

    W = torch.randn((27, 1))
    print(xenc @ W)

    logits = xenc @ W  # log-counts
    counts = logits.exp()  # equivalent N
    probs = counts / counts.sum(1, keepdims=True)
    print(probs)
    print(probs[0])
    print(probs[0].shape)
    print(probs[0].sum())

    # randomly initialize 27 neurons' weights. each neuron receives 27 inputs
    g = torch.Generator().manual_seed(2147483647)
    W = torch.randn((27, 27), generator=g)

    xenc = F.one_hot(xs, num_classes=27).float()  # input to the network: one-hot encoding
    logits = xenc @ W  # predict log-counts
    counts = logits.exp()  # counts, equivalent to N
    probs = counts / counts.sum(1, keepdims=True)  # probabilities for next character
    print(probs.shape)

    steps = len(xs)  # the lecture's 5: the bigrams of its first word, "emma"
    nlls = torch.zeros(steps)
    for i in range(steps):
        # i-th bigram:
        x = xs[i].item()  # input character index
        y = ys[i].item()  # label character index
        print("--------")
        print(f"bigram example {i + 1}: {itos[x]}{itos[y]} (indexes {x},{y})")
        print("input to the neural net:", x)
        print("output probabilities from the neural net:", probs[i])
        print("label (actual next character):", y)
        p = probs[i, y]
        print("probability assigned by the net to the the correct character:", p.item())
        logp = torch.log(p)
        print("log likelihood:", logp.item())
        nll = -logp
        print("negative log likelihood:", nll.item())
        nlls[i] = nll

    print("=========")
    print("average negative log likelihood, i.e. loss =", nlls.mean().item())

    g = torch.Generator().manual_seed(2147483647)
    W = torch.randn((27, 27), generator=g, requires_grad=True)

    # forward pass
    xenc = F.one_hot(xs, num_classes=27).float()
    logits = xenc @ W
    counts = logits.exp()
    probs = counts / counts.sum(1, keepdims=True)
    loss = -probs[torch.arange(steps), ys].log().mean()
    print(loss.item())

    # backward pass
    W.grad = None  # set to zero the gradient
    loss.backward()
    W.data += -0.1 * W.grad

    # create the dataset
    xs, ys = [], []
    for w in words:
        chs = ["."] + list(w) + ["."]
        for ch1, ch2 in zip(chs, chs[1:]):
            ix1 = stoi[ch1]
            ix2 = stoi[ch2]
            xs.append(ix1)
            ys.append(ix2)
    xs = torch.tensor(xs)
    ys = torch.tensor(ys)
    num = xs.nelement()
    print("number of examples: ", num)

    # initialize the 'network'
    g = torch.Generator().manual_seed(2147483647)
    W = torch.randn((27, 27), generator=g, requires_grad=True)

    # gradient descent
    for k in range(1):
        # forward pass
        xenc = F.one_hot(xs, num_classes=27).float()
        logits = xenc @ W
        counts = logits.exp()
        probs = counts / counts.sum(1, keepdims=True)
        loss = -probs[torch.arange(num), ys].log().mean() + 0.01 * (W**2).mean()
        print(loss.item())

        # backward pass
        W.grad = None
        loss.backward()

        # update
        W.data += -50 * W.grad

    # finally, sample from the 'neural net' model
    g = torch.Generator().manual_seed(2147483647)

    for i in range(5):
        out = []
        ix = 0
        while True:
            xenc = F.one_hot(torch.tensor([ix]), num_classes=27).float()
            logits = xenc @ W  # predict log-counts
            counts = logits.exp()  # counts, equivalent to N
            p = counts / counts.sum(1, keepdims=True)  # probabilities for next character

            ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
            out.append(itos[ix])
            if ix == 0:
                break
        print("".join(out))

    return {"N": N, "P": P, "W": W, "loss": loss}


def part2():
    import torch
    import torch.nn.functional as F

    words = names.words()
    print(words[:8])
    print(len(words))

    chars = sorted(list(set("".join(words))))
    stoi = {s: i + 1 for i, s in enumerate(chars)}
    stoi["."] = 0
    itos = {i: s for s, i in stoi.items()}
    print(itos)

    block_size = 3  # context length: how many characters do we take to predict the next one?

    def build_dataset(words):
        X, Y = [], []
        for w in words:
            context = [0] * block_size
            for ch in w + ".":
                ix = stoi[ch]
                X.append(context)
                Y.append(ix)
                context = context[1:] + [ix]  # crop and append

        X = torch.tensor(X)
        Y = torch.tensor(Y)
        print(X.shape, Y.shape)
        return X, Y

    import random

    random.seed(42)
    random.shuffle(words)
    n1 = int(0.8 * len(words))
    n2 = int(0.9 * len(words))

    Xtr, Ytr = build_dataset(words[:n1])
    Xdev, Ydev = build_dataset(words[n1:n2])
    Xte, Yte = build_dataset(words[n2:])
    print(Xtr.shape, Ytr.shape)  # dataset

    g = torch.Generator().manual_seed(2147483647)  # for reproducibility
    C = torch.randn((27, 10), generator=g)
    W1 = torch.randn((30, 200), generator=g)
    b1 = torch.randn(200, generator=g)
    W2 = torch.randn((200, 27), generator=g)
    b2 = torch.randn(27, generator=g)
    parameters = [C, W1, b1, W2, b2]
    print(sum(p.nelement() for p in parameters))  # number of parameters in total

    for p in parameters:
        p.requires_grad = True

    lre = torch.linspace(-3, 0, 1000)
    lrs = 10**lre  # noqa: F841 - the lecture's learning-rate sweep, unused in the end

    lri = []  # noqa: F841
    lossi = []
    stepi = []

    for i in range(200):  # the lecture: 200000
        # minibatch construct
        ix = torch.randint(0, Xtr.shape[0], (32,))

        # forward pass
        emb = C[Xtr[ix]]  # (32, 3, 10)
        h = torch.tanh(emb.view(-1, 30) @ W1 + b1)  # (32, 200)
        logits = h @ W2 + b2  # (32, 27)
        loss = F.cross_entropy(logits, Ytr[ix])

        # backward pass
        for p in parameters:
            p.grad = None
        loss.backward()

        # update
        lr = 0.1 if i < 100 else 0.01  # the lecture: i < 100000
        for p in parameters:
            p.data += -lr * p.grad

        # track stats
        stepi.append(i)
        lossi.append(loss.log10().item())

    emb = C[Xtr]  # (32, 3, 2)
    h = torch.tanh(emb.view(-1, 30) @ W1 + b1)  # (32, 100)
    logits = h @ W2 + b2  # (32, 27)
    loss = F.cross_entropy(logits, Ytr)
    print(loss)

    emb = C[Xdev]  # (32, 3, 2)
    h = torch.tanh(emb.view(-1, 30) @ W1 + b1)  # (32, 100)
    logits = h @ W2 + b2  # (32, 27)
    loss = F.cross_entropy(logits, Ydev)
    print(loss)

    context = [0] * block_size
    print(C[torch.tensor([context])].shape)

    # sample from the model
    g = torch.Generator().manual_seed(2147483647 + 10)

    for _ in range(20):
        out = []
        context = [0] * block_size  # initialize with all ...
        while True:
            emb = C[torch.tensor([context])]  # (1,block_size,d)
            h = torch.tanh(emb.view(1, -1) @ W1 + b1)
            logits = h @ W2 + b2
            probs = F.softmax(logits, dim=1)
            ix = torch.multinomial(probs, num_samples=1, generator=g).item()
            context = context[1:] + [ix]
            out.append(ix)
            if ix == 0:
                break

        print("".join(itos[i] for i in out))

    return {"lossi": lossi, "parameters": parameters, "Xte": Xte, "Yte": Yte}


def part4():
    import torch
    import torch.nn.functional as F

    words = names.words()
    print(len(words))
    print(max(len(w) for w in words))
    print(words[:8])

    chars = sorted(list(set("".join(words))))
    stoi = {s: i + 1 for i, s in enumerate(chars)}
    stoi["."] = 0
    itos = {i: s for s, i in stoi.items()}
    vocab_size = len(itos)
    print(itos)
    print(vocab_size)

    block_size = 3

    def build_dataset(words):
        X, Y = [], []

        for w in words:
            context = [0] * block_size
            for ch in w + ".":
                ix = stoi[ch]
                X.append(context)
                Y.append(ix)
                context = context[1:] + [ix]  # crop and append

        X = torch.tensor(X)
        Y = torch.tensor(Y)
        print(X.shape, Y.shape)
        return X, Y

    import random

    random.seed(42)
    random.shuffle(words)
    n1 = int(0.8 * len(words))
    n2 = int(0.9 * len(words))

    Xtr, Ytr = build_dataset(words[:n1])  # 80%
    Xdev, Ydev = build_dataset(words[n1:n2])  # 10%
    Xte, Yte = build_dataset(words[n2:])  # 10%

    # utility function we will use later when comparing manual gradients to PyTorch gradients
    def cmp(s, dt, t):
        ex = torch.all(dt == t.grad).item()
        app = torch.allclose(dt, t.grad)
        maxdiff = (dt - t.grad).abs().max().item()
        print(f"{s:15s} | exact: {str(ex):5s} | approximate: {str(app):5s} | maxdiff: {maxdiff}")

    n_embd = 10  # the dimensionality of the character embedding vectors
    n_hidden = 64  # the number of neurons in the hidden layer of the MLP

    g = torch.Generator().manual_seed(2147483647)  # for reproducibility
    C = torch.randn((vocab_size, n_embd), generator=g)
    # Layer 1
    W1 = torch.randn((n_embd * block_size, n_hidden), generator=g) * (5 / 3) / ((n_embd * block_size) ** 0.5)
    b1 = torch.randn(n_hidden, generator=g) * 0.1  # using b1 just for fun, it's useless because of BN
    # Layer 2
    W2 = torch.randn((n_hidden, vocab_size), generator=g) * 0.1
    b2 = torch.randn(vocab_size, generator=g) * 0.1
    # BatchNorm parameters
    bngain = torch.randn((1, n_hidden)) * 0.1 + 1.0
    bnbias = torch.randn((1, n_hidden)) * 0.1

    parameters = [C, W1, b1, W2, b2, bngain, bnbias]
    print(sum(p.nelement() for p in parameters))  # number of parameters in total
    for p in parameters:
        p.requires_grad = True

    batch_size = 32
    n = batch_size  # a shorter variable also, for convenience
    # construct a minibatch
    ix = torch.randint(0, Xtr.shape[0], (batch_size,), generator=g)
    Xb, Yb = Xtr[ix], Ytr[ix]  # batch X,Y

    # forward pass, "chunkated" into smaller steps that are possible to backward one at a time
    emb = C[Xb]  # embed the characters into vectors
    embcat = emb.view(emb.shape[0], -1)  # concatenate the vectors
    # Linear layer 1
    hprebn = embcat @ W1 + b1  # hidden layer pre-activation
    # BatchNorm layer
    bnmeani = 1 / n * hprebn.sum(0, keepdim=True)
    bndiff = hprebn - bnmeani
    bndiff2 = bndiff**2
    bnvar = 1 / (n - 1) * (bndiff2).sum(0, keepdim=True)  # note: Bessel's correction
    bnvar_inv = (bnvar + 1e-5) ** -0.5
    bnraw = bndiff * bnvar_inv
    hpreact = bngain * bnraw + bnbias
    # Non-linearity
    h = torch.tanh(hpreact)  # hidden layer
    # Linear layer 2
    logits = h @ W2 + b2  # output layer
    # cross entropy loss (same as F.cross_entropy(logits, Yb))
    logit_maxes = logits.max(1, keepdim=True).values
    norm_logits = logits - logit_maxes  # subtract max for numerical stability
    counts = norm_logits.exp()
    counts_sum = counts.sum(1, keepdims=True)
    counts_sum_inv = counts_sum**-1
    probs = counts * counts_sum_inv
    logprobs = probs.log()
    loss = -logprobs[range(n), Yb].mean()

    # PyTorch backward pass
    for p in parameters:
        p.grad = None
    for t in [logprobs, probs, counts, counts_sum, counts_sum_inv,  # afaik there is no cleaner way
              norm_logits, logit_maxes, logits, h, hpreact, bnraw,
              bnvar_inv, bnvar, bndiff2, bndiff, hprebn, bnmeani,
              embcat, emb]:  # fmt: skip
        t.retain_grad()
    loss.backward()
    print(loss)

    # Exercise 1: backprop through the whole thing manually
    dlogprobs = torch.zeros_like(logprobs)
    dlogprobs[range(n), Yb] = -1.0 / n
    dprobs = (1.0 / probs) * dlogprobs
    dcounts_sum_inv = (counts * dprobs).sum(1, keepdim=True)
    dcounts = counts_sum_inv * dprobs
    dcounts_sum = (-(counts_sum**-2)) * dcounts_sum_inv
    dcounts += torch.ones_like(counts) * dcounts_sum
    dnorm_logits = counts * dcounts
    dlogits = dnorm_logits.clone()
    dlogit_maxes = (-dnorm_logits).sum(1, keepdim=True)
    dlogits += F.one_hot(logits.max(1).indices, num_classes=logits.shape[1]) * dlogit_maxes
    dh = dlogits @ W2.T
    dW2 = h.T @ dlogits
    db2 = dlogits.sum(0)
    dhpreact = (1.0 - h**2) * dh
    dbngain = (bnraw * dhpreact).sum(0, keepdim=True)
    dbnraw = bngain * dhpreact
    dbnbias = dhpreact.sum(0, keepdim=True)
    dbndiff = bnvar_inv * dbnraw
    dbnvar_inv = (bndiff * dbnraw).sum(0, keepdim=True)
    dbnvar = (-0.5 * (bnvar + 1e-5) ** -1.5) * dbnvar_inv
    dbndiff2 = (1.0 / (n - 1)) * torch.ones_like(bndiff2) * dbnvar
    dbndiff += (2 * bndiff) * dbndiff2
    dhprebn = dbndiff.clone()
    dbnmeani = (-dbndiff).sum(0)
    dhprebn += 1.0 / n * (torch.ones_like(hprebn) * dbnmeani)
    dembcat = dhprebn @ W1.T
    dW1 = embcat.T @ dhprebn
    db1 = dhprebn.sum(0)
    demb = dembcat.view(emb.shape)
    dC = torch.zeros_like(C)
    for k in range(Xb.shape[0]):
        for j in range(Xb.shape[1]):
            ix = Xb[k, j]
            dC[ix] += demb[k, j]

    cmp("logprobs", dlogprobs, logprobs)
    cmp("probs", dprobs, probs)
    cmp("counts_sum_inv", dcounts_sum_inv, counts_sum_inv)
    cmp("counts_sum", dcounts_sum, counts_sum)
    cmp("counts", dcounts, counts)
    cmp("norm_logits", dnorm_logits, norm_logits)
    cmp("logit_maxes", dlogit_maxes, logit_maxes)
    cmp("logits", dlogits, logits)
    cmp("h", dh, h)
    cmp("W2", dW2, W2)
    cmp("b2", db2, b2)
    cmp("hpreact", dhpreact, hpreact)
    cmp("bngain", dbngain, bngain)
    cmp("bnbias", dbnbias, bnbias)
    cmp("bnraw", dbnraw, bnraw)
    cmp("bnvar_inv", dbnvar_inv, bnvar_inv)
    cmp("bnvar", dbnvar, bnvar)
    cmp("bndiff2", dbndiff2, bndiff2)
    cmp("bndiff", dbndiff, bndiff)
    cmp("bnmeani", dbnmeani, bnmeani)
    cmp("hprebn", dhprebn, hprebn)
    cmp("embcat", dembcat, embcat)
    cmp("W1", dW1, W1)
    cmp("b1", db1, b1)
    cmp("emb", demb, emb)
    cmp("C", dC, C)

    # Exercise 2: backprop through cross_entropy but all in one go
    loss_fast = F.cross_entropy(logits, Yb)
    print(loss_fast.item(), "diff:", (loss_fast - loss).item())

    dlogits = F.softmax(logits, 1)
    dlogits[range(n), Yb] -= 1
    dlogits /= n

    cmp("logits", dlogits, logits)  # I can only get approximate to be true, my maxdiff is 6e-9
    print(logits.shape, Yb.shape)
    print(F.softmax(logits, 1)[0])
    print(dlogits[0] * n)
    print(dlogits[0].sum())

    # Exercise 3: backprop through batchnorm but all in one go
    hpreact_fast = (
        bngain
        * (hprebn - hprebn.mean(0, keepdim=True))
        / torch.sqrt(hprebn.var(0, keepdim=True, unbiased=True) + 1e-5)
        + bnbias
    )
    print("max diff:", (hpreact_fast - hpreact).abs().max())

    dhprebn = (
        bngain
        * bnvar_inv
        / n
        * (n * dhpreact - dhpreact.sum(0) - n / (n - 1) * bnraw * (dhpreact * bnraw).sum(0))
    )

    cmp("hprebn", dhprebn, hprebn)  # I can only get approximate to be true, my maxdiff is 9e-10
    print(dhprebn.shape, bngain.shape, bnvar_inv.shape, dbnraw.shape, dbnraw.sum(0).shape)

    # Exercise 4: putting it all together! Train the MLP neural net with your own backward pass
    n_embd = 10
    n_hidden = 200

    g = torch.Generator().manual_seed(2147483647)  # for reproducibility
    C = torch.randn((vocab_size, n_embd), generator=g)
    W1 = torch.randn((n_embd * block_size, n_hidden), generator=g) * (5 / 3) / ((n_embd * block_size) ** 0.5)
    b1 = torch.randn(n_hidden, generator=g) * 0.1
    W2 = torch.randn((n_hidden, vocab_size), generator=g) * 0.1
    b2 = torch.randn(vocab_size, generator=g) * 0.1
    bngain = torch.randn((1, n_hidden)) * 0.1 + 1.0
    bnbias = torch.randn((1, n_hidden)) * 0.1

    parameters = [C, W1, b1, W2, b2, bngain, bnbias]
    print(sum(p.nelement() for p in parameters))  # number of parameters in total
    for p in parameters:
        p.requires_grad = True

    max_steps = 200  # the lecture: 200000
    batch_size = 32
    n = batch_size  # convenience
    lossi = []

    with torch.no_grad():
        for i in range(max_steps):
            ix = torch.randint(0, Xtr.shape[0], (batch_size,), generator=g)
            Xb, Yb = Xtr[ix], Ytr[ix]  # batch X,Y

            emb = C[Xb]
            embcat = emb.view(emb.shape[0], -1)
            hprebn = embcat @ W1 + b1
            bnmean = hprebn.mean(0, keepdim=True)
            bnvar = hprebn.var(0, keepdim=True, unbiased=True)
            bnvar_inv = (bnvar + 1e-5) ** -0.5
            bnraw = (hprebn - bnmean) * bnvar_inv
            hpreact = bngain * bnraw + bnbias
            h = torch.tanh(hpreact)
            logits = h @ W2 + b2
            loss = F.cross_entropy(logits, Yb)

            for p in parameters:
                p.grad = None

            # manual backprop! #swole_doge_meme
            dlogits = F.softmax(logits, 1)
            dlogits[range(n), Yb] -= 1
            dlogits /= n
            dh = dlogits @ W2.T
            dW2 = h.T @ dlogits
            db2 = dlogits.sum(0)
            dhpreact = (1.0 - h**2) * dh
            dbngain = (bnraw * dhpreact).sum(0, keepdim=True)
            dbnbias = dhpreact.sum(0, keepdim=True)
            dhprebn = (
                bngain
                * bnvar_inv
                / n
                * (n * dhpreact - dhpreact.sum(0) - n / (n - 1) * bnraw * (dhpreact * bnraw).sum(0))
            )
            dembcat = dhprebn @ W1.T
            dW1 = embcat.T @ dhprebn
            db1 = dhprebn.sum(0)
            demb = dembcat.view(emb.shape)
            dC = torch.zeros_like(C)
            for k in range(Xb.shape[0]):
                for j in range(Xb.shape[1]):
                    ix = Xb[k, j]
                    dC[ix] += demb[k, j]
            grads = [dC, dW1, db1, dW2, db2, dbngain, dbnbias]

            lr = 0.1 if i < 100000 else 0.01  # step learning rate decay
            for p, grad in zip(parameters, grads):
                p.data += -lr * grad

            if i % 10000 == 0:  # print every once in a while
                print(f"{i:7d}/{max_steps:7d}: {loss.item():.4f}")
            lossi.append(loss.log10().item())

    # calibrate the batch norm at the end of training
    with torch.no_grad():
        emb = C[Xtr]
        embcat = emb.view(emb.shape[0], -1)
        hpreact = embcat @ W1 + b1
        bnmean = hpreact.mean(0, keepdim=True)
        bnvar = hpreact.var(0, keepdim=True, unbiased=True)

    @torch.no_grad()  # this decorator disables gradient tracking
    def split_loss(split):
        x, y = {
            "train": (Xtr, Ytr),
            "val": (Xdev, Ydev),
            "test": (Xte, Yte),
        }[split]
        emb = C[x]  # (N, block_size, n_embd)
        embcat = emb.view(emb.shape[0], -1)  # concat into (N, block_size * n_embd)
        hpreact = embcat @ W1 + b1
        hpreact = bngain * (hpreact - bnmean) * (bnvar + 1e-5) ** -0.5 + bnbias
        h = torch.tanh(hpreact)  # (N, n_hidden)
        logits = h @ W2 + b2  # (N, vocab_size)
        loss = F.cross_entropy(logits, y)
        print(split, loss.item())

    split_loss("train")
    split_loss("val")

    # sample from the model
    g = torch.Generator().manual_seed(2147483647 + 10)

    for _ in range(20):
        out = []
        context = [0] * block_size  # initialize with all ...
        while True:
            emb = C[torch.tensor([context])]  # (1,block_size,n_embd)
            embcat = emb.view(emb.shape[0], -1)  # concat into (N, block_size * n_embd)
            hpreact = embcat @ W1 + b1
            hpreact = bngain * (hpreact - bnmean) * (bnvar + 1e-5) ** -0.5 + bnbias
            h = torch.tanh(hpreact)  # (N, n_hidden)
            logits = h @ W2 + b2  # (N, vocab_size)
            probs = F.softmax(logits, dim=1)
            ix = torch.multinomial(probs, num_samples=1, generator=g).item()
            context = context[1:] + [ix]
            out.append(ix)
            if ix == 0:
                break

        print("".join(itos[i] for i in out))

    return {"lossi": lossi, "parameters": parameters}
