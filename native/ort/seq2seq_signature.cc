#include "seq2seq_signature.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "../core/error.h"
#include "element_types.h"

namespace mlrb {

namespace {

// Layers above this are refused: a name like past_key_values.99999999.decoder.key must not size a table.
constexpr int kMaxLayers = 4096;

bool is_integer_type(ONNXTensorElementDataType type) {
  return type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64 || type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32;
}

[[noreturn]] void fail(const std::string& file, const std::string& why, const std::vector<TensorDescription>& inputs,
                       const std::vector<TensorDescription>& outputs) {
  throw Error("BAD_MODEL", file + ": " + why + ". The graph has inputs " + describe_tensors(inputs) + " and outputs " + describe_tensors(outputs));
}

struct KvName {
  int layer = 0;
  KvSlot slot = kSelfKey;
};

// "<prefix>.{i}.decoder.key" and its three siblings; nullopt for any other name.
std::optional<KvName> parse_kv_name(const std::string& name, const std::string& prefix) {
  if (name.rfind(prefix + ".", 0) != 0) return std::nullopt;
  const std::string rest = name.substr(prefix.size() + 1);
  const size_t dot = rest.find('.');
  if (dot == 0 || dot == std::string::npos || dot > 4) return std::nullopt;
  const std::string digits = rest.substr(0, dot);
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) return std::nullopt;
  if (digits.size() > 1 && digits[0] == '0') return std::nullopt;
  const int layer = std::stoi(digits);
  if (layer >= kMaxLayers) return std::nullopt;
  const std::string part = rest.substr(dot + 1);
  if (part == "decoder.key") return KvName{layer, kSelfKey};
  if (part == "decoder.value") return KvName{layer, kSelfValue};
  if (part == "encoder.key") return KvName{layer, kCrossKey};
  if (part == "encoder.value") return KvName{layer, kCrossValue};
  return std::nullopt;
}

void require_ids(const TensorDescription& tensor, const std::string& file, const std::vector<TensorDescription>& inputs,
                 const std::vector<TensorDescription>& outputs) {
  if (!is_integer_type(tensor.type))
    fail(file, "the input " + tensor.name + " is " + element_type_name(tensor.type) + ", expected int64 or int32", inputs, outputs);
  if (tensor.shape.size() != 2) fail(file, "the input " + tensor.name + " should be [batch, sequence]", inputs, outputs);
}

}  // namespace

bool DecoderSignature::has_presents(bool cross) const {
  if (layers == 0 || presents.size() != static_cast<size_t>(layers)) return false;
  return std::all_of(presents.begin(), presents.end(), [&](const auto& layer) {
    return !layer[kSelfKey].empty() && !layer[kSelfValue].empty() && (!cross || (!layer[kCrossKey].empty() && !layer[kCrossValue].empty()));
  });
}

EncoderSignature detect_encoder_signature(const std::vector<TensorDescription>& inputs, const std::vector<TensorDescription>& outputs,
                                          const std::string& file) {
  EncoderSignature signature;
  bool has_ids = false;
  for (const TensorDescription& input : inputs) {
    if (input.name == "input_ids") {
      require_ids(input, file, inputs, outputs);
      signature.input_ids = input;
      has_ids = true;
    } else if (input.name == "attention_mask") {
      require_ids(input, file, inputs, outputs);
      signature.attention_mask = input;
      signature.has_attention_mask = true;
    } else {
      fail(file, "the input " + input.name + " is not one an encoder is fed (input_ids, attention_mask)", inputs, outputs);
    }
  }
  if (!has_ids) fail(file, "the encoder has no input_ids input", inputs, outputs);
  const auto hidden = std::find_if(outputs.begin(), outputs.end(), [](const auto& output) { return output.name == "last_hidden_state"; });
  if (hidden == outputs.end()) fail(file, "the encoder has no last_hidden_state output", inputs, outputs);
  if (hidden->shape.size() != 3 || !is_scoring_float(hidden->type)) {
    fail(file, "the encoder output last_hidden_state should be a float [batch, sequence, hidden] tensor", inputs, outputs);
  }
  signature.hidden_output = hidden->name;
  signature.hidden_type = hidden->type;
  return signature;
}

