// How to feed the graphs of an encoder-decoder export (optimum's T5 layouts: encoder_model.onnx with
// decoder_model.onnx, decoder_with_past_model.onnx or decoder_model_merged.onnx). Each input is placed by its
// name, and a name outside the list below is an error that lists what the graph has: an allow-list, so a graph
// that wants something this engine does not feed is refused rather than fed zeros.
//
//   encoder  input_ids, attention_mask -> last_hidden_state [batch, encoder length, hidden]
//   decoder  input_ids, encoder_attention_mask, encoder_hidden_states, use_cache_branch (merged decoders),
//            past_key_values.{i}.decoder.key/value (self-attention), past_key_values.{i}.encoder.key/value
//            (cross-attention) -> logits [batch, decoder length, vocab], present.{i}.decoder.key/value,
//            present.{i}.encoder.key/value
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "graph_signature.h"

namespace mlrb {

struct EncoderSignature {
  TensorDescription input_ids;
  bool has_attention_mask = false;
  TensorDescription attention_mask;
  std::string hidden_output;
  ONNXTensorElementDataType hidden_type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
};

enum class DecoderRole { kInputIds, kEncoderAttentionMask, kEncoderHiddenStates, kUseCacheBranch, kPast };

// The four KV tensors of one decoder layer, in optimum's order.
enum KvSlot : size_t { kSelfKey = 0, kSelfValue = 1, kCrossKey = 2, kCrossValue = 3 };
constexpr size_t kKvSlots = 4;

struct DecoderInput {
  TensorDescription tensor;
  DecoderRole role = DecoderRole::kInputIds;
  int layer = -1;          // kPast: the layer
  KvSlot slot = kSelfKey;  // kPast: which of the layer's four tensors
};

struct DecoderSignature {
  std::vector<DecoderInput> inputs;
  std::string logits_output;
  ONNXTensorElementDataType logits_type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  int64_t vocab_size = -1;  // -1 when the graph leaves it symbolic
  // Decoder layers, from the past inputs or the present outputs (0 when the graph has neither).
  int layers = 0;
  bool has_past_inputs = false;
  bool has_use_cache_branch = false;
  bool has_encoder_hidden_states = false;
  // present output names by layer and slot; "" where the graph has no such output.
  std::vector<std::array<std::string, kKvSlots>> presents;
  std::vector<TensorDescription> graph_inputs;
  std::vector<TensorDescription> graph_outputs;

  // Every layer has both self-attention presents (and, with `cross`, both cross-attention presents too).
  [[nodiscard]] bool has_presents(bool cross) const;
};

// Throw mlrb::Error("BAD_MODEL") naming `file` and listing the graph's inputs and outputs when it does not fit.
[[nodiscard]] EncoderSignature detect_encoder_signature(const std::vector<TensorDescription>& inputs, const std::vector<TensorDescription>& outputs,
                                                        const std::string& file);
[[nodiscard]] DecoderSignature detect_decoder_signature(std::vector<TensorDescription> inputs, std::vector<TensorDescription> outputs,
                                                        const std::string& file);

}  // namespace mlrb
