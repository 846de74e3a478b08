#include "attention_op.h"

#include <algorithm>
#include <atomic>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "../core/attention_kv_cache.h"
#include "../core/attention_operands.h"
#include "../core/cached_attention.h"
#include "../core/cpu_features.h"
#include "../core/masked_attention.h"

namespace mlrb {

namespace {

struct HeadWork {
  const Operands* operands;
  ScoreArithmetic arithmetic;
  KernelPath rounding;  // resolved before the parallel loop: its callback must not throw
  AttentionTensors tensors;
};

void attend_head(void* data, size_t head_index) {
  const auto& work = *static_cast<const HeadWork*>(data);
  const auto head = static_cast<int64_t>(head_index);
  if (!has_rows(*work.operands, head)) return;
  thread_local AttentionScratch scratch;  // ORT's pool threads keep theirs between runs
  attend_one_head(work.operands->shape, work.arithmetic, head_operands(*work.operands, work.tensors, head), work.operands->mask, head, scratch,
                  work.rounding);
}

constexpr size_t kCosInput = 4;
constexpr size_t kSinInput = 5;
constexpr size_t kQueryPositionsInput = 6;
constexpr size_t kDecodeCacheInput = 7;

bool has_input(Ort::KernelContext& context, size_t index) {
  return context.GetInputCount() > index && context.GetInput(index) != nullptr;
}

// The decoding cache the run named (core/attention_kv_cache.h), or nullptr for a pass without one (id 0).
std::shared_ptr<AttentionKvCache> decode_cache(Ort::KernelContext& context) {
  if (!has_input(context, kDecodeCacheInput)) return nullptr;
  const Ort::ConstValue input = context.GetInput(kDecodeCacheInput);
  if (input.GetTensorTypeAndShapeInfo().GetElementCount() != 1) throw std::invalid_argument("the decoding cache id must be one int64");
  const int64_t id = *input.GetTensorData<int64_t>();
  if (id == 0) return nullptr;
  std::shared_ptr<AttentionKvCache> cache = KvCacheRegistry::instance().find(id);
  if (cache == nullptr) throw std::invalid_argument("no decoding cache has id " + std::to_string(id));
  return cache;
}

int64_t optional_int(const Ort::ConstKernelInfo& info, const char* name, int64_t fallback) {
  try {
    return info.GetAttribute<int64_t>(name);
  } catch (const Ort::Exception&) {
    return fallback;  // absent: ORT reports a missing attribute as an error status
  }
}

// A symbolic dim name no other dim shares.
std::string unknown_dim_name() {
  static std::atomic<uint64_t> next{0};
  return "mlrb_attention_unknown_" + std::to_string(next.fetch_add(1));
}

Layout layout_attribute(const Ort::ConstKernelInfo& info, const char* name) {
  const int64_t value = optional_int(info, name, 0);
  if (value != 0 && value != 1) throw std::invalid_argument(std::string(name) + " must be 0 (heads first) or 1 (rows first)");
  return static_cast<Layout>(value);
}

}  // namespace

class AttentionKernel {
 public:
  AttentionKernel(const OrtKernelInfo* info, bool bool_mask) : bool_mask_(bool_mask) {
    const Ort::ConstKernelInfo kernel_info(info);
    node_name_ = kernel_info.GetNodeName();
    arithmetic_.scale = kernel_info.GetAttribute<float>("scale");
    arithmetic_.zero_nan_weights = optional_int(kernel_info, "zero_nan_weights", 0) != 0;
    layouts_.query = layout_attribute(kernel_info, "query_layout");
    layouts_.key = layout_attribute(kernel_info, "key_layout");
    layouts_.value = layout_attribute(kernel_info, "value_layout");
    layouts_.output = layout_attribute(kernel_info, "output_layout");
    layouts_.kv_repeat = optional_int(kernel_info, "kv_repeat", 1);
    if (layouts_.kv_repeat < 1) throw std::invalid_argument("kv_repeat must be at least 1");
    repeat_heads_ = optional_int(kernel_info, "repeat_heads", 0);
    repeat_key_dim_ = optional_int(kernel_info, "repeat_key_dim", 0);
    repeat_value_dim_ = optional_int(kernel_info, "repeat_value_dim", 0);
    rotary_half_ = optional_int(kernel_info, "rotary_half", 0);
    if (rotary_half_ < 0) throw std::invalid_argument("rotary_half must not be negative");
    if (bool_mask_) {
      fill_ = kernel_info.GetAttribute<float>("fill");
      keep_where_true_ = kernel_info.GetAttribute<int64_t>("keep_where_true") != 0;
    }
  }

