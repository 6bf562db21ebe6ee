#!/usr/bin/env python3
"""tandem's workload suite: small but real deep-learning training jobs, on synthetic data made in the process.

Each model is a real network trained with a real optimiser step (forward, loss, backward, update) on data generated
from a seeded random source, so nothing is downloaded. It runs on CUDA when present and on the CPU otherwise,
and reports its progress to tandem through tandem_progress (``tandem:progress iter=N total=T``).

    python3 workloads/train.py --model resnet18 --batch-size 64 --iterations 500 [--amp] [--device cuda]
    python3 workloads/train.py --list

The kinds follow Lucid's and Gavel's measured workloads: image classification (ResNet-18, ResNet-50, MobileNet-style),
a Transformer encoder and an LSTM language model on tokens, DCGAN, a recommendation model (NeuMF) and a small
reinforcement-learning policy trained with PPO's clipped objective.
"""
import argparse
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tandem_progress  # noqa: E402

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError:  # said once, clearly, instead of a traceback
    sys.stderr.write("train.py: PyTorch is not installed (Debian: apt-get install python3-torch)\n")
    sys.exit(2)


# ---------------------------------------------------------------- image models (CIFAR-sized inputs, 32x32)

class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(cout)
        self.short = nn.Sequential()
        if stride != 1 or cin != cout:
            self.short = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.b1(self.c1(x)))
        return F.relu(self.b2(self.c2(y)) + self.short(x))


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, cin, width, stride):
        super().__init__()
        cout = width * 4
        self.c1 = nn.Conv2d(cin, width, 1, bias=False)
        self.b1 = nn.BatchNorm2d(width)
        self.c2 = nn.Conv2d(width, width, 3, stride, 1, bias=False)
        self.b2 = nn.BatchNorm2d(width)
        self.c3 = nn.Conv2d(width, cout, 1, bias=False)
        self.b3 = nn.BatchNorm2d(cout)
        self.short = nn.Sequential()
        if stride != 1 or cin != cout:
            self.short = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.b1(self.c1(x)))
        y = F.relu(self.b2(self.c2(y)))
        return F.relu(self.b3(self.c3(y)) + self.short(x))


class ResNet(nn.Module):
    """ResNet for 32x32 images (the CIFAR variant: a 3x3 stem, no max-pool)."""

    def __init__(self, block, layers, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 3, 1, 1, bias=False), nn.BatchNorm2d(64), nn.ReLU())
        stages, cin = [], 64
        for i, n in enumerate(layers):
            width = 64 * 2 ** i
            for j in range(n):
                stages.append(block(cin, width, 2 if (j == 0 and i > 0) else 1))
                cin = width * block.expansion
        self.stages = nn.Sequential(*stages)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):
        y = self.stages(self.stem(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(y, 1), 1))


class MobileNet(nn.Module):
    """MobileNet-style depthwise-separable convolutions (MobileNetV2's inverted residuals, narrow)."""

    def __init__(self, classes=10):
        super().__init__()
        layers, cin = [nn.Conv2d(3, 32, 3, 1, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU6()], 32
        for cout, stride in [(16, 1), (24, 2), (32, 2), (64, 2), (96, 1), (160, 2)]:
            hidden = cin * 6
            layers += [nn.Conv2d(cin, hidden, 1, bias=False), nn.BatchNorm2d(hidden), nn.ReLU6(),
                       nn.Conv2d(hidden, hidden, 3, stride, 1, groups=hidden, bias=False), nn.BatchNorm2d(hidden), nn.ReLU6(),
                       nn.Conv2d(hidden, cout, 1, bias=False), nn.BatchNorm2d(cout)]
            cin = cout
        self.features = nn.Sequential(*layers)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(self.features(x), 1), 1))


def image_task(model):
    def step(m, batch, gen, device):
        x = torch.randn(batch, 3, 32, 32, generator=gen).to(device)
        y = torch.randint(0, 10, (batch,), generator=gen).to(device)
        return F.cross_entropy(m(x), y)
    return model, step


# ---------------------------------------------------------------- sequence models

VOCAB, SEQ = 1000, 64


class TransformerEncoderModel(nn.Module):
    """A BERT-style encoder (masked-token prediction) on synthetic tokens."""

    def __init__(self, d=256, heads=4, layers=4):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, d)
        self.pos = nn.Parameter(torch.zeros(1, SEQ, d))
        layer = nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.out = nn.Linear(d, VOCAB)

    def forward(self, tokens):
        return self.out(self.encoder(self.embed(tokens) + self.pos))


