//===- EmulateFloats.cpp - small float types computed through f32 ---------===//
//
// Kernels may store bf16 and f8 values, but LLVM has no f8 types (they
// become i8), neither backend has arithmetic on f8 (nor the host on bf16),
// and libm has no f16/bf16 functions: those ops compute in f32 (upstream's
// float emulation), and the f8 conversions that this leaves become integer
// code here, the same on both targets.
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Dialect/GP/IR/GPOps.h"
#include "GraphPart/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::gp {
#define GEN_PASS_DEF_GPEMULATEFLOATSPASS
#include "GraphPart/Transforms/Passes.h.inc"
} // namespace mlir::gp

using namespace mlir;
using namespace mlir::gp;

namespace {

/// The layout of an 8-bit float: sign, `exponentBits`, `mantissaBits`.
struct F8Format {
  int64_t exponentBits;
  int64_t mantissaBits;
  int64_t bias;
  /// f8E4M3FN: no infinities, only all-ones (S.1111.111) is NaN.
  bool finiteOnly;
};

std::optional<F8Format> getF8Format(Type type) {
  if (isa<Float8E4M3FNType>(type))
    return F8Format{4, 3, 7, true};
  if (isa<Float8E5M2Type>(type))
    return F8Format{5, 2, 15, false};
  return std::nullopt;
}

/// Builds the integer code of the conversions on i32 values.
class BitBuilder {
public:
  BitBuilder(PatternRewriter &rewriter, Location loc)
      : b(rewriter), loc(loc), i32(b.getI32Type()), f32(b.getF32Type()) {}

