// The fused attention kernel (core/masked_attention.h) as ONNX Runtime custom ops on the CPU provider.
// graph/cpu_fusion.h rewrites a graph's decomposed attention into these nodes; ORT runs the rest of
// the graph as before. Two ops, one per mask type, so each declares exact input types to ORT:
//   ai.mlrb.MaskedAttention(Q, K, V, mask: bool)     attributes scale, fill, keep_where_true
//   ai.mlrb.BiasedAttention(Q, K, V, mask: float)    attribute scale
// and optional zero_nan_weights = 1 (NaN probabilities weigh 0: torch sdpa's Where(IsNaN(p), 0, p)).
// Q [..., T, D], K [..., S, D], V [..., S, Dv] with equal leading dimensions; the mask broadcasts to
// [..., T, S] as in ONNX; the output is [..., T, Dv]. For rank-4 operands, optional attributes let the
// fusion drop the reshaping around attention: query_layout / key_layout / value_layout / output_layout
// (0: [B, H, T, D]; 1: [B, T, H, D], the layout before the graph's head Transpose) and kv_repeat (key and
// value carry H / kv_repeat heads, each serving kv_repeat consecutive query heads, as repeat_kv does), with
// repeat_heads / repeat_key_dim / repeat_value_dim, the [heads, D] the absorbed repeat_kv Reshapes named,
// checked against the tensors at run time.
// Optional inputs cos and sin with attribute rotary_half = D / 2 fold Hugging Face's rotary embedding of Q
// and K (core/rotary.h); the tables broadcast to [B, 1, T, D] against the heads-first operands. Optional
// input 6, int64 query positions flat over [B, T] (ascending), computes only those query rows: the output
// is then [1, positions, H, Dv] (graph/last_block_rows.h). Optional input 7, an int64 decoding-cache id
// (0: none), makes Q, K, V the new rows of a generation run whose earlier keys and values the op keeps
// (core/cached_attention.h, graph/decode_cache.h).
#pragma once

#include <cstdint>

#include "../core/attention_contract.h"
#include "ort_api.h"

namespace mlrb {

class AttentionKernel;

template <bool kBoolMask>
struct AttentionOp : Ort::CustomOpBase<AttentionOp<kBoolMask>, AttentionKernel, true> {
  explicit AttentionOp(uint32_t api_version);

  OrtStatusPtr CreateKernelV2(const OrtApi& api, const OrtKernelInfo* info, void** kernel) const;
  [[nodiscard]] const char* GetName() const { return kBoolMask ? kMaskedAttentionOp : kBiasedAttentionOp; }
  [[nodiscard]] size_t GetInputTypeCount() const { return 8; }
  [[nodiscard]] ONNXTensorElementDataType GetInputType(size_t index) const;
  [[nodiscard]] OrtCustomOpInputOutputCharacteristic GetInputCharacteristic(size_t index) const;
  [[nodiscard]] size_t GetOutputTypeCount() const { return 1; }
  [[nodiscard]] ONNXTensorElementDataType GetOutputType(size_t) const { return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT; }
  static OrtStatusPtr InferOutputShape(Ort::ShapeInferContext& context);
};

// The ai.mlrb domain with both ops. It must outlive every session created with it, so the runtime owns
// the one instance (OrtRuntime::attention_ops()).
class AttentionOps {
 public:
  explicit AttentionOps(uint32_t api_version);
  void add_to(Ort::SessionOptions& options) const;

 private:
  AttentionOp<true> masked_;
  AttentionOp<false> biased_;
  Ort::CustomOpDomain domain_;
};

}  // namespace mlrb
