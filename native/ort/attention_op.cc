#include "attention_op.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "../core/masked_attention.h"

namespace mlrb {

namespace {

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i > 0 ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

// How a rank-4 operand is laid out: ONNX attention's [batch, heads, rows, D], or [batch, rows, heads, D]
// when the fusion folded away the Transpose that turned one into the other.
enum class Layout : int64_t { kHeadsFirst = 0, kRowsFirst = 1 };

struct Strides {
  int64_t batch = 0;
  int64_t head = 0;
  int64_t row = 0;
};

struct OperandLayouts {
  Layout query = Layout::kHeadsFirst;
  Layout key = Layout::kHeadsFirst;
  Layout value = Layout::kHeadsFirst;
  Layout output = Layout::kHeadsFirst;
  int64_t kv_repeat = 1;  // each key/value head serves this many consecutive query heads

  [[nodiscard]] bool plain() const {
    return query == Layout::kHeadsFirst && key == Layout::kHeadsFirst && value == Layout::kHeadsFirst &&
           output == Layout::kHeadsFirst && kv_repeat == 1;
  }
};

// [batch, heads, rows, D] of a rank-4 tensor in the given layout.
std::vector<int64_t> logical(const std::vector<int64_t>& shape, Layout layout) {
  if (layout == Layout::kHeadsFirst) return shape;
  return {shape[0], shape[2], shape[1], shape[3]};
}

Strides strides_of(const std::vector<int64_t>& logical_shape, Layout layout) {
  const int64_t heads = logical_shape[1], rows = logical_shape[2], dim = logical_shape[3];
  if (layout == Layout::kHeadsFirst) return {heads * rows * dim, rows * dim, dim};
  return {rows * heads * dim, dim, heads * dim};
}

struct Operands {
  AttentionShape shape;
  std::vector<int64_t> output_shape;
  MaskLayout mask;
  int64_t query_heads = 1;  // query heads per batch entry
  Strides query, key, value, output;
};

// Checks the operands against the op's contract, works out where each head's rows live and lays the mask
// out per head. Throws std::invalid_argument naming the shapes.
Operands describe(const std::vector<int64_t>& q_shape, const std::vector<int64_t>& k_shape, const std::vector<int64_t>& v_shape,
                  const std::vector<int64_t>& mask, const OperandLayouts& layouts) {
  const auto mismatch = [&](const std::string& what) {
    return std::invalid_argument(what + " (Q " + shape_text(q_shape) + ", K " + shape_text(k_shape) + ", V " + shape_text(v_shape) +
                                 ", mask " + shape_text(mask) + ")");
  };
  const size_t rank = q_shape.size();
  if (rank < 2 || k_shape.size() != rank || v_shape.size() != rank) throw mismatch("Q, K and V must have the same rank, at least 2");
  if (!layouts.plain() && rank != 4) throw mismatch("folded layouts and shared key/value heads need rank-4 operands");
  if (mask.size() > rank) throw mismatch("the mask has a higher rank than the scores");

  Operands operands;
  std::vector<int64_t> q = q_shape, k = k_shape, v = v_shape;
  if (rank == 4) {
    q = logical(q_shape, layouts.query);
    k = logical(k_shape, layouts.key);
    v = logical(v_shape, layouts.value);
    if (q[0] != k[0] || q[0] != v[0] || q[1] != k[1] * layouts.kv_repeat || k[1] != v[1]) {
      throw mismatch("Q, K and V must share the batch, with " + std::to_string(layouts.kv_repeat) + " query head(s) per key/value head");
    }
    operands.query_heads = q[1];
  } else if (!std::equal(q.begin(), q.end() - 2, k.begin()) || !std::equal(q.begin(), q.end() - 2, v.begin())) {
    throw mismatch("Q, K and V must have the same leading dimensions");
  }
  if (q[rank - 1] != k[rank - 1] || k[rank - 2] != v[rank - 2]) throw mismatch("Q·Kᵀ and the weighted sum over V need matching dimensions");

  AttentionShape& shape = operands.shape;
  shape.queries = q[rank - 2];
  shape.keys = k[rank - 2];
  shape.key_dim = q[rank - 1];
  shape.value_dim = v[rank - 1];
  shape.heads = 1;
  for (size_t axis = 0; axis + 2 < rank; ++axis) shape.heads *= q[axis];
  if (rank != 4) operands.query_heads = shape.heads;  // one flattened batch of heads

  std::vector<int64_t> output_logical = q;
  output_logical.back() = shape.value_dim;
  operands.output_shape = rank == 4 ? logical(output_logical, layouts.output) : output_logical;  // the swap is its own inverse
  const auto strides = [&](const std::vector<int64_t>& shape_of, Layout layout) {
    if (rank == 4) return strides_of(shape_of, layout);
    const int64_t rows = shape_of[rank - 2], dim = shape_of[rank - 1];
    return Strides{0, rows * dim, dim};
  };
  operands.query = strides(q, layouts.query);
  operands.key = strides(k, layouts.key);
  operands.value = strides(v, layouts.value);
  operands.output = strides(output_logical, layouts.output);

  // The scores are [..leading, T, S]; the mask is right-aligned against them, each axis 1 or full.
  std::vector<int64_t> scores_shape(q.begin(), q.end() - 1);
  scores_shape.push_back(shape.keys);
  std::vector<int64_t> mask_strides(rank, 0);
  int64_t step = 1;
  for (size_t from_end = 0; from_end < mask.size(); ++from_end) {
    const size_t axis = rank - 1 - from_end;
    const int64_t extent = mask[mask.size() - 1 - from_end];
    if (extent != 1 && extent != scores_shape[axis]) throw mismatch("the mask does not broadcast to the attention scores");
    mask_strides[axis] = extent == 1 ? 0 : step;
    step *= extent;
  }
  MaskLayout& layout = operands.mask;
  layout.query_stride = mask_strides[rank - 2];
  layout.key_stride = mask_strides[rank - 1];
  layout.head_offset.resize(static_cast<size_t>(shape.heads));
  for (int64_t head = 0; head < shape.heads; ++head) {
    int64_t remaining = head;
    int64_t offset = 0;
    for (size_t axis = rank - 2; axis-- > 0;) {
      offset += (remaining % scores_shape[axis]) * mask_strides[axis];
      remaining /= scores_shape[axis];
    }
    layout.head_offset[static_cast<size_t>(head)] = offset;
  }
  return operands;
}

struct HeadWork {
  const Operands* operands;
  int64_t kv_repeat;
  float scale;
  const float* q;
  const float* k;
  const float* v;
  float* output;
};

void attend_head(void* data, size_t head_index) {
  const auto& work = *static_cast<const HeadWork*>(data);
  const Operands& operands = *work.operands;
  const auto head = static_cast<int64_t>(head_index);
  const int64_t batch = head / operands.query_heads;
  const int64_t query_head = head % operands.query_heads;
  const int64_t kv_head = query_head / work.kv_repeat;
  HeadOperands rows;
  rows.query = work.q + batch * operands.query.batch + query_head * operands.query.head;
  rows.key = work.k + batch * operands.key.batch + kv_head * operands.key.head;
  rows.value = work.v + batch * operands.value.batch + kv_head * operands.value.head;
  rows.output = work.output + batch * operands.output.batch + query_head * operands.output.head;
  rows.query_row_stride = operands.query.row;
  rows.key_row_stride = operands.key.row;
  rows.value_row_stride = operands.value.row;
  rows.output_row_stride = operands.output.row;
  thread_local AttentionScratch scratch;  // ORT's pool threads keep theirs between runs
  attend_one_head(operands.shape, work.scale, rows, operands.mask, head, scratch);
}

}  // namespace

namespace {

int64_t optional_int(const Ort::ConstKernelInfo& info, const char* name, int64_t fallback) {
  try {
    return info.GetAttribute<int64_t>(name);
  } catch (const Ort::Exception&) {
    return fallback;  // absent: ORT reports a missing attribute as an error status
  }
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
    scale_ = kernel_info.GetAttribute<float>("scale");
    layouts_.query = layout_attribute(kernel_info, "query_layout");
    layouts_.key = layout_attribute(kernel_info, "key_layout");
    layouts_.value = layout_attribute(kernel_info, "value_layout");
    layouts_.output = layout_attribute(kernel_info, "output_layout");
    layouts_.kv_repeat = optional_int(kernel_info, "kv_repeat", 1);
    if (layouts_.kv_repeat < 1) throw std::invalid_argument("kv_repeat must be at least 1");
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
      Operands operands = describe(q.GetTensorTypeAndShapeInfo().GetShape(), k.GetTensorTypeAndShapeInfo().GetShape(),
                                   v.GetTensorTypeAndShapeInfo().GetShape(), mask.GetTensorTypeAndShapeInfo().GetShape(), layouts_);
      MaskLayout& layout = operands.mask;
      if (bool_mask_) {
        layout.kind = keep_where_true_ ? MaskKind::kKeepWhereTrue : MaskKind::kKeepWhereFalse;
        layout.keep = mask.GetTensorData<bool>();
        layout.fill = fill_;
      } else {
        layout.kind = MaskKind::kAdditive;
        layout.additive = mask.GetTensorData<float>();
      }
      prepare_mask_rows(layout, operands.shape.queries, operands.shape.keys);
      Ort::UnownedValue output = context.GetOutput(0, operands.output_shape);
      HeadWork work{&operands, layouts_.kv_repeat, scale_, q.GetTensorData<float>(), k.GetTensorData<float>(), v.GetTensorData<float>(),
                    output.GetTensorMutableData<float>()};
      const auto heads = static_cast<size_t>(operands.shape.heads);
      if (operands.shape.queries > 0 && operands.shape.value_dim > 0) context.ParallelFor(attend_head, heads, 0, &work);
      return nullptr;
    } catch (const std::exception& error) {
      return Ort::GetApi().CreateStatus(ORT_INVALID_ARGUMENT, (node_name_ + ": " + error.what()).c_str());
    }
  }

 private:
  bool bool_mask_;
  std::string node_name_;
  float scale_ = 1.0F;
  float fill_ = 0.0F;
  bool keep_where_true_ = true;
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
  return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
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

void AttentionOps::add_to(Ort::SessionOptions& options) const { options.Add(domain_); }

}  // namespace mlrb
