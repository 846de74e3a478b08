// Works out how to feed a causal LM graph: which inputs carry token ids, mask, positions, token types
// or an (empty) KV cache, and which output holds the logits. Anything it cannot place is an error that
// lists what the graph has, so the user sees at once why a model is not scorable.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "element_types.h"
#include "ort_api.h"

namespace mlrb {

struct TensorDescription {
  std::string name;
  ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  std::vector<int64_t> shape;         // -1 where the dimension is symbolic or unknown
  std::vector<std::string> symbolic;  // the symbolic names, "" where a dimension is concrete
};

enum class InputRole {
  kTokenIds,
  kAttentionMask,
  kPositionIds,
  kTokenTypeIds,
  kPastKeyValue,    // optimum: past_key_values.{i}.key / .value, [batch, kv_heads, past_len, head_dim]
  kPastStacked,     // ORT GPT-2 export: past_{i}, [2, batch, heads, past_len, head_size]
  kLogitPositions,  // added by LM-head slicing: flat row * seq + position indices, [positions]
};

struct InputPlan {
  TensorDescription tensor;
  InputRole role = InputRole::kTokenIds;
  // For past inputs: the full shape with past_len = 0 (at sequence_axis) and the batch dimension at batch_axis.
  std::vector<int64_t> empty_past_shape;
  int batch_axis = 0;
  int sequence_axis = 0;
};

// Facts from config.json / genai_config.json that fill KV dimensions the graph leaves symbolic.
struct KvHints {
  int64_t num_kv_heads = -1;
  int64_t head_dim = -1;
};

struct GraphSignature {
  std::vector<InputPlan> inputs;
  std::string logits_output;
  bool logits_sliced = false;  // logits are [positions, vocab] (see graph/lm_head_slice.h)
  ONNXTensorElementDataType logits_type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  int64_t vocab_size = -1;  // -1 when the graph leaves it symbolic
  std::vector<TensorDescription> graph_inputs;
  std::vector<TensorDescription> graph_outputs;
};

// Throws mlrb::Error("BAD_MODEL") with a description of the graph when it does not fit. `sliced_logits`
// names the output an LM-head rewrite turned into [positions, vocab]; empty for an untouched graph.
[[nodiscard]] GraphSignature detect_signature(std::vector<TensorDescription> inputs, std::vector<TensorDescription> outputs, const KvHints& hints,
                                              const std::string& sliced_logits = {});

[[nodiscard]] std::string describe_tensors(const std::vector<TensorDescription>& tensors);
[[nodiscard]] const char* input_role_name(InputRole role);

}  // namespace mlrb
