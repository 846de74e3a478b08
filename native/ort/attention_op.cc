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

struct Operands {
  AttentionShape shape;
  std::vector<int64_t> output_shape;
  MaskLayout mask;
};

// Checks the operands against the op's contract and lays the mask out per head. Throws
// std::invalid_argument naming the shapes.
Operands describe(const std::vector<int64_t>& q, const std::vector<int64_t>& k, const std::vector<int64_t>& v,
                  const std::vector<int64_t>& mask) {
  const auto mismatch = [&](const std::string& what) {
    return std::invalid_argument(what + " (Q " + shape_text(q) + ", K " + shape_text(k) + ", V " + shape_text(v) + ", mask " +
                                 shape_text(mask) + ")");
  };
  const size_t rank = q.size();
  if (rank < 2 || k.size() != rank || v.size() != rank) throw mismatch("Q, K and V must have the same rank, at least 2");
  if (!std::equal(q.begin(), q.end() - 2, k.begin()) || !std::equal(q.begin(), q.end() - 2, v.begin())) {
    throw mismatch("Q, K and V must have the same leading dimensions");
  }
  if (q[rank - 1] != k[rank - 1] || k[rank - 2] != v[rank - 2]) throw mismatch("Q·Kᵀ and the weighted sum over V need matching dimensions");
  if (mask.size() > rank) throw mismatch("the mask has a higher rank than the scores");

  Operands operands;
  AttentionShape& shape = operands.shape;
  shape.queries = q[rank - 2];
  shape.keys = k[rank - 2];
  shape.key_dim = q[rank - 1];
  shape.value_dim = v[rank - 1];
  shape.heads = 1;
  for (size_t axis = 0; axis + 2 < rank; ++axis) shape.heads *= q[axis];
  operands.output_shape = q;
  operands.output_shape.back() = shape.value_dim;

  // The scores are [..leading, T, S]; the mask is right-aligned against them, each axis 1 or full.
  std::vector<int64_t> scores_shape(q.begin(), q.end() - 1);
  scores_shape.push_back(shape.keys);
  std::vector<int64_t> strides(rank, 0);
  int64_t step = 1;
  for (size_t from_end = 0; from_end < mask.size(); ++from_end) {
    const size_t axis = rank - 1 - from_end;
    const int64_t extent = mask[mask.size() - 1 - from_end];
    if (extent != 1 && extent != scores_shape[axis]) throw mismatch("the mask does not broadcast to the attention scores");
    strides[axis] = extent == 1 ? 0 : step;
    step *= extent;
  }
  MaskLayout& layout = operands.mask;
  layout.query_stride = strides[rank - 2];
  layout.key_stride = strides[rank - 1];
  layout.head_offset.resize(static_cast<size_t>(shape.heads));
  for (int64_t head = 0; head < shape.heads; ++head) {
    int64_t remaining = head;
    int64_t offset = 0;
    for (size_t axis = rank - 2; axis-- > 0;) {
      offset += (remaining % scores_shape[axis]) * strides[axis];
      remaining /= scores_shape[axis];
    }
    layout.head_offset[static_cast<size_t>(head)] = offset;
  }
  return operands;
}

struct HeadWork {
  const Operands* operands;
  float scale;
  const float* q;
  const float* k;
  const float* v;
  float* output;
};

void attend_head(void* data, size_t head_index) {
  const auto& work = *static_cast<const HeadWork*>(data);
  const AttentionShape& shape = work.operands->shape;
  const auto head = static_cast<int64_t>(head_index);
  thread_local AttentionScratch scratch;  // ORT's pool threads keep theirs between runs
  attend_one_head(shape, work.scale, work.q + head * shape.queries * shape.key_dim, work.k + head * shape.keys * shape.key_dim,
                  work.v + head * shape.keys * shape.value_dim, work.operands->mask, head,
                  work.output + head * shape.queries * shape.value_dim, scratch);
}

}  // namespace

class AttentionKernel {
 public:
  AttentionKernel(const OrtKernelInfo* info, bool bool_mask) : bool_mask_(bool_mask) {
    const Ort::ConstKernelInfo kernel_info(info);
    node_name_ = kernel_info.GetNodeName();
    scale_ = kernel_info.GetAttribute<float>("scale");
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
                                   v.GetTensorTypeAndShapeInfo().GetShape(), mask.GetTensorTypeAndShapeInfo().GetShape());
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
      HeadWork work{&operands, scale_, q.GetTensorData<float>(), k.GetTensorData<float>(), v.GetTensorData<float>(),
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
    Ort::ShapeInferContext::Shape shape = context.GetInputShape(0);
    const Ort::ShapeInferContext::Shape values = context.GetInputShape(2);
    if (!shape.empty() && !values.empty()) shape.back() = values.back();
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
