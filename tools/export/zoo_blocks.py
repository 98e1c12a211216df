"""Transformer blocks and tiny end-to-end models, written after the code
paths of Hugging Face transformers (transformers is not installed here; the
modules below re-state its math and its torch calls):

* Llama/Granite decoder: ``LlamaRMSNorm``, ``LlamaRotaryEmbedding`` (cos/sin
  computed in the graph from ``arange`` positions and a non-persistent fp32
  ``inv_freq`` buffer), ``LlamaAttention`` through
  ``integrations/sdpa_attention.py`` ``sdpa_attention_forward`` (grouped
  query attention via ``enable_gqa=True``, ``is_causal=True`` because the
  causal mask is ``None`` on the SDPA path), ``LlamaMLP`` (SwiGLU),
  ``LlamaDecoderLayer``, ``LlamaModel`` + ``lm_head``.
* BERT encoder: ``BertEmbeddings`` (word + position + token type, with the
  non-persistent ``position_ids`` / ``token_type_ids`` int64 buffers),
  ``get_extended_attention_mask`` (additive mask from ``attention_mask``),
  ``BertSelfAttention`` (eager path: matmul / scale / add mask / softmax /
  dropout / matmul), ``BertSelfOutput``, ``BertIntermediate`` (GELU),
  ``BertOutput``, ``BertLayer``.

Differences from the transformers code (all documented in the fixtures'
``notes``): the RoPE table is computed without the ``torch.autocast(
enabled=False)`` context HF wraps it in (torch 2.9 export turns that region
into a ``torch.ops.higher_order.wrap_with_autocast`` subgraph); no KV cache,
no ``**kwargs`` plumbing, no output_attentions; SDPA/RMSNorm go through the
placeholder ops of keep_ops.py (torch 1.13 has neither).
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

import keep_ops


# ----------------------------------------------------------------------------
# Llama / Granite
# ----------------------------------------------------------------------------


class LlamaConfig:
    def __init__(self, hidden_size=128, num_attention_heads=4, num_key_value_heads=2,
                 intermediate_size=256, vocab_size=256, num_hidden_layers=2,
                 rms_norm_eps=1e-6, rope_theta=10000.0, max_position_embeddings=64):
        self.hidden_size = hidden_size
        self.num_attention_heads = num_attention_heads
        self.num_key_value_heads = num_key_value_heads
        self.head_dim = hidden_size // num_attention_heads
        self.intermediate_size = intermediate_size
        self.vocab_size = vocab_size
        self.num_hidden_layers = num_hidden_layers
        self.rms_norm_eps = rms_norm_eps
        self.rope_theta = rope_theta
        self.max_position_embeddings = max_position_embeddings


def _perturb_norm_weight(w):
    with torch.no_grad():
        w.add_(0.1 * torch.randn(w.shape))


class LlamaRMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps
        _perturb_norm_weight(self.weight)

    def forward(self, hidden_states):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states.to(input_dtype)


class LlamaRotaryEmbedding(nn.Module):
    def __init__(self, config):
        super().__init__()
        base, dim = config.rope_theta, config.head_dim
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self.attention_scaling = 1.0

    def post_dtype_fixup(self):
        # transformers computes inv_freq in fp32 and keeps it so (from_pretrained
        # with torch_dtype does not convert it); undo module.to(fp16)
        self.inv_freq = self.inv_freq.float()

    def forward(self, x, position_ids):
        inv_freq_expanded = self.inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1).to(x.device)
        position_ids_expanded = position_ids[:, None, :].float()
        # (transformers: inside torch.autocast(device_type, enabled=False))
        freqs = (inv_freq_expanded.float() @ position_ids_expanded.float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos = emb.cos() * self.attention_scaling
        sin = emb.sin() * self.attention_scaling
        return cos.to(dtype=x.dtype), sin.to(dtype=x.dtype)


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin, unsqueeze_dim=1):
    cos = cos.unsqueeze(unsqueeze_dim)
    sin = sin.unsqueeze(unsqueeze_dim)
    q_embed = (q * cos) + (rotate_half(q) * sin)
    k_embed = (k * cos) + (rotate_half(k) * sin)
    return q_embed, k_embed


def sdpa_attention_forward(module, query, key, value, attention_mask, dropout=0.0,
                           scaling=None, is_causal=None):
    # transformers/integrations/sdpa_attention.py (torch >= 2.5, mask None:
    # use_gqa_in_sdpa -> enable_gqa instead of repeat_kv)
    sdpa_kwargs = {"enable_gqa": True}
    query = query.contiguous()
    key = key.contiguous()
    value = value.contiguous()
    if is_causal is None:
        is_causal = query.shape[2] > 1 and attention_mask is None and getattr(module, "is_causal", True)
    attn_output = keep_ops.scaled_dot_product_attention(
        query, key, value, attn_mask=attention_mask, dropout_p=dropout, scale=scaling,
        is_causal=is_causal, **sdpa_kwargs)
    attn_output = attn_output.transpose(1, 2).contiguous()
    return attn_output, None


class LlamaAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.head_dim = config.head_dim
        self.num_key_value_groups = config.num_attention_heads // config.num_key_value_heads
        self.scaling = self.head_dim ** -0.5
        self.attention_dropout = 0.0
        self.is_causal = True
        h = config.hidden_size
        self.q_proj = nn.Linear(h, config.num_attention_heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(h, config.num_key_value_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(h, config.num_key_value_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(config.num_attention_heads * self.head_dim, h, bias=False)

    def forward(self, hidden_states, position_embeddings, attention_mask):
        input_shape = hidden_states.shape[:-1]
        hidden_shape = (*input_shape, -1, self.head_dim)
        query_states = self.q_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        key_states = self.k_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        value_states = self.v_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        cos, sin = position_embeddings
        query_states, key_states = apply_rotary_pos_emb(query_states, key_states, cos, sin)
        attn_output, attn_weights = sdpa_attention_forward(
            self, query_states, key_states, value_states, attention_mask,
            dropout=0.0 if not self.training else self.attention_dropout, scaling=self.scaling)
        attn_output = attn_output.reshape(*input_shape, -1).contiguous()
        attn_output = self.o_proj(attn_output)
        return attn_output, attn_weights


class LlamaMLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        h, i = config.hidden_size, config.intermediate_size
        self.gate_proj = nn.Linear(h, i, bias=False)
        self.up_proj = nn.Linear(h, i, bias=False)
        self.down_proj = nn.Linear(i, h, bias=False)
        self.act_fn = nn.SiLU()

    def forward(self, x):
        return self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))


class LlamaDecoderLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.self_attn = LlamaAttention(config)
        self.mlp = LlamaMLP(config)
        self.input_layernorm = LlamaRMSNorm(config.hidden_size, eps=config.rms_norm_eps)
        self.post_attention_layernorm = LlamaRMSNorm(config.hidden_size, eps=config.rms_norm_eps)

    def forward(self, hidden_states, attention_mask=None, position_embeddings=None):
        residual = hidden_states
        hidden_states = self.input_layernorm(hidden_states)
        hidden_states, _ = self.self_attn(hidden_states=hidden_states,
                                          position_embeddings=position_embeddings,
                                          attention_mask=attention_mask)
        hidden_states = residual + hidden_states
        residual = hidden_states
        hidden_states = self.post_attention_layernorm(hidden_states)
        hidden_states = self.mlp(hidden_states)
        hidden_states = residual + hidden_states
        return hidden_states


class BlockLlamaDecoder(nn.Module):
    """One LlamaDecoderLayer plus what LlamaModel.forward does around it:
    positions from arange, the rotary table (no autocast context)."""

    def __init__(self, config=None):
        super().__init__()
        config = config or LlamaConfig()
        self.rotary_emb = LlamaRotaryEmbedding(config)
        self.layer = LlamaDecoderLayer(config)

    def post_dtype_fixup(self):
        self.rotary_emb.post_dtype_fixup()

    def forward(self, hidden_states):
        cache_position = torch.arange(0, hidden_states.shape[1], device=hidden_states.device)
        position_ids = cache_position.unsqueeze(0)
        position_embeddings = self.rotary_emb(hidden_states, position_ids)
        return self.layer(hidden_states, attention_mask=None,
                          position_embeddings=position_embeddings)


class LlamaTiny(nn.Module):
    """LlamaForCausalLM: embed_tokens, decoder layers, final norm, lm_head."""

    def __init__(self, config=None):
        super().__init__()
        config = config or LlamaConfig()
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList([LlamaDecoderLayer(config)
                                     for _ in range(config.num_hidden_layers)])
        self.norm = LlamaRMSNorm(config.hidden_size, eps=config.rms_norm_eps)
        self.rotary_emb = LlamaRotaryEmbedding(config)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)

    def post_dtype_fixup(self):
        self.rotary_emb.post_dtype_fixup()

    def forward(self, input_ids):
        inputs_embeds = self.embed_tokens(input_ids)
        cache_position = torch.arange(0, inputs_embeds.shape[1], device=inputs_embeds.device)
        position_ids = cache_position.unsqueeze(0)
        hidden_states = inputs_embeds
        position_embeddings = self.rotary_emb(hidden_states, position_ids)
        for decoder_layer in self.layers:
            hidden_states = decoder_layer(hidden_states, attention_mask=None,
                                          position_embeddings=position_embeddings)
        hidden_states = self.norm(hidden_states)
        slice_indices = slice(0, None)  # logits_to_keep=0
        logits = self.lm_head(hidden_states[:, slice_indices, :])
        return logits


# ----------------------------------------------------------------------------
# BERT
# ----------------------------------------------------------------------------


class BertConfig:
    def __init__(self, hidden_size=128, num_attention_heads=4, intermediate_size=256,
                 vocab_size=256, max_position_embeddings=64, type_vocab_size=2,
                 layer_norm_eps=1e-12, hidden_dropout_prob=0.1,
                 attention_probs_dropout_prob=0.1, num_hidden_layers=2):
        self.__dict__.update(locals())
        del self.__dict__["self"]


def _perturb_ln(ln):
    with torch.no_grad():
        ln.weight.add_(0.1 * torch.randn(ln.weight.shape))
        ln.bias.add_(0.1 * torch.randn(ln.bias.shape))


class BertEmbeddings(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.word_embeddings = nn.Embedding(config.vocab_size, config.hidden_size, padding_idx=0)
        self.position_embeddings = nn.Embedding(config.max_position_embeddings, config.hidden_size)
        self.token_type_embeddings = nn.Embedding(config.type_vocab_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        _perturb_ln(self.LayerNorm)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)
        self.register_buffer("position_ids",
                             torch.arange(config.max_position_embeddings).expand((1, -1)),
                             persistent=False)
        self.register_buffer("token_type_ids",
                             torch.zeros(self.position_ids.size(), dtype=torch.long),
                             persistent=False)

    def forward(self, input_ids):
        input_shape = input_ids.size()
        seq_length = input_shape[1]
        position_ids = self.position_ids[:, 0: seq_length]
        buffered_token_type_ids = self.token_type_ids[:, :seq_length]
        token_type_ids = buffered_token_type_ids.expand(input_shape[0], seq_length)
        inputs_embeds = self.word_embeddings(input_ids)
        token_type_embeddings = self.token_type_embeddings(token_type_ids)
        embeddings = inputs_embeds + token_type_embeddings
        position_embeddings = self.position_embeddings(position_ids)
        embeddings = embeddings + position_embeddings
        embeddings = self.LayerNorm(embeddings)
        embeddings = self.dropout(embeddings)
        return embeddings


def get_extended_attention_mask(attention_mask, dtype):
    # transformers ModuleUtilsMixin.get_extended_attention_mask (encoder)
    extended_attention_mask = attention_mask[:, None, None, :]
    extended_attention_mask = extended_attention_mask.to(dtype=dtype)
    extended_attention_mask = (1.0 - extended_attention_mask) * torch.finfo(dtype).min
    return extended_attention_mask


class BertSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.num_attention_heads = config.num_attention_heads
        self.attention_head_size = config.hidden_size // config.num_attention_heads
        self.all_head_size = self.num_attention_heads * self.attention_head_size
        self.query = nn.Linear(config.hidden_size, self.all_head_size)
        self.key = nn.Linear(config.hidden_size, self.all_head_size)
        self.value = nn.Linear(config.hidden_size, self.all_head_size)
        self.dropout = nn.Dropout(config.attention_probs_dropout_prob)

    def transpose_for_scores(self, x):
        new_x_shape = x.size()[:-1] + (self.num_attention_heads, self.attention_head_size)
        x = x.view(new_x_shape)
        return x.permute(0, 2, 1, 3)

    def forward(self, hidden_states, attention_mask=None):
        mixed_query_layer = self.query(hidden_states)
        key_layer = self.transpose_for_scores(self.key(hidden_states))
        value_layer = self.transpose_for_scores(self.value(hidden_states))
        query_layer = self.transpose_for_scores(mixed_query_layer)
        attention_scores = torch.matmul(query_layer, key_layer.transpose(-1, -2))
        attention_scores = attention_scores / math.sqrt(self.attention_head_size)
        if attention_mask is not None:
            attention_scores = attention_scores + attention_mask
        attention_probs = nn.functional.softmax(attention_scores, dim=-1)
        attention_probs = self.dropout(attention_probs)
        context_layer = torch.matmul(attention_probs, value_layer)
        context_layer = context_layer.permute(0, 2, 1, 3).contiguous()
        new_context_layer_shape = context_layer.size()[:-2] + (self.all_head_size,)
        context_layer = context_layer.view(new_context_layer_shape)
        return context_layer


class BertSelfOutput(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        _perturb_ln(self.LayerNorm)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, hidden_states, input_tensor):
        hidden_states = self.dense(hidden_states)
        hidden_states = self.dropout(hidden_states)
        hidden_states = self.LayerNorm(hidden_states + input_tensor)
        return hidden_states


class BertAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.self = BertSelfAttention(config)
        self.output = BertSelfOutput(config)

    def forward(self, hidden_states, attention_mask=None):
        self_outputs = self.self(hidden_states, attention_mask)
        return self.output(self_outputs, hidden_states)


class BertIntermediate(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.intermediate_size)

    def forward(self, hidden_states):
        return F.gelu(self.dense(hidden_states))


class BertOutput(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.intermediate_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        _perturb_ln(self.LayerNorm)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, hidden_states, input_tensor):
        hidden_states = self.dense(hidden_states)
        hidden_states = self.dropout(hidden_states)
        hidden_states = self.LayerNorm(hidden_states + input_tensor)
        return hidden_states


class BertLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.attention = BertAttention(config)
        self.intermediate = BertIntermediate(config)
        self.output = BertOutput(config)

    def forward(self, hidden_states, attention_mask=None):
        attention_output = self.attention(hidden_states, attention_mask)
        intermediate_output = self.intermediate(attention_output)
        return self.output(intermediate_output, attention_output)


class BlockBertEncoder(nn.Module):
    """One BertLayer plus the additive padding mask BertModel builds from
    attention_mask (get_extended_attention_mask)."""

    def __init__(self, config=None):
        super().__init__()
        self.layer = BertLayer(config or BertConfig())

    def forward(self, hidden_states, attention_mask):
        extended = get_extended_attention_mask(attention_mask, hidden_states.dtype)
        return self.layer(hidden_states, extended)


class BertTiny(nn.Module):
    """BertModel without pooler: embeddings + encoder layers."""

    def __init__(self, config=None):
        super().__init__()
        config = config or BertConfig()
        self.embeddings = BertEmbeddings(config)
        self.layer = nn.ModuleList([BertLayer(config) for _ in range(config.num_hidden_layers)])

    def forward(self, input_ids, attention_mask):
        embedding_output = self.embeddings(input_ids)
        extended = get_extended_attention_mask(attention_mask, embedding_output.dtype)
        hidden_states = embedding_output
        for layer_module in self.layer:
            hidden_states = layer_module(hidden_states, extended)
        return hidden_states


LLAMA_NOTES = (
    "Written after transformers' LlamaDecoderLayer / LlamaModel (sdpa attention path). "
    "Differences from a real transformers export: the RoPE table is computed without the "
    "torch.autocast(enabled=False) context (torch 2.9 would wrap those ops in a "
    "torch.ops.higher_order.wrap_with_autocast subgraph); aten.scaled_dot_product_attention "
    "(enable_gqa) and the fp16 output strides of SDPA follow the math backend (on CPU torch 2.9 "
    "may pick the flash kernel, whose output is [B,L,H,E]-strided, which changes the strides "
    "recorded for it and whether transpose(1, 2).contiguous() records a contiguous node)."
)
BERT_NOTES = (
    "Written after transformers' BertLayer / BertModel (eager attention path, additive "
    "extended attention mask (1 - mask) * finfo(fp16).min). nn.Dropout in eval mode appears as "
    "aten.dropout.default(x, 0.1, False): torch 2.9 export never decomposes dropout."
)


def register_block_zoo(add, ZooEntry, In):
    add(ZooEntry("block_llama_decoder",
                 "Llama/Granite decoder layer: RMSNorm, RoPE from arange + inv_freq, GQA "
                 "SDPA (4 heads, 2 KV heads, head_dim 32, causal), SwiGLU MLP 128->256; "
                 "hidden [1,16,128]",
                 BlockLlamaDecoder, [], ("fp16",), "fp16",
                 inputs=[In((1, 16, 128), name="hidden_states")], tol_kind="block",
                 notes=LLAMA_NOTES, dir_name="block_llama_decoder",
                 reference_note="SDPA via keep_ops.sdpa_math_ref (torch 1.13 has no SDPA)"))
    add(ZooEntry("block_bert_encoder",
                 "BERT encoder layer: MHA (4 heads) with additive padding mask from "
                 "attention_mask, LayerNorm, GELU MLP 128->256; hidden [1,16,128]",
                 BlockBertEncoder, [], ("fp16",), "fp16",
                 inputs=[In((1, 16, 128), name="hidden_states"),
                         In((1, 16), "int64", "padmask:3", "attention_mask")],
                 tol_kind="block", notes=BERT_NOTES, dir_name="block_bert_encoder"))
    add(ZooEntry("model_llama_tiny",
                 "tiny Llama: embedding (vocab 256) + 2 decoder layers (hidden 64, 4 heads, 2 KV heads, "
                 "head_dim 16, SwiGLU 128) + RMSNorm + lm_head; input_ids [1,16]",
                 lambda: LlamaTiny(LlamaConfig(hidden_size=64, intermediate_size=128)),
                 [], ("fp16",), "fp16",
                 inputs=[In((1, 16), "int64", "int:0:256", "input_ids")], tol_kind="block",
                 notes=LLAMA_NOTES, dir_name="model_llama_tiny",
                 reference_note="SDPA via keep_ops.sdpa_math_ref (torch 1.13 has no SDPA)"))
    add(ZooEntry("model_bert_tiny",
                 "tiny BERT: embeddings (word 256, position 64, token type 2) + 2 encoder "
                 "layers (hidden 64, 4 heads, GELU 128); input_ids [1,16], attention_mask [1,16] "
                 "(last 3 padded)",
                 lambda: BertTiny(BertConfig(hidden_size=64, intermediate_size=128)),
                 [], ("fp16",), "fp16",
                 inputs=[In((1, 16), "int64", "int:1:256", "input_ids"),
                         In((1, 16), "int64", "padmask:3", "attention_mask")],
                 tol_kind="block", notes=BERT_NOTES, dir_name="model_bert_tiny"))
    # Mistral / Granite-3 / gpt-oss decoder layers (below: appended so that the
    # stack_trace line numbers of the blocks above stay as committed)
    register_decoder_zoo(add, ZooEntry, In)


# ----------------------------------------------------------------------------
# Mistral, Granite-3, gpt-oss decoder layers
# ----------------------------------------------------------------------------
#
# After transformers' modeling_mistral.py, modeling_granite.py and
# modeling_gpt_oss.py, with the masks of masking_utils.py:
#
# * Mistral: LlamaDecoderLayer's structure with the eager attention path
#   (``eager_attention_forward``: ``repeat_kv`` = ``[:, :, None]`` + expand +
#   reshape, ``matmul(q, k^T) * scaling + mask``, fp32 softmax, dropout,
#   ``matmul(p, v)``) and the additive sliding-window causal mask that
#   ``create_sliding_window_causal_mask`` builds for eager attention
#   (``eager_mask`` -> ``sdpa_mask(use_vmap=False)``: aranges broadcast by
#   ``_non_vmap_expansion_sdpa``, ``and_masks(sliding_window_overlay,
#   causal_mask_function)``, expand, ``torch.where(mask, tensor(0.0),
#   finfo(dtype).min)``).
# * Granite (3.x): Llama with the scalar multipliers: ``embedding_multiplier``
#   on the input embeddings (GraniteModel), ``attention_multiplier`` as the
#   attention scale (GraniteAttention.scaling), ``residual_multiplier`` on
#   each branch before the residual add (GraniteDecoderLayer); SDPA path as
#   block_llama_decoder.
# * gpt-oss: GptOssRMSNorm (``(weight * x).to(dtype)``, weights kept in fp32
#   as ``_keep_in_fp32_modules`` does under from_pretrained(torch_dtype=fp16)),
#   YaRN rotary table without the cat (``emb = freqs``, cos/sin of head_dim/2,
#   scaled by the YaRN attention factor), ``_apply_rotary_emb`` with
#   ``torch.chunk``, q/k/v/o projections with bias, eager attention with
#   sinks (a learned per-head logit concatenated to the scores, max
#   subtracted, softmax, sink column dropped), causal mask from
#   ``create_causal_mask`` (eager), and the MoE MLP of GptOssTopKRouter
#   (linear -> topk -> softmax of the top-k logits -> ``zeros_like.scatter_``)
#   plus GptOssExperts' inference branch (every token through every expert:
#   ``repeat`` + ``bmm``, interleaved gate/up ``[..., ::2]`` / ``[..., 1::2]``,
#   clamped SwiGLU, ``bmm``, weighted by the scattered routing weights and
#   summed over experts).


class MistralConfig(LlamaConfig):
    def __init__(self, head_dim=None, sliding_window=8, **kw):
        super().__init__(**kw)
        if head_dim is not None:
            self.head_dim = head_dim
        self.sliding_window = sliding_window


class GraniteConfig(LlamaConfig):
    def __init__(self, embedding_multiplier=12.0, attention_multiplier=None,
                 residual_multiplier=0.22, **kw):
        super().__init__(**kw)
        self.embedding_multiplier = embedding_multiplier
        # Granite-3 checkpoints set attention_multiplier = 1 / head_dim
        # (0.015625 for head_dim 64, 0.0078125 for 128), not head_dim ** -0.5
        self.attention_multiplier = attention_multiplier if attention_multiplier is not None \
            else 1.0 / self.head_dim
        self.residual_multiplier = residual_multiplier


class GptOssConfig(LlamaConfig):
    def __init__(self, head_dim=64, num_local_experts=4, num_experts_per_tok=2,
                 attention_bias=True, rope_scaling=None, swiglu_limit=7.0, **kw):
        super().__init__(**kw)
        self.head_dim = head_dim
        self.num_local_experts = num_local_experts
        self.num_experts_per_tok = num_experts_per_tok
        self.attention_bias = attention_bias
        self.swiglu_limit = swiglu_limit
        # gpt-oss's config.json: YaRN, factor 32 over 4096 original positions
        self.rope_scaling = rope_scaling or {
            "rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0, "beta_slow": 1.0,
            "original_max_position_embeddings": 4096, "truncate": False}


# -------------------------------------------------- masks (masking_utils.py)


def and_masks(*mask_functions):
    def and_mask(batch_idx, head_idx, q_idx, kv_idx):
        result = q_idx.new_ones((), dtype=torch.bool)
        for mask in mask_functions:
            # result & mask(...): aten.__and__.Tensor in torch 2.9 (keep_ops shim)
            result = keep_ops.tensor_and(
                result, mask(batch_idx, head_idx, q_idx, kv_idx).to(result.device))
        return result
    return and_mask


def causal_mask_function(batch_idx, head_idx, q_idx, kv_idx):
    return kv_idx <= q_idx


def sliding_window_overlay(sliding_window):
    def inner_mask(batch_idx, head_idx, q_idx, kv_idx):
        return kv_idx > q_idx - sliding_window
    return inner_mask


def sliding_window_causal_mask_function(sliding_window):
    return and_masks(sliding_window_overlay(sliding_window), causal_mask_function)


def _non_vmap_expansion_sdpa(batch_indices, head_indices, q_indices, kv_indices):
    batch_indices = batch_indices[:, None, None, None]
    head_indices = head_indices[None, :, None, None]
    q_indices = q_indices[None, None, :, None]
    kv_indices = kv_indices[None, None, None, :]
    return batch_indices, head_indices, q_indices, kv_indices


def eager_mask(batch_size, q_length, kv_length, q_offset=0, kv_offset=0,
               mask_function=causal_mask_function, dtype=torch.float32, device="cpu"):
    """masking_utils.eager_mask: sdpa_mask(allow_is_causal_skip=False,
    use_vmap=False) (no 2D padding mask), then bool -> 0 / finfo(dtype).min."""
    batch_arange = torch.arange(batch_size, device=device)
    head_arange = torch.arange(1, device=device)
    q_arange = torch.arange(q_length, device=device) + q_offset
    kv_arange = torch.arange(kv_length, device=device) + kv_offset
    mask = mask_function(*_non_vmap_expansion_sdpa(batch_arange, head_arange, q_arange, kv_arange))
    mask = mask.expand(batch_size, -1, q_length, kv_length)
    min_dtype = torch.finfo(dtype).min
    mask = torch.where(mask, torch.tensor(0.0, device=mask.device, dtype=dtype), min_dtype)
    return mask


def _mask_sizes(inputs_embeds):
    # _preprocess_mask_arguments without a cache and without a 2D mask
    q_length = inputs_embeds.shape[1]
    return inputs_embeds.shape[0], q_length, q_length, 0, 0


def create_causal_mask(inputs_embeds):
    batch_size, q_length, kv_length, q_offset, kv_offset = _mask_sizes(inputs_embeds)
    return eager_mask(batch_size, q_length, kv_length, q_offset, kv_offset,
                      mask_function=causal_mask_function, dtype=inputs_embeds.dtype,
                      device=inputs_embeds.device)


def create_sliding_window_causal_mask(sliding_window, inputs_embeds):
    batch_size, q_length, kv_length, q_offset, kv_offset = _mask_sizes(inputs_embeds)
    return eager_mask(batch_size, q_length, kv_length, q_offset, kv_offset,
                      mask_function=sliding_window_causal_mask_function(sliding_window),
                      dtype=inputs_embeds.dtype, device=inputs_embeds.device)


# ------------------------------------------------------------ eager attention


def repeat_kv(hidden_states, n_rep):
    batch, num_key_value_heads, slen, head_dim = hidden_states.shape
    if n_rep == 1:
        return hidden_states
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, num_key_value_heads, n_rep,
                                                           slen, head_dim)
    return hidden_states.reshape(batch, num_key_value_heads * n_rep, slen, head_dim)


def eager_attention_forward(module, query, key, value, attention_mask, scaling, dropout=0.0,
                            **kwargs):
    key_states = repeat_kv(key, module.num_key_value_groups)
    value_states = repeat_kv(value, module.num_key_value_groups)
    attn_weights = torch.matmul(query, key_states.transpose(2, 3)) * scaling
    if attention_mask is not None:
        causal_mask = attention_mask[:, :, :, : key_states.shape[-2]]
        attn_weights = attn_weights + causal_mask
    attn_weights = F.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query.dtype)
    attn_weights = F.dropout(attn_weights, p=dropout, training=module.training)
    attn_output = torch.matmul(attn_weights, value_states)
    attn_output = attn_output.transpose(1, 2).contiguous()
    return attn_output, attn_weights


# -------------------------------------------------------------------- Mistral


class MistralRMSNorm(LlamaRMSNorm):
    pass


class MistralRotaryEmbedding(LlamaRotaryEmbedding):
    pass


class MistralMLP(LlamaMLP):
    pass


class MistralAttention(LlamaAttention):
    def __init__(self, config):
        super().__init__(config)
        self.sliding_window = config.sliding_window

    def forward(self, hidden_states, position_embeddings, attention_mask):
        input_shape = hidden_states.shape[:-1]
        hidden_shape = (*input_shape, -1, self.head_dim)
        query_states = self.q_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        key_states = self.k_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        value_states = self.v_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        cos, sin = position_embeddings
        query_states, key_states = apply_rotary_pos_emb(query_states, key_states, cos, sin)
        attn_output, attn_weights = eager_attention_forward(
            self, query_states, key_states, value_states, attention_mask,
            dropout=0.0 if not self.training else self.attention_dropout,
            scaling=self.scaling, sliding_window=self.sliding_window)
        attn_output = attn_output.reshape(*input_shape, -1).contiguous()
        attn_output = self.o_proj(attn_output)
        return attn_output, attn_weights


class MistralDecoderLayer(LlamaDecoderLayer):
    """LlamaDecoderLayer.forward with the Mistral modules."""

    def __init__(self, config):
        nn.Module.__init__(self)
        self.self_attn = MistralAttention(config)
        self.mlp = MistralMLP(config)
        self.input_layernorm = MistralRMSNorm(config.hidden_size, eps=config.rms_norm_eps)
        self.post_attention_layernorm = MistralRMSNorm(config.hidden_size, eps=config.rms_norm_eps)


class BlockMistralDecoder(nn.Module):
    """One MistralDecoderLayer plus what MistralModel.forward does around it:
    positions from arange, the sliding-window mask for eager attention, the
    rotary table."""

    def __init__(self, config=None):
        super().__init__()
        config = config or MistralConfig()
        self.sliding_window = config.sliding_window
        self.rotary_emb = MistralRotaryEmbedding(config)
        self.layer = MistralDecoderLayer(config)

    def post_dtype_fixup(self):
        self.rotary_emb.post_dtype_fixup()

    def forward(self, hidden_states):
        inputs_embeds = hidden_states
        cache_position = torch.arange(0, inputs_embeds.shape[1], device=inputs_embeds.device)
        position_ids = cache_position.unsqueeze(0)
        causal_mask = create_sliding_window_causal_mask(self.sliding_window, inputs_embeds)
        position_embeddings = self.rotary_emb(hidden_states, position_ids)
        return self.layer(hidden_states, attention_mask=causal_mask,
                          position_embeddings=position_embeddings)


# -------------------------------------------------------------------- Granite


class GraniteRMSNorm(LlamaRMSNorm):
    pass


class GraniteRotaryEmbedding(LlamaRotaryEmbedding):
    pass


class GraniteMLP(LlamaMLP):
    pass


class GraniteAttention(LlamaAttention):
    """LlamaAttention (SDPA path) with scaling = config.attention_multiplier."""

    def __init__(self, config):
        super().__init__(config)
        self.scaling = config.attention_multiplier


class GraniteDecoderLayer(LlamaDecoderLayer):
    def __init__(self, config):
        nn.Module.__init__(self)
        self.residual_multiplier = config.residual_multiplier
        self.self_attn = GraniteAttention(config)
        self.mlp = GraniteMLP(config)
        self.input_layernorm = GraniteRMSNorm(config.hidden_size, eps=config.rms_norm_eps)
        self.post_attention_layernorm = GraniteRMSNorm(config.hidden_size, eps=config.rms_norm_eps)

    def forward(self, hidden_states, attention_mask=None, position_embeddings=None):
        residual = hidden_states
        hidden_states = self.input_layernorm(hidden_states)
        hidden_states, _ = self.self_attn(hidden_states=hidden_states,
                                          position_embeddings=position_embeddings,
                                          attention_mask=attention_mask)
        hidden_states = residual + hidden_states * self.residual_multiplier
        residual = hidden_states
        hidden_states = self.post_attention_layernorm(hidden_states)
        hidden_states = self.mlp(hidden_states)
        hidden_states = residual + hidden_states * self.residual_multiplier
        return hidden_states


class BlockGraniteDecoder(nn.Module):
    """One GraniteDecoderLayer plus what GraniteModel.forward does around it:
    inputs_embeds * embedding_multiplier, positions from arange, the rotary
    table (SDPA path: no mask, is_causal)."""

    def __init__(self, config=None):
        super().__init__()
        config = config or GraniteConfig()
        self.embedding_multiplier = config.embedding_multiplier
        self.rotary_emb = GraniteRotaryEmbedding(config)
        self.layer = GraniteDecoderLayer(config)
        # With nn.Linear's init the branches, times residual_multiplier, are ~2%
        # of the residual stream and a wrong attention scale hides inside the
        # block tolerance: q/k x2 (scores the scale visibly changes), o/down x4.
        attn, mlp = self.layer.self_attn, self.layer.mlp
        with torch.no_grad():
            for lin, f in ((attn.q_proj, 2.0), (attn.k_proj, 2.0), (attn.o_proj, 4.0),
                           (mlp.down_proj, 4.0)):
                lin.weight.mul_(f)

    def post_dtype_fixup(self):
        self.rotary_emb.post_dtype_fixup()

    def forward(self, inputs_embeds):
        inputs_embeds = inputs_embeds * self.embedding_multiplier
        cache_position = torch.arange(0, inputs_embeds.shape[1], device=inputs_embeds.device)
        position_ids = cache_position.unsqueeze(0)
        hidden_states = inputs_embeds
        position_embeddings = self.rotary_emb(hidden_states, position_ids)
        return self.layer(hidden_states, attention_mask=None,
                          position_embeddings=position_embeddings)


# -------------------------------------------------------------------- gpt-oss


class GptOssRMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps
        _perturb_norm_weight(self.weight)

    def forward(self, hidden_states):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return (self.weight * hidden_states).to(input_dtype)


def compute_yarn_parameters(config):
    """modeling_rope_utils._compute_yarn_parameters: inv_freq and the
    attention factor (0.1 * ln(factor) + 1)."""
    base = config.rope_theta
    dim = config.head_dim
    rs = config.rope_scaling
    factor = rs["factor"]
    original_max_position_embeddings = rs["original_max_position_embeddings"]

    def get_mscale(scale, mscale=1):
        return 1.0 if scale <= 1 else 0.1 * mscale * math.log(scale) + 1.0

    attention_factor = get_mscale(factor)
    beta_fast, beta_slow = rs["beta_fast"], rs["beta_slow"]

    def find_correction_dim(num_rotations):
        return (dim * math.log(original_max_position_embeddings / (num_rotations * 2 * math.pi))) \
            / (2 * math.log(base))

    low, high = find_correction_dim(beta_fast), find_correction_dim(beta_slow)
    if rs.get("truncate", True):
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001
    ramp = torch.clamp((torch.arange(dim // 2, dtype=torch.float32) - low) / (high - low), 0, 1)
    pos_freqs = base ** (torch.arange(0, dim, 2).to(dtype=torch.float) / dim)
    inv_freq_extrapolation = 1.0 / pos_freqs
    inv_freq_interpolation = 1.0 / (factor * pos_freqs)
    extrapolation_factor = 1 - ramp
    inv_freq = inv_freq_interpolation * (1 - extrapolation_factor) + \
        inv_freq_extrapolation * extrapolation_factor
    return inv_freq, attention_factor


class GptOssRotaryEmbedding(nn.Module):
    def __init__(self, config):
        super().__init__()
        inv_freq, self.attention_scaling = compute_yarn_parameters(config)
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def post_dtype_fixup(self):
        self.inv_freq = self.inv_freq.float()

    def forward(self, x, position_ids):
        inv_freq_expanded = self.inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1).to(x.device)
        position_ids_expanded = position_ids[:, None, :].float()
        # (transformers: inside torch.autocast(device_type, enabled=False))
        freqs = (inv_freq_expanded.float() @ position_ids_expanded.float()).transpose(1, 2)
        emb = freqs
        cos = emb.cos() * self.attention_scaling
        sin = emb.sin() * self.attention_scaling
        return cos.to(x.dtype), sin.to(x.dtype)


def _apply_rotary_emb(x, cos, sin):
    first_half, second_half = torch.chunk(x, 2, dim=-1)
    first_ = first_half * cos - second_half * sin
    second_ = second_half * cos + first_half * sin
    return torch.cat((first_, second_), dim=-1)


def gptoss_apply_rotary_pos_emb(q, k, cos, sin, unsqueeze_dim=1):
    cos = cos.unsqueeze(unsqueeze_dim)
    sin = sin.unsqueeze(unsqueeze_dim)
    q_embed = _apply_rotary_emb(q, cos, sin)
    k_embed = _apply_rotary_emb(k, cos, sin)
    return q_embed, k_embed


def gptoss_eager_attention_forward(module, query, key, value, attention_mask, scaling,
                                   dropout=0.0, **kwargs):
    key_states = repeat_kv(key, module.num_key_value_groups)
    value_states = repeat_kv(value, module.num_key_value_groups)
    attn_weights = torch.matmul(query, key_states.transpose(2, 3)) * scaling
    if attention_mask is not None:
        causal_mask = attention_mask[:, :, :, : key_states.shape[-2]]
        attn_weights = attn_weights + causal_mask
    sinks = module.sinks.reshape(1, -1, 1, 1).expand(query.shape[0], -1, query.shape[-2], -1)
    combined_logits = torch.cat([attn_weights, sinks], dim=-1)
    combined_logits = combined_logits - combined_logits.max(dim=-1, keepdim=True).values
    probs = F.softmax(combined_logits, dim=-1, dtype=combined_logits.dtype)
    scores = probs[..., :-1]  # the sink column is dropped
    attn_weights = F.dropout(scores, p=dropout, training=module.training)
    attn_output = torch.matmul(attn_weights, value_states)
    attn_output = attn_output.transpose(1, 2).contiguous()
    return attn_output, attn_weights


class GptOssAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.head_dim = config.head_dim
        self.num_key_value_groups = config.num_attention_heads // config.num_key_value_heads
        self.scaling = self.head_dim ** -0.5
        self.attention_dropout = 0.0
        self.is_causal = True
        h, b = config.hidden_size, config.attention_bias
        self.q_proj = nn.Linear(h, config.num_attention_heads * self.head_dim, bias=b)
        self.k_proj = nn.Linear(h, config.num_key_value_heads * self.head_dim, bias=b)
        self.v_proj = nn.Linear(h, config.num_key_value_heads * self.head_dim, bias=b)
        self.o_proj = nn.Linear(config.num_attention_heads * self.head_dim, h, bias=b)
        self.sliding_window = None  # a "full_attention" layer
        self.sinks = nn.Parameter(torch.randn(config.num_attention_heads))

    def forward(self, hidden_states, position_embeddings, attention_mask):
        input_shape = hidden_states.shape[:-1]
        hidden_shape = (*input_shape, -1, self.head_dim)
        query_states = self.q_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        key_states = self.k_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        value_states = self.v_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        cos, sin = position_embeddings
        query_states, key_states = gptoss_apply_rotary_pos_emb(query_states, key_states, cos, sin)
        attn_output, attn_weights = gptoss_eager_attention_forward(
            self, query_states, key_states, value_states, attention_mask,
            dropout=0.0 if not self.training else self.attention_dropout,
            scaling=self.scaling, sliding_window=self.sliding_window, s_aux=self.sinks)
        attn_output = attn_output.reshape(*input_shape, -1).contiguous()
        attn_output = self.o_proj(attn_output)
        return attn_output, attn_weights


class GptOssTopKRouter(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.top_k = config.num_experts_per_tok
        self.num_experts = config.num_local_experts
        self.hidden_dim = config.hidden_size
        # logits of std ~2 (transformers' init, std 0.02, gives ~0.2). With
        # the fixture's inputs the 2nd and 3rd largest logits of every token
        # differ by >= 0.06, 25x what rounding every value to fp16 changes
        # them by (reference_interpreter.py): the top-2 choice is not a tie.
        self.weight = nn.Parameter(2.0 * torch.randn(self.num_experts, self.hidden_dim)
                                   / math.sqrt(self.hidden_dim))
        self.bias = nn.Parameter(0.1 * torch.randn(self.num_experts))

    def forward(self, hidden_states):
        hidden_states = hidden_states.reshape(-1, self.hidden_dim)
        router_logits = F.linear(hidden_states, self.weight, self.bias)  # (seq_len, num_experts)
        router_top_value, router_indices = torch.topk(router_logits, self.top_k, dim=-1)
        router_top_value = F.softmax(router_top_value, dim=1, dtype=router_top_value.dtype)
        router_scores = torch.zeros_like(router_logits).scatter_(1, router_indices, router_top_value)
        return router_scores, router_indices


class GptOssExperts(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.intermediate_size = config.intermediate_size
        self.num_experts = config.num_local_experts
        self.hidden_size = config.hidden_size
        self.expert_dim = self.intermediate_size
        e, h, i = self.num_experts, self.hidden_size, self.expert_dim
        # gate/up of std ~3, so that the clamps at +-limit cut a few percent
        self.gate_up_proj = nn.Parameter(3.0 * torch.randn(e, h, 2 * i) / math.sqrt(h))
        self.gate_up_proj_bias = nn.Parameter(0.1 * torch.randn(e, 2 * i))
        self.down_proj = nn.Parameter(0.2 * torch.randn(e, i, h) / math.sqrt(i))
        self.down_proj_bias = nn.Parameter(0.1 * torch.randn(e, h))
        self.alpha = 1.702
        self.limit = config.swiglu_limit

    def forward(self, hidden_states, router_indices=None, routing_weights=None):
        # the inference branch of GptOssExperts.forward (not self.training)
        batch_size = hidden_states.shape[0]
        hidden_states = hidden_states.reshape(-1, self.hidden_size)  # (num_tokens, hidden_size)
        num_experts = routing_weights.shape[1]
        hidden_states = hidden_states.repeat(num_experts, 1)
        hidden_states = hidden_states.view(num_experts, -1, self.hidden_size)
        gate_up = torch.bmm(hidden_states, self.gate_up_proj) + self.gate_up_proj_bias[..., None, :]
        gate, up = gate_up[..., ::2], gate_up[..., 1::2]
        gate = gate.clamp(min=None, max=self.limit)
        up = up.clamp(min=-self.limit, max=self.limit)
        glu = gate * torch.sigmoid(gate * self.alpha)
        next_states = torch.bmm(((up + 1) * glu), self.down_proj)
        next_states = next_states + self.down_proj_bias[..., None, :]
        next_states = next_states.view(num_experts, batch_size, -1, self.hidden_size)
        next_states = next_states * routing_weights.transpose(0, 1).view(num_experts, batch_size, -1)[..., None]
        next_states = next_states.sum(dim=0)
        return next_states


class GptOssMLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.router = GptOssTopKRouter(config)
        self.experts = GptOssExperts(config)

    def forward(self, hidden_states):
        router_scores, router_indices = self.router(hidden_states)
        routed_out = self.experts(hidden_states, router_indices=router_indices,
                                  routing_weights=router_scores)
        return routed_out, router_scores


class GptOssDecoderLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.self_attn = GptOssAttention(config)
        self.mlp = GptOssMLP(config)
        self.input_layernorm = GptOssRMSNorm(config.hidden_size, eps=config.rms_norm_eps)
        self.post_attention_layernorm = GptOssRMSNorm(config.hidden_size, eps=config.rms_norm_eps)

    def keep_norms_in_fp32(self):
        # PreTrainedModel._keep_in_fp32_modules = ["post_attention_layernorm",
        # "input_layernorm", "norm"]
        self.input_layernorm.float()
        self.post_attention_layernorm.float()

    def forward(self, hidden_states, attention_mask=None, position_embeddings=None):
        residual = hidden_states
        hidden_states = self.input_layernorm(hidden_states)
        hidden_states, _ = self.self_attn(hidden_states=hidden_states,
                                          position_embeddings=position_embeddings,
                                          attention_mask=attention_mask)
        hidden_states = residual + hidden_states
        residual = hidden_states
        hidden_states = self.post_attention_layernorm(hidden_states)
        hidden_states, _ = self.mlp(hidden_states)  # (router scores dropped)
        hidden_states = residual + hidden_states
        return hidden_states


class BlockGptOssDecoder(nn.Module):
    """One gpt-oss decoder layer (a "full_attention" one) plus what
    GptOssModel.forward does around it: positions from arange, the causal
    mask for eager attention, the YaRN rotary table."""

    def __init__(self, config=None):
        super().__init__()
        config = config or GptOssConfig()
        self.rotary_emb = GptOssRotaryEmbedding(config)
        self.layer = GptOssDecoderLayer(config)

    def post_dtype_fixup(self):
        self.rotary_emb.post_dtype_fixup()
        self.layer.keep_norms_in_fp32()

    def forward(self, hidden_states):
        inputs_embeds = hidden_states
        cache_position = torch.arange(0, inputs_embeds.shape[1], device=inputs_embeds.device)
        position_ids = cache_position.unsqueeze(0)
        causal_mask = create_causal_mask(inputs_embeds)
        position_embeddings = self.rotary_emb(hidden_states, position_ids)
        return self.layer(hidden_states, attention_mask=causal_mask,
                          position_embeddings=position_embeddings)


MISTRAL_NOTES = (
    "Written after transformers' MistralDecoderLayer / MistralModel (eager attention path) and "
    "masking_utils.create_sliding_window_causal_mask -> eager_mask -> sdpa_mask(use_vmap=False): "
    "the additive [B,1,L,L] mask (0 / finfo(fp16).min) is built in the graph from aranges, "
    "kv_idx > q_idx - sliding_window & kv_idx <= q_idx. Differences from a real transformers "
    "export: the RoPE table is computed without the torch.autocast(enabled=False) context "
    "(torch 2.9 would wrap those ops in a torch.ops.higher_order.wrap_with_autocast subgraph); "
    "no KV cache and the mask built without position_ids (with use_cache=False and "
    "position_ids, transformers under torch.export also ands a packed-sequence mask into it: "
    "find_packed_sequence_indices' diff, cumsum, indexing; with its default DynamicCache the "
    "mask sizes come from the cache, the same mask, and the cache update adds cat nodes); "
    "`a & b` is recorded as aten.__and__.Tensor through keep_ops.tensor_and (torch 1.13's "
    "make_fx would record bitwise_and.Tensor). The attention_mask[..., :kv_len] slice of "
    "eager_attention_forward covers the whole mask and records no node. nn.functional.dropout "
    "in eval mode appears as aten.dropout.default(x, 0.0, False)."
)
GRANITE_NOTES = (
    "Written after transformers' GraniteDecoderLayer / GraniteModel (sdpa attention path): "
    "Llama plus inputs_embeds * embedding_multiplier (12.0), attention scale = "
    "attention_multiplier (1/head_dim = 0.03125, as Granite-3 checkpoints set it, instead of "
    "head_dim**-0.5), each residual branch * residual_multiplier (0.22) before the add; the "
    "input is drawn at 1/12 of a normal so that the scaled embeddings are of unit size, and "
    "the q/k (x2) and o/down (x4) projection weights are scaled up so that the multiplied "
    "branches are ~10% of the residual stream (with 1/sqrt(head_dim) as the scale about half "
    "the outputs leave the tolerance). "
) + LLAMA_NOTES.split(". ", 1)[1]
GPTOSS_NOTES = (
    "Written after transformers' GptOssDecoderLayer / GptOssModel (eager attention path; a "
    "'full_attention' layer, causal mask from masking_utils.create_causal_mask -> eager_mask, "
    "built in the graph) and the inference branch of GptOssExperts: MoE dispatch in the dense "
    "form transformers uses in eval mode (every token through all 4 experts with repeat + bmm, "
    "the top-2 softmax weights scattered into a [tokens, experts] matrix by zeros_like.scatter_, "
    "experts weighted by it and summed), not a gather of the chosen experts. Attention sinks: "
    "cat([scores, sinks.expand]), minus the row max, fp16 softmax, [..., :-1]. "
    "Norm weights are fp32 (_keep_in_fp32_modules) in an otherwise fp16 model; RoPE is YaRN "
    "(factor 32, beta_fast 32, beta_slow 1, 4096 original positions, truncate False, "
    "rope_theta 150000: attention factor 1.3466 on cos/sin, which have head_dim/2 = 32 columns). "
    "Router and expert weights are drawn larger than transformers' init (std 0.02): router "
    "logits of std ~2, whose 2nd and 3rd largest differ by >= 0.06 on every token (25x their "
    "change when every value is rounded to fp16, so the top-2 choice is stable), gate/up of std "
    "~3 so that the +-7 clamps cut about 1% of the values on each side. "
    "Differences from a real transformers export: the RoPE table is computed without the "
    "torch.autocast(enabled=False) context; GptOssModel builds both the full and the "
    "sliding-window mask for its alternating layers, the block only the one its layer uses; no "
    "KV cache; dropout in eval mode appears as aten.dropout.default(x, 0.0, False)."
)


def register_decoder_zoo(add, ZooEntry, In):
    add(ZooEntry("block_mistral_decoder",
                 "Mistral decoder layer: RMSNorm, RoPE (theta 1e6), eager GQA attention (8 "
                 "heads, 2 KV heads, repeat_kv expand + reshape, head_dim 32: q/o width 256 != "
                 "hidden 128), additive sliding-window causal mask (window 8 < seq 24) built in "
                 "the graph, fp32 softmax, SwiGLU MLP 128->256; hidden [1,24,128]",
                 lambda: BlockMistralDecoder(MistralConfig(
                     num_attention_heads=8, num_key_value_heads=2, head_dim=32,
                     rms_norm_eps=1e-5, rope_theta=1000000.0, sliding_window=8)),
                 [], ("fp16",), "fp16",
                 inputs=[In((1, 24, 128), name="hidden_states")], tol_kind="block",
                 notes=MISTRAL_NOTES, dir_name="block_mistral_decoder"))
    add(ZooEntry("block_granite_decoder",
                 "Granite-3 decoder layer: inputs_embeds * 12.0, RMSNorm, RoPE, GQA SDPA (4 heads, "
                 "2 KV heads, head_dim 32, causal, scale = attention_multiplier 1/32), residual "
                 "branches * 0.22, SwiGLU MLP 128->256; inputs_embeds [1,32,128]",
                 lambda: BlockGraniteDecoder(GraniteConfig()),
                 [], ("fp16",), "fp16",
                 inputs=[In((1, 32, 128), name="inputs_embeds")], input_scale=1.0 / 12.0,
                 tol_kind="block", notes=GRANITE_NOTES, dir_name="block_granite_decoder",
                 reference_note="SDPA via keep_ops.sdpa_math_ref (torch 1.13 has no SDPA)"))
    add(ZooEntry("block_gptoss_decoder",
                 "gpt-oss decoder layer: fp32-weight RMSNorm, YaRN RoPE (chunk halves), q/k/v/o "
                 "with bias, eager GQA attention (4 heads, 2 KV heads, head_dim 64) with per-head "
                 "sinks and an in-graph causal mask, MoE MLP: router linear -> topk 2 of 4 -> "
                 "softmax -> scatter, dense experts (repeat + bmm, clamped SwiGLU alpha 1.702 "
                 "limit 7, intermediate 64) weighted and summed; hidden [1,20,128]",
                 lambda: BlockGptOssDecoder(GptOssConfig(
                     hidden_size=128, num_attention_heads=4, num_key_value_heads=2,
                     intermediate_size=64, rms_norm_eps=1e-5, rope_theta=150000.0,
                     max_position_embeddings=131072)),
                 [], ("fp16",), "fp16",
                 inputs=[In((1, 20, 128), name="hidden_states")], tol_kind="block",
                 notes=GPTOSS_NOTES, dir_name="block_gptoss_decoder"))
