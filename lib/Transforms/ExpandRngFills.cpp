//===- ExpandRngFills.cpp - RNG fills as philox kernels -------------------===//
//
// A gp.rng.fill becomes an ordinary gp.kernel, so RNG needs nothing of its
// own in the kernel lowering of either target: the kernel reads (seed,
// offset) from the state's slot when it runs and computes Philox4x32-10 per
// element, matching the runtime's gpRtPhiloxUniform bit for bit.
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Dialect/GP/IR/GPOps.h"
#include "GraphPart/Transforms/Passes.h"

#include "llvm/Support/MathExtras.h"

namespace mlir::gp {
#define GEN_PASS_DEF_GPEXPANDRNGFILLSPASS
#include "GraphPart/Transforms/Passes.h.inc"
} // namespace mlir::gp

using namespace mlir;
using namespace mlir::gp;

namespace {

/// Builds the per-element philox computation inside a linalg body.
class PhiloxBuilder {
public:
  PhiloxBuilder(OpBuilder &builder, Location loc)
      : b(builder), loc(loc), i32(b.getI32Type()), i64(b.getI64Type()) {}

  Value constant32(uint32_t value) {
    return arith::ConstantOp::create(
        b, loc, b.getIntegerAttr(i32, static_cast<int32_t>(value)));
  }
  Value constant64(int64_t value) {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(i64, value));
  }
  Value low(Value value) { return arith::TruncIOp::create(b, loc, i32, value); }
  Value high(Value value) {
    return low(arith::ShRUIOp::create(b, loc, value, constant64(32)));
  }
  Value xorOf(Value a, Value c, Value d) {
    return arith::XOrIOp::create(b, loc, arith::XOrIOp::create(b, loc, a, c),
                                 d);
  }

  /// The four 32-bit outputs of Philox4x32-10 for counter (block, offset)
  /// and key seed.
  std::array<Value, 4> philox(Value block, Value offset, Value seed) {
    std::array<Value, 4> counter = {low(block), high(block), low(offset),
                                    high(offset)};
    Value key0 = low(seed), key1 = high(seed);
    Value mul0 = constant32(0xD2511F53u), mul1 = constant32(0xCD9E8D57u);
    Value weyl0 = constant32(0x9E3779B9u), weyl1 = constant32(0xBB67AE85u);
    for (int round = 0; round < 10; ++round) {
      auto p0 = arith::MulUIExtendedOp::create(b, loc, mul0, counter[0]);
      auto p1 = arith::MulUIExtendedOp::create(b, loc, mul1, counter[2]);
      counter = {xorOf(p1.getHigh(), counter[1], key0), p1.getLow(),
                 xorOf(p0.getHigh(), counter[3], key1), p0.getLow()};
      key0 = arith::AddIOp::create(b, loc, key0, weyl0);
      key1 = arith::AddIOp::create(b, loc, key1, weyl1);
    }
    return counter;
  }

  /// A uniform float in [0, 1) from the top 24 bits of `bits` (plus one
  /// step with `open`, giving (0, 1] for a logarithm).
  Value uniform(Value bits, FloatType type, bool open) {
    Value top = arith::ShRUIOp::create(b, loc, bits, constant32(8));
    if (open)
      top = arith::AddIOp::create(b, loc, top, constant32(1));
    Value asFloat = arith::UIToFPOp::create(b, loc, type, top);
    Value scale = arith::ConstantOp::create(
        b, loc, b.getFloatAttr(type, 1.0 / 16777216.0));
    return arith::MulFOp::create(b, loc, asFloat, scale);
  }

  Value select(Value lane, ArrayRef<Value> values) {
    Value result = values.back();
    for (int64_t i = values.size() - 2; i >= 0; --i) {
      Value is = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                                       constant64(i));
      result = arith::SelectOp::create(b, loc, is, values[i], result);
    }
    return result;
  }

private:
  OpBuilder &b;
  Location loc;
  Type i32, i64;
};

