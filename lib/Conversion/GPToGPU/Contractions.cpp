//===- Contractions.cpp - matmul-class kernels become cuBLAS calls --------===//
//
// A matmul written as loops runs far below what cuBLAS reaches, so a cuda
// kernel that is one contraction becomes a call of the runtime's built-in
// `gp::matmul` extern, which runs cuBLAS on the partition's stream (and so
// is captured with it). The call takes its operands as [batch,] rows,
// columns with any strides; transposed operands become `gp.buffer.transpose`
// views, so no data moves.
//
//===----------------------------------------------------------------------===//

#include "Contractions.h"

#include "GraphPart/Conversion/ElementCodes.h"
#include "GraphPart/Runtime/GPRuntime.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::gp;

static constexpr llvm::StringLiteral kMatmulExtern = "gp::matmul";

/// The element type code `gp::matmul` takes for `type`, if it takes it
/// (cuBLAS's f32, f16 and bf16).
static std::optional<int64_t> matmulTypeCode(Type type) {
  gpRtElementType code = runtimeElementCode(type);
  if (code == GP_RT_ELEMENT_F32 || code == GP_RT_ELEMENT_F16 ||
      code == GP_RT_ELEMENT_BF16)
    return code;
  return std::nullopt;
}

/// Whether `op` is a `linalg.fill` of +0.0 into `target` (a -0.0 fill
/// would change the sign of an all -0.0 sum, so only +0.0 is an overwrite).
static bool isZeroFillOf(Operation *op, Value target) {
  auto fill = dyn_cast<linalg::FillOp>(op);
  return fill && fill.hasPureBufferSemantics() &&
         fill.getOutputs().front() == target &&
         matchPattern(fill.getInputs().front(), m_PosZeroFloat());
}

/// Whether the payload of `op` is exactly `out + in0 * in1` in floats, in
/// any operand order, with no conversions: what cuBLAS computes.
static bool hasMulAddBody(linalg::LinalgOp op) {
  Block &payload = op->getRegion(0).front();
  if (payload.getOperations().size() != 3 || payload.getNumArguments() != 3)
    return false;
  auto mul = dyn_cast<arith::MulFOp>(&payload.front());
  if (!mul)
    return false;
  auto add = dyn_cast<arith::AddFOp>(mul->getNextNode());
  auto yield = dyn_cast<linalg::YieldOp>(payload.getTerminator());
  if (!add || !yield || yield.getNumOperands() != 1 ||
      yield.getOperand(0) != add.getResult())
    return false;
  Value in0 = payload.getArgument(0), in1 = payload.getArgument(1),
        out = payload.getArgument(2);
  auto isPair = [](Value x, Value y, Value a, Value b) {
    return (x == a && y == b) || (x == b && y == a);
  };
  return isPair(mul.getLhs(), mul.getRhs(), in0, in1) &&
         isPair(add.getLhs(), add.getRhs(), out, mul.getResult());
}

/// For an operand indexed by `map`, the permutation that orders its
/// dimensions as the loop dimensions `wanted`: view dimension i is operand
/// dimension permutation[i]. None when the map is not a permutation of
/// exactly those loops.
static std::optional<SmallVector<int64_t>>
operandOrder(AffineMap map, ArrayRef<unsigned> wanted) {
  if (map.getNumResults() != wanted.size())
    return std::nullopt;
  SmallVector<int64_t> permutation;
  for (unsigned loop : wanted) {
    auto position =
        llvm::find(map.getResults(), getAffineDimExpr(loop, map.getContext()));
    if (position == map.getResults().end())
      return std::nullopt;
    permutation.push_back(position - map.getResults().begin());
  }
  return permutation;
}

/// Whether cuBLAS can take the matrices of `type` viewed in `order` (view
/// dimension i is dimension order[i]): a unit stride in one of the two
/// matrix dimensions and a leading dimension no smaller than the other's
/// extent, as the runtime's gp::matmul requires. Dynamic strides or sizes
/// are left to the runtime, which refuses bad ones with an error; static
/// ones that cannot work keep the kernel instead.
static bool cublasCanTake(MemRefType type, ArrayRef<int64_t> order) {
  auto [strides, offset] = type.getStridesAndOffset();
  size_t rank = order.size();
  int64_t rowDim = order[rank - 2], colDim = order[rank - 1];
  int64_t rows = type.getDimSize(rowDim), cols = type.getDimSize(colDim);
  int64_t rowStride = strides[rowDim], colStride = strides[colDim];
  if (llvm::any_of(ArrayRef<int64_t>{rows, cols, rowStride, colStride},
                   ShapedType::isDynamic))
    return true;
  // A dimension of extent 1 takes any stride.
  auto fits = [](int64_t unitExtent, int64_t unitStride, int64_t otherExtent,
                 int64_t otherStride) {
    return (unitStride == 1 || unitExtent == 1) &&
           (otherExtent == 1 ||
            otherStride >= std::max<int64_t>(1, unitExtent));
  };
  return fits(cols, colStride, rows, rowStride) ||
         fits(rows, rowStride, cols, colStride);
}

