//===- Attention.cu - fused attention kernels ----------------------------===//
//
// softmax(scale * q k^T + mask) v in one kernel (gp::attention), instead of
// a matmul, a scale, a mask, a softmax and a second matmul: the score matrix
// (queries x keys per head) never goes to memory, and one launch replaces
// five. Flash-attention style: a block owns GP_ATTENTION_ROWS query rows and
// walks the keys a tile at a time, keeping a running row maximum and sum
// (the online softmax) and the output rows in registers, all in f32.
//
// Plain FMAs, no tensor cores: TF32 would not match the f32 reference, and
// the f16/bf16 kernels accumulate in f32 the same way. The kernels are
// built into a fatbin (lib/Runtime/CMakeLists.txt), embedded in the runtime
// and loaded with the driver API by their extern "C" names.
//
// Key splits: a block has GP_ATTENTION_SPLITS groups of 128 threads; split
// s walks key tiles s, s + SPLITS, ... for all the block's rows, with its
// own k, v and p tiles and barriers of its own (named barriers: the splits
// walk different numbers of tiles), and the first split merges the others'
// maxima, sums and outputs at the end. Models give few blocks (GPT-2 at 64
// tokens: 24 on 132 multiprocessors) and each block's time is its walk, so
// two splits halve the walk: 0.82-0.92x the time of one split at the
// benchmark models' shapes (H100, bench/attention_kernel.sh), but 1.19x on
// a grid of thousands of blocks (4 x 16 heads x 2048 queries), where fewer
// warps fit a multiprocessor.
//
// Thread layout of a split (128 threads, 32 rows, 32 keys per tile):
// thread t serves rows t/8 and t/8 + 16; its 8 scores of a tile are keys
// t%8 + 8*jj, so the 8 threads of a row reduce its maximum and sum with 3
// shuffles; its output columns are 4*(t%8) + 32*cg + 0..3, read from v as
// float4. Tiles are read with 16-byte loads where the layout allows
// (VectorTile), and the next tile's k and v are loaded while this one is
// computed.
//
// Shared memory (exactly GP_ATTENTION_SHARED_BYTES(D), f32): q [32][D],
// then per split k [32][D], v [32][D] and the probabilities p transposed,
// [key][36]. q and k are read as float4 along the head dimension by rows
// that share banks, so their 16-byte chunks are XOR-swizzled by row instead
// of padded (chunk c of row r is stored at chunk c ^ (r & 7)); v is read by
// whole rows and needs neither; p's row stride of 36 keeps its scattered
// stores and its reads free of bank conflicts.
//
//===----------------------------------------------------------------------===//

#include "AttentionParams.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace {

constexpr int kRows = GP_ATTENTION_ROWS;
constexpr int kKeys = GP_ATTENTION_KEYS;
constexpr int kThreads = GP_ATTENTION_SPLIT_THREADS; // of one key split
constexpr int kSplits = GP_ATTENTION_SPLITS;
constexpr int kPStride = kRows + 4;

static_assert(kRows == 32 && kKeys == 32 && kThreads == 128,
              "the thread layout below is written for these tiles");
static_assert(kSplits >= 1 && kSplits * kThreads <= 1024, "key splits");

extern __shared__ float4 gpAttentionShared[];

/// How an element is loaded: 16-bit types as their bits, then widened, with
/// plain loads that the compiler schedules like any other (the __half and
/// __nv_bfloat16 overloads of __ldg are inline assembly).
template <typename T> struct Element;
template <> struct Element<float> {
  using Bits = float;
  static __device__ __forceinline__ float widen(float x) { return x; }
};
template <> struct Element<__half> {
  using Bits = unsigned short;
  static __device__ __forceinline__ float widen(unsigned short x) {
    return __half2float(__ushort_as_half(x));
  }
};
template <> struct Element<__nv_bfloat16> {
  using Bits = unsigned short;
  static __device__ __forceinline__ float widen(unsigned short x) {
    return __bfloat162float(__ushort_as_bfloat16(x));
  }
};

/// Element `offset` of `base`, an array of T, as f32.
template <typename T>
__device__ __forceinline__ float loadFloat(const void *base, int64_t offset) {
  using Bits = typename Element<T>::Bits;
  return Element<T>::widen(static_cast<const Bits *>(base)[offset]);
}

