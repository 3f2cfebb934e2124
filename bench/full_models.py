"""Whole models at full size for bench/pytorch_models.py: each variant a
function returning (module in eval mode, example inputs), on the CPU, in
its dtype. Built the same way on the GPU machine for capture and for the
run; the weights are random and need not agree between the two (the
artifact binds the live module's own weights at load).

Needs torchvision and transformers (the GPU machine has them), apart from
the plain_* variants (bench/plain_models.py).
"""
import torch


class LastHidden(torch.nn.Module):
    """A transformer's last hidden state alone (no cache, no pooler)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, ids):
        return self.model(input_ids=ids, use_cache=False).last_hidden_state


class EncoderHidden(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, ids):
        return self.model(input_ids=ids).last_hidden_state


def resnet18(dtype):
    import torchvision
    torch.manual_seed(21)
    model = torchvision.models.resnet18(weights=None).eval().to(dtype)
    return model, [torch.randn(1, 3, 224, 224).to(dtype)]


def gpt2(tokens, dtype):
    from transformers import GPT2Config, GPT2Model
    torch.manual_seed(22)
    config = GPT2Config(attn_pdrop=0.0, embd_pdrop=0.0, resid_pdrop=0.0)
    model = LastHidden(GPT2Model(config)).eval().to(dtype)
    return model, [torch.randint(0, config.vocab_size, (1, tokens))]


def bert(tokens, dtype):
    from transformers import BertConfig, BertModel
    torch.manual_seed(23)
    config = BertConfig(hidden_dropout_prob=0.0,
                        attention_probs_dropout_prob=0.0)
    model = EncoderHidden(BertModel(config, add_pooling_layer=False))
    return model.eval().to(dtype), [
        torch.randint(0, config.vocab_size, (1, tokens))]


def llama(tokens, dtype):
    """A Llama-style decoder: rotary embeddings, grouped-query attention
    (16 query heads over 4 key/value heads), SwiGLU, RMS norm."""
    from transformers import LlamaConfig, LlamaModel
    torch.manual_seed(24)
    config = LlamaConfig(vocab_size=32000, hidden_size=1024,
                         intermediate_size=2816, num_hidden_layers=8,
                         num_attention_heads=16, num_key_value_heads=4,
                         max_position_embeddings=2048)
    model = LastHidden(LlamaModel(config)).eval().to(dtype)
    return model, [torch.randint(0, config.vocab_size, (1, tokens))]


F32, BF16 = torch.float32, torch.bfloat16
VARIANTS = {
    "resnet18_f32": lambda: resnet18(F32),
    "resnet18_bf16": lambda: resnet18(BF16),
    "gpt2_64_f32": lambda: gpt2(64, F32),
    "gpt2_64_bf16": lambda: gpt2(64, BF16),
    "gpt2_512_f32": lambda: gpt2(512, F32),
    "gpt2_512_bf16": lambda: gpt2(512, BF16),
    "bert_128_f32": lambda: bert(128, F32),
    "llama_128_f32": lambda: llama(128, F32),
    "llama_128_bf16": lambda: llama(128, BF16),
}

# The same families in plain PyTorch (no torchvision or transformers), which
# the development machine can capture too.
from plain_models import VARIANTS as _PLAIN  # noqa: E402

VARIANTS.update(_PLAIN)