  Value constant(int64_t value) {
    return arith::ConstantOp::create(
        b, loc, b.getIntegerAttr(i32, static_cast<int32_t>(value)));
  }
  Value floatBits(uint32_t bits) {
    return arith::BitcastOp::create(b, loc, f32, constant(bits));
  }
  Value shl(Value x, int64_t n) {
    return arith::ShLIOp::create(b, loc, x, constant(n));
  }
  Value shr(Value x, int64_t n) {
    return arith::ShRUIOp::create(b, loc, x, constant(n));
  }
  Value bitAnd(Value x, int64_t mask) {
    return arith::AndIOp::create(b, loc, x, constant(mask));
  }
  Value bitOr(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value add(Value x, int64_t y) { return add(x, constant(y)); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value cmp(arith::CmpIPredicate predicate, Value x, int64_t y) {
    return arith::CmpIOp::create(b, loc, predicate, x, constant(y));
  }
  Value select(Value condition, Value x, Value y) {
    return arith::SelectOp::create(b, loc, condition, x, y);
  }
  Value select(Value condition, int64_t x, Value y) {
    return select(condition, constant(x), y);
  }
  Value toBits(Value f) { return arith::BitcastOp::create(b, loc, i32, f); }
  Value toFloat(Value bits) {
    return arith::BitcastOp::create(b, loc, f32, bits);
  }

  /// The f32 that the 8 bits `byte` (in an i32) encode in `format`:
  /// exact, subnormals, infinities and NaNs included.
  Value decode(Value byte, const F8Format &format) {
    int64_t mantissaMask = (1 << format.mantissaBits) - 1;
    int64_t exponentMask = (1 << format.exponentBits) - 1;
    Value sign = shl(bitAnd(byte, 0x80), 24);
    Value exponent = bitAnd(shr(byte, format.mantissaBits), exponentMask);
    Value mantissa = bitAnd(byte, mantissaMask);
    // Normal: rebias the exponent, widen the mantissa.
    Value normal = bitOr(shl(add(exponent, 127 - format.bias), 23),
                         shl(mantissa, 23 - format.mantissaBits));
    // Subnormal: mantissa * 2^(1 - bias - mantissaBits), exact in f32.
    Value scaled = arith::MulFOp::create(
        b, loc, arith::UIToFPOp::create(b, loc, f32, mantissa),
        floatBits(
            static_cast<uint32_t>(127 + 1 - format.bias - format.mantissaBits)
            << 23));
    Value magnitude = select(cmp(arith::CmpIPredicate::eq, exponent, 0),
                             toBits(scaled), normal);
    Value special;
    if (format.finiteOnly) {
      special = cmp(arith::CmpIPredicate::eq, bitAnd(byte, 0x7f), 0x7f);
      magnitude = select(special, 0x7fc00000, magnitude);
    } else {
      special = cmp(arith::CmpIPredicate::eq, exponent, exponentMask);
      Value infinity = cmp(arith::CmpIPredicate::eq, mantissa, 0);
      magnitude =
          select(special, select(infinity, 0x7f800000, constant(0x7fc00000)),
                 magnitude);
    }
    return toFloat(bitOr(sign, magnitude));
  }

  /// The 8 bits (in an i32) of `value` (f32) in `format`, rounded to
  /// nearest even; overflow is NaN without infinities, else infinity.
  Value encode(Value value, const F8Format &format) {
    int64_t shift = 23 - format.mantissaBits;
    Value bits = toBits(value);
    Value sign = bitAnd(shr(bits, 24), 0x80);
    Value magnitude = bitAnd(bits, 0x7fffffff);
    Value isNaN = cmp(arith::CmpIPredicate::ugt, magnitude, 0x7f800000);

    // Normal: rebias, then round the dropped bits to nearest even.
    Value odd = bitAnd(shr(magnitude, shift), 1);
    Value rounded = add(add(magnitude, ((format.bias - 127) * (1LL << 23)) +
                                           (1LL << (shift - 1)) - 1),
                        odd);
    Value normal = shr(rounded, shift);
    int64_t nan = format.finiteOnly ? 0x7f : 0x7e;
    if (format.finiteOnly)
      normal =
          select(cmp(arith::CmpIPredicate::ugt, normal, 0x7e), nan, normal);

    // Subnormal: adding a power of two whose last mantissa bit is the
    // smallest subnormal rounds there (in the FPU's round-to-nearest-even);
    // the sum's low bits are the result.
    uint32_t magicBits = static_cast<uint32_t>(127 - format.bias + shift + 1)
                         << 23;
    Value magic = floatBits(magicBits);
    Value sum = arith::AddFOp::create(b, loc, toFloat(magnitude), magic);
    Value subnormal = sub(toBits(sum), constant(magicBits));

    int64_t minNormal = (127 - format.bias + 1) * (1LL << 23);
    // From here on the exponent no longer fits: overflow.
    int64_t overflowFrom = (127 + (1 << format.exponentBits) - 1 - format.bias +
                            (format.finiteOnly ? 1 : 0)) *
                           (1LL << 23);
    Value result = select(cmp(arith::CmpIPredicate::ult, magnitude, minNormal),
                          subnormal, normal);
    Value overflow =
        select(isNaN, nan, constant(format.finiteOnly ? nan : 0x7c));
    result = select(cmp(arith::CmpIPredicate::uge, magnitude, overflowFrom),
                    overflow, result);
    return bitOr(result, sign);
  }

  PatternRewriter &b;
  Location loc;
  Type i32, f32;
};

/// arith.extf from f8: decode to f32, then to the result type (exact).
struct ExtendFromF8 : OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::ExtFOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<F8Format> format = getF8Format(op.getIn().getType());
    if (!format)
      return failure();
    Location loc = op.getLoc();
    BitBuilder bits(rewriter, loc);
    Value byte = arith::BitcastOp::create(rewriter, loc, rewriter.getI8Type(),
                                          op.getIn());
    Value wide = arith::ExtUIOp::create(rewriter, loc, bits.i32, byte);
    Value result = bits.decode(wide, *format);
    auto type = cast<FloatType>(op.getType());
    if (type.getWidth() > 32)
      result = arith::ExtFOp::create(rewriter, loc, type, result);
    else if (type != bits.f32)
      result = arith::TruncFOp::create(rewriter, loc, type, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// arith.truncf to f8: to f32 (a wider value rounds there first), encode.
struct TruncateToF8 : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<F8Format> format = getF8Format(op.getType());
    if (!format)
      return failure();
    if (op.getRoundingmodeAttr() &&
        op.getRoundingmode() != arith::RoundingMode::to_nearest_even)
      return rewriter.notifyMatchFailure(op, "only rounds to nearest even");
    Location loc = op.getLoc();
    BitBuilder bits(rewriter, loc);
    Value value = op.getIn();
    auto type = cast<FloatType>(value.getType());
    if (type.getWidth() > 32)
      value = arith::TruncFOp::create(rewriter, loc, bits.f32, value);
    else if (type != bits.f32)
      value = arith::ExtFOp::create(rewriter, loc, bits.f32, value);
    Value encoded = bits.encode(value, *format);
    Value byte =
        arith::TruncIOp::create(rewriter, loc, rewriter.getI8Type(), encoded);
    rewriter.replaceOp(
        op, arith::BitcastOp::create(rewriter, loc, op.getType(), byte));
    return success();
  }
};

/// Computes in f32 the ops on `types` in `root`: those of the arith and
/// math dialects, or of the math dialect only.
LogicalResult emulate(Operation *root, ArrayRef<Type> types,
                      bool includeArith) {
  if (types.empty())
    return success();
  MLIRContext *context = root->getContext();
  TypeConverter converter;
  arith::populateEmulateUnsupportedFloatsConversions(converter, types,
                                                     Float32Type::get(context));
  auto isLegal = [&](Operation *op) -> std::optional<bool> {
    return converter.isLegal(op);
  };
  auto isRewritten = [&](Operation *op) {
    if (isa<arith::BitcastOp, arith::ExtFOp, arith::TruncFOp,
            arith::ConstantOp>(op))
      return false;
    if (isa<math::MathDialect>(op->getDialect()) ||
        (includeArith && isa<arith::ArithDialect>(op->getDialect())))
      return !converter.isLegal(op);
    return false;
  };

  // A named linalg op's verifier fixes its body: generalize the ones whose
  // body changes.
  SmallVector<linalg::LinalgOp> named;
  root->walk([&](linalg::LinalgOp op) {
    if (isa<linalg::GenericOp>(op) || op->getNumRegions() != 1)
      return;
    bool changes = false;
    op->getRegion(0).walk(
        [&](Operation *inner) { changes |= isRewritten(inner); });
    if (changes)
      named.push_back(op);
  });
  IRRewriter rewriter(context);
  for (linalg::LinalgOp op : named) {
    rewriter.setInsertionPoint(op);
    if (failed(linalg::generalizeNamedOp(rewriter, op)))
      return op->emitOpError("computes on a float type that needs "
                             "emulation and cannot be generalized");
  }

  RewritePatternSet patterns(context);
  arith::populateEmulateUnsupportedFloatsPatterns(patterns, converter);
  ConversionTarget target(*context);
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  target.addDynamicallyLegalDialect<math::MathDialect>(isLegal);
  if (includeArith)
    target.addDynamicallyLegalDialect<arith::ArithDialect>(isLegal);
  target.addLegalOp<arith::BitcastOp, arith::ExtFOp, arith::TruncFOp,
                    arith::ConstantOp>();
  return applyPartialConversion(root, target, std::move(patterns));
}

struct GPEmulateFloatsPass
    : public gp::impl::GPEmulateFloatsPassBase<GPEmulateFloatsPass> {
  using GPEmulateFloatsPassBase::GPEmulateFloatsPassBase;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    Type bf16 = BFloat16Type::get(context), f16 = Float16Type::get(context);
    Type e4m3 = Float8E4M3FNType::get(context),
         e5m2 = Float8E5M2Type::get(context);
    RewritePatternSet patterns(context);
    patterns.add<ExtendFromF8, TruncateToF8>(context);
    if (!nativeBF16)
      arith::populateExpandBFloat16Patterns(patterns);
    FrozenRewritePatternSet frozen(std::move(patterns));

    SmallVector<KernelOp> kernels;
    getOperation()->walk([&](KernelOp kernel) { kernels.push_back(kernel); });
    for (KernelOp kernel : kernels) {
      SmallVector<Type> computed = {e4m3, e5m2};
      SmallVector<Type> mathOnly = {f16};
      (nativeBF16 ? mathOnly : computed).push_back(bf16);
      if (failed(emulate(kernel, computed, /*includeArith=*/true)) ||
          failed(emulate(kernel, mathOnly, /*includeArith=*/false)))
        return signalPassFailure();
      // The emulation marks its conversions `contract`, which LLVM's fpext
      // and fptrunc cannot carry (the flag would outlive the arith
      // dialect as a dangling attribute).
      kernel.walk([](Operation *op) {
        if (auto ext = dyn_cast<arith::ExtFOp>(op))
          ext->removeAttr(ext.getFastmathAttrName());
        else if (auto trunc = dyn_cast<arith::TruncFOp>(op))
          trunc->removeAttr(trunc.getFastmathAttrName());
      });
      if (failed(applyPatternsGreedily(kernel, frozen)))
        return signalPassFailure();
      // What is left on f8 must be storage: loads, stores, bitcasts.
      WalkResult left = kernel.walk([&](Operation *op) {
        if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
            isa<arith::BitcastOp, arith::ConstantOp, arith::SelectOp>(op))
          return WalkResult::advance();
        auto isF8 = [](Type type) {
          return getF8Format(getElementTypeOrSelf(type)).has_value();
        };
        if (llvm::any_of(op->getOperandTypes(), isF8) ||
            llvm::any_of(op->getResultTypes(), isF8)) {
          op->emitOpError("on f8 values cannot be lowered (only f8 "
                          "conversions to and from other floats, and "
                          "arithmetic through them, can)");
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
      if (left.wasInterrupted())
        return signalPassFailure();
    }
  }
};

} // namespace