template <typename T> __device__ __forceinline__ T fromFloat(float x);
template <> __device__ __forceinline__ float fromFloat<float>(float x) {
  return x;
}
template <> __device__ __forceinline__ __half fromFloat<__half>(float x) {
  return __float2half_rn(x);
}
template <>
__device__ __forceinline__ __nv_bfloat16 fromFloat<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}

/// Where element (row, col) of a swizzled [32][D] tile lives.
template <int D> __device__ __forceinline__ int swizzled(int row, int col) {
  return row * D + ((((col >> 2) ^ (row & 7)) << 2) | (col & 3));
}

/// Loads 32 rows of D columns from `base` (row 0 of the tile) into `tile`
/// as f32, zero past `rows` and `cols` so that the padding adds nothing to
/// the dot products and the output. Each thread keeps one column (D divides
/// the block), so the column's offset and validity are computed once, and
/// a warp reads consecutive columns: coalesced when the column stride is 1,
/// correct for any stride.
template <typename T, int D, bool Swizzle>
__device__ __forceinline__ void loadTile(float *tile, const T *base,
                                         int64_t rowStride, int64_t colStride,
                                         int rows, int cols, int tid) {
  using Bits = typename Element<T>::Bits;
  constexpr int kRowStep = kThreads / D;
  constexpr int kLoads = kRows / kRowStep;
  const int col = tid % D;
  const int firstRow = tid / D;
  const bool colValid = col < cols;
  const Bits *src =
      reinterpret_cast<const Bits *>(base) + (colValid ? col * colStride : 0);
  // Loads first, then the stores, kBatch at a time: that many loads are in
  // flight at once, in registers that the width-128 kernels can spare.
  constexpr int kBatch = kLoads < 8 ? kLoads : 8;
#pragma unroll
  for (int first = 0; first < kLoads; first += kBatch) {
    Bits bits[kBatch];
#pragma unroll
    for (int it = 0; it < kBatch; ++it) {
      const int row = firstRow + (first + it) * kRowStep;
      bits[it] = colValid && row < rows ? src[row * rowStride] : Bits(0);
    }
#pragma unroll
    for (int it = 0; it < kBatch; ++it) {
      const int row = firstRow + (first + it) * kRowStep;
      tile[Swizzle ? swizzled<D>(row, col) : row * D + col] =
          Element<T>::widen(bits[it]);
    }
  }
}

/// A 32-row tile read with 16-byte loads, for the common layout: columns
/// contiguous (stride 1), every row 16-byte aligned, all D columns present.
/// One thread's chunks are loaded by `load` and written to shared memory as
/// f32 by `store`, so that the loads of several tiles can be in flight
/// together before any of them is waited for (a tile of 32 rows costs one
/// memory latency instead of one per 8 elements a thread reads).
template <typename T, int D> struct VectorTile {
  static constexpr int kPerChunk = 16 / sizeof(T); // elements per load
  static constexpr int kChunksPerRow = D / kPerChunk;
  static constexpr int kPerThread = kRows * kChunksPerRow / kThreads;
  static_assert(kPerThread >= 1 && kRows * kChunksPerRow % kThreads == 0,
                "every thread loads whole chunks");
  uint4 chunks[kPerThread];

  /// Whether a tile at `base` (and at every multiple of 32 rows after it)
  /// can be read this way. Block-uniform: the arguments are the kernel's.
  static __device__ __forceinline__ bool
  fits(const void *base, int64_t rowStride, int64_t colStride, int cols) {
    return colStride == 1 && cols == D && rowStride % kPerChunk == 0 &&
           (reinterpret_cast<uintptr_t>(base) & 15) == 0;
  }

  __device__ __forceinline__ void load(const T *base, int64_t rowStride,
                                       int rows, int tid) {
#pragma unroll
    for (int it = 0; it < kPerThread; ++it) {
      const int index = tid + it * kThreads;
      const int row = index / kChunksPerRow;
      const int chunk = index % kChunksPerRow;
      chunks[it] = row < rows ? *reinterpret_cast<const uint4 *>(
                                    base + row * rowStride + chunk * kPerChunk)
                              : make_uint4(0, 0, 0, 0);
    }
  }

  template <bool Swizzle>
  __device__ __forceinline__ void store(float *tile, int tid) const {
    float4 *tile4 = reinterpret_cast<float4 *>(tile);
#pragma unroll
    for (int it = 0; it < kPerThread; ++it) {
      const int index = tid + it * kThreads;
      const int row = index / kChunksPerRow;
      const int chunk = index % kChunksPerRow;
      // f32 chunk c of a row: 4 elements, float4 slot c; a 16-bit chunk
      // holds 8 elements, float4 slots 2c and 2c + 1.
      constexpr int kSlots = kPerChunk / 4;
      float values[kPerChunk];
      if constexpr (sizeof(T) == 4) {
        values[0] = __uint_as_float(chunks[it].x);
        values[1] = __uint_as_float(chunks[it].y);
        values[2] = __uint_as_float(chunks[it].z);
        values[3] = __uint_as_float(chunks[it].w);
      } else {
        const unsigned words[4] = {chunks[it].x, chunks[it].y, chunks[it].z,
                                   chunks[it].w};
#pragma unroll
        for (int w = 0; w < 4; ++w) {
          values[2 * w] = Element<T>::widen(
              static_cast<unsigned short>(words[w] & 0xffffu));
          values[2 * w + 1] =
              Element<T>::widen(static_cast<unsigned short>(words[w] >> 16));
        }
      }
#pragma unroll
      for (int slot = 0; slot < kSlots; ++slot) {
        const int logical = chunk * kSlots + slot;
        const int stored = Swizzle ? logical ^ (row & 7) : logical;
        tile4[row * (D / 4) + stored] =
            make_float4(values[4 * slot], values[4 * slot + 1],
                        values[4 * slot + 2], values[4 * slot + 3]);
      }
    }
  }
};

