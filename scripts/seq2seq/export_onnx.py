"""torch.onnx exports of a transformers T5ForConditionalGeneration with optimum's file names, input and output
names and dynamic axes (optimum itself does not install here). Three layouts, as `optimum-cli export onnx` writes
them:

  nopast   encoder_model.onnx   input_ids, attention_mask -> last_hidden_state
           decoder_model.onnx   encoder_attention_mask, input_ids, encoder_hidden_states -> logits
           (task text2text-generation)
  past     encoder_model.onnx   as above
           decoder_model.onnx   as above -> logits, present.{i}.decoder.key/value, present.{i}.encoder.key/value
           decoder_with_past_model.onnx
                                encoder_attention_mask, input_ids [batch, 1], past_key_values.{i}.decoder.key/value,
                                past_key_values.{i}.encoder.key/value -> logits, present.{i}.decoder.key/value
           (task text2text-generation-with-past, --no-post-process)
  merged   encoder_model.onnx   as above
           decoder_model_merged.onnx
                                every input of both decoders and use_cache_branch (bool [1]): an If node runs the
                                with-past decoder when it is true, else the first decoder; the with-past branch
                                answers each present.{i}.encoder.* with an empty constant of shape [0, heads, 1,
                                head dim], as optimum's merge_decoders does; identical weights are stored once
           (task text2text-generation-with-past, the default post-processing)

transformers 5 takes its KV cache as an EncoderDecoderCache, so the flat past tensors are loaded into one whose
cross-attention layers are marked as computed (the decoder then reads them instead of projecting encoder states).
One new token after its past attends to every position, so the with-past decoder is traced without a causal mask:
transformers' mask builder, traced, fixes the past length of the example inputs into the graph.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import onnx
import torch
from onnx import helper, numpy_helper

OPSET = 17


def _present_from(cache) -> list:
    presents = []
    for self_layer, cross_layer in zip(cache.self_attention_cache.layers, cache.cross_attention_cache.layers):
        presents += [self_layer.keys, self_layer.values, cross_layer.keys, cross_layer.values]
    return presents


class Encoder(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.encoder = model.get_encoder()

    def forward(self, input_ids, attention_mask):
        return self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state


class Decoder(torch.nn.Module):
    """decoder_model.onnx: the whole decoder sequence at once; with_presents adds the KV a later step continues."""

    def __init__(self, model, with_presents: bool):
        super().__init__()
        self.model = model
        self.with_presents = with_presents

    def forward(self, encoder_attention_mask, input_ids, encoder_hidden_states):
        from transformers import DynamicCache, EncoderDecoderCache
        from transformers.modeling_outputs import BaseModelOutput

        cache = EncoderDecoderCache(DynamicCache(), DynamicCache()) if self.with_presents else None
        out = self.model(decoder_input_ids=input_ids, encoder_outputs=BaseModelOutput(last_hidden_state=encoder_hidden_states),
                         attention_mask=encoder_attention_mask, past_key_values=cache, use_cache=self.with_presents)
        if not self.with_presents:
            return out.logits
        return (out.logits, *_present_from(out.past_key_values))


class DecoderWithPast(torch.nn.Module):
    """decoder_with_past_model.onnx: one new token per row after the cached self- and cross-attention KV."""

    def __init__(self, model):
        super().__init__()
        self.model = model
        self.layers = model.config.num_decoder_layers

    def forward(self, encoder_attention_mask, input_ids, *past):
        from transformers import DynamicCache, EncoderDecoderCache
        from transformers.modeling_outputs import BaseModelOutput

        import transformers.models.t5.modeling_t5 as t5_module

        cache = EncoderDecoderCache(DynamicCache(), DynamicCache())
        for i in range(self.layers):
            cache.self_attention_cache.update(past[4 * i], past[4 * i + 1], i)
            cache.cross_attention_cache.update(past[4 * i + 2], past[4 * i + 3], i)
            cache.is_updated[i] = True
        encoder_key = past[2]
        # The cross-attention reads the cached keys; the decoder only needs encoder states of the right shape.
        states = encoder_key.new_zeros((encoder_key.shape[0], encoder_key.shape[2], self.model.config.d_model))
        causal_mask = t5_module.create_causal_mask
        t5_module.create_causal_mask = lambda **_kwargs: None
        try:
            out = self.model(decoder_input_ids=input_ids, encoder_outputs=BaseModelOutput(last_hidden_state=states),
                             attention_mask=encoder_attention_mask, past_key_values=cache, use_cache=True)
        finally:
            t5_module.create_causal_mask = causal_mask
        presents = []
        for layer in out.past_key_values.self_attention_cache.layers:
            presents += [layer.keys, layer.values]
        return (out.logits, *presents)


def past_names(layers: int, prefix: str, parts: tuple[str, ...] = ('decoder', 'encoder')) -> list[str]:
    return [f'{prefix}.{i}.{part}.{kv}' for i in range(layers) for part in parts for kv in ('key', 'value')]


def _save_clean(path: Path) -> None:
    """Drops the exporter's doc strings and intermediate value_info (shape annotations ORT infers again): half the
    bytes of a tiny model's file."""
    proto = onnx.load(str(path))
    for node in proto.graph.node:
        node.doc_string = ''
    del proto.graph.value_info[:]
    onnx.save(proto, str(path))


