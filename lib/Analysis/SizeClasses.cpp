//===- SizeClasses.cpp - an entry's run-time sizes ------------------------===//
//
// Sizes are terms in a union-find: one per dynamic dimension of an
// argument, per index value and per static size. A linalg op's loop ties
// together every operand dimension it indexes directly (linalg requires
// them equal), a copy ties its two sides; buffers allocated or viewed with
// a symint take that symint's term. A class is the terms of one root that
// contain an argument dimension.
//
// Padding is proven per class by looking at every use of a buffer that
// has a dimension in the class, and of every index value in it.
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Analysis/SizeClasses.h"
#include "GraphPart/Dialect/GP/IR/GPOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/EquivalenceClasses.h"

using namespace mlir;
using namespace mlir::gp;

namespace {

class SizeTerms {
public:
  unsigned fresh() {
    unsigned term = count++;
    terms.insert(term);
    return term;
  }
  unsigned constant(int64_t value) {
    auto [it, inserted] = constants.try_emplace(value, 0);
    if (inserted)
      it->second = fresh();
    return it->second;
  }
  unsigned root(unsigned term) { return terms.getLeaderValue(term); }
  void unify(unsigned a, unsigned b) { terms.unionSets(a, b); }

  /// The term of an index value: a symint's is what it names.
  unsigned ofValue(Value value) {
    if (auto it = values.find(value); it != values.end())
      return it->second;
    unsigned term;
    Operation *def = value.getDefiningOp();
    if (auto dim = dyn_cast_or_null<SymIntDimOp>(def)) {
      term = ofDim(dim.getSource(), dim.getDim());
      name(term, dim.getSymName(), dim.getMax());
    } else if (auto symint = dyn_cast_or_null<SymIntOp>(def)) {
      term = ofValue(symint.getValue());
      name(term, symint.getSymName(), symint.getMax());
    } else if (auto constant = dyn_cast_or_null<arith::ConstantIndexOp>(def)) {
      term = this->constant(constant.value());
    } else {
      term = fresh();
    }
    values[value] = term;
    return term;
  }
  bool hasValueTerm(Value value) const { return values.count(value); }

  /// The static size in `term`'s class, if there is one.
  std::optional<int64_t> constantOf(unsigned term) {
    for (auto &[value, constantTerm] : constants)
      if (root(constantTerm) == root(term))
        return value;
    return std::nullopt;
  }

  /// The term of dimension `dim` of buffer `buffer`.
  unsigned ofDim(Value buffer, int64_t dim) {
    auto type = cast<MemRefType>(buffer.getType());
    if (!type.isDynamicDim(dim))
      return constant(type.getDimSize(dim));
    auto key = std::make_pair(buffer, dim);
    if (auto it = dims.find(key); it != dims.end())
      return it->second;
    unsigned term = derivedDim(buffer, dim);
    dims[key] = term;
    return term;
  }

  std::optional<StringRef> nameOf(unsigned term) {
    for (auto &[named, text] : names)
      if (root(named) == root(term))
        return text;
    return std::nullopt;
  }

  /// The smallest `max` declared by a symint of `term`'s class, or -1.
  int64_t maximumOf(unsigned term) {
    int64_t smallest = -1;
    for (auto &[bounded, bound] : maxima)
      if (root(bounded) == root(term) && (smallest < 0 || bound < smallest))
        smallest = bound;
    return smallest;
  }

private:
  void name(unsigned term, StringRef text, std::optional<uint64_t> max) {
    names.push_back({term, text});
    if (max)
      maxima.push_back({term, static_cast<int64_t>(*max)});
  }

  /// The index value that gives dynamic dimension `dim` of an op's result
  /// whose dynamic sizes are `sizes`, in order.
  unsigned ofDynamicSize(MemRefType type, ValueRange sizes, int64_t dim) {
    int64_t before = 0;
    for (int64_t d = 0; d < dim; ++d)
      before += type.isDynamicDim(d);
    if (before >= static_cast<int64_t>(sizes.size()))
      return fresh();
    return ofValue(sizes[before]);
  }