/// The mask's addends of N scores at `offsets` (0 for a bool mask), and
/// for a bool mask, bit n of `keep` cleared where it removes score n (which
/// removes rather than adds, so that a NaN score it removes does not
/// survive). Scores whose bit is already clear are not read.
template <typename T, int N>
__device__ __forceinline__ void fetchMasks(const gpAttentionParams &p,
                                           const int64_t (&offsets)[N],
                                           unsigned &keep, float (&adds)[N]) {
#pragma unroll
  for (int n = 0; n < N; ++n)
    adds[n] = 0.0f;
  switch (p.maskKind) {
  case GP_ATTENTION_MASK_BOOL: {
    const auto *mask = static_cast<const unsigned char *>(p.mask);
    unsigned char values[N];
#pragma unroll
    for (int n = 0; n < N; ++n)
      values[n] = keep & (1u << n) ? mask[offsets[n]] : 1;
#pragma unroll
    for (int n = 0; n < N; ++n)
      if (values[n] == 0)
        keep &= ~(1u << n);
    break;
  }
  case GP_ATTENTION_MASK_ADD_SAME:
#pragma unroll
    for (int n = 0; n < N; ++n)
      if (keep & (1u << n))
        adds[n] = loadFloat<T>(p.mask, offsets[n]);
    break;
  case GP_ATTENTION_MASK_ADD_F32:
#pragma unroll
    for (int n = 0; n < N; ++n)
      if (keep & (1u << n))
        adds[n] = loadFloat<float>(p.mask, offsets[n]);
    break;
  default:
    break;
  }
}

/// A barrier of one key split's threads: the splits walk different numbers
/// of tiles, so a block-wide barrier in the walk would deadlock. Named
/// barriers 1.. (0 is __syncthreads's).
__device__ __forceinline__ void splitBarrier(int split) {
  if constexpr (kSplits == 1)
    __syncthreads();
  else
    asm volatile("bar.sync %0, %1;" ::"r"(split + 1), "r"(kThreads) : "memory");
}

