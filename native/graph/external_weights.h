// The rewritten graph's weights left where they are. A rewrite changes a few nodes, yet assembling the model
// with its inline initializers would copy every weight into a second buffer, which ONNX Runtime then parses
// into a third copy before it creates its tensors. Instead each inline initializer large enough to matter is
// written as an external-data reference to its own bytes in the model file: location the file's name,
// offset and length those of its raw_data payload there. ORT, told the model's folder
// (session.model_external_initializers_file_folder_path), reads each weight from the file once, as it reads
// any external-data model; the assembled model holds only the graph's structure. Initializers that already
// name external data keep their references, so external-data models load as before. When ORT is given a
// folder above the model's (a hub snapshot's repository folder, whose blobs/ the snapshot's files link
// into: ORT refuses data that resolves outside the folder it is given), every reference is named from there.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "graph_rewrite.h"
#include "graph_view.h"

namespace mlrb::graph {

// The mapped model file the graph's spans point into, and the name ORT finds it by in the folder it is
// given; no name: the weights stay inline (see WeightsPlacement in ort/rewritten_session.cc).
// `folder_in_root`: where the model's folder lies inside the folder ORT is given, which the model's own
// external-data locations are then named from; empty when ORT is given the model's folder itself.
struct ModelFile {
  Bytes bytes;
  std::optional<std::string> name;
  std::string folder_in_root;
};

// Inline weights smaller than this stay inline: shape constants, scales and biases that ORT's optimizers and
// shape inference read, whose copies cost nothing.
inline constexpr uint64_t kExternalizeMinBytes = 4096;

// `graph`'s fields with every initializer whose raw_data lies in `file` and holds at least
// kExternalizeMinBytes rewritten as a reference into the file, every existing external-data location named
// from `file.folder_in_root`; every other field verbatim.
[[nodiscard]] Pieces with_external_weights(const GraphView& graph, const ModelFile& file);

// Whether some initializer of the graph already keeps its data in an external file.
[[nodiscard]] bool has_external_data(const GraphView& graph);

}  // namespace mlrb::graph