  unsigned derivedDim(Value buffer, int64_t dim) {
    if (auto argument = dyn_cast<BlockArgument>(buffer)) {
      // A kernel's block argument is its operand.
      if (auto kernel = dyn_cast<KernelOp>(argument.getOwner()->getParentOp()))
        return ofDim(kernel->getOperand(argument.getArgNumber()), dim);
      return fresh();
    }
    auto type = cast<MemRefType>(buffer.getType());
    Operation *def = buffer.getDefiningOp();
    if (auto alloc = dyn_cast<BufferAllocOp>(def))
      return ofDynamicSize(type, alloc.getDynamicSizes(), dim);
    if (auto reshape = dyn_cast<BufferReshapeOp>(def))
      return ofDynamicSize(type, reshape.getDynamicSizes(), dim);
    if (auto transpose = dyn_cast<BufferTransposeOp>(def))
      return ofDim(transpose.getSource(), transpose.getPermutation()[dim]);
    if (auto bitcast = dyn_cast<BufferBitcastOp>(def))
      if (dim + 1 < type.getRank())
        return ofDim(bitcast.getSource(), dim);
    if (auto slice = dyn_cast<BufferSliceOp>(def)) {
      SmallVector<OpFoldResult> sizes = slice.getMixedSizes();
      if (sizes.size() == static_cast<size_t>(type.getRank())) {
        if (auto value = dyn_cast<Value>(sizes[dim]))
          return ofValue(value);
        return constant(*getConstantIntValue(sizes[dim]));
      }
    }
    return fresh();
  }

  llvm::EquivalenceClasses<unsigned> terms;
  unsigned count = 0;
  llvm::DenseMap<int64_t, unsigned> constants;
  llvm::DenseMap<Value, unsigned> values;
  llvm::DenseMap<std::pair<Value, int64_t>, unsigned> dims;
  SmallVector<std::pair<unsigned, StringRef>> names;
  SmallVector<std::pair<unsigned, int64_t>> maxima;
};

/// How an op names itself in a reason: `'linalg.matmul' in kernel 'mm_3'`.
std::string describe(Operation *op) {
  std::string text = "'" + op->getName().getStringRef().str() + "'";
  if (auto fallback = dyn_cast<FallbackOp>(op))
    text += " ('" + fallback.getCallee().str() + "')";
  if (auto kernel = op->getParentOfType<KernelOp>())
    text += " in kernel '" + kernel.getKernelName().str() + "'";
  else if (auto kernel = dyn_cast<KernelOp>(op))
    text = "kernel '" + kernel.getKernelName().str() + "'";
  return text;
}

/// Proves that positions along the class of `root` are independent, or
/// says why not.
class PaddingProof {
public:
  PaddingProof(SizeTerms &terms, func::FuncOp function, unsigned root)
      : terms(terms), function(function), root(root) {}

  std::string run() {
    for (BlockArgument argument : function.getArguments())
      if (isa<IndexType>(argument.getType()) && terms.hasValueTerm(argument))
        checkValueUses(argument);
    function.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (!reason.empty())
        return WalkResult::interrupt();
      if (auto kernel = dyn_cast<KernelOp>(op)) {
        checkKernel(kernel);
        return WalkResult::skip();
      }
      checkOp(op);
      return WalkResult::advance();
    });
    return reason;
  }