DecoderSignature detect_decoder_signature(std::vector<TensorDescription> inputs, std::vector<TensorDescription> outputs, const std::string& file) {
  DecoderSignature signature;
  bool has_ids = false;
  int past_layers = 0;
  std::vector<std::array<bool, kKvSlots>> past_seen;
  for (const TensorDescription& input : inputs) {
    DecoderInput plan{input};
    if (input.name == "input_ids") {
      require_ids(input, file, inputs, outputs);
      has_ids = true;
    } else if (input.name == "encoder_attention_mask") {
      require_ids(input, file, inputs, outputs);
      plan.role = DecoderRole::kEncoderAttentionMask;
    } else if (input.name == "encoder_hidden_states") {
      if (input.shape.size() != 3 || !is_scoring_float(input.type)) {
        fail(file, "the input encoder_hidden_states should be a float [batch, sequence, hidden] tensor", inputs, outputs);
      }
      plan.role = DecoderRole::kEncoderHiddenStates;
      signature.has_encoder_hidden_states = true;
    } else if (input.name == "use_cache_branch") {
      if (input.type != ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL) fail(file, "the input use_cache_branch should be a bool tensor", inputs, outputs);
      plan.role = DecoderRole::kUseCacheBranch;
      signature.has_use_cache_branch = true;
    } else if (const auto kv = parse_kv_name(input.name, "past_key_values")) {
      if (input.shape.size() != 4 || !is_scoring_float(input.type)) {
        fail(file, "the past input " + input.name + " should be a float [batch, heads, sequence, head size] tensor", inputs, outputs);
      }
      plan.role = DecoderRole::kPast;
      plan.layer = kv->layer;
      plan.slot = kv->slot;
      past_layers = std::max(past_layers, kv->layer + 1);
      if (past_seen.size() < static_cast<size_t>(past_layers)) past_seen.resize(static_cast<size_t>(past_layers), {false, false, false, false});
      past_seen[static_cast<size_t>(kv->layer)][kv->slot] = true;
      signature.has_past_inputs = true;
    } else {
      fail(file, "the input " + input.name + " is not one an encoder-decoder's decoder is fed", inputs, outputs);
    }
    signature.inputs.push_back(std::move(plan));
  }
  if (!has_ids) fail(file, "the decoder has no input_ids input", inputs, outputs);
  for (size_t layer = 0; layer < past_seen.size(); ++layer) {
    if (!std::all_of(past_seen[layer].begin(), past_seen[layer].end(), [](bool seen) { return seen; })) {
      fail(file, "the past inputs of layer " + std::to_string(layer) + " are incomplete (each layer needs decoder and encoder key and value)", inputs,
           outputs);
    }
  }
  if (signature.has_use_cache_branch != signature.has_past_inputs && signature.has_use_cache_branch) {
    fail(file, "use_cache_branch is only fed to a merged decoder, which has past inputs", inputs, outputs);
  }

  const auto logits = std::find_if(outputs.begin(), outputs.end(), [](const auto& output) { return output.name == "logits"; });
  if (logits == outputs.end()) fail(file, "the decoder has no logits output", inputs, outputs);
  if (logits->shape.size() != 3 || !is_scoring_float(logits->type))
    fail(file, "the logits output should be a float [batch, sequence, vocab] tensor", inputs, outputs);
  signature.logits_output = logits->name;
  signature.logits_type = logits->type;
  signature.vocab_size = logits->shape[2];

  int present_layers = 0;
  for (const TensorDescription& output : outputs) {
    if (const auto kv = parse_kv_name(output.name, "present")) present_layers = std::max(present_layers, kv->layer + 1);
  }
  signature.layers = std::max(past_layers, present_layers);
  signature.presents.assign(static_cast<size_t>(signature.layers), {});
  for (const TensorDescription& output : outputs) {
    if (const auto kv = parse_kv_name(output.name, "present")) signature.presents[static_cast<size_t>(kv->layer)][kv->slot] = output.name;
  }
  if (past_layers > 0 && present_layers > 0 && past_layers != present_layers) {
    fail(file, "the graph has past inputs for " + std::to_string(past_layers) + " layers but present outputs for " + std::to_string(present_layers),
         inputs, outputs);
  }
  signature.graph_inputs = std::move(inputs);
  signature.graph_outputs = std::move(outputs);
  return signature;
}

}  // namespace mlrb