def export_encoder(model, path: Path) -> None:
    ids = torch.randint(3, 200, (2, 7))
    mask = torch.ones_like(ids)
    mask[1, 5:] = 0
    axes = {name: {0: 'batch_size', 1: 'encoder_sequence_length'} for name in ('input_ids', 'attention_mask', 'last_hidden_state')}
    with torch.no_grad():
        torch.onnx.export(Encoder(model).eval(), (ids, mask), str(path), dynamo=False, opset_version=OPSET,
                          input_names=['input_ids', 'attention_mask'], output_names=['last_hidden_state'], dynamic_axes=axes)
    _save_clean(path)


def export_decoder(model, path: Path, with_presents: bool) -> None:
    layers = model.config.num_decoder_layers
    ids = torch.randint(3, 200, (2, 5))
    states = torch.randn(2, 7, model.config.d_model)
    mask = torch.ones(2, 7, dtype=torch.int64)
    mask[1, 5:] = 0
    axes = {
        'encoder_attention_mask': {0: 'batch_size', 1: 'encoder_sequence_length'},
        'input_ids': {0: 'batch_size', 1: 'decoder_sequence_length'},
        'encoder_hidden_states': {0: 'batch_size', 1: 'encoder_sequence_length'},
        'logits': {0: 'batch_size', 1: 'decoder_sequence_length'},
    }
    outputs = ['logits']
    if with_presents:
        presents = past_names(layers, 'present')
        outputs += presents
        axes.update({name: {0: 'batch_size', 2: 'encoder_sequence_length_out' if '.encoder.' in name else 'decoder_sequence_length'}
                     for name in presents})
    with torch.no_grad():
        torch.onnx.export(Decoder(model, with_presents).eval(), (mask, ids, states), str(path), dynamo=False, opset_version=OPSET,
                          input_names=['encoder_attention_mask', 'input_ids', 'encoder_hidden_states'], output_names=outputs,
                          dynamic_axes=axes)
    _save_clean(path)


def export_decoder_with_past(model, path: Path) -> None:
    config = model.config
    layers, heads, head_dim = config.num_decoder_layers, config.num_heads, config.d_kv
    # A past of 3 (not 0 or 1: tracing may specialise those sizes away).
    past = []
    for _ in range(layers):
        past += [torch.randn(2, heads, 3, head_dim), torch.randn(2, heads, 3, head_dim),
                 torch.randn(2, heads, 7, head_dim), torch.randn(2, heads, 7, head_dim)]
    ids = torch.randint(3, 200, (2, 1))
    mask = torch.ones(2, 7, dtype=torch.int64)
    mask[1, 5:] = 0
    past_in = past_names(layers, 'past_key_values')
    present_out = past_names(layers, 'present', ('decoder',))
    axes = {'encoder_attention_mask': {0: 'batch_size', 1: 'encoder_sequence_length'}, 'input_ids': {0: 'batch_size'},
            'logits': {0: 'batch_size'}}
    axes.update({name: {0: 'batch_size', 2: 'encoder_sequence_length_out' if '.encoder.' in name else 'past_decoder_sequence_length'}
                 for name in past_in})
    axes.update({name: {0: 'batch_size', 2: 'past_decoder_sequence_length + 1'} for name in present_out})
    with torch.no_grad():
        torch.onnx.export(DecoderWithPast(model).eval(), (mask, ids, *past), str(path), dynamo=False, opset_version=OPSET,
                          input_names=['encoder_attention_mask', 'input_ids', *past_in], output_names=['logits', *present_out],
                          dynamic_axes=axes)
    _save_clean(path)