private:
  bool inClass(unsigned term) { return terms.root(term) == root; }

  /// The dimensions of `buffer` that are the size.
  SmallVector<int64_t> classDims(Value buffer) {
    SmallVector<int64_t> found;
    auto type = dyn_cast<MemRefType>(buffer.getType());
    if (!type)
      return found;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d) && inClass(terms.ofDim(buffer, d)))
        found.push_back(d);
    return found;
  }

  void fail(Operation *op, const Twine &what) {
    if (reason.empty())
      reason = (describe(op) + " " + what).str();
  }

  /// Index values in the class may only size buffers.
  void checkValueUses(Value value) {
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (isa<BufferAllocOp, BufferReshapeOp, SymIntOp, SymIntDimOp>(user))
        continue;
      if (auto slice = dyn_cast<BufferSliceOp>(user))
        if (llvm::is_contained(slice.getSizes(), value))
          continue; // checkSlice looks at which dimension it sizes
      fail(user, isa<KernelOp>(user) ? "reads the size as a value"
                                     : "uses the size as a value");
    }
  }

  void checkOp(Operation *op) {
    for (Value result : op->getResults())
      if (isa<IndexType>(result.getType()) && terms.hasValueTerm(result) &&
          inClass(terms.ofValue(result)))
        checkValueUses(result);
    if (isa<BufferAllocOp, BufferDeallocOp, SymIntOp, SymIntDimOp,
            BufferTransposeOp, CopyOp, func::ReturnOp, func::FuncOp>(op))
      return checkWrites(op);
    if (auto reshape = dyn_cast<BufferReshapeOp>(op))
      return checkReshape(reshape);
    if (auto slice = dyn_cast<BufferSliceOp>(op))
      return checkSlice(slice);
    if (auto bitcast = dyn_cast<BufferBitcastOp>(op)) {
      SmallVector<int64_t> dims = classDims(bitcast.getSource());
      if (!dims.empty() &&
          dims.back() + 1 == bitcast.getSource().getType().getRank())
        fail(op, "reinterprets the elements along the size");
      return;
    }
    for (Value value : llvm::concat<Value>(op->getOperands(), op->getResults()))
      if (!classDims(value).empty())
        return fail(op, "takes a buffer sized by it and may mix its "
                        "positions");
  }

  /// An argument sized by the class and written in place would be written
  /// in the padded copy, not in the caller's buffer.
  void checkWrites(Operation *op) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return;
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (auto &instance : instances) {
      if (!isa<MemoryEffects::Write>(instance.getEffect()))
        continue;
      Value written = instance.getValue();
      while (written) {
        if (auto view = written.getDefiningOp<ViewLikeOpInterface>())
          written = view.getViewSource();
        else
          break;
      }
      auto argument = dyn_cast_or_null<BlockArgument>(written);
      if (argument && argument.getOwner()->getParentOp() == function &&
          !classDims(argument).empty())
        return fail(op, "writes argument " +
                            Twine(argument.getArgNumber()) +
                            ", which is sized by it, in place");
    }
  }

  /// Product of dimensions [0, dim) when all are static.
  static std::optional<int64_t> prefixElements(MemRefType type, int64_t dim) {
    int64_t product = 1;
    for (int64_t d = 0; d < dim; ++d) {
      if (type.isDynamicDim(d))
        return std::nullopt;
      product *= type.getDimSize(d);
    }
    return product;
  }

  /// A reshape keeps positions apart when each dimension of the size is
  /// one of the result's with the same (static) number of elements before
  /// it, so a position's elements stay one block at the same place.
  void checkReshape(BufferReshapeOp reshape) {
    auto source = reshape.getSource().getType();
    auto result = reshape.getResult().getType();
    SmallVector<int64_t> from = classDims(reshape.getSource());
    SmallVector<int64_t> to = classDims(reshape.getResult());
    bool kept = from.size() == to.size();
    for (size_t i = 0; kept && i < from.size(); ++i) {
      std::optional<int64_t> before = prefixElements(source, from[i]);
      kept = before && before == prefixElements(result, to[i]);
    }
    if (!kept)
      fail(reshape, "merges the size with other dimensions");
  }

  /// A slice must keep every position along the size.
  void checkSlice(BufferSliceOp slice) {
    SmallVector<int64_t> dims = classDims(slice.getSource());
    if (dims.empty()) {
      if (!classDims(slice.getResult()).empty())
        fail(slice, "makes a view sized by it from a buffer that is not");
      return;
    }
    SmallVector<OpFoldResult> offsets = slice.getMixedOffsets();
    SmallVector<OpFoldResult> sizes = slice.getMixedSizes();
    SmallVector<OpFoldResult> strides = slice.getMixedStrides();
    for (int64_t d : dims) {
      auto size = dyn_cast<Value>(sizes[d]);
      if (!isConstantIntValue(offsets[d], 0) ||
          !isConstantIntValue(strides[d], 1) || !size ||
          !inClass(terms.ofValue(size)))
        return fail(slice, "takes part of the positions along the size");
    }
  }

  void checkKernel(KernelOp kernel) {
    Block &body = kernel.getBody().front();
    for (auto [index, operand] : llvm::enumerate(kernel->getOperands())) {
      if (isa<IndexType>(operand.getType())) {
        if (inClass(terms.ofValue(operand)))
          return fail(kernel, "reads the size as a value");
        continue;
      }
      if (classDims(operand).empty())
        continue;
      BlockArgument argument = body.getArgument(index);
      for (OpOperand &use : argument.getUses()) {
        auto linalgOp = dyn_cast<linalg::LinalgOp>(use.getOwner());
        if (!linalgOp)
          return fail(use.getOwner(),
                      "reads or writes a buffer sized by it outside a linalg "
                      "op");
        if (!checkLinalg(linalgOp, use))
          return;
      }
    }
    checkWrites(kernel);
  }

  /// A loop over the size must be parallel, index the operand's dimension
  /// directly, and be a dimension of every output, so each output position
  /// comes from the same position of the inputs.
  bool checkLinalg(linalg::LinalgOp op, OpOperand &use) {
    AffineMap map = op.getMatchingIndexingMap(&use);
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    for (int64_t d : classDims(use.get())) {
      auto loop = dyn_cast<AffineDimExpr>(map.getResult(d));
      if (!loop) {
        fail(op, "indexes the size by an expression");
        return false;
      }
      unsigned position = loop.getPosition();
      if (iterators[position] != utils::IteratorType::parallel) {
        fail(op, "reduces along the size");
        return false;
      }
      for (OpOperand &init : op.getDpsInitsMutable())
        if (!llvm::is_contained(op.getMatchingIndexingMap(&init).getResults(),
                                getAffineDimExpr(position, op.getContext()))) {
          fail(op, "writes an output that does not keep the size");
          return false;
        }
    }
    return true;
  }

  SizeTerms &terms;
  func::FuncOp function;
  unsigned root;
  std::string reason;
};

} // namespace

