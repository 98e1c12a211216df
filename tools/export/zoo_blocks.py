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
