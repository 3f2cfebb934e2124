//===- RuntimeCallBuilder.h - LLVM builders for the runtime lowering ------===//
//
// The small builders every GPToRuntime pattern shares: constants, stack
// slots, GEPs, loads and stores, values moved to and from their in-memory
// storage (memref descriptors, int64s), runtime calls that return their
// failing status, constant strings, function addresses and descriptors built
// over raw memory.
//
// Values cross function boundaries (entry points, partition bodies, host
// kernels, externs) as memref descriptors or int64s stored in memory, so
// memrefs are turned into their descriptor structs with
// `unrealized_conversion_cast`s; the upstream conversions to the LLVM dialect
// that run afterwards fold those casts away.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_LIB_CONVERSION_GPTORUNTIME_RUNTIMECALLBUILDER_H
#define GRAPHPART_LIB_CONVERSION_GPTORUNTIME_RUNTIMECALLBUILDER_H

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::gp {

/// Matches gpRtCopyKind.
enum CopyKind : int32_t {
  kHostToHost = 0,
  kHostToProgram = 1,
  kProgramToHost = 2,
  kProgramToProgram = 3
};

/// Bytes of one element of `type`.
int64_t elementBytes(MemRefType type);

/// Whether a buffer of `type` lives in host memory on every backend.
bool onHost(Type type);

/// Emits LLVM dialect code at `builder`'s insertion point. Creating the
/// builder is cheap: patterns make one per rewrite.
class RuntimeCallBuilder {
public:
  RuntimeCallBuilder(OpBuilder &builder, ModuleOp module,
                     const LLVMTypeConverter &converter);

  OpBuilder &builder;
  ModuleOp module;
  const LLVMTypeConverter &converter;
  Type ptrType, i32, i64, i8;

  Value constI32(Location loc, int64_t value);
  Value constI64(Location loc, int64_t value);

  /// The descriptor struct of a memref (its memory space dropped).
  Type descriptorType(MemRefType type);
  /// How a value is stored in memory: descriptor struct, int64 or its own
  /// LLVM type (floats, pointers).
  Type storageType(Type type);
  /// Bytes of a value's storage (descriptors: two pointers, offset, sizes,
  /// strides, all 8 bytes).
  int64_t storageBytes(Type type);

  /// Stack memory for `count` values of `type`, allocated in the entry
  /// block of the function being built (once per call of it).
  Value stackSlot(Location loc, Type type, int64_t count = 1);
  /// The address of a constant array of integers of type `element`, one
  /// global per distinct array.
  Value constantArray(Location loc, Type element, ArrayRef<int64_t> values);
  Value gep(Location loc, Type element, Value base, int64_t index);
  Value gepDynamic(Location loc, Type element, Value base, Value index);
  Value load(Location loc, Type type, Value pointer);
  void store(Location loc, Value value, Value pointer);
  Value castTo(Location loc, Type type, Value value);

  /// `value` (a program value) in its storage form.
  Value toStorage(Location loc, Value value);
  /// A program value of `type` from its storage form.
  Value fromStorage(Location loc, Type type, Value stored);
  /// Stores `value` on the stack and returns its address.
  Value spill(Location loc, Value value);
  Value loadValue(Location loc, Type type, Value pointer);

  /// A private declaration of runtime function `name`, appended to the
  /// module the first time it is asked for.
  func::FuncOp runtimeFunction(StringRef name, TypeRange arguments,
                               TypeRange results);
  Value callRuntime(Location loc, StringRef name, ValueRange arguments);
  /// Returns the status from the enclosing function unless it is success;
  /// code after it goes to a new block at the end of the region.
  void checkStatus(Location loc, Value status);
  void callChecked(Location loc, StringRef name, ValueRange arguments);

  /// The address of a NUL-terminated constant string.
  Value stringAddress(Location loc, StringRef value);
  /// The address of function `function`.
  Value functionAddress(Location loc, func::FuncOp function);

  /// A descriptor of `type` (identity layout) over memory at `data`.
  Value makeBuffer(Location loc, MemRefType type, Value data,
                   ValueRange dynamicSizes);
  /// The descriptor's first element (aligned pointer plus offset), in bytes.
  Value elementPointer(Location loc, Value buffer);
  /// Number of elements of `buffer` as an i64.
  Value elementCount(Location loc, Value buffer);
  Value byteSize(Location loc, Value buffer);

  /// `buffer` (a descriptor struct of `type`) with its dynamic offset
  /// folded into its pointers: allocated = aligned = the address of element
  /// `staticOffset`, offset = the layout's static offset (0 when dynamic).
  /// A captured graph then holds the buffer's address only as pointers
  /// into what `reachableRange` reports, so the runtime can re-bind it.
  /// Layouts that are not strided are returned unchanged.
  Value foldOffsetIntoPointers(Location loc, MemRefType type, Value buffer);
};

/// The offset `foldOffsetIntoPointers` leaves in a buffer of `type` (its
/// layout's static offset, 0 when dynamic), or -1 when the layout is not
/// strided: what gpRtPartitionInputLayout's staticOffset says, from which
/// the runtime computes what a partition reaches through the buffer (-1:
/// unknown, which keeps the input's graphs keyed by its address).
int64_t reachStaticOffset(MemRefType type);

} // namespace mlir::gp

#endif // GRAPHPART_LIB_CONVERSION_GPTORUNTIME_RUNTIMECALLBUILDER_H
