"""Whole models at full size in plain PyTorch, for bench/pytorch_models.py
on machines without torchvision or transformers: captured on the
development machine (PyTorch 1.13, make_fx), compiled there, and run on
the GPU machine from these same definitions, which PyTorch 2.x builds
alike. Each variant is a function returning (module in eval mode, example
inputs) on the CPU in its dtype; the weights are random (the artifact binds
the live module's own at load).

The four families follow their reference implementations op for op, with
their parameter names:
  - ResNet-18 (torchvision's resnet18: BasicBlocks, batch norm, 1000
    classes) at 1x3x224x224;
  - GPT-2 124M (bench/gpt2_like.py, Hugging Face's GPT2Model) at 1x64 and
    1x512 tokens;
  - a BERT-base encoder (12 post-norm layers, width 768, exact GELU,
    word/position/token-type embeddings) at 1x128 tokens;
  - a Llama-style decoder (8 layers, width 1024, 16 query heads over 4
    key/value heads, rotary embeddings, SwiGLU, RMS norm, causal) at 1x128.
Attention is written out (matmul, mask, softmax, matmul): PyTorch 1.13 has
no scaled_dot_product_attention.
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

from gpt2_like import GPT2


# ResNet-18 ------------------------------------------------------------------

class BasicBlock(nn.Module):
    def __init__(self, inputs, outputs, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(inputs, outputs, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(outputs)
        self.conv2 = nn.Conv2d(outputs, outputs, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(outputs)
        self.downsample = None
        if stride != 1 or inputs != outputs:
            self.downsample = nn.Sequential(
                nn.Conv2d(inputs, outputs, 1, stride, bias=False),
                nn.BatchNorm2d(outputs))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        identity = x if self.downsample is None else self.downsample(x)
        return F.relu(out + identity)


class ResNet18(nn.Module):
    def __init__(self, classes=1000):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        widths, inputs = (64, 128, 256, 512), 64
        for index, width in enumerate(widths):
            stride = 1 if index == 0 else 2
            setattr(self, "layer%d" % (index + 1), nn.Sequential(
                BasicBlock(inputs, width, stride),
                BasicBlock(width, width, 1)))
            inputs = width
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(512, classes)

    def forward(self, x):
        x = self.maxpool(F.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


def random_batch_statistics(model):
    """Running statistics away from (0, 1), so that a wrong normalization
    shows in the result."""
    for module in model.modules():
        if isinstance(module, nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 1.5)
    return model


# BERT -----------------------------------------------------------------------

class BertSelfAttention(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.query = nn.Linear(width, width)
        self.key = nn.Linear(width, width)
        self.value = nn.Linear(width, width)

    def forward(self, x):
        batch, tokens, width = x.shape
        size = width // self.heads

        def split(t):
            return t.view(batch, tokens, self.heads, size).transpose(1, 2)
        q, k, v = split(self.query(x)), split(self.key(x)), split(
            self.value(x))
        scores = q @ k.transpose(-1, -2) / math.sqrt(size)
        out = torch.softmax(scores, dim=-1) @ v
        return out.transpose(1, 2).reshape(batch, tokens, width)


class BertLayer(nn.Module):
    def __init__(self, width, heads, hidden):
        super().__init__()
        self.attention = BertSelfAttention(width, heads)
        self.attention_output = nn.Linear(width, width)
        self.attention_norm = nn.LayerNorm(width, eps=1e-12)
        self.intermediate = nn.Linear(width, hidden)
        self.output = nn.Linear(hidden, width)
        self.output_norm = nn.LayerNorm(width, eps=1e-12)

    def forward(self, x):
        x = self.attention_norm(x + self.attention_output(self.attention(x)))
        h = F.gelu(self.intermediate(x))
        return self.output_norm(x + self.output(h))


class Bert(nn.Module):
    def __init__(self, layers=12, width=768, heads=12, hidden=3072,
                 vocabulary=30522, positions=512, token_types=2):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocabulary, width)
        self.position_embeddings = nn.Embedding(positions, width)
        self.token_type_embeddings = nn.Embedding(token_types, width)
        self.embeddings_norm = nn.LayerNorm(width, eps=1e-12)
        self.layer = nn.ModuleList(
            [BertLayer(width, heads, hidden) for _ in range(layers)])

    def forward(self, ids):
        positions = torch.arange(ids.shape[1], device=ids.device)
        types = torch.zeros_like(ids)
        x = (self.word_embeddings(ids) + self.position_embeddings(positions)
             + self.token_type_embeddings(types))
        x = self.embeddings_norm(x)
        for layer in self.layer:
            x = layer(x)
        return x


# Llama ----------------------------------------------------------------------

class RMSNorm(nn.Module):
    def __init__(self, width, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(width))
        self.eps = eps

    def forward(self, x):
        # In f32, as Hugging Face's LlamaRMSNorm, then back to x's dtype.
        h = x.float()
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * h.to(x.dtype)


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class LlamaAttention(nn.Module):
    def __init__(self, width, heads, kv_heads):
        super().__init__()
        self.heads, self.kv_heads = heads, kv_heads
        self.size = width // heads
        self.q_proj = nn.Linear(width, heads * self.size, bias=False)
        self.k_proj = nn.Linear(width, kv_heads * self.size, bias=False)
        self.v_proj = nn.Linear(width, kv_heads * self.size, bias=False)
        self.o_proj = nn.Linear(heads * self.size, width, bias=False)

    def forward(self, x, cos, sin, mask):
        batch, tokens, _ = x.shape

        def split(t, heads):
            return t.view(batch, tokens, heads, self.size).transpose(1, 2)
        q = split(self.q_proj(x), self.heads)
        k = split(self.k_proj(x), self.kv_heads)
        v = split(self.v_proj(x), self.kv_heads)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        # Grouped-query attention: each key/value head serves a group.
        group = self.heads // self.kv_heads
        k = k.repeat_interleave(group, dim=1)
        v = v.repeat_interleave(group, dim=1)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.size) + mask
        probabilities = torch.softmax(scores.float(), dim=-1).to(q.dtype)
        out = (probabilities @ v).transpose(1, 2).reshape(batch, tokens, -1)
        return self.o_proj(out)


class LlamaLayer(nn.Module):
    def __init__(self, width, heads, kv_heads, hidden):
        super().__init__()
        self.input_layernorm = RMSNorm(width)
        self.self_attn = LlamaAttention(width, heads, kv_heads)
        self.post_attention_layernorm = RMSNorm(width)
        self.gate_proj = nn.Linear(width, hidden, bias=False)
        self.up_proj = nn.Linear(width, hidden, bias=False)
        self.down_proj = nn.Linear(hidden, width, bias=False)

    def forward(self, x, cos, sin, mask):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin, mask)
        h = self.post_attention_layernorm(x)
        return x + self.down_proj(F.silu(self.gate_proj(h)) * self.up_proj(h))


class Llama(nn.Module):
    def __init__(self, layers=8, width=1024, heads=16, kv_heads=4,
                 hidden=2816, vocabulary=32000, theta=10000.0):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocabulary, width)
        self.layers = nn.ModuleList([LlamaLayer(width, heads, kv_heads,
                                                hidden)
                                     for _ in range(layers)])
        self.norm = RMSNorm(width)
        size = width // heads
        self.register_buffer("inv_freq", 1.0 / theta ** (
            torch.arange(0, size, 2).float() / size), persistent=False)

    def forward(self, ids):
        tokens = ids.shape[1]
        x = self.embed_tokens(ids)
        positions = torch.arange(tokens, device=ids.device).float()
        angles = positions[:, None] * self.inv_freq[None, :]
        angles = torch.cat((angles, angles), dim=-1)
        cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
        mask = torch.full((tokens, tokens), float("-inf"),
                          device=ids.device).triu(1).to(x.dtype)
        for layer in self.layers:
            x = layer(x, cos, sin, mask)
        return self.norm(x)


# Variants -------------------------------------------------------------------

def resnet18(dtype):
    torch.manual_seed(31)
    model = random_batch_statistics(ResNet18()).eval().to(dtype)
    return model, [torch.randn(1, 3, 224, 224).to(dtype)]


def gpt2(tokens, dtype):
    torch.manual_seed(32)
    return GPT2().eval().to(dtype), [torch.randint(0, 50257, (1, tokens))]


def bert(tokens, dtype):
    torch.manual_seed(33)
    return Bert().eval().to(dtype), [torch.randint(0, 30522, (1, tokens))]


def llama(tokens, dtype):
    torch.manual_seed(34)
    return Llama().eval().to(dtype), [torch.randint(0, 32000, (1, tokens))]


F32, BF16 = torch.float32, torch.bfloat16
VARIANTS = {
    "plain_resnet18_f32": lambda: resnet18(F32),
    "plain_resnet18_bf16": lambda: resnet18(BF16),
    "plain_gpt2_64_f32": lambda: gpt2(64, F32),
    "plain_gpt2_64_bf16": lambda: gpt2(64, BF16),
    "plain_gpt2_512_f32": lambda: gpt2(512, F32),
    "plain_gpt2_512_bf16": lambda: gpt2(512, BF16),
    "plain_bert_128_f32": lambda: bert(128, F32),
    "plain_llama_128_f32": lambda: llama(128, F32),
    "plain_llama_128_bf16": lambda: llama(128, BF16),
}
