"""A small Llama-style decoder for examples/generate: token embedding, RMSNorm,
rotary embeddings, grouped-query attention over a static KV cache, a SiLU-
gated MLP and an LM head. Two programs share one set of weights and one
cache (persistent buffers `layers.N.k_cache` / `v_cache`):

  prefill(tokens[1, P])         writes positions 0..P-1, returns the last logits
  decode(token[1, 1], pos[1])   writes position pos, returns its logits

Every attention reads the whole cache under a mask (positions <= the query's),
so both programs have static shapes. forward_full() recomputes a sequence
without a cache: the reference the example checks the cached path against.

Factories (for tools/export/export_model.py --module FILE:prefill) build
the weights from torch's global seed, which the exporter sets, so both
programs get the same weights.
"""

import torch
from torch import nn

VOCAB, DIM, HEADS, KV_HEADS, HEAD_DIM, FFN, LAYERS, MAX_LEN = 96, 128, 4, 2, 32, 256, 2, 48
PROMPT = 8


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(dim))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(DIM, HEADS * HEAD_DIM, bias=False)
        self.k = nn.Linear(DIM, KV_HEADS * HEAD_DIM, bias=False)
        self.v = nn.Linear(DIM, KV_HEADS * HEAD_DIM, bias=False)
        self.o = nn.Linear(HEADS * HEAD_DIM, DIM, bias=False)
        # Default initialization attends almost uniformly and the residual
        # drowns the result: the next token would hardly depend on the
        # context, and a broken cache would go unnoticed. Sharper scores and
        # a stronger output make the context count.
        with torch.no_grad():
            self.q.weight.mul_(4.0)
            self.k.weight.mul_(4.0)
            self.o.weight.mul_(6.0)
        self.register_buffer("k_cache", torch.zeros(1, KV_HEADS, MAX_LEN, HEAD_DIM))
        self.register_buffer("v_cache", torch.zeros(1, KV_HEADS, MAX_LEN, HEAD_DIM))

    def project(self, x, cos, sin):
        b, s, _ = x.shape
        q = self.q(x).view(b, s, HEADS, HEAD_DIM).transpose(1, 2)
        k = self.k(x).view(b, s, KV_HEADS, HEAD_DIM).transpose(1, 2)
        v = self.v(x).view(b, s, KV_HEADS, HEAD_DIM).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        return q, k, v

    def attend(self, q, k, v, allowed):
        groups = HEADS // KV_HEADS
        b, _, s, _ = q.shape
        k = k[:, :, None].expand(b, KV_HEADS, groups, k.shape[2], HEAD_DIM).reshape(b, HEADS, -1, HEAD_DIM)
        v = v[:, :, None].expand(b, KV_HEADS, groups, v.shape[2], HEAD_DIM).reshape(b, HEADS, -1, HEAD_DIM)
        w = torch.matmul(q, k.transpose(2, 3)) * HEAD_DIM ** -0.5
        w = w.masked_fill(~allowed, torch.finfo(w.dtype).min)
        w = torch.softmax(w, dim=-1)
        out = torch.matmul(w, v).transpose(1, 2).reshape(b, s, HEADS * HEAD_DIM)
        return self.o(out)

    def cached(self, x, cos, sin, pos, allowed):
        """Writes k, v at `pos` into the cache and attends over all of it."""
        q, k, v = self.project(x, cos, sin)
        self.k_cache.index_copy_(2, pos, k)
        self.v_cache.index_copy_(2, pos, v)
        return self.attend(q, self.k_cache, self.v_cache, allowed)

    def full(self, x, cos, sin, allowed):
        q, k, v = self.project(x, cos, sin)
        return self.attend(q, k, v, allowed)


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn_norm = RMSNorm(DIM)
        self.attn = Attention()
        self.mlp_norm = RMSNorm(DIM)
        self.gate = nn.Linear(DIM, FFN, bias=False)
        self.up = nn.Linear(DIM, FFN, bias=False)
        self.down = nn.Linear(FFN, DIM, bias=False)

    def mlp(self, x):
        h = self.mlp_norm(x)
        return x + self.down(torch.nn.functional.silu(self.gate(h)) * self.up(h))


class TinyLlama(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, DIM)
        self.layers = nn.ModuleList(Layer() for _ in range(LAYERS))
        self.norm = RMSNorm(DIM)
        self.head = nn.Linear(DIM, VOCAB, bias=False)
        inv = 1.0 / (10000 ** (torch.arange(0, HEAD_DIM, 2).float() / HEAD_DIM))
        angles = torch.outer(torch.arange(MAX_LEN).float(), inv)
        angles = torch.cat((angles, angles), dim=-1)
        self.register_buffer("cos", angles.cos(), persistent=False)
        self.register_buffer("sin", angles.sin(), persistent=False)

    def _run(self, tokens, pos, allowed, use_cache):
        x = self.embed(tokens)
        cos, sin = self.cos[pos], self.sin[pos]
        for layer in self.layers:
            h = layer.attn_norm(x)
            if use_cache:
                x = x + layer.attn.cached(h, cos, sin, pos, allowed)
            else:
                x = x + layer.attn.full(h, cos, sin, allowed)
            x = layer.mlp(x)
        return self.head(self.norm(x[:, -1]))

    def cached_step(self, tokens, pos):
        """tokens[1, S] at positions pos[S]: attends over the cache, keys at
        positions <= each query's."""
        allowed = torch.arange(MAX_LEN)[None, :] <= pos[:, None]
        return self._run(tokens, pos, allowed, True)

    def forward_full(self, tokens):
        """The whole sequence without a cache (causal): the reference."""
        s = tokens.shape[1]
        allowed = torch.ones(s, s, dtype=torch.bool).tril()
        return self._run(tokens, torch.arange(s), allowed, False)


class Prefill(TinyLlama):
    def forward(self, tokens):
        return self.cached_step(tokens, torch.arange(tokens.shape[1]))


class Decode(TinyLlama):
    def forward(self, token, pos):
        return self.cached_step(token, pos)


def prefill():
    return Prefill()


def decode():
    return Decode()
