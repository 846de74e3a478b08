#include "rotary_match.h"

#include "graph_rewrite.h"
#include "node_match.h"

namespace mlrb::graph {

namespace {

// Exporters write the last axis of the rank-4 [batch, heads, rows, D] operands as -1 or 3 (a graph with
// lower-rank operands could not run a Slice on axis 3 in the first place).
bool is_last_axis(int64_t axis) {
  return axis == -1 || axis == 3;
}

struct SliceRange {
  std::string data;
  int64_t start = 0;
  int64_t end = 0;
};

// Slice(data, [start], [end], [last axis] (, [1])) with constant bounds, read only by its one reader.
std::optional<SliceRange> last_axis_slice(const GraphView& view, const std::string& value, std::vector<size_t>& nodes) {
  size_t index = 0;
  const NodeView* slice = producer_of(view, value, "Slice", &index);
  if (slice == nullptr || slice->inputs.size() < 4 || slice->inputs.size() > 5 || !used_only_once(view, value)) return std::nullopt;
  const std::optional<std::vector<int64_t>> starts = int64_values(view, slice->inputs[1]);
  const std::optional<std::vector<int64_t>> ends = int64_values(view, slice->inputs[2]);
  const std::optional<std::vector<int64_t>> axes = int64_values(view, slice->inputs[3]);
  if (!starts || !ends || !axes || starts->size() != 1 || ends->size() != 1 || axes->size() != 1 || !is_last_axis(axes->front())) {
    return std::nullopt;
  }
  if (slice->inputs.size() == 5 && int64_values(view, slice->inputs[4]) != std::vector<int64_t>{1}) return std::nullopt;
  nodes.push_back(index);
  return SliceRange{slice->inputs[0], starts->front(), ends->front()};
}

// Concat(Neg(Slice(x, h:)), Slice(x, :h)) on the last axis: Llama's rotate_half(x).
std::optional<RotaryMatch> match_rotate_half(const GraphView& view, const std::string& value) {
  RotaryMatch match;
  size_t index = 0;
  const NodeView* concat = producer_of(view, value, "Concat", &index);
  if (concat == nullptr || concat->inputs.size() != 2 || !used_only_once(view, value)) return std::nullopt;
  const auto axis = concat->int_attributes.find("axis");
  if (axis == concat->int_attributes.end() || !is_last_axis(axis->second)) return std::nullopt;
  match.nodes.push_back(index);
  const NodeView* neg = producer_of(view, concat->inputs[0], "Neg", &index);
  if (neg == nullptr || neg->inputs.size() != 1 || !used_only_once(view, concat->inputs[0])) return std::nullopt;
  match.nodes.push_back(index);
  const std::optional<SliceRange> upper = last_axis_slice(view, neg->inputs[0], match.nodes);
  const std::optional<SliceRange> lower = last_axis_slice(view, concat->inputs[1], match.nodes);
  if (!upper || !lower || upper->data != lower->data) return std::nullopt;
  const int64_t half = lower->end;
  // Halves [0, h) and [h, 2h or beyond): the op checks at run time that the head dimension is 2h.
  if (lower->start != 0 || half <= 0 || upper->start != half || upper->end < 2 * half) return std::nullopt;
  match.source = lower->data;
  match.half = half;
  match.dropped = {value, concat->inputs[0], neg->inputs[0], concat->inputs[1]};
  return match;
}

// Mul(a, b) with one operand `known`: the other one; the Mul's output feeds only the Add.
std::optional<std::string> other_factor(const NodeView& mul, const std::string& known) {
  if (mul.inputs.size() != 2) return std::nullopt;
  if (mul.inputs[0] == known && mul.inputs[1] != known) return mul.inputs[1];
  if (mul.inputs[1] == known && mul.inputs[0] != known) return mul.inputs[0];
  return std::nullopt;
}

// direct = Mul(x, cos), turned = Mul(rotate_half(x), sin), in either order within each Mul.
std::optional<RotaryMatch> match_products(const GraphView& view, const std::string& direct, const std::string& turned) {
  size_t direct_index = 0, turned_index = 0;
  const NodeView* direct_mul = producer_of(view, direct, "Mul", &direct_index);
  const NodeView* turned_mul = producer_of(view, turned, "Mul", &turned_index);
  if (direct_mul == nullptr || turned_mul == nullptr || turned_mul->inputs.size() != 2 || !used_only_once(view, direct) ||
      !used_only_once(view, turned)) {
    return std::nullopt;
  }
  for (size_t side = 0; side < 2; ++side) {
    std::optional<RotaryMatch> match = match_rotate_half(view, turned_mul->inputs[side]);
    if (!match) continue;
    const std::optional<std::string> cos = other_factor(*direct_mul, match->source);
    if (!cos) return std::nullopt;
    match->cos = *cos;
    match->sin = turned_mul->inputs[1 - side];
    match->nodes.push_back(direct_index);
    match->nodes.push_back(turned_index);
    match->dropped.push_back(direct);
    match->dropped.push_back(turned);
    return match;
  }
  return std::nullopt;
}

}  // namespace

std::optional<RotaryMatch> match_rotary(const GraphView& view, const std::string& value) {
  size_t add_index = 0;
  const NodeView* add = producer_of(view, value, "Add", &add_index);
  if (add == nullptr || add->inputs.size() != 2) return std::nullopt;
  for (size_t side = 0; side < 2; ++side) {
    std::optional<RotaryMatch> match = match_products(view, add->inputs[side], add->inputs[1 - side]);
    if (!match) continue;
    match->nodes.push_back(add_index);
    match->dropped.push_back(value);
    return match;
  }
  return std::nullopt;
}

}  // namespace mlrb::graph
