#include "rewrite_passes.h"

#include "cpu_fusion.h"
#include "decode_cache.h"
#include "last_block_rows.h"
#include "lm_head_slice.h"

namespace mlrb::graph {

std::span<const RewritePass* const> load_time_passes() {
  static const RewritePass* const kPasses[] = {
      &kCpuFusionPass,       // attention blocks -> one fused ai.mlrb node each
      &kSliceLmHeadPass,     // the LM head runs on the scored positions only
      &kPruneLastBlockPass,  // so does the last block (needs both above)
      &kDecodeCachePass,     // fused attention keeps a no-past graph's keys and values while it generates
  };
  return kPasses;
}

}  // namespace mlrb::graph