template <typename T, int D>
__device__ __forceinline__ void attention(const gpAttentionParams &p) {
  static_assert(D % 32 == 0 && kThreads % D == 0, "unsupported width");
  static_assert((kRows * D + kSplits * (2 * kKeys * D + kKeys * kPStride)) *
                        4 <=
                    GP_ATTENTION_SHARED_BYTES(D),
                "the tiles must fit what the host passes");
  constexpr int kChunks = D / 4;     // float4 chunks of a tile row
  constexpr int kColGroups = D / 32; // float4 output chunks per row, thread

  // This thread's key split, and its index within the split.
  const int split = threadIdx.x / kThreads;
  const int tid = threadIdx.x % kThreads;
  float *qTile = reinterpret_cast<float *>(gpAttentionShared);
  float *kTile = qTile + kRows * D + split * (2 * kKeys * D + kKeys * kPStride);
  float *vTile = kTile + kKeys * D;
  float *pTile = vTile + kKeys * D; // [key][row], row stride kPStride
  const float4 *q4 = reinterpret_cast<const float4 *>(qTile);
  const float4 *k4 = reinterpret_cast<const float4 *>(kTile);
  const float4 *v4 = reinterpret_cast<const float4 *>(vTile);

  const int lane8 = tid & 7;
  const int rows[2] = {tid >> 3, (tid >> 3) + 16};
  // rows[0] & 7 == rows[1] & 7: one swizzle serves both q rows, and lane8
  // is the swizzle of all of this thread's k rows (lane8 + 8 * jj).
  const int qSwizzle = rows[0] & 7;

  const int q0 = blockIdx.x * kRows;
  const int head = blockIdx.y;
  const int batch = blockIdx.z;
  const int group =
      p.kvHeads > 0 && p.heads >= p.kvHeads ? p.heads / p.kvHeads : 1;
  const int kvHead = head / group;
  const int rowsHere = min(kRows, p.queries - q0);

  const T *q = static_cast<const T *>(p.q) + batch * p.qStride[0] +
               head * p.qStride[1] + q0 * p.qStride[2];
  const T *k = static_cast<const T *>(p.k) + batch * p.kStride[0] +
               kvHead * p.kStride[1];
  const T *v = static_cast<const T *>(p.v) + batch * p.vStride[0] +
               kvHead * p.vStride[1];
  using Tile = VectorTile<T, D>;
  // The first split loads q for all.
  if (split == 0) {
    if (Tile::fits(q, p.qStride[2], p.qStride[3], p.headDim)) {
      Tile qChunks;
      qChunks.load(q, p.qStride[2], rowsHere, tid);
      qChunks.template store<true>(qTile, tid);
    } else {
      loadTile<T, D, true>(qTile, q, p.qStride[2], p.qStride[3], rowsHere,
                           p.headDim, tid);
    }
  }
  const bool vectorKeys =
      Tile::fits(k, p.kStride[2], p.kStride[3], p.headDim) &&
      Tile::fits(v, p.vStride[2], p.vStride[3], p.valueDim);

  float rowMax[2] = {-INFINITY, -INFINITY};
  float rowSum[2] = {0.0f, 0.0f}; // this thread's part; reduced at the end
  float4 acc[2][kColGroups];
#pragma unroll
  for (int r = 0; r < 2; ++r)
#pragma unroll
    for (int cg = 0; cg < kColGroups; ++cg)
      acc[r][cg] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);

  // Causal: keys past the block's last row are removed for all its rows.
  const int keyEnd = p.causal ? min(p.keys, q0 + rowsHere) : p.keys;
  // With 16-byte loads and both tiles in at most 32 registers, the next
  // tile's k and v are loaded while this tile's scores and outputs are
  // computed (software pipelining): its memory latency is hidden behind the
  // arithmetic instead of coming before it, once per tile.
  const bool prefetch = vectorKeys && Tile::kPerThread <= 4;
  Tile kNext, vNext;
  const int first = split * kKeys;
  constexpr int kStep = kSplits * kKeys;
  if (prefetch && first < keyEnd) {
    kNext.load(k + first * p.kStride[2], p.kStride[2],
               min(kKeys, p.keys - first), tid);
    vNext.load(v + first * p.vStride[2], p.vStride[2],
               min(kKeys, p.keys - first), tid);
  }
  __syncthreads(); // q is in shared memory, for every split
  for (int k0 = first; k0 < keyEnd; k0 += kStep) {
    const int keysHere = min(kKeys, p.keys - k0);
    // The previous tile's readers of k, v and p passed the barrier at the
    // end of the loop, so the tiles may be overwritten.
    if (prefetch) {
      kNext.template store<true>(kTile, tid);
      vNext.template store<false>(vTile, tid);
      const int next = k0 + kStep;
      if (next < keyEnd) {
        kNext.load(k + next * p.kStride[2], p.kStride[2],
                   min(kKeys, p.keys - next), tid);
        vNext.load(v + next * p.vStride[2], p.vStride[2],
                   min(kKeys, p.keys - next), tid);
      }
    } else if (vectorKeys) {
      Tile chunks;
      chunks.load(k + k0 * p.kStride[2], p.kStride[2], keysHere, tid);
      chunks.template store<true>(kTile, tid);
      chunks.load(v + k0 * p.vStride[2], p.vStride[2], keysHere, tid);
      chunks.template store<false>(vTile, tid);
    } else {
      loadTile<T, D, true>(kTile, k + k0 * p.kStride[2], p.kStride[2],
                           p.kStride[3], keysHere, p.headDim, tid);
      loadTile<T, D, false>(vTile, v + k0 * p.vStride[2], p.vStride[2],
                            p.vStride[3], keysHere, p.valueDim, tid);
    }

    // Which scores are removed (a bit each), and the mask's addends, which
    // wait in this thread's own slots of p (no other thread reads them):
    // fetched before the barrier so that their latency overlaps the tile
    // loads', all 8 loads issued before any is used (one switch on the
    // kind outside them, not one per element, which made the loads wait
    // for each other), and out of registers during the dot products.
    unsigned keep = 0; // bit 4 * r + jj: score (rows[r], lane8 + 8 * jj)
    int64_t offsets[8];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int i = q0 + rows[r];
      const int64_t maskRow = batch * p.maskStride[0] + head * p.maskStride[1] +
                              i * p.maskStride[2];
#pragma unroll
      for (int jj = 0; jj < 4; ++jj) {
        const int j = k0 + lane8 + 8 * jj;
        if (i < p.queries && j < p.keys && !(p.causal && j > i))
          keep |= 1u << (4 * r + jj);
        offsets[4 * r + jj] = maskRow + j * p.maskStride[3];
      }
    }
    float adds[8];
    fetchMasks<T, 8>(p, offsets, keep, adds);