  OrtStatusPtr ComputeV2(OrtKernelContext* raw_context) const {
    try {
      Ort::KernelContext context(raw_context);
      const Ort::ConstValue q = context.GetInput(0);
      const Ort::ConstValue k = context.GetInput(1);
      const Ort::ConstValue v = context.GetInput(2);
      const Ort::ConstValue mask = context.GetInput(3);
      Operands operands = describe_operands(q.GetTensorTypeAndShapeInfo().GetShape(), k.GetTensorTypeAndShapeInfo().GetShape(),
                                            v.GetTensorTypeAndShapeInfo().GetShape(), mask.GetTensorTypeAndShapeInfo().GetShape(), layouts_);
      check_repeat_shape(operands);
      MaskLayout& layout = operands.mask;
      if (bool_mask_) {
        layout.kind = keep_where_true_ ? MaskKind::kKeepWhereTrue : MaskKind::kKeepWhereFalse;
        layout.keep = mask.GetTensorData<bool>();
        layout.fill = fill_;
      } else {
        layout.kind = MaskKind::kAdditive;
        layout.additive = mask.GetTensorData<float>();
      }
      AttentionTensors tensors{q.GetTensorData<float>(), k.GetTensorData<float>(), v.GetTensorData<float>(), nullptr};
      if (rotary_half_ > 0) {
        if (!has_input(context, kCosInput) || !has_input(context, kSinInput))
          throw std::invalid_argument("rotary_half is set but the cos and sin inputs are missing");
        const Ort::ConstValue cos = context.GetInput(kCosInput);
        const Ort::ConstValue sin = context.GetInput(kSinInput);
        add_rotary(operands, cos.GetTensorTypeAndShapeInfo().GetShape(), sin.GetTensorTypeAndShapeInfo().GetShape(), rotary_half_);
        tensors.cos = cos.GetTensorData<float>();
        tensors.sin = sin.GetTensorData<float>();
      }
      // With a decoding cache the graph's rows are the new ones: attend over every cached key instead.
      thread_local CachedAttentionScratch cache_scratch;
      const std::shared_ptr<AttentionKvCache> cache = decode_cache(context);
      if (cache != nullptr) {
        operands =
            attend_over_cache(cache->layer(node_name_), cache->expected_positions(), operands, AttentionTensors(tensors), cache_scratch, tensors);
      } else {
        prepare_mask_rows(layout, operands.shape.queries, operands.shape.keys);
      }
      if (has_input(context, kQueryPositionsInput)) {
        const Ort::ConstValue positions = context.GetInput(kQueryPositionsInput);
        const size_t count = positions.GetTensorTypeAndShapeInfo().GetElementCount();
        pick_query_rows(operands, std::span<const int64_t>(positions.GetTensorData<int64_t>(), count));
      }
      Ort::UnownedValue output = context.GetOutput(0, operands.output_shape);
      tensors.output = output.GetTensorMutableData<float>();
      HeadWork work{&operands, arithmetic_, kernel_path_choice().path, tensors};
      const auto heads = static_cast<size_t>(operands.shape.heads);
      if (operands.shape.queries > 0 && operands.shape.value_dim > 0) context.ParallelFor(attend_head, heads, 0, &work);
      return nullptr;
    } catch (const std::exception& error) {
      return Ort::GetApi().CreateStatus(ORT_INVALID_ARGUMENT, (node_name_ + ": " + error.what()).c_str());
    }
  }

 private:
  // The absorbed repeat_kv Reshapes named [heads, D] as constants; the graph means them only when the
  // tensors agree. Where they do not, ORT's Reshape would have failed or laid the heads out otherwise, so
  // the fused node fails rather than compute something the graph does not say.
  void check_repeat_shape(const Operands& operands) const {
    if (repeat_heads_ == 0) return;
    if (operands.query_heads != repeat_heads_ || operands.shape.key_dim != repeat_key_dim_ || operands.shape.value_dim != repeat_value_dim_) {
      throw std::invalid_argument("the repeat_kv Reshapes merge keys to [" + std::to_string(repeat_heads_) + " heads, " +
                                  std::to_string(repeat_key_dim_) + "] and values to [" + std::to_string(repeat_heads_) + ", " +
                                  std::to_string(repeat_value_dim_) + "], but the tensors have " + std::to_string(operands.query_heads) +
                                  " query heads of " + std::to_string(operands.shape.key_dim) + " and values of " +
                                  std::to_string(operands.shape.value_dim));
    }
  }

