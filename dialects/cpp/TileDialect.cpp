// Hand-written parts of the tile dialect: the partition view's syntax, the
// verifiers of the language contract's rules, the kernel attribute checks and
// the C API registration (the layouts and every attribute's definitions are
// in Layouts.cpp). Everything else is generated from td/Tile.td.
#include "TileDialect.h"

#include "mlir-c/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;

#include "TileEnums.cpp.inc"
#include "TileDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "TileTypes.cpp.inc"

#define GET_OP_CLASSES
#include "TileOps.cpp.inc"

void TileDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "TileOps.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "TileTypes.cpp.inc"
      >();
  // In cpp/Layouts.cpp, with the generated attribute storage: the layouts'
  // C API builds attributes there.
  registerAttributes();
}

//===----------------------------------------------------------------------===//
// Tile rules
//===----------------------------------------------------------------------===//

namespace {
constexpr int64_t kMaxTileElements = attrs::kMaxTileElements;
constexpr int64_t kMaxTileBytes = attrs::kMaxTileBytes;

bool isF8(Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); }

/// The element types a tile may hold: the contract's list, f8 included (f8
/// tiles are loaded and stored to feed `tile.mma`).
bool isTileElementType(Type t) {
  if (t.isF16() || t.isBF16() || t.isF32() || isF8(t))
    return true;
  if (auto i = dyn_cast<IntegerType>(t))
    return i.isSignless() && llvm::is_contained({1u, 8u, 16u, 32u, 64u},
                                                 i.getWidth());
  return false;
}

/// The bytes an element takes in memory (an i1 a byte, an index 8), or 0
/// for a type without a fixed size.
int64_t elementBytes(Type t) {
  if (t.isIndex())
    return 8;
  if (t.isIntOrFloat())
    return static_cast<int64_t>(
        llvm::divideCeil(t.getIntOrFloatBitWidth(), 8));
  return 0;
}

/// The elements of a static shape, saturating at INT64_MAX (static dims of
/// any size parse, so the product may not fit).
int64_t staticElements(ArrayRef<int64_t> shape) {
  uint64_t elements = 1;
  for (int64_t d : shape)
    elements = llvm::SaturatingMultiply(elements, static_cast<uint64_t>(d));
  return static_cast<int64_t>(std::min<uint64_t>(elements, INT64_MAX));
}

/// The tile rules' size limits beyond the element count: a tile's elements
/// take at most 227 KiB, one Hopper block's shared memory, where the GPU
/// keeps a tile that does not fit in registers. `elements` is at most 2^20,
/// so the product cannot overflow.
LogicalResult verifyTileBytes(function_ref<InFlightDiagnostic()> emitError,
                              const Twine &what, int64_t elements,
                              Type elementType) {
  int64_t bytes = elements * elementBytes(elementType);
  if (bytes > kMaxTileBytes)
    return emitError() << what << " takes " << bytes
                       << " bytes; a tile takes at most " << kMaxTileBytes
                       << " (227 KiB, the shared memory of one Hopper block)";
  return success();
}

/// Checks the tile rules for a shape; `what` names the value in errors
/// ("result", "operand 'a'", "view").
LogicalResult verifyTileShape(function_ref<InFlightDiagnostic()> emitError,
                              StringRef what, ArrayRef<int64_t> shape,
                              Type elementType) {
  if (shape.empty() || shape.size() > 3)
    return emitError() << what << " has rank " << shape.size()
                       << "; tiles have rank 1 to 3";
  int64_t elements = 1;
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (ShapedType::isDynamic(d))
      return emitError() << what << " dim " << i
                         << " is dynamic; tile dims are static";
    if (d <= 0 || !llvm::isPowerOf2_64(static_cast<uint64_t>(d)))
      return emitError() << what << " dim " << i << " is " << d
                         << ", which is not a power of two";
    elements *= d;
    if (elements > kMaxTileElements)
      return emitError() << what << " has more than 2^20 (" << kMaxTileElements
                         << ") elements";
  }
  if (!isTileElementType(elementType))
    return emitError() << what << " has element type " << elementType
                       << "; tiles hold f16, bf16, f32, f8E4M3FN, f8E5M2, "
                          "i1, i8, i16, i32 or i64";
  return verifyTileBytes(emitError, what, elements, elementType);
}

LogicalResult verifyTile(Operation *op, StringRef what, Type type) {
  auto tensor = cast<RankedTensorType>(type);
  // A tile's encoding, if any, is its layout on the GPU (cpp/Layouts.cpp);
  // the tensor type has already checked that a register layout's rank is
  // the tile's. Tile ops compare shapes and element types, never encodings:
  // operands and results in different layouts are legal.
  Attribute encoding = tensor.getEncoding();
  if (encoding && !isLayout(encoding))
    return op->emitOpError()
           << what << " has encoding " << encoding
           << "; a tile's encoding is a tile layout (#tile.blocked, "
              "#tile.slice, #tile.linear, #tile.wgmma, #tile.wgmma_operand "
              "or #tile.shared)";
  return verifyTileShape([op] { return op->emitOpError(); }, what,
                         tensor.getShape(), tensor.getElementType());
}

/// Tile values of an op are tensors; check each against the tile rules.
LogicalResult verifyAllTiles(Operation *op) {
  for (OpOperand &operand : op->getOpOperands())
    if (isa<RankedTensorType>(operand.get().getType()) &&
        failed(verifyTile(op,
                          ("operand #" + Twine(operand.getOperandNumber())).str(),
                          operand.get().getType())))
      return failure();
  for (OpResult result : op->getResults())
    if (isa<RankedTensorType>(result.getType()) &&
        failed(verifyTile(op, "result", result.getType())))
      return failure();
  return success();
}

int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// Shape ops keep the element type: `result` and `input` must agree.
LogicalResult verifySameElementType(Operation *op, RankedTensorType input,
                                    RankedTensorType result) {
  if (input.getElementType() != result.getElementType())
    return op->emitOpError()
           << "result element type " << result.getElementType()
           << " differs from the input's " << input.getElementType();
  return success();
}

std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(shape, os, "x");
  return s;
}
} // namespace