#pragma unroll
    for (int r = 0; r < 2; ++r)
#pragma unroll
      for (int jj = 0; jj < 4; ++jj)
        pTile[(lane8 + 8 * jj) * kPStride + rows[r]] = adds[4 * r + jj];
    splitBarrier(split); // k and v are in shared memory

    // Scores. Logical chunk 8 * m + kk of a row is stored at 8 * m +
    // (kk ^ swizzle): one address per kk serves every m, as an offset.
    // Unrolled fully, the loads the compiler hoists push the width-128
    // kernels past 128 registers (spills).
    float s[2][4] = {};
#pragma unroll 4
    for (int kk = 0; kk < 8; ++kk) {
      const float4 *qRow = q4 + rows[0] * kChunks + (kk ^ qSwizzle);
      const float4 *kRow = k4 + lane8 * kChunks + (kk ^ lane8);
#pragma unroll
      for (int m = 0; m < kChunks / 8; ++m) {
        const float4 qa = qRow[8 * m];
        const float4 qb = qRow[16 * kChunks + 8 * m];
#pragma unroll
        for (int jj = 0; jj < 4; ++jj) {
          const float4 kv = kRow[8 * jj * kChunks + 8 * m];
          s[0][jj] = fmaf(qa.x, kv.x, s[0][jj]);
          s[0][jj] = fmaf(qa.y, kv.y, s[0][jj]);
          s[0][jj] = fmaf(qa.z, kv.z, s[0][jj]);
          s[0][jj] = fmaf(qa.w, kv.w, s[0][jj]);
          s[1][jj] = fmaf(qb.x, kv.x, s[1][jj]);
          s[1][jj] = fmaf(qb.y, kv.y, s[1][jj]);
          s[1][jj] = fmaf(qb.z, kv.z, s[1][jj]);
          s[1][jj] = fmaf(qb.w, kv.w, s[1][jj]);
        }
      }
    }

    // Online softmax. A removed score is -inf and gets p = 0 whatever the
    // maximum (no -inf - -inf); an additive -inf lands in the same place.
    // fmaxf skips NaN, but a NaN score's p is NaN and reaches the sum and
    // the output. The rescale is 1 when the maximum did not move (also when
    // it stays -inf), exp(old - new) otherwise.
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float tileMax = -INFINITY;
#pragma unroll
      for (int jj = 0; jj < 4; ++jj) {
        const float add = pTile[(lane8 + 8 * jj) * kPStride + rows[r]];
        s[r][jj] = keep & (1u << (4 * r + jj))
                       ? __fmul_rn(s[r][jj], p.scale) + add
                       : -INFINITY;
        tileMax = fmaxf(tileMax, s[r][jj]);
      }
      tileMax = fmaxf(tileMax, __shfl_xor_sync(0xffffffffu, tileMax, 1));
      tileMax = fmaxf(tileMax, __shfl_xor_sync(0xffffffffu, tileMax, 2));
      tileMax = fmaxf(tileMax, __shfl_xor_sync(0xffffffffu, tileMax, 4));
      const float newMax = fmaxf(rowMax[r], tileMax);
      const float rescale =
          rowMax[r] == newMax ? 1.0f : expf(rowMax[r] - newMax);
      rowMax[r] = newMax;
      float sum = 0.0f;
