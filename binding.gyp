{
  "targets": [
    {
      "target_name": "mlrb_native",
      "sources": [
        "<!@(node -p \"const s=require('./native/sources.json'); [...s.core, ...s.ort, ...s.addon].join(' ')\")"
      ],
      "include_dirs": [
        "<!(node native/scripts/paths.cjs napi-include)",
        "<!(node native/scripts/paths.cjs ort-include)"
      ],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS", "NODE_ADDON_API_DISABLE_DEPRECATED"],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions", "-std=gnu++17"],
      # -ffp-contract=fast as in CMakeLists.txt: -std=c++20 alone would turn FMA contraction off, and the fused
      # attention must round as ONNX Runtime does (native/core/ort_cpu_rounding.h).
      "cflags_cc": ["-std=c++20", "-fexceptions", "-O3", "-ffp-contract=fast", "-Wno-psabi"],
      "libraries": ["-ldl", "-lpthread"]
    }
  ]
}