def _as_branch(graph: onnx.GraphProto, name: str, prefix: str, shared: dict[str, str], initializers: dict[str, onnx.TensorProto]):
    """The graph as an If branch: no inputs of its own (it reads the merged graph's), its weights moved to the outer
    graph (identical tensors of both decoders stored once), every other value renamed apart from the other branch."""
    inputs = {value.name for value in graph.input}
    outputs = {value.name for value in graph.output}
    renamed: dict[str, str] = {}
    for tensor in graph.initializer:
        key = f'{tensor.data_type}:{list(tensor.dims)}:{hashlib.sha256(numpy_helper.to_array(tensor).tobytes()).hexdigest()}'
        if key not in shared:
            shared[key] = f'{prefix}{tensor.name}'
            moved = onnx.TensorProto()
            moved.CopyFrom(tensor)
            moved.name = shared[key]
            initializers[moved.name] = moved
        renamed[tensor.name] = shared[key]

    def rename(value: str) -> str:
        if value == '' or value in inputs or value in outputs:
            return value
        return renamed.setdefault(value, f'{prefix}{value}')

    nodes = []
    for node in graph.node:
        copy = onnx.NodeProto()
        copy.CopyFrom(node)
        copy.name = f'{prefix}{node.name}'
        copy.input[:] = [rename(value) for value in node.input]
        copy.output[:] = [rename(value) for value in node.output]
        nodes.append(copy)
    return helper.make_graph(nodes, name, [], list(graph.output))


def merge_decoders(decoder_path: Path, with_past_path: Path, path: Path) -> None:
    decoder = onnx.load(str(decoder_path))
    with_past = onnx.load(str(with_past_path))
    by_name = {output.name: output for output in with_past.graph.output}
    # The with-past decoder has no encoder presents: an empty constant stands in for each, in the first decoder's order.
    extra_nodes = []
    outputs = []
    for output in decoder.graph.output:
        if output.name in by_name:
            outputs.append(by_name[output.name])
            continue
        dims = [0] + [dim.dim_value if dim.HasField('dim_value') else 1 for dim in output.type.tensor_type.shape.dim[1:]]
        empty = numpy_helper.from_array(np.zeros(dims, dtype=np.float32), name=f'{output.name}_empty')
        extra_nodes.append(helper.make_node('Constant', [], [output.name], value=empty))
        outputs.append(output)
    del with_past.graph.output[:]
    with_past.graph.output.extend(outputs)
    with_past.graph.node.extend(extra_nodes)
    shared: dict[str, str] = {}
    initializers: dict[str, onnx.TensorProto] = {}
    no_past_branch = _as_branch(decoder.graph, 'no_past', 'no_past/', shared, initializers)
    with_past_branch = _as_branch(with_past.graph, 'with_past', 'with_past/', shared, initializers)
    seen = set()
    inputs = []
    for value in [*decoder.graph.input, *with_past.graph.input]:
        if value.name not in seen:
            seen.add(value.name)
            inputs.append(value)
    use_cache = helper.make_tensor_value_info('use_cache_branch', onnx.TensorProto.BOOL, [1])
    if_node = helper.make_node('If', ['use_cache_branch'], [output.name for output in decoder.graph.output], name='merged_if',
                               then_branch=with_past_branch, else_branch=no_past_branch)
    graph = helper.make_graph([if_node], 'merged', [*inputs, use_cache], list(decoder.graph.output), list(initializers.values()))
    merged = helper.make_model(graph, opset_imports=decoder.opset_import, producer_name='mlrb-eval scripts/seq2seq')
    merged.ir_version = decoder.ir_version
    onnx.checker.check_model(merged)
    onnx.save(merged, str(path))
