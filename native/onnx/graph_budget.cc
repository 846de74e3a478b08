#include "graph_budget.h"

#include "../core/error.h"
#include "schema.h"

namespace mlrb::onnx {

namespace {

// As graph_proto.cc: deeper nesting is a corrupt or hostile file (and would exhaust the stack).
constexpr int kMaxGraphDepth = 32;

// Counts until a cap is passed; the caller then needs no exact figure, only that it is over.
class GraphCounter {
 public:
  [[nodiscard]] const GraphSize& size() const { return size_; }
  [[nodiscard]] bool over() const { return size_.nodes > kMaxGraphNodes || size_.initializers > kMaxGraphInitializers; }

  void model(Bytes message) {
    for_each_field(message, [&](const Field& field) {
      if (over() || field.wire != Wire::kLengthDelimited) return;
      if (field.number == ModelProto::kGraph) graph(field.payload, 0);
      else if (field.number == ModelProto::kFunctions) function(field.payload);
    });
  }

 private:
  void graph(Bytes message, int depth) {
    if (depth > kMaxGraphDepth) throw MalformedProto("subgraphs nested more than " + std::to_string(kMaxGraphDepth) + " deep", message.data());
    for_each_field(message, [&](const Field& field) {
      if (over() || field.wire != Wire::kLengthDelimited) return;
      if (field.number == GraphProto::kNode) node(field.payload, depth);
      else if (field.number == GraphProto::kInitializer || field.number == GraphProto::kSparseInitializer) ++size_.initializers;
    });
  }

  void function(Bytes message) {
    for_each_field(message, [&](const Field& field) {
      if (!over() && field.number == FunctionProto::kNode && field.wire == Wire::kLengthDelimited) node(field.payload, 1);
    });
  }

  // A node, and the subgraphs its attributes hold.
  void node(Bytes message, int depth) {
    ++size_.nodes;
    for_each_field(message, [&](const Field& field) {
      if (over() || field.number != NodeProto::kAttribute || field.wire != Wire::kLengthDelimited) return;
      for_each_field(field.payload, [&](const Field& attribute) {
        const bool holds_graph = attribute.number == AttributeProto::kGraph || attribute.number == AttributeProto::kGraphs;
        if (!over() && holds_graph && attribute.wire == Wire::kLengthDelimited) graph(attribute.payload, depth + 1);
      });
    });
  }

  GraphSize size_;
};

std::string with_separators(uint64_t value) {
  std::string digits = std::to_string(value);
  for (auto at = static_cast<std::ptrdiff_t>(digits.size()) - 3; at > 0; at -= 3) digits.insert(static_cast<size_t>(at), ",");
  return digits;
}

}  // namespace

GraphSize count_graph(Bytes model) {
  GraphCounter counter;
  counter.model(model);
  return counter.size();
}

void check_graph_budget(Bytes model, const std::string& path) {
  const GraphSize size = count_graph(model);
  const auto refuse = [&](const char* what, uint64_t cap) {
    throw Error("BAD_MODEL", path + " has more than " + with_separators(cap) + " " + what +
                                 " (counted over its graph, subgraphs and functions), the limit for a model this tool loads; "
                                 "real language models have far fewer (a 70B Llama export about 30,000 nodes)");
  };
  if (size.nodes > kMaxGraphNodes) refuse("nodes", kMaxGraphNodes);
  if (size.initializers > kMaxGraphInitializers) refuse("initializers", kMaxGraphInitializers);
}

}  // namespace mlrb::onnx