//===----------------------------------------------------------------------===//
// PartitionViewType
//===----------------------------------------------------------------------===//

Type PartitionViewType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  Padding padding = Padding::zero;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType))
    return {};
  if (succeeded(parser.parseOptionalComma())) {
    StringRef keyword;
    SMLoc padLoc = parser.getCurrentLocation();
    if (parser.parseKeyword("padding") || parser.parseEqual())
      return {};
    padLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&keyword)) {
      return {};
    }
    std::optional<Padding> parsed = symbolizePadding(keyword);
    if (!parsed) {
      parser.emitError(padLoc) << "unknown padding '" << keyword
                               << "'; expected zero, neg_inf, pos_inf or nan";
      return {};
    }
    padding = *parsed;
  }
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); },
                    parser.getContext(), shape, elementType, padding);
}

void PartitionViewType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t d : getShape())
    printer << d << "x";
  printer << getElementType();
  if (getPadding() != Padding::zero)
    printer << ", padding = " << stringifyPadding(getPadding());
  printer << ">";
}

LogicalResult
PartitionViewType::verify(function_ref<InFlightDiagnostic()> emitError,
                          ArrayRef<int64_t> shape, Type elementType,
                          Padding padding) {
  if (failed(verifyTileShape(emitError, "partition view tile", shape,
                             elementType)))
    return failure();
  if (padding == Padding::zero)
    return success();
  auto floatType = dyn_cast<FloatType>(elementType);
  if (!floatType)
    return emitError() << "padding '" << stringifyPadding(padding)
                       << "' needs a floating-point element type, not "
                       << elementType;
  // The padding value must exist in the element type: f8E4M3FN, for one,
  // has NaN but no infinities, and no other value would be the padding
  // the program asked for.
  const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
  bool infinite = padding == Padding::neg_inf || padding == Padding::pos_inf;
  if (infinite && !llvm::APFloat::semanticsHasInf(semantics))
    return emitError() << "padding '" << stringifyPadding(padding)
                       << "' needs an element type with infinities; "
                       << elementType << " has none";
  if (padding == Padding::nan && !llvm::APFloat::semanticsHasNaN(semantics))
    return emitError() << "padding 'nan' needs an element type with NaN; "
                       << elementType << " has none";
  return success();
}

//===----------------------------------------------------------------------===//
// Grid queries
//===----------------------------------------------------------------------===//

namespace {
LogicalResult verifyInsideKernel(Operation *op) {
  auto func = op->getParentOfType<func::FuncOp>();
  if (!func || !func->hasAttr(attrs::kKernel))
    return op->emitOpError()
           << "may only appear inside a function with the '" << attrs::kKernel
           << "' attribute";
  return success();
}
} // namespace

LogicalResult BlockIdOp::verify() { return verifyInsideKernel(*this); }
LogicalResult NumBlocksOp::verify() { return verifyInsideKernel(*this); }

//===----------------------------------------------------------------------===//
// Views
//===----------------------------------------------------------------------===//

LogicalResult PartitionViewOp::verify() {
  auto memref = cast<MemRefType>(getSource().getType());
  PartitionViewType view = getType();
  if (memref.getRank() != view.getRank())
    return emitOpError() << "memref has rank " << memref.getRank()
                         << " but the view has rank " << view.getRank();
  if (memref.getElementType() != view.getElementType())
    return emitOpError() << "memref element type " << memref.getElementType()
                         << " differs from the view's "
                         << view.getElementType();
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(memref.getStridesAndOffset(strides, offset)) ||
      strides.back() != 1)
    return emitOpError() << "memref " << memref
                         << " is not row-major with unit innermost stride";
  return success();
}

LogicalResult NumTilesOp::verify() {
  int64_t rank = getView().getType().getRank();
  int64_t dim = getDim();
  if (dim < 0 || dim >= rank)
    return emitOpError() << "dim " << dim << " is out of range for a view of rank "
                         << rank;
  return success();
}

namespace {
LogicalResult verifyViewAccess(Operation *op, StringRef tileName,
                               RankedTensorType tile, PartitionViewType view,
                               size_t numIndices) {
  if (failed(verifyAllTiles(op)))
    return failure();
  if (numIndices != static_cast<size_t>(view.getRank()))
    return op->emitOpError() << "has " << numIndices
                             << " indices but the view has rank "
                             << view.getRank();
  if (tile.getShape() != view.getShape())
    return op->emitOpError()
           << tileName << " shape " << shapeString(tile.getShape())
           << " differs from the view's tile shape "
           << shapeString(view.getShape());
  if (tile.getElementType() != view.getElementType())
    return op->emitOpError()
           << tileName << " element type " << tile.getElementType()
           << " differs from the view's " << view.getElementType();
  return success();
}
} // namespace

LogicalResult LoadOp::verify() {
  return verifyViewAccess(*this, "result", getType(), getView().getType(),
                          getIndices().size());
}

LogicalResult StoreOp::verify() {
  return verifyViewAccess(*this, "stored tile", getValue().getType(),
                          getView().getType(), getIndices().size());
}

//===----------------------------------------------------------------------===//
// mma
//===----------------------------------------------------------------------===//

LogicalResult MmaOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands,
    DictionaryAttr, OpaqueProperties, RegionRange,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  if (operands.size() != 3)
    return failure();
  inferredReturnTypes.push_back(operands[2].getType());
  return success();
}