def transformer_task():
    def step(m, batch, gen, device):
        tokens = torch.randint(0, VOCAB, (batch, SEQ), generator=gen).to(device)
        logits = m(tokens)
        return F.cross_entropy(logits.reshape(-1, VOCAB), tokens.reshape(-1))
    return TransformerEncoderModel(), step


class LstmLanguageModel(nn.Module):
    def __init__(self, d=256, layers=2):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, d)
        self.lstm = nn.LSTM(d, d, layers, batch_first=True, dropout=0.2)
        self.out = nn.Linear(d, VOCAB)

    def forward(self, tokens):
        y, _ = self.lstm(self.embed(tokens))
        return self.out(y)


def lstm_task():
    def step(m, batch, gen, device):
        tokens = torch.randint(0, VOCAB, (batch, SEQ + 1), generator=gen).to(device)
        logits = m(tokens[:, :-1])
        return F.cross_entropy(logits.reshape(-1, VOCAB), tokens[:, 1:].reshape(-1))
    return LstmLanguageModel(), step


# ---------------------------------------------------------------- DCGAN (32x32)

class Dcgan(nn.Module):
    def __init__(self, z=100, ngf=64, ndf=64):
        super().__init__()
        self.z = z
        self.g = nn.Sequential(
            nn.ConvTranspose2d(z, ngf * 4, 4, 1, 0, bias=False), nn.BatchNorm2d(ngf * 4), nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf * 2), nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf), nn.ReLU(True),
            nn.ConvTranspose2d(ngf, 3, 4, 2, 1, bias=False), nn.Tanh())
        self.d = nn.Sequential(
            nn.Conv2d(3, ndf, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 2), nn.LeakyReLU(0.2, True),
            nn.Conv2d(ndf * 2, ndf * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 4), nn.LeakyReLU(0.2, True),
            nn.Conv2d(ndf * 4, 1, 4, 1, 0, bias=False))


def dcgan_task():
    def step(m, batch, gen, device):
        real = torch.tanh(torch.randn(batch, 3, 32, 32, generator=gen)).to(device)
        noise = torch.randn(batch, m.z, 1, 1, generator=gen).to(device)
        fake = m.g(noise)
        ones, zeros = torch.ones(batch, device=device), torch.zeros(batch, device=device)
        d_loss = F.binary_cross_entropy_with_logits(m.d(real).view(-1), ones) + \
            F.binary_cross_entropy_with_logits(m.d(fake.detach()).view(-1), zeros)
        g_loss = F.binary_cross_entropy_with_logits(m.d(fake).view(-1), ones)
        return d_loss + g_loss  # one optimiser over both nets: one real update of each per step
    return Dcgan(), step


# ---------------------------------------------------------------- recommendation: NeuMF

class NeuMF(nn.Module):
    def __init__(self, users=10000, items=5000, d=32):
        super().__init__()
        self.users, self.items = users, items
        self.gmf_u, self.gmf_i = nn.Embedding(users, d), nn.Embedding(items, d)
        self.mlp_u, self.mlp_i = nn.Embedding(users, d), nn.Embedding(items, d)
        self.mlp = nn.Sequential(nn.Linear(2 * d, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 16), nn.ReLU())
        self.out = nn.Linear(d + 16, 1)

    def forward(self, u, i):
        gmf = self.gmf_u(u) * self.gmf_i(i)
        mlp = self.mlp(torch.cat([self.mlp_u(u), self.mlp_i(i)], dim=1))
        return self.out(torch.cat([gmf, mlp], dim=1)).view(-1)


def neumf_task():
    def step(m, batch, gen, device):
        u = torch.randint(0, m.users, (batch,), generator=gen).to(device)
        i = torch.randint(0, m.items, (batch,), generator=gen).to(device)
        label = (torch.rand(batch, generator=gen) < 0.2).float().to(device)
        return F.binary_cross_entropy_with_logits(m(u, i), label)
    return NeuMF(), step


# ---------------------------------------------------------------- reinforcement learning: PPO on a synthetic task