SmallVector<SizeClass> mlir::gp::computeSizeClasses(func::FuncOp function) {
  SizeTerms terms;
  // Every index value the program sizes buffers with, and what linalg
  // loops and copies tie together.
  function.walk([&](Operation *op) {
    if (auto alloc = dyn_cast<BufferAllocOp>(op)) {
      for (unsigned d = 0; d < alloc.getType().getRank(); ++d)
        terms.ofDim(alloc.getResult(), d);
    } else if (auto symint = dyn_cast<SymIntOp>(op)) {
      terms.ofValue(symint.getResult());
    } else if (auto dim = dyn_cast<SymIntDimOp>(op)) {
      terms.ofValue(dim.getResult());
    } else if (auto copy = dyn_cast<CopyOp>(op)) {
      for (int64_t d = 0; d < copy.getSource().getType().getRank(); ++d)
        terms.unify(terms.ofDim(copy.getSource(), d),
                    terms.ofDim(copy.getTarget(), d));
    } else if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      if (!linalgOp.hasPureBufferSemantics())
        return;
      llvm::DenseMap<unsigned, unsigned> loopTerms;
      for (OpOperand &operand : op->getOpOperands()) {
        if (!isa<MemRefType>(operand.get().getType()))
          continue;
        AffineMap map = linalgOp.getMatchingIndexingMap(&operand);
        for (auto [d, expr] : llvm::enumerate(map.getResults())) {
          auto loop = dyn_cast<AffineDimExpr>(expr);
          if (!loop)
            continue;
          unsigned term = terms.ofDim(operand.get(), d);
          auto [it, first] = loopTerms.try_emplace(loop.getPosition(), term);
          if (!first)
            terms.unify(it->second, term);
        }
      }
    }
  });

  // Classes, in the order of their first argument member.
  SmallVector<SizeClass> classes;
  llvm::DenseMap<unsigned, size_t> byRoot;
  auto classOf = [&](unsigned term, StringRef fallbackName) -> SizeClass & {
    unsigned root = terms.root(term);
    auto [it, inserted] = byRoot.try_emplace(root, classes.size());
    if (inserted) {
      classes.emplace_back();
      classes.back().name =
          terms.nameOf(root).value_or(fallbackName).str();
    }
    return classes[it->second];
  };
  for (BlockArgument argument : function.getArguments()) {
    int64_t index = argument.getArgNumber();
    if (isa<IndexType>(argument.getType())) {
      if (terms.hasValueTerm(argument))
        classOf(terms.ofValue(argument), "arg" + std::to_string(index))
            .arguments.push_back({index, -1});
      continue;
    }
    auto type = dyn_cast<MemRefType>(argument.getType());
    if (!type)
      continue;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        classOf(terms.ofDim(argument, d),
                "arg" + std::to_string(index) + "_dim" + std::to_string(d))
            .arguments.push_back({index, d});
  }
  function.walk([&](func::ReturnOp ret) {
    for (auto [index, value] : llvm::enumerate(ret.getOperands())) {
      auto type = dyn_cast<MemRefType>(value.getType());
      if (!type)
        continue;
      for (int64_t d = 0; d < type.getRank(); ++d) {
        if (!type.isDynamicDim(d))
          continue;
        auto it = byRoot.find(terms.root(terms.ofDim(value, d)));
        if (it != byRoot.end())
          classes[it->second].results.push_back(
              {static_cast<int64_t>(index), d});
      }
    }
  });
  for (auto &[root, position] : byRoot) {
    SizeClass &sizeClass = classes[position];
    sizeClass.maximum = terms.maximumOf(root);
    // A static size in the class fixes it: nothing to pad.
    if (std::optional<int64_t> fixed = terms.constantOf(root)) {
      sizeClass.fixed = *fixed;
      sizeClass.unpaddable = "the program fixes it at " +
                             std::to_string(*fixed);
      continue;
    }
    // A parameter's size is the bound tensor's: not the call's to pad.
    for (auto [index, dim] : sizeClass.arguments)
      if (auto parameter = function.getArgAttrOfType<StringAttr>(
              index, GPDialect::getParameterAttrName())) {
        sizeClass.unpaddable = "argument " + std::to_string(index) +
                               " is the parameter '" +
                               parameter.getValue().str() +
                               "', bound once at its own size";
        break;
      }
    if (sizeClass.unpaddable.empty())
      sizeClass.unpaddable = PaddingProof(terms, function, root).run();
  }
  return classes;
}
