//===- attention_kernel.cu - the fused attention kernels alone ------------===//
//
// Times the runtime's fused attention kernels (lib/Runtime/kernels/
// Attention.cu, compiled into this program) at the shapes the benchmark
// models give them, one CUDA graph of 20 launches replayed, so that launch
// overhead is not what is measured. bench/attention_kernel.sh builds it
// with nvcc and prints PyTorch's scaled_dot_product_attention at the same
// shapes beside it (bench/attention_kernel_torch.py).
//
// Output: one line per shape, "NAME us_per_call".
//
//===----------------------------------------------------------------------===//

#include "../lib/Runtime/kernels/Attention.cu"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

struct Shape {
  const char *name;
  int batch, heads, kvHeads, queries, keys, width;
  bool causal;
  int elementBytes; // 4: f32, 2: bf16
};

// The attention of the benchmark models (bench/plain_models.py), per layer,
// and one larger shape where the kernel is not latency-bound.
const Shape kShapes[] = {
    {"gpt2_64_f32", 1, 12, 12, 64, 64, 64, true, 4},
    {"gpt2_64_bf16", 1, 12, 12, 64, 64, 64, true, 2},
    {"gpt2_512_f32", 1, 12, 12, 512, 512, 64, true, 4},
    {"gpt2_512_bf16", 1, 12, 12, 512, 512, 64, true, 2},
    {"bert_128_f32", 1, 12, 12, 128, 128, 64, false, 4},
    {"llama_128_f32", 1, 16, 4, 128, 128, 64, true, 4},
    {"llama_128_bf16", 1, 16, 4, 128, 128, 64, true, 2},
    {"large_4x16x2048_bf16", 4, 16, 16, 2048, 2048, 64, false, 2},
};

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t error = (call);                                                \
    if (error != cudaSuccess) {                                                \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,       \
                   cudaGetErrorString(error));                                 \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

using Kernel = void (*)(gpAttentionParams);

Kernel kernelFor(const Shape &shape) {
  if (shape.width != 64)
    return nullptr;
  return shape.elementBytes == 4 ? gp_attention_f32_d64
                                 : gp_attention_bf16_d64;
}

/// Contiguous [batch, heads, rows, width] strides.
void contiguous(int64_t (&stride)[4], int heads, int rows, int width) {
  stride[3] = 1;
  stride[2] = width;
  stride[1] = int64_t(rows) * width;
  stride[0] = int64_t(heads) * rows * width;
}

void *randomBuffer(size_t elements, int elementBytes, std::mt19937 &random) {
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<unsigned char> host(elements * elementBytes);
  for (size_t i = 0; i < elements; ++i) {
    float value = uniform(random);
    if (elementBytes == 4) {
      std::memcpy(&host[4 * i], &value, 4);
    } else {
      unsigned bits;
      std::memcpy(&bits, &value, 4);
      unsigned short top = static_cast<unsigned short>(bits >> 16);
      std::memcpy(&host[2 * i], &top, 2);
    }
  }
  void *device = nullptr;
  CHECK(cudaMalloc(&device, host.size()));
  CHECK(cudaMemcpy(device, host.data(), host.size(), cudaMemcpyHostToDevice));
  return device;
}

double timeShape(const Shape &shape, int rounds) {
  std::mt19937 random(7);
  gpAttentionParams p = {};
  size_t qElements = size_t(shape.batch) * shape.heads * shape.queries *
                     shape.width;
  size_t kvElements = size_t(shape.batch) * shape.kvHeads * shape.keys *
                      shape.width;
  p.q = randomBuffer(qElements, shape.elementBytes, random);
  p.k = randomBuffer(kvElements, shape.elementBytes, random);
  p.v = randomBuffer(kvElements, shape.elementBytes, random);
  CHECK(cudaMalloc(&p.out, qElements * shape.elementBytes));
  contiguous(p.qStride, shape.heads, shape.queries, shape.width);
  contiguous(p.kStride, shape.kvHeads, shape.keys, shape.width);
  contiguous(p.vStride, shape.kvHeads, shape.keys, shape.width);
  contiguous(p.outStride, shape.heads, shape.queries, shape.width);
  p.batch = shape.batch;
  p.heads = shape.heads;
  p.kvHeads = shape.kvHeads;
  p.queries = shape.queries;
  p.keys = shape.keys;
  p.headDim = p.valueDim = shape.width;
  p.maskKind = GP_ATTENTION_MASK_NONE;
  p.causal = shape.causal;
  p.zeroFullyMasked = 1;
  p.scale = 1.0f / std::sqrt(float(shape.width));

  Kernel kernel = kernelFor(shape);
  int shared = GP_ATTENTION_SHARED_BYTES(64);
  dim3 grid((shape.queries + GP_ATTENTION_ROWS - 1) / GP_ATTENTION_ROWS,
            shape.heads, shape.batch);
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  kernel<<<grid, GP_ATTENTION_THREADS, shared, stream>>>(p);
  CHECK(cudaGetLastError());
  CHECK(cudaStreamSynchronize(stream));

  constexpr int kLaunches = 20;
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < kLaunches; ++i)
    kernel<<<grid, GP_ATTENTION_THREADS, shared, stream>>>(p);
  CHECK(cudaStreamEndCapture(stream, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int i = 0; i < 5; ++i)
    CHECK(cudaGraphLaunch(exec, stream));
  CHECK(cudaStreamSynchronize(stream));

  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::vector<double> perCall;
  for (int round = 0; round < rounds; ++round) {
    CHECK(cudaEventRecord(start, stream));
    for (int i = 0; i < 10; ++i)
      CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaEventRecord(stop, stream));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    perCall.push_back(1000.0 * ms / (10 * kLaunches));
  }
  std::sort(perCall.begin(), perCall.end());
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaStreamDestroy(stream));
  for (const void *buffer : {p.q, p.k, p.v, static_cast<const void *>(p.out)})
    CHECK(cudaFree(const_cast<void *>(buffer)));
  return perCall[perCall.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  int rounds = argc > 1 ? std::atoi(argv[1]) : 21;
  CHECK(cudaFuncSetAttribute(gp_attention_f32_d64,
                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                             GP_ATTENTION_SHARED_BYTES(64)));
  CHECK(cudaFuncSetAttribute(gp_attention_bf16_d64,
                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                             GP_ATTENTION_SHARED_BYTES(64)));
  for (const Shape &shape : kShapes)
    std::printf("%s %.2f\n", shape.name, timeShape(shape, rounds));
  return 0;
}