  bool bool_mask_;
  std::string node_name_;
  ScoreArithmetic arithmetic_;
  float fill_ = 0.0F;
  bool keep_where_true_ = true;
  int64_t rotary_half_ = 0;
  int64_t repeat_heads_ = 0, repeat_key_dim_ = 0, repeat_value_dim_ = 0;  // 0: nothing to check
  OperandLayouts layouts_;
};

template <bool kBoolMask>
AttentionOp<kBoolMask>::AttentionOp(uint32_t api_version) {
  // The struct layout is that of our headers; declaring an older version keeps an older runtime from
  // rejecting the op, and every callback used here exists since C API 17.
  OrtCustomOp::version = std::min<uint32_t>(ORT_API_VERSION, api_version);
}

template <bool kBoolMask>
OrtStatusPtr AttentionOp<kBoolMask>::CreateKernelV2(const OrtApi& api, const OrtKernelInfo* info, void** kernel) const {
  try {
    // ORT owns the kernel from here and frees it through CustomOpBase's KernelDestroy.
    *kernel = std::make_unique<AttentionKernel>(info, kBoolMask).release();
    return nullptr;
  } catch (const std::exception& error) {
    return api.CreateStatus(ORT_INVALID_GRAPH, (std::string(GetName()) + ": " + error.what()).c_str());
  }
}

template <bool kBoolMask>
ONNXTensorElementDataType AttentionOp<kBoolMask>::GetInputType(size_t index) const {
  if (index == 3 && kBoolMask) return ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL;
  if (index == kQueryPositionsInput || index == kDecodeCacheInput) return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64;
  return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
}

template <bool kBoolMask>
OrtCustomOpInputOutputCharacteristic AttentionOp<kBoolMask>::GetInputCharacteristic(size_t index) const {
  return index >= kCosInput ? INPUT_OUTPUT_OPTIONAL : INPUT_OUTPUT_REQUIRED;
}

template <bool kBoolMask>
OrtStatusPtr AttentionOp<kBoolMask>::InferOutputShape(Ort::ShapeInferContext& context) {
  try {
    const auto layout_of = [&](const char* name) {
      try {
        return context.GetAttrInt(name);
      } catch (const Ort::Exception&) {
        return int64_t{0};
      }
    };
    Ort::ShapeInferContext::Shape shape = context.GetInputShape(0);
    const Ort::ShapeInferContext::Shape values = context.GetInputShape(2);
    if (!shape.empty() && !values.empty()) shape.back() = values.back();
    // Output rows-first and query heads-first (or the reverse): the heads and rows axes trade places.
    if (shape.size() == 4 && layout_of("query_layout") != layout_of("output_layout")) std::swap(shape[1], shape[2]);
    // Picked query rows: [1, positions, heads, value_dim].
    if (shape.size() == 4 && context.GetInputCount() > kQueryPositionsInput) {
      const Ort::ShapeInferContext::Shape positions = context.GetInputShape(kQueryPositionsInput);
      if (positions.size() == 1) shape = {Ort::ShapeInferContext::SymbolicInteger(int64_t{1}), positions[0], shape[2], shape[3]};
    }
    // ORT hands an input dim it does not know over as the integer -1 and would store a returned -1 as the
    // value -1, which its constant folding of a later Shape(output) then takes literally (exports that
    // rebuild [B, T, H·D] from Shape(attention output) got a Reshape target with two -1s). Unknown dims get
    // names of their own instead, which claim nothing.
    std::vector<std::string> unknown_names;
    unknown_names.reserve(shape.size());  // SymbolicInteger keeps the pointer: no reallocation
    for (Ort::ShapeInferContext::SymbolicInteger& dim : shape) {
      if (!dim.IsInt() || dim.AsInt() >= 0) continue;
      unknown_names.push_back(unknown_dim_name());
      dim = Ort::ShapeInferContext::SymbolicInteger(unknown_names.back().c_str());
    }
    context.SetOutputShape(0, shape);
    return nullptr;
  } catch (const std::exception& error) {
    return Ort::GetApi().CreateStatus(ORT_INVALID_GRAPH, error.what());
  }
}

template struct AttentionOp<true>;
template struct AttentionOp<false>;

AttentionOps::AttentionOps(uint32_t api_version) : masked_(api_version), biased_(api_version), domain_(kAttentionOpDomain) {
  domain_.Add(&masked_);
  domain_.Add(&biased_);
}

void AttentionOps::add_to(Ort::SessionOptions& options) const {
  options.Add(domain_);
}

}  // namespace mlrb