#pragma unroll
      for (int jj = 0; jj < 4; ++jj) {
        const float pj = s[r][jj] == -INFINITY ? 0.0f : expf(s[r][jj] - newMax);
        sum += pj;
        pTile[(lane8 + 8 * jj) * kPStride + rows[r]] = pj;
      }
      rowSum[r] = rowSum[r] * rescale + sum;
#pragma unroll
      for (int cg = 0; cg < kColGroups; ++cg) {
        acc[r][cg].x *= rescale;
        acc[r][cg].y *= rescale;
        acc[r][cg].z *= rescale;
        acc[r][cg].w *= rescale;
      }
    }
    splitBarrier(split); // p is in shared memory

    // Output rows += p v. Padded keys have p = 0 and zero v rows.
#pragma unroll 8
    for (int j = 0; j < kKeys; ++j) {
      const float pa = pTile[j * kPStride + rows[0]];
      const float pb = pTile[j * kPStride + rows[1]];
#pragma unroll
      for (int cg = 0; cg < kColGroups; ++cg) {
        const float4 vv = v4[j * kChunks + lane8 + 8 * cg];
        acc[0][cg].x = fmaf(pa, vv.x, acc[0][cg].x);
        acc[0][cg].y = fmaf(pa, vv.y, acc[0][cg].y);
        acc[0][cg].z = fmaf(pa, vv.z, acc[0][cg].z);
        acc[0][cg].w = fmaf(pa, vv.w, acc[0][cg].w);
        acc[1][cg].x = fmaf(pb, vv.x, acc[1][cg].x);
        acc[1][cg].y = fmaf(pb, vv.y, acc[1][cg].y);
        acc[1][cg].z = fmaf(pb, vv.z, acc[1][cg].z);
        acc[1][cg].w = fmaf(pb, vv.w, acc[1][cg].w);
      }
    }
    splitBarrier(split); // k, v and p are free for the next tile
  }

  // Each row's sum over the 8 threads that share it.
  float rowTotal[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float sum = rowSum[r];
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    sum += __shfl_xor_sync(0xffffffffu, sum, 2);
    sum += __shfl_xor_sync(0xffffffffu, sum, 4);
    rowTotal[r] = sum;
  }
  if constexpr (kSplits > 1) {
    // The other splits' maxima, sums and outputs, through their own k and
    // v tiles (which they no longer read), field-major so that the 128
    // threads of a split touch consecutive words; the first split scales
    // each to the larger maximum and adds it to its own.
    constexpr int kFields = 4 + 8 * kColGroups;
    static_assert(kFields * kThreads <= 2 * kKeys * D, "merge area");
    float *mine = kTile;
    if (split > 0) {
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        mine[(2 * r) * kThreads + tid] = rowMax[r];
        mine[(2 * r + 1) * kThreads + tid] = rowTotal[r];
#pragma unroll
        for (int cg = 0; cg < kColGroups; ++cg) {
          float *at = mine + (4 + 8 * cg + 4 * r) * kThreads + tid;
          at[0] = acc[r][cg].x;
          at[kThreads] = acc[r][cg].y;
          at[2 * kThreads] = acc[r][cg].z;
          at[3 * kThreads] = acc[r][cg].w;
        }
      }
    }
    __syncthreads(); // every split's partial result is in shared memory
    if (split > 0)
      return;