LogicalResult expand(RngFillOp fill) {
  Location loc = fill.getLoc();
  MemRefType type = fill.getTarget().getType();
  auto element = dyn_cast<FloatType>(type.getElementType());
  if (!element || !(element.isF32() || element.isF64()))
    return fill.emitError("RNG fills are lowered for f32 and f64 buffers, not ")
           << type.getElementType();
  if (!type.getLayout().isIdentity())
    return fill.emitError("RNG fills need a contiguous buffer");
  DeviceAttr device = getDevice(type);
  if (device && device.isMeta())
    return fill.emitError("an RNG fill of a meta buffer has no data to fill");
  bool normal = fill.getDistribution() == RngDistribution::normal;

  OpBuilder b(fill);
  auto slotType = MemRefType::get({2}, b.getI64Type(), MemRefLayoutAttrInterface(),
                                  type.getMemorySpace());
  Value slot = RngSlotOp::create(b, loc, slotType, fill.getState());
  auto kernel = KernelOp::create(
      b, loc, normal ? "rng_normal" : "rng_uniform", ValueRange{slot},
      ValueRange{fill.getTarget()});
  Block *body = new Block();
  kernel.getBody().push_back(body);
  Value state = body->addArgument(slotType, loc);
  Value out = body->addArgument(type, loc);
  b.setInsertionPointToStart(body);
  YieldOp::create(b, loc);
  b.setInsertionPointToStart(body);

  int64_t rank = type.getRank();
  auto map = b.getMultiDimIdentityMap(rank);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  linalg::GenericOp::create(
      b, loc, TypeRange{}, ValueRange{}, ValueRange{out},
      ArrayRef<AffineMap>{map}, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange) {
        PhiloxBuilder p(nb, nloc);
        Value c0 = arith::ConstantIndexOp::create(nb, nloc, 0);
        Value c1 = arith::ConstantIndexOp::create(nb, nloc, 1);
        Value seed = memref::LoadOp::create(nb, nloc, state, c0);
        Value offset = memref::LoadOp::create(nb, nloc, state, c1);
        // Row-major linear index of this element.
        Value linear = c0;
        for (int64_t d = 0; d < rank; ++d) {
          Value size = memref::DimOp::create(nb, nloc, out, d);
          linear = arith::MulIOp::create(nb, nloc, linear, size);
          linear = arith::AddIOp::create(
              nb, nloc, linear, linalg::IndexOp::create(nb, nloc, d));
        }
        Value index = arith::IndexCastOp::create(nb, nloc, nb.getI64Type(),
                                                 linear);
        Value block = arith::DivUIOp::create(nb, nloc, index, p.constant64(4));
        Value lane = arith::RemUIOp::create(nb, nloc, index, p.constant64(4));
        std::array<Value, 4> bits = p.philox(block, offset, seed);
        Value value;
        if (!normal) {
          value = p.uniform(p.select(lane, bits), element, /*open=*/false);
        } else {
          // Box-Muller over lanes (0, 1) and (2, 3).
          Value pair = arith::DivUIOp::create(nb, nloc, lane, p.constant64(2));
          Value first = p.select(pair, {bits[0], bits[2]});
          Value second = p.select(pair, {bits[1], bits[3]});
          Value u1 = p.uniform(first, element, /*open=*/true);
          Value u2 = p.uniform(second, element, /*open=*/false);
          Value minusTwo =
              arith::ConstantOp::create(nb, nloc, nb.getFloatAttr(element, -2.0));
          Value radius = math::SqrtOp::create(
              nb, nloc,
              arith::MulFOp::create(nb, nloc, minusTwo,
                                    math::LogOp::create(nb, nloc, u1)));
          Value twoPi = arith::ConstantOp::create(
              nb, nloc, nb.getFloatAttr(element, 2 * llvm::numbers::pi));
          Value angle = arith::MulFOp::create(nb, nloc, twoPi, u2);
          Value odd = arith::CmpIOp::create(
              nb, nloc, arith::CmpIPredicate::eq,
              arith::RemUIOp::create(nb, nloc, lane, p.constant64(2)),
              p.constant64(1));
          Value trig = arith::SelectOp::create(
              nb, nloc, odd, math::SinOp::create(nb, nloc, angle),
              math::CosOp::create(nb, nloc, angle));
          value = arith::MulFOp::create(nb, nloc, radius, trig);
        }
        linalg::YieldOp::create(nb, nloc, value);
      });
  fill.erase();
  return success();
}

struct GPExpandRngFillsPass
    : public mlir::gp::impl::GPExpandRngFillsPassBase<GPExpandRngFillsPass> {
  void runOnOperation() override {
    SmallVector<RngFillOp> fills;
    getOperation()->walk([&](RngFillOp fill) { fills.push_back(fill); });
    for (RngFillOp fill : fills)
      if (failed(expand(fill)))
        return signalPassFailure();
  }
};

} // namespace
