#include "logits_check.h"

#include <algorithm>
#include <vector>

#include "../core/error.h"

namespace mlrb {

int64_t checked_vocab_size(const Ort::TensorTypeAndShapeInfo& info, const GraphSignature& signature, const PackedBatch& batch,
                           const PaddedInputs& padded, const LogitRows& layout) {
  const std::vector<int64_t> shape = info.GetShape();
  const bool expected = signature.logits_sliced ? shape.size() == 2 && shape[0] == layout.logit_rows
                                                : shape.size() == 3 && shape[0] == padded.rows && shape[1] == padded.max_length;
  if (!expected) {
    // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string temporaries here.
    std::string wanted = "[";
    wanted += signature.logits_sliced ? std::to_string(layout.logit_rows) : std::to_string(padded.rows) + ", " + std::to_string(padded.max_length);
    wanted += ", vocab]";
    throw Error("BAD_MODEL", "the logits output " + signature.logits_output + " has shape " +
                                 describe_tensors({TensorDescription{signature.logits_output, info.GetElementType(), shape, {}}}) + ", expected " +
                                 wanted);
  }
  const int64_t vocab_size = shape.back();
  if (const auto too_big = std::find_if(batch.targets.begin(), batch.targets.end(), [&](int32_t id) { return id >= vocab_size; });
      too_big != batch.targets.end()) {
    throw Error("BAD_DATA",
                "continuation token id " + std::to_string(*too_big) + " is outside the logits' vocabulary of " + std::to_string(vocab_size));
  }
  return vocab_size;
}

}  // namespace mlrb
