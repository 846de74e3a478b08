#include "graph_signature.h"

#include <algorithm>
#include <optional>

#include "../core/error.h"
#include "../graph/lm_head_slice.h"
#include "../onnx/past_input_names.h"

namespace mlrb {

namespace {

bool is_integer_type(ONNXTensorElementDataType type) {
  return type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64 || type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32;
}

std::optional<InputRole> role_for(const TensorDescription& input) {
  const std::string& name = input.name;
  if (name == graph::kLogitPositionsInput) return InputRole::kLogitPositions;
  if (name == "input_ids") return InputRole::kTokenIds;
  if (name == "attention_mask") return InputRole::kAttentionMask;
  if (name == "position_ids") return InputRole::kPositionIds;
  if (name == "token_type_ids") return InputRole::kTokenTypeIds;
  switch (onnx::past_input_naming(name)) {
    case onnx::PastInputNaming::kKeyValue: return InputRole::kPastKeyValue;
    case onnx::PastInputNaming::kStacked: return InputRole::kPastStacked;
    case onnx::PastInputNaming::kNone: return std::nullopt;
  }
  return std::nullopt;
}

[[noreturn]] void fail(const std::string& why, const std::vector<TensorDescription>& inputs, const std::vector<TensorDescription>& outputs) {
  throw Error("BAD_MODEL", why + ". The graph has inputs " + describe_tensors(inputs) + " and outputs " + describe_tensors(outputs));
}

// Fills a symbolic KV dimension from the config hint, or fails naming the tensor and what is missing.
int64_t resolve_dimension(int64_t from_graph, int64_t hint, const char* what, const TensorDescription& tensor,
                          const std::vector<TensorDescription>& inputs, const std::vector<TensorDescription>& outputs) {
  if (from_graph > 0) return from_graph;
  if (hint > 0) return hint;
  fail("the KV input " + tensor.name + " leaves " + what + " symbolic and no config.json / genai_config.json gives it", inputs, outputs);
}

InputPlan plan_past(const TensorDescription& tensor, InputRole role, const KvHints& hints, const std::vector<TensorDescription>& inputs,
                    const std::vector<TensorDescription>& outputs) {
  InputPlan plan{tensor, role, {}, 0};
  if (!is_scoring_float(tensor.type)) fail("the KV input " + tensor.name + " is not a float tensor", inputs, outputs);
  if (role == InputRole::kPastKeyValue) {
    if (tensor.shape.size() != 4) fail("the KV input " + tensor.name + " should have rank 4", inputs, outputs);
    plan.batch_axis = 0;
    plan.sequence_axis = 2;
    plan.empty_past_shape = {1, resolve_dimension(tensor.shape[1], hints.num_kv_heads, "the head count", tensor, inputs, outputs), 0,
                             resolve_dimension(tensor.shape[3], hints.head_dim, "the head size", tensor, inputs, outputs)};
  } else {
    if (tensor.shape.size() != 5) fail("the stacked KV input " + tensor.name + " should have rank 5", inputs, outputs);
    plan.batch_axis = 1;
    plan.sequence_axis = 3;
    plan.empty_past_shape = {2, 1, resolve_dimension(tensor.shape[2], hints.num_kv_heads, "the head count", tensor, inputs, outputs), 0,
                             resolve_dimension(tensor.shape[4], hints.head_dim, "the head size", tensor, inputs, outputs)};
  }
  return plan;
}

const TensorDescription& find_logits(const std::vector<TensorDescription>& inputs, const std::vector<TensorDescription>& outputs) {
  for (const auto& output : outputs) {
    if (output.name == "logits") return output;
  }
  const TensorDescription* candidate = nullptr;
  for (const auto& output : outputs) {
    if (output.shape.size() != 3 || !is_scoring_float(output.type)) continue;
    if (candidate != nullptr) fail("no output is named logits and several rank-3 float outputs could be", inputs, outputs);
    candidate = &output;
  }
  if (candidate == nullptr) fail("no output is named logits and none is a rank-3 float tensor", inputs, outputs);
  return *candidate;
}

}  // namespace

GraphSignature detect_signature(std::vector<TensorDescription> inputs, std::vector<TensorDescription> outputs, const KvHints& hints,
                                const std::string& sliced_logits) {
  GraphSignature signature;
  bool has_token_ids = false;
  for (const auto& input : inputs) {
    const std::optional<InputRole> role = role_for(input);
    if (!role) fail("the input " + input.name + " is not one a causal LM scorer can feed", inputs, outputs);
    if (*role == InputRole::kPastKeyValue || *role == InputRole::kPastStacked) {
      signature.inputs.push_back(plan_past(input, *role, hints, inputs, outputs));
      continue;
    }
    if (*role == InputRole::kLogitPositions) {
      signature.inputs.push_back(InputPlan{input, *role, {}, 0});
      continue;
    }
    if (!is_integer_type(input.type)) {
      fail("the input " + input.name + " is " + element_type_name(input.type) + ", expected int64 or int32", inputs, outputs);
    }
    if (input.shape.size() != 2) fail("the input " + input.name + " should be [batch, sequence]", inputs, outputs);
    has_token_ids = has_token_ids || *role == InputRole::kTokenIds;
    signature.inputs.push_back(InputPlan{input, *role, {}, 0});
  }
  if (!has_token_ids) fail("the graph has no input_ids input", inputs, outputs);

  if (!sliced_logits.empty()) {
    const auto sliced = std::find_if(outputs.begin(), outputs.end(), [&](const auto& output) { return output.name == sliced_logits; });
    if (sliced == outputs.end() || sliced->shape.size() != 2 || !is_scoring_float(sliced->type)) {
      fail("the LM-head rewrite did not leave a [positions, vocab] float output " + sliced_logits, inputs, outputs);
    }
    signature.logits_output = sliced->name;
    signature.logits_type = sliced->type;
    signature.logits_sliced = true;
    signature.vocab_size = sliced->shape[1];
    signature.graph_inputs = std::move(inputs);
    signature.graph_outputs = std::move(outputs);
    return signature;
  }
  const TensorDescription& logits = find_logits(inputs, outputs);
  if (logits.shape.size() != 3) fail("the logits output " + logits.name + " should be [batch, sequence, vocab]", inputs, outputs);
  if (!is_scoring_float(logits.type)) fail("the logits output " + logits.name + " is not a float tensor", inputs, outputs);
  signature.logits_output = logits.name;
  signature.logits_type = logits.type;
  signature.vocab_size = logits.shape[2];
  signature.graph_inputs = std::move(inputs);
  signature.graph_outputs = std::move(outputs);
  return signature;
}

std::string describe_tensors(const std::vector<TensorDescription>& tensors) {
  std::string text = "[";
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& tensor = tensors[i];
    if (i > 0) text += ", ";
    text += tensor.name + ": " + element_type_name(tensor.type) + "[";
    for (size_t d = 0; d < tensor.shape.size(); ++d) {
      if (d > 0) text += ", ";
      const bool named = d < tensor.symbolic.size() && !tensor.symbolic[d].empty();
      text += tensor.shape[d] >= 0 ? std::to_string(tensor.shape[d]) : (named ? tensor.symbolic[d] : "?");
    }
    text += "]";
  }
  return text + "]";
}

const char* input_role_name(InputRole role) {
  switch (role) {
    case InputRole::kTokenIds: return "input_ids";
    case InputRole::kAttentionMask: return "attention_mask";
    case InputRole::kPositionIds: return "position_ids";
    case InputRole::kTokenTypeIds: return "token_type_ids";
    case InputRole::kPastKeyValue: return "past_key_value";
    case InputRole::kPastStacked: return "past_stacked";
    case InputRole::kLogitPositions: return "logit_positions";
  }
  return "unknown";
}

}  // namespace mlrb
