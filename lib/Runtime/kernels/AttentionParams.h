//===- AttentionParams.h - what the fused attention kernel takes -*- C -*-===//
//
// The one argument of the fused attention kernels (kernels/Attention.cu),
// passed by value, and filled by the gp::attention extern (Attention.cpp).
// Plain C so that nvcc and the host compiler lay it out alike. Pointers
// are the first element of each buffer (descriptor offset applied), and
// strides are in elements, in the order [batch, head, row, column]; a
// stride of 0 broadcasts (a mask of fewer dimensions, or of extent 1).
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_LIB_RUNTIME_KERNELS_ATTENTIONPARAMS_H
#define GRAPHPART_LIB_RUNTIME_KERNELS_ATTENTIONPARAMS_H

#include <stdint.h>

/// How the scores are masked beside the causal mask.
enum gpAttentionMaskKind {
  GP_ATTENTION_MASK_NONE = 0,
  /// One byte per score: non-zero keeps it, zero removes it (-inf).
  GP_ATTENTION_MASK_BOOL = 1,
  /// Added to the scaled scores, of q's element type.
  GP_ATTENTION_MASK_ADD_SAME = 2,
  /// Added to the scaled scores, f32.
  GP_ATTENTION_MASK_ADD_F32 = 3,
};

/// out[b, h, i, :] = softmax_j(scale * q[b, h, i, :] . k[b, h / group, j, :]
///                             + mask[b, h, i, j]) @ v[b, h / group, :, :]
/// with group = heads / kvHeads, j > i removed when `causal` (top-left
/// alignment, as PyTorch's is_causal), and scores accumulated in f32.
typedef struct gpAttentionParams {
  const void *q, *k, *v, *mask;
  void *out;
  int64_t qStride[4], kStride[4], vStride[4], maskStride[4], outStride[4];
  int32_t batch, heads, kvHeads, queries, keys, headDim, valueDim;
  int32_t maskKind;
  int32_t causal;
  /// A row with no score left (all removed): 1 gives zeros (PyTorch's
  /// _safe_softmax, as scaled_dot_product_attention), 0 gives NaN (a
  /// plain softmax of -inf scores).
  int32_t zeroFullyMasked;
  float scale;
} gpAttentionParams;

/// Query rows and keys per block tile, and the threads of one key split:
/// a block has GP_ATTENTION_SPLITS groups of GP_ATTENTION_SPLIT_THREADS
/// threads, each walking every SPLITS-th key tile for the block's rows,
/// merged at the end (a short walk per block where few blocks fill the
/// GPU). The extern launches ceil(queries / GP_ATTENTION_ROWS) x heads x
/// batch blocks of GP_ATTENTION_THREADS threads.
#define GP_ATTENTION_ROWS 32
#define GP_ATTENTION_KEYS 32
#define GP_ATTENTION_SPLIT_THREADS 128
#ifndef GP_ATTENTION_SPLITS
#define GP_ATTENTION_SPLITS 2
#endif
#define GP_ATTENTION_THREADS (GP_ATTENTION_SPLITS * GP_ATTENTION_SPLIT_THREADS)

/// The head widths a kernel is built for: a kernel for width D takes
/// headDim and valueDim up to D. Names: gp_attention_<f32|f16|bf16>_d<D>.
#define GP_ATTENTION_WIDTHS {32, 64, 128}

/// Dynamic shared memory of the width-D kernels, in bytes: f32 tiles of q
/// (ROWS x D), shared by the splits, and per split k and v (KEYS x D each)
/// and the probabilities (KEYS x (ROWS + 4)); Attention.cu lays them out
/// (swizzled q and k, the probabilities transposed) and checks that they
/// fit.
#define GP_ATTENTION_SHARED_BYTES(D)                                           \
  ((GP_ATTENTION_ROWS * (D) +                                                  \
    GP_ATTENTION_SPLITS * (2 * GP_ATTENTION_KEYS * (D) +                       \
                           GP_ATTENTION_KEYS * (GP_ATTENTION_ROWS + 4))) *     \
   4)

#endif // GRAPHPART_LIB_RUNTIME_KERNELS_ATTENTIONPARAMS_H
