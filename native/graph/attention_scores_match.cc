#include "attention_scores_match.h"

#include "graph_rewrite.h"
#include "key_transpose_match.h"
#include "node_match.h"

namespace mlrb::graph {

namespace {

struct ScaledOperand {
  std::string operand;
  float scale = 1.0F;
};

// Mul(x, c) or Mul(c, x) with a scalar constant c, its output read only by the product (as ORT's scale
// fusion requires): x and c, with the Mul listed for removal. Anything else is the operand itself, unscaled.
ScaledOperand strip_operand_scale(const GraphView& view, const std::string& value, AttentionBlock& block) {
  size_t index = 0;
  const NodeView* mul = producer_of(view, value, "Mul", &index);
  if (mul == nullptr || mul->inputs.size() != 2 || !used_only_once(view, value)) return {value, 1.0F};
  for (size_t side = 0; side < 2; ++side) {
    if (const std::optional<float> factor = scalar_float(view, mul->inputs[side])) {
      block.fused_nodes.push_back(index);
      block.dropped.push_back(value);
      return {mul->inputs[1 - side], *factor};
    }
  }
  return {value, 1.0F};
}

// The product's own scale: Mul(product, c) or Div(product, c) feeding the mask; the product value otherwise.
std::optional<std::string> strip_score_scale(const GraphView& view, const std::string& scores, AttentionBlock& block) {
  size_t index = 0;
  if (const NodeView* mul = producer_of(view, scores, "Mul", &index); mul != nullptr && mul->inputs.size() == 2) {
    const std::optional<float> second = scalar_float(view, mul->inputs[1]);
    const std::optional<float> first = scalar_float(view, mul->inputs[0]);
    if (!second && !first) return std::nullopt;
    block.scale = second ? *second : *first;
    block.fused_nodes.push_back(index);
    return second ? mul->inputs[0] : mul->inputs[1];
  }
  if (const NodeView* div = producer_of(view, scores, "Div", &index); div != nullptr && div->inputs.size() == 2) {
    const std::optional<float> divisor = scalar_float(view, div->inputs[1]);
    if (!divisor || *divisor == 0.0F) return std::nullopt;
    // ORT's scale fusion turns a Div by c into alpha 1/c as well.
    block.scale = 1.0F / *divisor;
    block.fused_nodes.push_back(index);
    return div->inputs[0];
  }
  return scores;
}

}  // namespace

bool match_scores(const GraphView& view, const std::string& scores, AttentionBlock& block) {
  const std::optional<std::string> product = strip_score_scale(view, scores, block);
  if (!product || (*product != scores && !used_only_once(view, *product))) return false;
  size_t index = 0;
  const NodeView* matmul = producer_of(view, *product, "MatMul", &index);
  if (matmul == nullptr || matmul->inputs.size() != 2) return false;
  if (*product != scores) block.dropped.push_back(*product);
  block.fused_nodes.push_back(index);
  const ScaledOperand query = strip_operand_scale(view, matmul->inputs[0], block);
  const ScaledOperand transposed_key = strip_operand_scale(view, matmul->inputs[1], block);
  const std::optional<TransposedKey> key = match_transposed_key(view, transposed_key.operand);
  if (!key) return false;
  block.query = query.operand;
  block.key = key->key;
  // ONNX Runtime folds scalar Muls on a MatMul's operands into FusedMatMul's alpha (MatMulScaleFusion: the
  // product of the two scales in float, applied once to each dot product), so the unfused session never
  // rounds the scaled Q and K; the kernel's scale after the product is that same arithmetic.
  block.scale = block.scale * (query.scale * transposed_key.scale);
  block.key_layout = key->layout;
  block.fused_nodes.insert(block.fused_nodes.end(), key->nodes.begin(), key->nodes.end());
  block.dropped.insert(block.dropped.end(), key->dropped.begin(), key->dropped.end());
  return true;
}

}  // namespace mlrb::graph