class ActorCritic(nn.Module):
    def __init__(self, obs=16, actions=4, hidden=128):
        super().__init__()
        self.obs, self.actions = obs, actions
        self.body = nn.Sequential(nn.Linear(obs, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
        self.pi, self.v = nn.Linear(hidden, actions), nn.Linear(hidden, 1)

    def forward(self, x):
        h = self.body(x)
        return self.pi(h), self.v(h).view(-1)


def ppo_task():
    """One PPO update per step: roll out the current policy on a synthetic contextual task (reward when the action
    matches the sign pattern of the observation), then apply the clipped surrogate, value and entropy losses."""
    def step(m, batch, gen, device):
        obs = torch.randn(batch, m.obs, generator=gen).to(device)
        with torch.no_grad():
            logits, value = m(obs)
            dist = torch.distributions.Categorical(logits=logits)
            action = dist.sample()
            old_logp = dist.log_prob(action)
            target = (obs[:, :m.actions] > 0).float().argmax(dim=1)
            reward = (action == target).float()
            advantage = reward - value
        logits, value = m(obs)
        dist = torch.distributions.Categorical(logits=logits)
        ratio = torch.exp(dist.log_prob(action) - old_logp)
        surrogate = torch.min(ratio * advantage, torch.clamp(ratio, 0.8, 1.2) * advantage)
        return -surrogate.mean() + 0.5 * F.mse_loss(value, reward) - 0.01 * dist.entropy().mean()
    return ActorCritic(), step


MODELS = {
    "resnet18": lambda: image_task(ResNet(BasicBlock, [2, 2, 2, 2])),
    "resnet50": lambda: image_task(ResNet(Bottleneck, [3, 4, 6, 3])),
    "mobilenet": lambda: image_task(MobileNet()),
    "transformer": transformer_task,
    "lstm": lstm_task,
    "dcgan": dcgan_task,
    "neumf": neumf_task,
    "ppo": ppo_task,
}


def parse(argv):
    p = argparse.ArgumentParser(description="Train one of tandem's suite workloads on synthetic data, reporting progress to tandem.")
    p.add_argument("--model", choices=sorted(MODELS), help="the network to train")
    p.add_argument("--batch-size", type=int, default=32, help="samples per step (default 32)")
    p.add_argument("--amp", action="store_true", help="automatic mixed precision (CUDA only; ignored on the CPU)")
    p.add_argument("--iterations", type=int, default=100, help="training steps to run (default 100)")
    p.add_argument("--seconds", type=float, default=0, help="also stop after this many seconds of training (0: no limit)")
    p.add_argument("--device", default="auto", help="auto (CUDA when present), cpu, or cuda[:N]")
    p.add_argument("--threads", type=int, default=0, help="CPU threads for PyTorch (0: PyTorch's default)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--list", action="store_true", help="list the models and exit")
    a = p.parse_args(argv)
    if a.list:
        return a
    if a.model is None:
        p.error("--model is required (one of %s)" % ", ".join(sorted(MODELS)))
    if a.batch_size < 1 or a.iterations < 1 or a.seconds < 0:
        p.error("--batch-size and --iterations must be at least 1, --seconds not negative")
    return a


def main(argv=None):
    a = parse(sys.argv[1:] if argv is None else argv)
    if a.list:
        print("\n".join(sorted(MODELS)))
        return 0
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    device = torch.device("cuda" if a.device == "auto" and torch.cuda.is_available() else ("cpu" if a.device == "auto" else a.device))
    torch.manual_seed(a.seed)
    gen = torch.Generator().manual_seed(a.seed)
    model, step = MODELS[a.model]()
    model.to(device).train()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9) if a.model.startswith(("resnet", "mobilenet")) \
        else torch.optim.Adam(model.parameters(), lr=1e-3)
    amp = a.amp and device.type == "cuda"
    scaler = torch.cuda.amp.GradScaler(enabled=amp)
    print("train.py: %s, batch %d, %s%s, %d parameters" % (a.model, a.batch_size, device, " amp" if amp else "",
                                                          sum(p.numel() for p in model.parameters())), flush=True)
    reporter = tandem_progress.Reporter(total=a.iterations, every_s=0.2)
    start, loss_value = time.monotonic(), float("nan")
    for it in range(1, a.iterations + 1):
        opt.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device.type, enabled=amp):
            loss = step(model, a.batch_size, gen, device)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        loss_value = loss.item()
        if not math.isfinite(loss_value):
            sys.stderr.write("train.py: loss became %r at step %d\n" % (loss_value, it))
            return 1
        reporter.step(it)
        if a.seconds and time.monotonic() - start >= a.seconds:
            tandem_progress.report(it, a.iterations)
            break
    elapsed = time.monotonic() - start
    print("train.py: done, %d steps in %.1f s (%.2f steps/s), last loss %.4f" % (it, elapsed, it / max(elapsed, 1e-9), loss_value), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
