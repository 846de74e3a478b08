#include "row_reshape.h"

#include "shape_expression.h"

namespace mlrb::graph {

namespace {

// One element of a Reshape target: a constant, one dim of a tensor, or a run of a tensor's dims from
// `axis` to its last (a whole-shape copy, whose length depends on the rank).
struct Element {
  enum class Kind { kConstant, kDim, kRun } kind = Kind::kConstant;
  int64_t value = 0;  // kConstant: the value; kDim, kRun: the (first) axis, negative from the end
  std::string tensor;
};

std::optional<std::vector<Element>> elements_of(const ShapeExpression& expression) {
  std::vector<Element> elements;
  for (const ShapePiece& piece : expression) {
    if (piece.constant) {
      elements.push_back({Element::Kind::kConstant, *piece.constant, {}});
    } else if (piece.begin >= 0 && piece.end == ShapePiece::kToEnd) {
      elements.push_back({Element::Kind::kRun, piece.begin, piece.tensor});
    } else {
      // A bounded run of single dims, counted from the front ([b, e), 0 <= b) or from the end ([-b, -e) or [-b:]).
      const int64_t end = piece.begin < 0 && piece.end == ShapePiece::kToEnd ? 0 : piece.end;
      if ((piece.begin < 0) != (end < 0 || (piece.begin < 0 && end == 0)) || end < piece.begin) return std::nullopt;
      for (int64_t axis = piece.begin; axis < end; ++axis) elements.push_back({Element::Kind::kDim, axis, piece.tensor});
    }
  }
  return elements;
}

class Prover {
 public:
  Prover(const RowContext& context, bool allow_zero) : context_(context), allow_zero_(allow_zero) {}

  // The element's axis counted from the front, where the tensor's rank is known or not needed.
  [[nodiscard]] std::optional<int64_t> absolute_axis(const Element& element) const {
    if (element.value >= 0) return element.value;
    const auto value = context_.values->find(element.tensor);
    if (value == context_.values->end() || !value->second.rank) return std::nullopt;
    return *value->second.rank + element.value;
  }

  // Whether the element reads the same number on the pruned graph as on the original: a constant, a dim
  // of a tensor pruning leaves alone, or a dim after the position axes of a pruned one.
  [[nodiscard]] bool stable(const Element& element) const {
    if (element.kind == Element::Kind::kConstant) return true;
    const auto value = context_.values->find(element.tensor);
    if (value == context_.values->end()) return true;
    if (value->second.layout == RowLayout::kGathered) return false;  // its axes shift by one
    const int64_t position_axes = value->second.layout == RowLayout::kRows ? 2 : 1;
    const std::optional<int64_t> axis = absolute_axis(element);
    return axis && *axis >= position_axes;
  }

  // Whether the element is, in the original graph, the rows' batch (position 0) or sequence (1) size.
  [[nodiscard]] bool names_position_axis(const Element& element, int64_t position, RowLayout input) const {
    if (element.kind == Element::Kind::kConstant) return element.value == 0 && !allow_zero_ && input != RowLayout::kFlat;  // 0: copy the input's dim
    if (element.kind != Element::Kind::kDim) return false;
    const std::optional<int64_t> axis = absolute_axis(element);
    const auto axes = context_.row_axes->find(element.tensor);
    const uint8_t bit = position == 0 ? kBatchAxisBit : kSequenceAxisBit;
    return axis == position && axes != context_.row_axes->end() && (axes->second & bit) != 0;
  }

 private:
  const RowContext& context_;
  bool allow_zero_;
};

bool is_constant(const Element& element, int64_t value) {
  return element.kind == Element::Kind::kConstant && element.value == value;
}

std::optional<int64_t> rank_of(const std::vector<Element>& elements) {
  for (const Element& element : elements) {
    if (element.kind == Element::Kind::kRun) return std::nullopt;
  }
  return static_cast<int64_t>(elements.size());
}

// The product of the elements from `first` on, where all are constants.
std::optional<int64_t> constant_product(const std::vector<Element>& elements, size_t first) {
  int64_t product = 1;
  for (size_t i = first; i < elements.size(); ++i) {
    if (elements[i].kind != Element::Kind::kConstant || elements[i].value <= 0) return std::nullopt;
    product *= elements[i].value;
  }
  return product;
}

}  // namespace

ReshapeProof prove_reshape(const GraphView& view, const NodeView& reshape, const RowValue& input, const RowContext& context, bool makes_head_input) {
  const std::string what = "Reshape " + reshape.outputs.front();
  const std::optional<ShapeExpression> expression = reshape.inputs.size() == 2 ? shape_expression(view, reshape.inputs[1]) : std::nullopt;
  const std::optional<std::vector<Element>> elements = expression ? elements_of(*expression) : std::nullopt;
  if (!elements) return {what + "'s target is not a shape expression the pass can read", {}, {}};
  const auto allow_zero = reshape.int_attributes.find("allowzero");
  const Prover prover(context, allow_zero != reshape.int_attributes.end() && allow_zero->second != 0);
  const std::vector<Element>& target = *elements;
  const auto tail_from = [&](size_t first, bool allow_infer) {
    for (size_t i = first; i < target.size(); ++i) {
      if (!prover.stable(target[i]) || (!allow_infer && (is_constant(target[i], -1) || is_constant(target[i], 0)))) return false;
    }
    return true;
  };

  if (target.size() >= 2) {
    const bool batch = makes_head_input || prover.names_position_axis(target[0], 0, input.layout);
    const bool sequence = makes_head_input || prover.names_position_axis(target[1], 1, input.layout);
    if (batch && sequence) {
      const RowValue output{RowLayout::kRows, rank_of(target), std::nullopt};
      switch (input.layout) {
        // [batch, seq, ...] on [1, picked, ...]: copy both position axes; the trailing ones are the input's.
        case RowLayout::kRows:
          if (tail_from(2, !makes_head_input)) return {{}, output, TargetRewrite{.copies_input_positions = true}};
          break;
        // On [picked, ...]: the trailing elements must fix the row size alone.
        case RowLayout::kGathered:
          if (tail_from(2, false)) return {{}, output, TargetRewrite{.copies_input_positions = false}};
          break;
        // Flat rows back to positions: exactly one row per position when the trailing constants are the rows' width.
        case RowLayout::kFlat:
          if (!makes_head_input && input.width && constant_product(target, 2) == input.width)
            return {{}, output, TargetRewrite{.copies_input_positions = false}};
          return {what + " restores [batch, seq, ...] from flattened rows whose width it does not provably match", {}, {}};
      }
      return {what + "'s trailing target elements infer a size or read a dim that pruning changes", {}, {}};
    }
  }
  // [-1, trailing...]: rows flattened; settled where they are restored (above).
  if (!target.empty() && is_constant(target[0], -1) && tail_from(1, false)) {
    return {{}, {RowLayout::kFlat, rank_of(target), constant_product(target, 1)}, std::nullopt};
  }
  return {what + "'s target does not provably keep, merge or flatten the batch and sequence axes", {}, {}};
}

}  // namespace mlrb::graph