LogicalResult MmaOp::verify() {
  if (failed(verifyAllTiles(*this)))
    return failure();
  auto a = getA().getType(), b = getB().getType(), c = getC().getType();
  for (auto [name, t] : {std::pair<StringRef, RankedTensorType>{"a", a},
                         {"b", b}, {"c", c}})
    if (t.getRank() != 2)
      return emitOpError() << "operand '" << name << "' has rank "
                           << t.getRank() << "; mma operands have rank 2";
  int64_t m = a.getDimSize(0), k = a.getDimSize(1);
  if (b.getDimSize(0) != k)
    return emitOpError() << "operand 'a' is " << m << "x" << k
                         << " so 'b' must have " << k << " rows, but it is "
                         << shapeString(b.getShape());
  int64_t n = b.getDimSize(1);
  if (c.getDimSize(0) != m || c.getDimSize(1) != n)
    return emitOpError() << "accumulator 'c' is " << shapeString(c.getShape())
                         << " but a x b is " << m << "x" << n;
  Type ta = a.getElementType(), tb = b.getElementType(),
       tc = c.getElementType();
  bool ok = (ta.isF16() && tb.isF16() && (tc.isF32() || tc.isF16())) ||
            (ta.isBF16() && tb.isBF16() && tc.isF32()) ||
            (ta.isF32() && tb.isF32() && tc.isF32()) ||
            (isF8(ta) && isF8(tb) && tc.isF32());
  if (!ok)
    return emitOpError() << "unsupported element types (" << ta << ", " << tb
                         << ") -> " << tc
                         << "; supported: (f16, f16) -> f32 or f16, "
                            "(bf16, bf16) -> f32, (f32, f32) -> f32, "
                            "(f8, f8) -> f32";
  return success();
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

LogicalResult ReduceOp::verify() {
  if (failed(verifyAllTiles(*this)))
    return failure();
  RankedTensorType in = getInput().getType(), out = getType();
  int64_t dim = getDim();
  if (dim < 0 || dim >= in.getRank())
    return emitOpError() << "dim " << dim
                         << " is out of range for an input of rank "
                         << in.getRank();
  Type elt = in.getElementType();
  if (elt.isInteger(1) || isF8(elt))
    return emitOpError() << "reduction '" << stringifyReduceKind(getKind())
                         << "' is not defined for element type " << elt;
  SmallVector<int64_t> expected(in.getShape());
  expected.erase(expected.begin() + dim);
  if (out.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "result shape " << shapeString(out.getShape())
                         << " should be " << shapeString(expected)
                         << " (input " << shapeString(in.getShape())
                         << " with dim " << dim << " removed)";
  return verifySameElementType(*this, in, out);
}

LogicalResult BroadcastOp::verify() {
  if (failed(verifyAllTiles(*this)))
    return failure();
  RankedTensorType in = getInput().getType(), out = getType();
  if (failed(verifySameElementType(*this, in, out)))
    return failure();
  if (in.getRank() != out.getRank())
    return emitOpError() << "input has rank " << in.getRank()
                         << " but the result has rank " << out.getRank()
                         << "; use tile.reshape to change the rank";
  for (int64_t i = 0; i < in.getRank(); ++i)
    if (in.getDimSize(i) != out.getDimSize(i) && in.getDimSize(i) != 1)
      return emitOpError() << "dim " << i << " changes from "
                           << in.getDimSize(i) << " to " << out.getDimSize(i)
                           << "; only size-1 dims may be broadcast";
  return success();
}

LogicalResult ReshapeOp::verify() {
  if (failed(verifyAllTiles(*this)))
    return failure();
  RankedTensorType in = getInput().getType(), out = getType();
  if (failed(verifySameElementType(*this, in, out)))
    return failure();
  if (numElements(in.getShape()) != numElements(out.getShape()))
    return emitOpError() << "input has " << numElements(in.getShape())
                         << " elements but the result has "
                         << numElements(out.getShape());
  return success();
}

LogicalResult PermuteOp::verify() {
  if (failed(verifyAllTiles(*this)))
    return failure();
  RankedTensorType in = getInput().getType(), out = getType();
  ArrayRef<int64_t> perm = getPermutation();
  int64_t rank = in.getRank();
  if (static_cast<int64_t>(perm.size()) != rank)
    return emitOpError() << "permutation has " << perm.size()
                         << " entries but the input has rank " << rank;
  llvm::SmallBitVector seen(rank);
  for (int64_t p : perm) {
    if (p < 0 || p >= rank)
      return emitOpError() << "permutation entry " << p
                           << " is out of range for rank " << rank;
    if (seen.test(p))
      return emitOpError() << "permutation repeats " << p;
    seen.set(p);
  }
  if (failed(verifySameElementType(*this, in, out)))
    return failure();
  if (out.getRank() != rank)
    return emitOpError() << "result has rank " << out.getRank()
                         << " but the input has rank " << rank;
  for (int64_t i = 0; i < rank; ++i)
    if (out.getDimSize(i) != in.getDimSize(perm[i]))
      return emitOpError() << "result dim " << i << " is "
                           << out.getDimSize(i) << " but input dim "
                           << perm[i] << " is " << in.getDimSize(perm[i]);
  return success();
}

LogicalResult ConvertLayoutOp::verify() {
  if (failed(verifyAllTiles(*this)))
    return failure();
  RankedTensorType in = getInput().getType(), out = getType();
  if (failed(verifySameElementType(*this, in, out)))
    return failure();
  if (in.getShape() != out.getShape())
    return emitOpError() << "result shape differs from the input's: a "
                            "conversion changes only the layout";
  return success();
}

LogicalResult ClusterSumOp::verify() {
  if (failed(verifyAllTiles(*this)))
    return failure();
  Type elt = getType().getElementType();
  if (!isa<FloatType>(elt) && !elt.isSignlessInteger(32))
    return emitOpError() << "sums floats or i32, not " << elt;
  return success();
}

/// The partial-tile ops' common rule: the workspace holds the tile's
/// element type.
template <typename Op>
static LogicalResult verifyPartial(Op op, RankedTensorType tile, MemRefType workspace) {
  if (failed(verifyAllTiles(op)))
    return failure();
  if (!isa<FloatType>(tile.getElementType()))
    return op.emitOpError() << "moves float accumulators, not " << tile.getElementType();
  if (workspace.getElementType() != tile.getElementType())
    return op.emitOpError() << "workspace holds " << workspace.getElementType() << ", the tile "
                            << tile.getElementType();
  return success();
}

LogicalResult PartialStoreOp::verify() {
  return verifyPartial(*this, cast<RankedTensorType>(getValue().getType()), getWorkspace().getType());
}

LogicalResult PartialSumOp::verify() {
  return verifyPartial(*this, cast<RankedTensorType>(getType()), getWorkspace().getType());
}

LogicalResult SplatOp::verify() {
  if (failed(verifyAllTiles(*this)))
    return failure();
  Type elt = getType().getElementType();
  if (getValue().getType() != elt)
    return emitOpError() << "scalar type " << getValue().getType()
                         << " differs from the result element type " << elt;
  return success();
}

LogicalResult IotaOp::verify() {
  if (failed(verifyAllTiles(*this)))
    return failure();
  RankedTensorType t = getType();
  if (t.getRank() != 1)
    return emitOpError() << "result has rank " << t.getRank()
                         << "; iota produces a rank-1 tile";
  int64_t last = t.getDimSize(0) - 1;
  Type elt = t.getElementType();
  // Largest integer each type holds exactly.
  int64_t limit;
  if (auto i = dyn_cast<IntegerType>(elt)) {
    if (i.getWidth() == 1)
      return emitOpError() << "element type i1 cannot count";
    limit = i.getWidth() >= 64 ? INT64_MAX
                               : (int64_t(1) << (i.getWidth() - 1)) - 1;
  } else if (elt.isF32()) {
    limit = int64_t(1) << 24;
  } else if (elt.isF16()) {
    limit = int64_t(1) << 11;
  } else if (elt.isBF16()) {
    limit = int64_t(1) << 8;
  } else {
    return emitOpError() << "element type " << elt << " cannot count";
  }
  if (last > limit)
    return emitOpError() << "the last element " << last
                         << " is not exactly representable in " << elt;
  return success();
}

//===----------------------------------------------------------------------===//
// Kernel attributes
//===----------------------------------------------------------------------===//
// Every name, key and range here comes from KernelAttrs.h.inc, generated from
// src/attrs.rs: tile-specialize and the reference page read the same table.

namespace {
bool isKernelScalar(Type t) {
  return t.isIndex() || t.isSignlessInteger(32) || t.isSignlessInteger(64) ||
         t.isF32();
}

const attrs::Knob *findKnob(ArrayRef<attrs::Knob> table, StringRef key) {
  const auto *it = llvm::find_if(
      table, [&](const attrs::Knob &knob) { return knob.key == key; });
  return it == table.end() ? nullptr : it;
}

bool accepts(const attrs::Knob &knob, int64_t value) {
  return value >= knob.min && value <= knob.max &&
         (!knob.powerOfTwo ||
          (value > 0 && llvm::isPowerOf2_64(static_cast<uint64_t>(value))));
}

/// Inherent attribute `key` of `op`, or null: read generically where the
/// op is not verified yet (its typed accessors would assume it is).
Attribute inherentAttr(Operation *op, StringRef key) {
  return op->getInherentAttr(key).value_or(Attribute());
}

/// The argument types of function `op` (func.func, gpu.func or llvm.func),
/// or nullopt where its `function_type` is missing or malformed, which its
/// own verifier reports.
std::optional<ArrayRef<Type>> argumentTypes(Operation *op) {
  auto attr = dyn_cast_or_null<TypeAttr>(inherentAttr(op, "function_type"));
  if (!attr)
    return std::nullopt;
  if (auto type = dyn_cast<FunctionType>(attr.getValue()))
    return type.getInputs();
  if (auto type = dyn_cast<LLVM::LLVMFunctionType>(attr.getValue()))
    return type.getParams();
  return std::nullopt;
}

/// The value of an integer attribute that fits in 64 bits (getSExtValue
/// would assert on a wider one), as the Rust side reads it; with
/// `integerType`, not of type `index` either (hints never were).
std::optional<int64_t> intValue(Attribute attr, bool integerType = false) {
  auto value = dyn_cast<IntegerAttr>(attr);
  if (!value || (integerType && !isa<IntegerType>(value.getType())) ||
      value.getValue().getSignificantBits() > 64)
    return std::nullopt;
  return value.getValue().getSExtValue();
}

/// Whether `value` is the index of an `!llvm.ptr` argument (a TMA
/// descriptor) of the function around `op`.
bool namesDescriptor(Operation *op, Attribute value) {
  std::optional<int64_t> index = intValue(value);
  auto fn = op->getParentOfType<FunctionOpInterface>();
  std::optional<ArrayRef<Type>> inputs =
      fn ? argumentTypes(fn.getOperation()) : std::nullopt;
  return index && *index >= 0 && inputs &&
         *index < (int64_t)inputs->size() &&
         isa<LLVM::LLVMPointerType>((*inputs)[*index]);
}

/// A knob's value in `tile.hints` or `tile.config` (`what` starts the
/// message): `value` is the integer read from `attr`, if any.
LogicalResult verifyKnobValue(Operation *op, const Twine &what,
                              const attrs::Knob &knob,
                              std::optional<int64_t> value, Attribute attr) {
  if (value && accepts(knob, *value))
    return success();
  return op->emitError() << what << " must be " << knob.expected << ", not "
                         << attr;
}

/// The size limits of the tile rules for a tensor that any op of a kernel
/// computes: the GPU keeps every such tensor in registers or shared memory,
/// whether a tile op makes it or not (tile ops also check the shape rules).
/// Dynamic tensors appear only mid-pipeline, and are not tiles.
LogicalResult verifyKernelTensor(Operation *op, const Twine &what,
                                 RankedTensorType type) {
  if (!type.hasStaticShape())
    return success();
  int64_t elements = staticElements(type.getShape());
  if (elements > kMaxTileElements)
    return op->emitOpError() << what << " has more than 2^20 ("
                             << kMaxTileElements << ") elements";
  return verifyTileBytes([op] { return op->emitOpError(); }, what, elements,
                         type.getElementType());
}

/// The body of kernel `func`, named `name`: defined, structured control
/// flow only (one block per region, no branches; scf.for and scf.if are the
/// contract's control flow, and the CPU and GPU pipelines disagreed on
/// anything else), no calls (kernels call nothing: the GPU module holds the
/// kernels alone), and every tensor within the tile size limits. Only names,
/// successors, generic attributes and types are read, so ops not verified
/// yet are safe to look at.
LogicalResult verifyKernelBody(Operation *func, StringRef name) {
  Region &body = func->getRegion(0);
  if (body.empty())
    return func->emitError() << "kernel @" << name
                             << " has no body; kernels are defined, not "
                                "declared";
  WalkResult walk = body.walk([&](Operation *op) {
    if (op->getNumSuccessors() != 0) {
      op->emitOpError() << "branches to another block in kernel @" << name
                        << "; control flow in a kernel is structured "
                           "(scf.for, scf.if)";
      return WalkResult::interrupt();
    }
    if (isa<CallOpInterface>(op)) {
      // The callee named through the generic attribute (func.call's and
      // llvm.call's), as the call is not verified yet.
      auto callee = dyn_cast_or_null<SymbolRefAttr>(inherentAttr(op, "callee"));
      InFlightDiagnostic diag = op->emitOpError() << "calls ";
      if (callee)
        diag << callee;
      else
        diag << "a function";
      diag << " from kernel @" << name << "; kernels call nothing";
      return WalkResult::interrupt();
    }
    for (OpResult result : op->getResults()) {
      auto tensor = dyn_cast<RankedTensorType>(result.getType());
      if (!tensor)
        continue;
      std::string what =
          op->getNumResults() == 1
              ? std::string("result")
              : ("result #" + Twine(result.getResultNumber())).str();
      if (failed(verifyKernelTensor(op, what, tensor)))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  // Blocks without a branch to them: still not structured, and the CPU's
  // grid lowering takes a body of one block.
  WalkResult blocks = func->walk([&](Operation *op) {
    for (Region &region : op->getRegions()) {
      if (region.empty() || region.hasOneBlock())
        continue;
      Block &second = *std::next(region.begin());
      Operation *at = second.empty() ? op : &second.front();
      at->emitError() << "kernel @" << name << " has a region of "
                      << region.getBlocks().size()
                      << " blocks; control flow in a kernel is structured "
                         "(scf.for, scf.if), one block per region";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(blocks.wasInterrupted());
}

/// The `memref.global`s beside kernels. Kernels reach global memory through
/// their memref arguments; the globals of their block are what tile
/// constants bufferize into, which convert-tile-to-gpu moves into the GPU
/// module and both targets translate to LLVM: constants with a value, no
/// larger than a tile (a huge initializer aborts the translation with "out
/// of memory"; a mutable global would let blocks communicate). Checked by
/// the block's first kernel only, so each global is reported once; globals
/// are read through their generic attributes, as they may not be verified
/// yet.
LogicalResult verifyKernelGlobals(func::FuncOp func) {
  Block *block = func->getBlock();
  if (!block)
    return success();
  for (Operation &sibling : *block)
    if (isa<func::FuncOp>(sibling) && sibling.hasAttr(attrs::kKernel)) {
      if (&sibling != func.getOperation())
        return success();
      break;
    }
  for (Operation &global : *block) {
    if (global.getName().getStringRef() != "memref.global")
      continue;
    auto attr = [&](StringRef key) { return inherentAttr(&global, key); };
    auto typeAttr = dyn_cast_or_null<TypeAttr>(attr("type"));
    auto type = typeAttr ? dyn_cast<MemRefType>(typeAttr.getValue())
                         : MemRefType();
    if (!type || !type.hasStaticShape())
      continue; // memref.global's own verifier reports it.
    auto symbol = dyn_cast_or_null<StringAttr>(attr("sym_name"));
    StringRef globalName = symbol ? symbol.getValue() : StringRef("?");
    if (!isa_and_nonnull<UnitAttr>(attr("constant")) ||
        !isa_and_nonnull<ElementsAttr>(attr("initial_value")))
      return global.emitOpError()
             << "@" << globalName
             << " beside tile kernels is not a constant with a value; "
                "kernels reach global memory through their memref "
                "arguments";
    if (type.getMemorySpace())
      return global.emitOpError()
             << "@" << globalName
             << " beside tile kernels is in memory space "
             << type.getMemorySpace() << "; kernels' constants are global";
    uint64_t bytes = llvm::SaturatingMultiply(
        static_cast<uint64_t>(staticElements(type.getShape())),
        static_cast<uint64_t>(elementBytes(type.getElementType())));
    if (elementBytes(type.getElementType()) == 0 ||
        bytes > static_cast<uint64_t>(kMaxTileBytes))
      return global.emitOpError()
             << "@" << globalName << " beside tile kernels holds " << type
             << "; a constant beside kernels is at most a tile ("
             << kMaxTileBytes << " bytes)";
  }
  return success();
}
} // namespace

LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  if (name == attrs::kKernel) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' is a unit attribute";
    auto func = dyn_cast<func::FuncOp>(op);
    if (!func)
      return op->emitError() << "'" << name << "' belongs on a func.func";
    // Attribute verifiers run before the op's own, so the name, type and
    // body are read generically: func.func's verifier, which runs next,
    // reports any that is missing or malformed.
    auto typeAttr =
        dyn_cast_or_null<TypeAttr>(inherentAttr(op, "function_type"));
    auto type = typeAttr ? dyn_cast<FunctionType>(typeAttr.getValue())
                         : FunctionType();
    auto symName =
        dyn_cast_or_null<StringAttr>(inherentAttr(op, "sym_name"));
    if (!type || !symName || op->getNumRegions() != 1)
      return success();
    StringRef kernel = symName.getValue();
    if (type.getNumResults() != 0)
      return op->emitError() << "kernel @" << kernel << " returns "
                             << type.getNumResults()
                             << " values; kernels return nothing";
    for (auto [i, t] : llvm::enumerate(type.getInputs())) {
      if (auto memref = dyn_cast<MemRefType>(t)) {
        if (memref.getRank() < 1 || memref.getRank() > 3 ||
            !isTileElementType(memref.getElementType()))
          return op->emitError()
                 << "kernel argument #" << i << " has type " << t
                 << "; memref arguments have rank 1 to 3 and a tile "
                    "element type";
        continue;
      }
      // A TMA descriptor that tile-use-tma added for a memref
      // argument; the runtime encodes it and passes its device address.
      auto argAttrs =
          dyn_cast_or_null<ArrayAttr>(inherentAttr(op, "arg_attrs"));
      auto argDict = argAttrs && i < argAttrs.size()
                         ? dyn_cast<DictionaryAttr>(argAttrs[i])
                         : DictionaryAttr();
      if (isa<LLVM::LLVMPointerType>(t) && argDict &&
          argDict.get(attrs::kTma))
        continue;
      if (!isKernelScalar(t))
        return op->emitError()
               << "kernel argument #" << i << " has type " << t
               << "; kernel arguments are memrefs or index, i32, i64, f32 "
                  "scalars";
    }
    if (failed(verifyKernelBody(op, kernel)))
      return failure();
    return verifyKernelGlobals(func);
  }
  if (name == attrs::kHints) {
    auto dict = dyn_cast<DictionaryAttr>(attr.getValue());
    if (!dict)
      return op->emitError() << "'" << name << "' must be a dictionary";
    for (NamedAttribute hint : dict) {
      StringRef key = hint.getName().strref();
      // Unknown keys are ignored: hints never make a program invalid. (A
      // warning here would recurse: printing the op for the diagnostic
      // verifies it again.)
      const attrs::Knob *knob = findKnob(attrs::kHintKnobs, key);
      if (knob && failed(verifyKnobValue(op, "hint '" + key + "'", *knob,
                                         intValue(hint.getValue(), true),
                                         hint.getValue())))
        return failure();
    }
    return success();
  }
  if (name == attrs::kConfig) {
    // One tuning configuration, which tile-specialize applies and removes:
    // integer values, the tile sizes' and the hints' in their ranges (as in
    // tile.tune), so that no value the verifier accepts makes the first
    // pass of both pipelines fail. tile-specialize checks whether a tile
    // size reaches the program's tiles (a located error names the op it
    // cannot resize) and rejects unknown keys.
    auto dict = dyn_cast<DictionaryAttr>(attr.getValue());
    if (!dict)
      return op->emitError() << "'" << name << "' must be a dictionary";
    for (NamedAttribute entry : dict) {
      StringRef key = entry.getName().strref();
      if (!isa<IntegerAttr>(entry.getValue()))
        return op->emitError() << "'" << name << "': '" << key
                               << "' must be an integer, not "
                               << entry.getValue();
      const attrs::Knob *knob = findKnob(attrs::kTileKnobs, key);
      if (!knob)
        knob = findKnob(attrs::kHintKnobs, key);
      if (knob && failed(verifyKnobValue(op, "'" + name + "': '" + key + "'",
                                         *knob, intValue(entry.getValue()),
                                         entry.getValue())))
        return failure();
    }
    return success();
  }
  if (name == attrs::kTune) {
    // The tuning space: for each key, the values to try. The tuner rejects
    // unknown keys; their values here need only count something.
    auto dict = dyn_cast<DictionaryAttr>(attr.getValue());
    if (!dict)
      return op->emitError() << "'" << name << "' must be a dictionary";
    for (NamedAttribute entry : dict) {
      StringRef key = entry.getName().strref();
      auto values = dyn_cast<DenseI64ArrayAttr>(entry.getValue());
      if (!values || values.empty())
        return op->emitError() << "'" << name << "': '" << key
                               << "' must be a non-empty array<i64: ...>, not "
                               << entry.getValue();
      const attrs::Knob *knob = findKnob(attrs::kTileKnobs, key);
      if (!knob)
        knob = findKnob(attrs::kHintKnobs, key);
      for (int64_t value : values.asArrayRef()) {
        if (knob ? accepts(*knob, value) : value >= 1)
          continue;
        return op->emitError()
               << "'" << name << "': '" << key << "' values must be "
               << (knob ? StringRef(knob->expectedPlural)
                        : StringRef("positive integers"))
               << ", not " << value;
      }
    }
    return success();
  }
  if (name == attrs::kBlockSize) {
    // Written by tile-assign-layouts: the threads of the kernel's block.
    std::optional<int64_t> threads = intValue(attr.getValue());
    if (!threads || *threads < 1 || *threads > attrs::kMaxBlockSize)
      return op->emitError() << "'" << name << "' must be an integer from 1 to "
                             << attrs::kMaxBlockSize;
    return success();
  }
  if (name == attrs::kVariantOf) {
    // Written by tile-use-tma or tile-finish-widening: the kernel this one
    // specialises.
    if (!isa<FlatSymbolRefAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' must be a symbol reference";
    return success();
  }
  if (name == attrs::kSharedMemory) {
    // Written by convert-tile-to-gpu: the kernel's dynamic shared memory.
    std::optional<int64_t> bytes = intValue(attr.getValue());
    if (!bytes || *bytes < 0)
      return op->emitError() << "'" << name
                             << "' must be a non-negative integer";
    return success();
  }
  if (name == attrs::kPersistent) {
    // Written by tile-persist-blocks: the kernel walks several tile
    // blocks; its last argument is how many (the program's 1-D grid), an
    // index (an i64 once lowered to LLVM).
    bool function = isa<FunctionOpInterface>(op);
    std::optional<ArrayRef<Type>> inputs =
        function ? argumentTypes(op) : std::nullopt;
    if (function && !inputs)
      return success(); // The function's own verifier reports its type.
    if (!isa<UnitAttr>(attr.getValue()) || !function || inputs->empty() ||
        !(inputs->back().isIndex() || inputs->back().isInteger(64)))
      return op->emitError() << "'" << name
                             << "' is a unit attribute of a kernel whose last argument is an index";
    return success();
  }
  if (name == attrs::kStreamK) {
    // Written by tile-stream-k on a persistent variant: the elements of a
    // partial tile, then the argument, dim and tile size its K loop's
    // trip count counts.
    auto values = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    ArrayRef<int64_t> v = values ? values.asArrayRef() : ArrayRef<int64_t>();
    if (v.size() != 4 || v[0] < 1 || v[1] < 0 || v[2] < 0 || v[3] < 1 ||
        !isa<FunctionOpInterface>(op) || !op->hasAttr(attrs::kPersistent))
      return op->emitError()
             << "'" << name
             << "' is array<i64: elements, arg, dim, tile> (positive elements and tile) on a kernel with "
                "'tile.persistent'";
    return success();
  }
  if (name == attrs::kGrouped) {
    // Written by tile-group-blocks: the rows of tiles the kernel's
    // consecutive blocks walk column by column (0: only some block ids).
    std::optional<int64_t> group = intValue(attr.getValue());
    if (!group || *group < 0 || !isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << name
                             << "' is a non-negative integer on a kernel";
    return success();
  }
  if (name == attrs::kGridSlice) {
    // Written by tile-split-last-wave: the variant's last two arguments
    // are a slice's first block and the whole grid along x (indexes, i64
    // once lowered to LLVM); the value is its block order's group of rows.
    std::optional<int64_t> group = intValue(attr.getValue());
    bool function = isa<FunctionOpInterface>(op);
    std::optional<ArrayRef<Type>> inputs =
        function ? argumentTypes(op) : std::nullopt;
    if (function && !inputs)
      return success(); // The function's own verifier reports its type.
    auto indexLike = [](Type t) { return t.isIndex() || t.isInteger(64); };
    if (!group || *group < 1 || !function || inputs->size() < 2 ||
        !indexLike((*inputs)[inputs->size() - 1]) ||
        !indexLike((*inputs)[inputs->size() - 2]))
      return op->emitError()
             << "'" << name
             << "' is a positive integer on a kernel whose last two arguments are indexes";
    // A persistent variant's last argument is its program's grid: the
    // runtime would pass the slice's two after it.
    if (op->hasAttr(attrs::kPersistent))
      return op->emitError() << "'" << name << "' is not for a kernel with '"
                             << attrs::kPersistent << "'";
    return success();
  }
  if (name == attrs::kRingBase) {
    // Written by tile-stream-k: which iteration argument of the enclosing
    // loop holds this loop's first ring position.
    std::optional<int64_t> index = intValue(attr.getValue());
    if (!index || *index < 0 || op->getName().getStringRef() != "scf.for")
      return op->emitError() << "'" << name
                             << "' is a non-negative integer on an scf.for";
    return success();
  }
  if (name == attrs::kWideOf) {
    // Written by tile-widen-blocks: the kernel a widened instance is of.
    if (!isa<FlatSymbolRefAttr>(attr.getValue()) ||
        !isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << name
                             << "' is a symbol reference on a function";
    return success();
  }
  if (name == attrs::kRetiled) {
    // Written by tile-widen-blocks: which tiles of which argument the
    // program's grid counts, and the variant's tiles there; an eighth
    // element 1 where the kernel walks its tiles (a persistent loop).
    auto retiled = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    ArrayRef<int64_t> v = retiled ? retiled.asArrayRef() : ArrayRef<int64_t>();
    if (!retiled || (v.size() != 7 && v.size() != 8) ||
        !isa<FunctionOpInterface>(op) || v[0] < 0 || v[1] < 0 || v[2] < 0 ||
        v[1] == v[2] ||
        llvm::any_of(v.drop_front(3).take_front(4),
                     [](int64_t x) { return x < 1; }) ||
        (v.size() == 8 && v[7] != 1))
      return op->emitError()
             << "'" << name
             << "' is an array<i64: arg, row_dim, column_dim, program_rows, "
                "program_columns, rows, columns[, 1 for a walk]> (dims "
                "distinct and >= 0, sizes >= 1) on a function";
    return success();
  }
  if (name == attrs::kCluster) {
    // Written by tile-assign-layouts or tile-slice-clusters: each program
    // block runs as a cluster of this many blocks.
    std::optional<int64_t> blocks = intValue(attr.getValue());
    if (!blocks || *blocks < 2 || *blocks > attrs::kMaxCluster ||
        !isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << name
                             << "' is an integer from 2 to "
                             << attrs::kMaxCluster << " on a kernel";
    return success();
  }
  if (name == attrs::kSliced) {
    // Written by tile-slice-clusters beside tile.cluster: each block of the
    // cluster computes its own rows of the program block's mma tiles.
    if (!isa<UnitAttr>(attr.getValue()) || !isa<FunctionOpInterface>(op) ||
        !op->hasAttr(attrs::kCluster))
      return op->emitError() << "'" << name
                             << "' is a unit attribute of a kernel with '"
                             << attrs::kCluster << "'";
    return success();
  }
  if (name == attrs::kRegisters) {
    // Written by convert-tile-to-registers on the kernels it lowered: their
    // code is per thread already, so tile-distribute leaves them be.
    if (!isa<UnitAttr>(attr.getValue()) || !isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << name
                             << "' is a unit attribute of a kernel";
    return success();
  }
  if (name == attrs::kRing) {
    // Written by tile-prefetch-loads on the loads it issues ahead: where a
    // shared-memory operand tile goes (convert-tile-to-registers).
    auto ring = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    ArrayRef<int64_t> v = ring ? ring.asArrayRef() : ArrayRef<int64_t>();
    if (!ring || v.size() != 4 || op->getName().getStringRef() != "tile.load" ||
        v[0] < 0 || v[1] < 1 || v[2] < -1 || v[2] >= v[1] || v[3] <= v[1] ||
        v[3] > 64)
      return op->emitError()
             << "'" << name
             << "' is array<i64: ring, distance, index, slots> on a tile.load, "
                "with ring >= 0, distance >= 1, -1 <= index < distance and "
                "distance < slots <= 64";
    return success();
  }
  if (name == attrs::kTmaLoad) {
    // Written by tile-use-tma: the ring load is filled by the TMA through
    // the descriptor passed as this argument of its kernel.
    if (op->getName().getStringRef() != "tile.load" ||
        !op->hasAttr(attrs::kRing) || !namesDescriptor(op, attr.getValue()))
      return op->emitError()
             << "'" << name
             << "' is the index of an !llvm.ptr argument of the kernel, on a "
                "tile.load with 'tile.ring'";
    return success();
  }
  if (name == attrs::kTmaMulticast) {
    // Written by tile-use-tma: every block of a sliced cluster reads the
    // same tile, which each asks the TMA for a part of, for all of them.
    auto kernel = op->getParentOfType<FunctionOpInterface>();
    if (!isa<UnitAttr>(attr.getValue()) ||
        op->getName().getStringRef() != "tile.load" ||
        !op->hasAttr(attrs::kTmaLoad) || !kernel ||
        !kernel->hasAttr(attrs::kSliced))
      return op->emitError()
             << "'" << name
             << "' is a unit attribute of a tile.load with 'tile.tma_load' "
                "in a kernel with 'tile.sliced'";
    return success();
  }
  if (name == attrs::kTmaStore) {
    // Written by tile-use-tma: the TMA writes the store's tile out through
    // the descriptor passed as this argument of its kernel.
    if (op->getName().getStringRef() != "tile.store" ||
        !namesDescriptor(op, attr.getValue()))
      return op->emitError()
             << "'" << name
             << "' is the index of an !llvm.ptr argument of the kernel, on a "
                "tile.store";
    return success();
  }
  return op->emitError() << "unknown tile attribute '" << name << "'";
}

/// `tile.tma = {arg, box, swizzle}` on a kernel argument (written by
/// tile-use-tma): a TMA descriptor of memref argument `arg` that
/// the runtime encodes and passes as this `!llvm.ptr`. Checked here so that
/// the bundle metadata read from it is always complete.
LogicalResult TileDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  if (name != attrs::kTma)
    return op->emitError() << "unknown tile argument attribute '" << name
                           << "'";
  auto fn = dyn_cast<FunctionOpInterface>(op);
  if (!fn || regionIndex != 0)
    return op->emitError() << "'" << name << "' belongs on a function argument";
  ArrayRef<Type> inputs = fn.getArgumentTypes();
  if (argIndex >= inputs.size() ||
      !isa<LLVM::LLVMPointerType>(inputs[argIndex]))
    return op->emitError() << "'" << name << "' argument #" << argIndex
                           << " must be an !llvm.ptr";
  auto dict = dyn_cast<DictionaryAttr>(attr.getValue());
  auto arg = dict ? dict.getAs<IntegerAttr>(attrs::kTmaArg) : IntegerAttr();
  auto box =
      dict ? dict.getAs<DenseI64ArrayAttr>(attrs::kTmaBox) : DenseI64ArrayAttr();
  auto swizzle =
      dict ? dict.getAs<IntegerAttr>(attrs::kTmaSwizzle) : IntegerAttr();
  Attribute optional = dict ? dict.get(attrs::kTmaOptional) : Attribute();
  if (!arg || !box || !swizzle || (optional && !isa<UnitAttr>(optional)) ||
      dict.size() != (optional ? 4u : 3u))
    return op->emitError() << "'" << name << "' must be {" << attrs::kTmaArg
                           << " = N : i64, " << attrs::kTmaBox
                           << " = array<i64: ...>, " << attrs::kTmaSwizzle
                           << " = N : i64} with an optional unit '"
                           << attrs::kTmaOptional << "'";
  int64_t source = arg.getValue().getSExtValue();
  auto memref = source >= 0 && source < (int64_t)inputs.size()
                    ? dyn_cast<MemRefType>(inputs[source])
                    : MemRefType();
  if (!memref)
    return op->emitError() << "'" << name << "' names argument #" << source
                           << ", which is not a memref";
  if ((int64_t)box.size() != memref.getRank() ||
      llvm::any_of(box.asArrayRef(),
                   [](int64_t d) { return d < 1 || d > attrs::kTmaMaxBox; }))
    return op->emitError() << "'" << name << "' box must have one extent from 1 "
                              "to "
                           << attrs::kTmaMaxBox << " per dim of argument #"
                           << source;
  int64_t bytes = swizzle.getValue().getSExtValue();
  if (!llvm::is_contained(attrs::kTmaSwizzles, bytes)) {
    InFlightDiagnostic diag = op->emitError()
                              << "'" << name << "' swizzle must be ";
    ArrayRef<int64_t> swizzles = attrs::kTmaSwizzles;
    for (auto [i, s] : llvm::enumerate(swizzles))
      diag << (i == 0 ? "" : i + 1 == swizzles.size() ? " or " : ", ") << s;
    return diag;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// C API
//===----------------------------------------------------------------------===//

extern "C" {
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Tile, tile, mlir::tile::TileDialect)
}

//===----------------------------------------------------------------------===//
// C API for the partition view type, used by the Rust helpers in types.rs.
//===----------------------------------------------------------------------===//

#include "mlir/CAPI/IR.h"

extern "C" {

bool tileTypeIsAPartitionView(MlirType type) {
  return isa<PartitionViewType>(unwrap(type));
}

/// Returns a null type (and emits a diagnostic at an unknown location) when
/// the parameters break the tile rules or the padding is out of range.
MlirType tilePartitionViewTypeGetChecked(MlirContext context, intptr_t rank,
                                         const int64_t *shape,
                                         MlirType elementType,
                                         int32_t padding) {
  MLIRContext *ctx = unwrap(context);
  std::optional<Padding> pad = symbolizePadding(padding);
  if (!pad) {
    emitError(UnknownLoc::get(ctx)) << "padding " << padding
                                    << " is not a tile padding";
    return MlirType{nullptr};
  }
  return wrap(PartitionViewType::getChecked(
      [ctx] { return emitError(UnknownLoc::get(ctx)); }, ctx,
      ArrayRef<int64_t>(shape, rank), unwrap(elementType), *pad));
}

intptr_t tilePartitionViewTypeGetRank(MlirType type) {
  return cast<PartitionViewType>(unwrap(type)).getRank();
}

int64_t tilePartitionViewTypeGetDim(MlirType type, intptr_t dim) {
  return cast<PartitionViewType>(unwrap(type)).getShape()[dim];
}

MlirType tilePartitionViewTypeGetElementType(MlirType type) {
  return wrap(cast<PartitionViewType>(unwrap(type)).getElementType());
}

int32_t tilePartitionViewTypeGetPadding(MlirType type) {
  return static_cast<int32_t>(
      cast<PartitionViewType>(unwrap(type)).getPadding());
}
}