#pragma unroll
    for (int other = 1; other < kSplits; ++other) {
      const float *theirs =
          qTile + kRows * D + other * (2 * kKeys * D + kKeys * kPStride);
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const float theirMax = theirs[(2 * r) * kThreads + tid];
        const float theirSum = theirs[(2 * r + 1) * kThreads + tid];
        // 1 where a maximum is the larger (or both are -inf: nothing was
        // added on either side), else exp(old - new); a NaN stays NaN.
        const float newMax = fmaxf(rowMax[r], theirMax);
        const float mineScale =
            rowMax[r] == newMax ? 1.0f : expf(rowMax[r] - newMax);
        const float theirScale =
            theirMax == newMax ? 1.0f : expf(theirMax - newMax);
        rowMax[r] = newMax;
        rowTotal[r] = rowTotal[r] * mineScale + theirSum * theirScale;
#pragma unroll
        for (int cg = 0; cg < kColGroups; ++cg) {
          const float *at = theirs + (4 + 8 * cg + 4 * r) * kThreads + tid;
          acc[r][cg].x = acc[r][cg].x * mineScale + at[0] * theirScale;
          acc[r][cg].y = acc[r][cg].y * mineScale + at[kThreads] * theirScale;
          acc[r][cg].z =
              acc[r][cg].z * mineScale + at[2 * kThreads] * theirScale;
          acc[r][cg].w =
              acc[r][cg].w * mineScale + at[3 * kThreads] * theirScale;
        }
      }
    }
  }

  T *out =
      static_cast<T *>(p.out) + batch * p.outStride[0] + head * p.outStride[1];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const float sum = rowTotal[r];
    const int i = q0 + rows[r];
    if (i >= p.queries)
      continue;
    // Every score removed: nothing was added (sum 0, maximum still -inf).
    // A NaN score leaves a NaN sum instead, and so a NaN row.
    const bool empty = rowMax[r] == -INFINITY && sum == 0.0f;
    const float fill = p.zeroFullyMasked ? 0.0f : __int_as_float(0x7fc00000);
    T *row = out + i * p.outStride[2];
#pragma unroll
    for (int cg = 0; cg < kColGroups; ++cg) {
      const float values[4] = {acc[r][cg].x, acc[r][cg].y, acc[r][cg].z,
                               acc[r][cg].w};
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int col = 4 * lane8 + 32 * cg + e;
        if (col < p.valueDim)
          row[col * p.outStride[3]] =
              fromFloat<T>(empty ? fill : values[e] / sum);
      }
    }
  }
}

} // namespace

/// Blocks per multiprocessor that the registers must leave room for, given
/// as blocks of one key split (128 threads). Left alone, the compiler gives
/// these kernels 200 to 255 registers; these are the fewest at which ptxas
/// spills nothing for sm_80 and sm_90 (-Xptxas -v): 150 to 200 at widths 64
/// and 128 (f32 tiles read with 16-byte loads hold twice the registers of
/// 16-bit ones in flight), 112 to 122 at width 32. A block of several splits
/// fits as many times fewer.
constexpr int minSplitBlocks(int width, int elementBytes) {
  if (width == 128)
    return elementBytes == 4 ? 3 : 2;
  if (width == 64)
    return 3;
  return 5;
}

constexpr int minBlocks(int width, int elementBytes) {
  return minSplitBlocks(width, elementBytes) / kSplits > 0
             ? minSplitBlocks(width, elementBytes) / kSplits
             : 1;
}

#define GP_ATTENTION_KERNEL(NAME, T, D)                                        \
  extern "C" __global__ void __launch_bounds__(GP_ATTENTION_THREADS,           \
                                               minBlocks(D, sizeof(T)))        \
      gp_attention_##NAME##_d##D(gpAttentionParams p) {                        \
    attention<T, D>(p);                                                        \
  }

GP_ATTENTION_KERNEL(f32, float, 32)
GP_ATTENTION_KERNEL(f32, float, 64)
GP_ATTENTION_KERNEL(f32, float, 128)
GP_ATTENTION_KERNEL(f16, __half, 32)
GP_ATTENTION_KERNEL(f16, __half, 64)
GP_ATTENTION_KERNEL(f16, __half, 128)
GP_ATTENTION_KERNEL(bf16, __nv_bfloat16, 32)
GP_ATTENTION_KERNEL(bf16, __nv_bfloat16, 64)
GP_ATTENTION_KERNEL(bf16, __nv_bfloat16, 128)