/// The buffer `value` is a view of, through any chain of views.
static Value baseBuffer(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// Whether `kernel` does nothing but zero-fill its one buffer `target`.
static bool isZeroFillKernelOf(KernelOp kernel, Value target) {
  if (kernel.getOutputs().size() != 1 || kernel.getOutputs().front() != target)
    return false;
  Block &body = kernel.getBody().front();
  Value output = body.getArgument(kernel.getInputs().size());
  unsigned fills = 0;
  for (Operation &op : body.without_terminator()) {
    if (isa<arith::ConstantOp>(op))
      continue;
    if (!isZeroFillOf(&op, output))
      return false;
    ++fills;
  }
  return fills == 1;
}

bool mlir::gp::lowerContractionToLibrary(KernelOp kernel) {
  Block &body = kernel.getBody().front();

  // The body: constants, at most one zero fill of the output, then the
  // contraction.
  linalg::LinalgOp contraction;
  Operation *fill = nullptr;
  for (Operation &op : body.without_terminator()) {
    if (isa<arith::ConstantOp>(op))
      continue;
    if (contraction)
      return false;
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
        linalgOp && linalg::isaContractionOpInterface(linalgOp)) {
      contraction = linalgOp;
      continue;
    }
    if (fill || !isa<linalg::FillOp>(op))
      return false;
    fill = &op;
  }
  if (!contraction || !contraction.hasPureBufferSemantics() ||
      contraction.getNumDpsInputs() != 2 || contraction.getNumDpsInits() != 1 ||
      !hasMulAddBody(contraction))
    return false;
  Value output = contraction.getDpsInitOperand(0)->get();
  if (fill && !isZeroFillOf(fill, output))
    return false;

  // One row, column and reduction loop, at most one batch loop, nothing
  // else: what one (strided-batched) GEMM computes.
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(contraction);
  if (failed(dims) || dims->batch.size() > 1 || dims->m.size() != 1 ||
      dims->n.size() != 1 || dims->k.size() != 1 ||
      contraction.getNumLoops() != dims->batch.size() + 3)
    return false;
  SmallVector<unsigned> batch(dims->batch.begin(), dims->batch.end());
  auto withBatch = [&](std::initializer_list<unsigned> loops) {
    SmallVector<unsigned> order(batch);
    order.append(loops);
    return order;
  };
  unsigned m = dims->m.front(), n = dims->n.front(), k = dims->k.front();
  SmallVector<SmallVector<unsigned>> wanted = {
      withBatch({m, k}), withBatch({k, n}), withBatch({m, n})};

  // Operands: kernel buffers of one supported element type, in strided
  // layouts, the output apart from the inputs.
  SmallVector<Value> buffers;
  SmallVector<SmallVector<int64_t>> permutations;
  std::optional<int64_t> typeCode;
  for (OpOperand &operand : contraction->getOpOperands()) {
    auto arg = dyn_cast<BlockArgument>(operand.get());
    if (!arg || arg.getOwner() != &body)
      return false;
    Value buffer = kernel->getOperand(arg.getArgNumber());
    auto type = dyn_cast<MemRefType>(buffer.getType());
    if (!type || !type.isStrided())
      return false;
    std::optional<int64_t> code = matmulTypeCode(type.getElementType());
    if (!code || (typeCode && *code != *typeCode))
      return false;
    typeCode = code;
    std::optional<SmallVector<int64_t>> permutation =
        operandOrder(contraction.getMatchingIndexingMap(&operand),
                     wanted[operand.getOperandNumber()]);
    if (!permutation || !cublasCanTake(type, *permutation))
      return false;
    buffers.push_back(buffer);
    permutations.push_back(std::move(*permutation));
  }
  Value outputBase = baseBuffer(buffers[2]);
  if (baseBuffer(buffers[0]) == outputBase ||
      baseBuffer(buffers[1]) == outputBase)
    return false;

  // A zero fill right before, in the kernel or in a kernel of its own,
  // makes the call overwrite its output instead of adding to it. Ops in
  // between that touch no memory (constants, views such as the reshapes
  // of an operand, allocations of other buffers) do not separate them.
  bool overwrite = fill != nullptr;
  Operation *previous = kernel->getPrevNode();
  while (previous && ((isPure(previous) && previous->getNumRegions() == 0) ||
                      isa<BufferAllocOp>(previous)))
    previous = previous->getPrevNode();
  auto fillKernel = dyn_cast_or_null<KernelOp>(previous);
  if (!overwrite && fillKernel && isZeroFillKernelOf(fillKernel, buffers[2])) {
    fillKernel.erase();
    overwrite = true;
  }

  OpBuilder builder(kernel);
  Location loc = kernel.getLoc();
  SmallVector<Value> args;
  for (auto [buffer, permutation] : llvm::zip(buffers, permutations)) {
    bool identity = llvm::all_of(llvm::enumerate(permutation), [](auto pair) {
      return static_cast<int64_t>(pair.index()) == pair.value();
    });
    args.push_back(
        identity ? buffer
                 : BufferTransposeOp::create(builder, loc, buffer, permutation)
                       .getResult());
  }
  args.push_back(arith::ConstantIntOp::create(builder, loc, *typeCode, 64));
  args.push_back(
      arith::ConstantIntOp::create(builder, loc, overwrite ? 0 : 1, 64));
  FallbackOp::create(builder, loc, TypeRange{}, kMatmulExtern, args,
                     builder.getDenseI64ArrayAttr({2}),
                     /*aliases=*/DenseI64ArrayAttr(),
                     /*tags=*/builder.getStrArrayAttr({}),
                     /*result_offsets=*/DenseI64ArrayAttr());
  kernel.erase();
  return true;
}
