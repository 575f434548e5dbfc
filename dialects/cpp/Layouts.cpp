// The tile layouts (td/Tile.td, "Layouts"): their syntax, their verifiers,
// the tensor-encoding rank check, and the C API that src/layout.rs wraps.
//
// Each attribute's rules are one `check*` function that explains what is
// wrong on a stream: the verifier reports that text as a located error, and
// the C API's constructors return null without emitting anything, so that
// Rust can ask whether parameters are valid without touching the context's
// diagnostic handlers (which other threads may be using).
#include "TileDialect.h"

#include "mlir-c/IR.h"
#include "mlir/CAPI/IR.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tile;

// Every tile attribute's generated definitions live in this file (the enum
// attributes' too): the C API below builds attributes, which needs their
// storage classes, and those are only in the generated .cpp.inc.
#define GET_ATTRDEF_CLASSES
#include "TileAttrs.cpp.inc"

void TileDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "TileAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Rules
//===----------------------------------------------------------------------===//

namespace {
/// A warp's lanes, the most warps of a tile block (a cluster of up to 8
/// blocks of up to 32 warps each) and of a CUDA block, as log2.
constexpr int64_t kLog2WarpSize = 5;
constexpr int64_t kLog2MaxWarps = 8;
constexpr int64_t kLog2MaxBlockWarps = 5;
/// The most register bases of a linear layout (2^20 registers' worth of
/// elements, the largest tile).
constexpr int64_t kMaxRegisterBases = 20;

/// Runs `check`, which writes why the parameters are invalid to its stream
/// and returns false; reports that text through `emitError`.
template <typename Check>
LogicalResult verifyWith(function_ref<InFlightDiagnostic()> emitError,
                         Check check) {
  std::string why;
  llvm::raw_string_ostream os(why);
  if (check(os))
    return success();
  return emitError() << why;
}

/// `check` without a diagnostic, for the C API.
template <typename Check> bool isValid(Check check) {
  std::string why;
  llvm::raw_string_ostream os(why);
  return check(os);
}

bool isPowerOfTwo(int64_t v) {
  return v > 0 && llvm::isPowerOf2_64(static_cast<uint64_t>(v));
}

bool checkPowersOfTwo(llvm::raw_ostream &why, StringRef name,
                      ArrayRef<int64_t> list) {
  for (auto [i, v] : llvm::enumerate(list))
    if (!isPowerOfTwo(v)) {
      why << name << "[" << i << "] is " << v
          << ", which is not a power of two";
      return false;
    }
  return true;
}

/// log2 of the product of powers of two: a sum, which cannot overflow
/// where the product could (each entry may be up to 2^62).
int64_t log2Product(ArrayRef<int64_t> powersOfTwo) {
  int64_t log2 = 0;
  for (int64_t v : powersOfTwo)
    log2 += llvm::Log2_64(static_cast<uint64_t>(v));
  return log2;
}

/// 2^log2 as text, for products too large for an int64_t.
std::string powerText(int64_t log2) {
  return log2 < 63 ? std::to_string(int64_t(1) << log2)
                   : "2^" + std::to_string(log2);
}

void printList(llvm::raw_ostream &os, ArrayRef<int64_t> list) {
  os << "[";
  llvm::interleaveComma(list, os);
  os << "]";
}

bool checkBlocked(llvm::raw_ostream &why, ArrayRef<int64_t> sizePerThread,
                  ArrayRef<int64_t> threadsPerWarp,
                  ArrayRef<int64_t> warpsPerBlock, ArrayRef<int64_t> order) {
  size_t rank = sizePerThread.size();
  if (rank < 1 || rank > 3) {
    why << "size_per_thread has " << rank
        << " entries; blocked layouts have rank 1 to 3";
    return false;
  }
  std::pair<StringRef, ArrayRef<int64_t>> lists[] = {
      {"size_per_thread", sizePerThread},
      {"threads_per_warp", threadsPerWarp},
      {"warps_per_block", warpsPerBlock},
      {"order", order}};
  for (auto [name, list] : lists)
    if (list.size() != rank) {
      why << name << " has " << list.size()
          << " entries but size_per_thread has " << rank
          << "; the lists have one entry per dim";
      return false;
    }
  for (auto [name, list] : ArrayRef(lists).drop_back())
    if (!checkPowersOfTwo(why, name, list))
      return false;
  if (int64_t log2 = log2Product(threadsPerWarp); log2 != kLog2WarpSize) {
    why << "threads_per_warp multiplies to " << powerText(log2)
        << "; a warp has 32 threads";
    return false;
  }
  if (int64_t log2 = log2Product(warpsPerBlock); log2 > kLog2MaxWarps) {
    why << "warps_per_block multiplies to " << powerText(log2)
        << "; a tile block has at most 256 warps (a cluster of 8 blocks of 32)";
    return false;
  }
  llvm::SmallBitVector seen(rank);
  for (int64_t d : order) {
    if (d < 0 || d >= static_cast<int64_t>(rank) || seen.test(d)) {
      why << "order ";
      printList(why, order);
      why << " is not a permutation of 0 .. " << rank - 1;
      return false;
    }
    seen.set(d);
  }
  return true;
}

bool checkSlice(llvm::raw_ostream &why, int64_t dim, Attribute parent) {
  if (!parent) {
    why << "a slice needs a parent layout";
    return false;
  }
  std::optional<int64_t> rank = registerLayoutRank(parent);
  if (!rank) {
    why << "parent " << parent
        << " is not a tile register layout (blocked, slice, linear, wgmma "
           "or wgmma_operand)";
    return false;
  }
  if (*rank < 2) {
    why << "parent has rank " << *rank
        << ", so the slice would have rank 0; tiles have rank 1 to 3";
    return false;
  }
  if (dim < 0 || dim >= *rank) {
    why << "dim " << dim << " is out of range for a parent of rank " << *rank;
    return false;
  }
  return true;
}

bool checkLinear(llvm::raw_ostream &why, int64_t rank,
                 ArrayRef<int64_t> registerBases, ArrayRef<int64_t> laneBases,
                 ArrayRef<int64_t> warpBases) {
  if (rank == 0) {
    // No basis has an entry, so no rank can be read off them.
    why << "a linear layout needs exactly 5 lane bases of 1 to 3 entries "
           "each; these bases have no entries";
    return false;
  }
  if (rank < 1 || rank > 3) {
    why << "bases have " << rank
        << " entries; linear layouts have rank 1 to 3";
    return false;
  }
  struct List {
    StringRef name;
    ArrayRef<int64_t> flat;
  };
  List lists[] = {{"register", registerBases},
                  {"lane", laneBases},
                  {"warp", warpBases}};
  for (const List &list : lists) {
    if (list.flat.size() % rank != 0) {
      why << list.name << " holds " << list.flat.size()
          << " integers, not whole bases of " << rank;
      return false;
    }
    for (auto [i, v] : llvm::enumerate(list.flat))
      if (v < 0) {
        why << list.name << " basis " << i / rank << " has entry " << v
            << "; basis entries are >= 0";
        return false;
      }
  }
  int64_t lanes = laneBases.size() / rank;
  if (lanes != kLog2WarpSize) {
    why << "lane has " << lanes
        << " bases; a warp's 32 lanes take exactly 5";
    return false;
  }
  int64_t warps = warpBases.size() / rank;
  if (warps > kLog2MaxWarps) {
    why << "warp has " << warps
        << " bases; a tile block has at most 256 warps (8 bases)";
    return false;
  }
  int64_t registers = registerBases.size() / rank;
  if (registers > kMaxRegisterBases) {
    why << "register has " << registers << " bases; at most "
        << kMaxRegisterBases << " (2^20 elements, the largest tile)";
    return false;
  }
  return true;
}

bool checkWgmma(llvm::raw_ostream &why, ArrayRef<int64_t> warpsPerBlock,
                int64_t instrN) {
  if (warpsPerBlock.size() != 2) {
    why << "warps_per_block has " << warpsPerBlock.size()
        << " entries; wgmma layouts have rank 2";
    return false;
  }
  if (!checkPowersOfTwo(why, "warps_per_block", warpsPerBlock))
    return false;
  // Whole warpgroups of 4 warps, at most 32 warps.
  int64_t log2 = log2Product(warpsPerBlock);
  if (log2 < 2 || log2 > kLog2MaxBlockWarps) {
    why << "warps_per_block multiplies to " << powerText(log2)
        << "; a wgmma layout takes whole warpgroups (a multiple of 4 warps), "
           "at most 32 warps";
    return false;
  }
  if (instrN < 8 || instrN > 256 || instrN % 8 != 0) {
    why << "instr_n is " << instrN
        << "; wgmma's N is a multiple of 8 from 8 to 256";
    return false;
  }
  return true;
}

bool checkWgmmaOperand(llvm::raw_ostream &why, int64_t index,
                       Attribute parent, int64_t kWidth) {
  if (index != 0) {
    why << "index is " << index
        << "; wgmma takes only its A operand (index 0) from registers";
    return false;
  }
  if (!isa_and_present<WgmmaAttr>(parent)) {
    why << "parent ";
    if (parent)
      why << parent;
    else
      why << "(none)";
    why << " is not a #tile.wgmma layout";
    return false;
  }
  if (!llvm::is_contained({1, 2, 4, 8}, kWidth)) {
    why << "k_width is " << kWidth << "; expected 1, 2, 4 or 8";
    return false;
  }
  return true;
}

bool checkShared(llvm::raw_ostream &why, int64_t swizzleBytes,
                 int64_t elementBits) {
  if (!llvm::is_contained({0, 32, 64, 128}, swizzleBytes)) {
    why << "swizzle_bytes is " << swizzleBytes
        << "; expected 0, 32, 64 or 128";
    return false;
  }
  if (!llvm::is_contained({8, 16, 32}, elementBits)) {
    why << "element_bits is " << elementBits << "; expected 8, 16 or 32";
    return false;
  }
  return true;
}

/// The tensor-encoding check of the register layouts: a layout places the
/// elements of tiles of its own rank only.
LogicalResult verifyEncodingRank(Attribute layout, ArrayRef<int64_t> shape,
                                 function_ref<InFlightDiagnostic()> emitError) {
  int64_t rank = registerLayoutRank(layout).value_or(-1);
  if (rank != static_cast<int64_t>(shape.size()))
    return emitError() << "tensor of rank " << shape.size()
                       << " has a layout of rank " << rank << ": " << layout;
  return success();
}
} // namespace

bool mlir::tile::isLayout(Attribute attr) {
  return registerLayoutRank(attr).has_value() ||
         isa_and_present<SharedAttr>(attr);
}

std::optional<int64_t> mlir::tile::registerLayoutRank(Attribute attr) {
  if (!attr)
    return std::nullopt;
  if (auto blocked = dyn_cast<BlockedAttr>(attr))
    return blocked.getRank();
  if (auto slice = dyn_cast<SliceAttr>(attr))
    return slice.getRank();
  if (auto linear = dyn_cast<LinearAttr>(attr))
    return linear.getRank();
  if (isa<WgmmaAttr, WgmmaOperandAttr>(attr))
    return 2;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Syntax
//===----------------------------------------------------------------------===//

namespace {
/// `key =`
ParseResult parseKey(AsmParser &parser, StringRef key) {
  return failure(parser.parseKeyword(key) || parser.parseEqual());
}

/// `[1, 2, 3]`, possibly empty (the verifier, not the parser, says which
/// lengths are valid).
ParseResult parseIntList(AsmParser &parser, SmallVectorImpl<int64_t> &list) {
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Square,
      [&] { return parser.parseInteger(list.emplace_back()); });
}

/// `key = [1, 2, 3]`
ParseResult parseKeyList(AsmParser &parser, StringRef key,
                         SmallVectorImpl<int64_t> &list) {
  return failure(parseKey(parser, key) || parseIntList(parser, list));
}

/// `key = 42`
ParseResult parseKeyInt(AsmParser &parser, StringRef key, int64_t &value) {
  return failure(parseKey(parser, key) || parser.parseInteger(value));
}

/// `[[0, 1], [2, 0]]`, appended flattened to `flat`. `rank` is the entries
/// of the first basis of any list (-1 before it); every basis has as many.
ParseResult parseBases(AsmParser &parser, int64_t &rank,
                       SmallVectorImpl<int64_t> &flat) {
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Square, [&]() -> ParseResult {
        SMLoc loc = parser.getCurrentLocation();
        SmallVector<int64_t> basis;
        if (parseIntList(parser, basis))
          return failure();
        int64_t entries = static_cast<int64_t>(basis.size());
        if (rank < 0)
          rank = entries;
        else if (entries != rank)
          return parser.emitError(loc)
                 << "basis has " << entries << " entries but the first has "
                 << rank << "; every basis has one entry per dim";
        flat.append(basis);
        return success();
      });
}

void printBases(AsmPrinter &printer, int64_t rank, ArrayRef<int64_t> flat) {
  llvm::raw_ostream &os = printer.getStream();
  os << "[";
  for (size_t i = 0; rank > 0 && i < flat.size(); i += rank) {
    if (i != 0)
      os << ", ";
    printList(os, flat.slice(i, std::min<size_t>(rank, flat.size() - i)));
  }
  os << "]";
}
} // namespace

Attribute BlockedAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t> sizePerThread, threadsPerWarp, warpsPerBlock, order;
  if (parser.parseLess() ||
      parseKeyList(parser, "size_per_thread", sizePerThread) ||
      parser.parseComma() ||
      parseKeyList(parser, "threads_per_warp", threadsPerWarp) ||
      parser.parseComma() ||
      parseKeyList(parser, "warps_per_block", warpsPerBlock) ||
      parser.parseComma() || parseKeyList(parser, "order", order) ||
      parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); },
                    parser.getContext(), sizePerThread, threadsPerWarp,
                    warpsPerBlock, order);
}

void BlockedAttr::print(AsmPrinter &printer) const {
  llvm::raw_ostream &os = printer.getStream();
  os << "<size_per_thread = ";
  printList(os, getSizePerThread());
  os << ", threads_per_warp = ";
  printList(os, getThreadsPerWarp());
  os << ", warps_per_block = ";
  printList(os, getWarpsPerBlock());
  os << ", order = ";
  printList(os, getOrder());
  os << ">";
}

LogicalResult BlockedAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  ArrayRef<int64_t> sizePerThread,
                                  ArrayRef<int64_t> threadsPerWarp,
                                  ArrayRef<int64_t> warpsPerBlock,
                                  ArrayRef<int64_t> order) {
  return verifyWith(emitError, [&](llvm::raw_ostream &why) {
    return checkBlocked(why, sizePerThread, threadsPerWarp, warpsPerBlock,
                        order);
  });
}

LogicalResult BlockedAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type,
    function_ref<InFlightDiagnostic()> emitError) const {
  return verifyEncodingRank(*this, shape, emitError);
}

Attribute SliceAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  int64_t dim;
  Attribute parent;
  if (parser.parseLess() || parseKeyInt(parser, "dim", dim) ||
      parser.parseComma() || parseKey(parser, "parent") ||
      parser.parseAttribute(parent) || parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); },
                    parser.getContext(), dim, parent);
}

void SliceAttr::print(AsmPrinter &printer) const {
  printer << "<dim = " << getDim() << ", parent = ";
  printer.printAttribute(getParent());
  printer << ">";
}

LogicalResult SliceAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                int64_t dim, Attribute parent) {
  return verifyWith(emitError, [&](llvm::raw_ostream &why) {
    return checkSlice(why, dim, parent);
  });
}

int64_t SliceAttr::getRank() const {
  // A verified slice's parent is a register layout of rank 2 or 3.
  return registerLayoutRank(getParent()).value_or(1) - 1;
}

LogicalResult SliceAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type,
    function_ref<InFlightDiagnostic()> emitError) const {
  return verifyEncodingRank(*this, shape, emitError);
}

Attribute LinearAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  int64_t rank = -1;
  SmallVector<int64_t> registerBases, laneBases, warpBases;
  if (parser.parseLess() || parseKey(parser, "register") ||
      parseBases(parser, rank, registerBases) || parser.parseComma() ||
      parseKey(parser, "lane") || parseBases(parser, rank, laneBases) ||
      parser.parseComma() || parseKey(parser, "warp") ||
      parseBases(parser, rank, warpBases) || parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); },
                    parser.getContext(), std::max<int64_t>(rank, 0),
                    registerBases, laneBases, warpBases);
}

void LinearAttr::print(AsmPrinter &printer) const {
  printer << "<register = ";
  printBases(printer, getRank(), getRegisterBases());
  printer << ", lane = ";
  printBases(printer, getRank(), getLaneBases());
  printer << ", warp = ";
  printBases(printer, getRank(), getWarpBases());
  printer << ">";
}

LogicalResult LinearAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 int64_t rank, ArrayRef<int64_t> registerBases,
                                 ArrayRef<int64_t> laneBases,
                                 ArrayRef<int64_t> warpBases) {
  return verifyWith(emitError, [&](llvm::raw_ostream &why) {
    return checkLinear(why, rank, registerBases, laneBases, warpBases);
  });
}

LogicalResult LinearAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type,
    function_ref<InFlightDiagnostic()> emitError) const {
  return verifyEncodingRank(*this, shape, emitError);
}

Attribute WgmmaAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t> warpsPerBlock;
  int64_t instrN;
  if (parser.parseLess() ||
      parseKeyList(parser, "warps_per_block", warpsPerBlock) ||
      parser.parseComma() || parseKeyInt(parser, "instr_n", instrN) ||
      parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); },
                    parser.getContext(), warpsPerBlock, instrN);
}

void WgmmaAttr::print(AsmPrinter &printer) const {
  llvm::raw_ostream &os = printer.getStream();
  os << "<warps_per_block = ";
  printList(os, getWarpsPerBlock());
  os << ", instr_n = " << getInstrN() << ">";
}

LogicalResult WgmmaAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                ArrayRef<int64_t> warpsPerBlock,
                                int64_t instrN) {
  return verifyWith(emitError, [&](llvm::raw_ostream &why) {
    return checkWgmma(why, warpsPerBlock, instrN);
  });
}

LogicalResult WgmmaAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type,
    function_ref<InFlightDiagnostic()> emitError) const {
  return verifyEncodingRank(*this, shape, emitError);
}

Attribute WgmmaOperandAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  int64_t index, kWidth;
  Attribute parent;
  if (parser.parseLess() || parseKeyInt(parser, "index", index) ||
      parser.parseComma() || parseKey(parser, "parent") ||
      parser.parseAttribute(parent) || parser.parseComma() ||
      parseKeyInt(parser, "k_width", kWidth) || parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); },
                    parser.getContext(), index, parent, kWidth);
}

void WgmmaOperandAttr::print(AsmPrinter &printer) const {
  printer << "<index = " << getIndex() << ", parent = ";
  printer.printAttribute(getParent());
  printer << ", k_width = " << getKWidth() << ">";
}

LogicalResult
WgmmaOperandAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         int64_t index, Attribute parent, int64_t kWidth) {
  return verifyWith(emitError, [&](llvm::raw_ostream &why) {
    return checkWgmmaOperand(why, index, parent, kWidth);
  });
}

LogicalResult WgmmaOperandAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type,
    function_ref<InFlightDiagnostic()> emitError) const {
  return verifyEncodingRank(*this, shape, emitError);
}

Attribute SharedAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  int64_t swizzleBytes, elementBits;
  if (parser.parseLess() ||
      parseKeyInt(parser, "swizzle_bytes", swizzleBytes) ||
      parser.parseComma() ||
      parseKeyInt(parser, "element_bits", elementBits) ||
      parser.parseComma() || parseKey(parser, "transposed"))
    return {};
  bool transposed = succeeded(parser.parseOptionalKeyword("true"));
  if (!transposed && parser.parseOptionalKeyword("false")) {
    parser.emitError(parser.getCurrentLocation(),
                     "expected 'true' or 'false'");
    return {};
  }
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); },
                    parser.getContext(), swizzleBytes, elementBits,
                    transposed);
}

void SharedAttr::print(AsmPrinter &printer) const {
  printer << "<swizzle_bytes = " << getSwizzleBytes()
          << ", element_bits = " << getElementBits()
          << ", transposed = " << (getTransposed() ? "true" : "false") << ">";
}

LogicalResult SharedAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 int64_t swizzleBytes, int64_t elementBits,
                                 bool) {
  return verifyWith(emitError, [&](llvm::raw_ostream &why) {
    return checkShared(why, swizzleBytes, elementBits);
  });
}

//===----------------------------------------------------------------------===//
// C API, used by src/layout.rs
//===----------------------------------------------------------------------===//
// The constructors return a null attribute, and emit nothing, when the
// parameters break a rule. The getters take an attribute of the kind that
// tileLayoutAttrGetKind reported; list getters return the list's length and
// fill the buffer only when `capacity` holds it (call with 0 to ask).

namespace {
ArrayRef<int64_t> arrayOf(const int64_t *data, intptr_t size) {
  return size > 0 ? ArrayRef<int64_t>(data, size) : ArrayRef<int64_t>();
}

/// The context, with the tile dialect loaded: creating one of its attributes
/// in a context that has not loaded it would abort.
MLIRContext *withTile(MlirContext context) {
  MLIRContext *ctx = unwrap(context);
  // Loading a dialect while passes run (on other threads) is not allowed;
  // inside a pipeline the tile dialect is loaded already, so only a bare
  // context (a test, a tool building IR from nothing) loads it here.
  if (!ctx->getLoadedDialect<TileDialect>())
    ctx->getOrLoadDialect<TileDialect>();
  return ctx;
}

intptr_t copyOut(ArrayRef<int64_t> list, int64_t *out, intptr_t capacity) {
  intptr_t size = static_cast<intptr_t>(list.size());
  if (out && capacity >= size)
    llvm::copy(list, out);
  return size;
}
} // namespace

extern "C" {

/// 0: not a tile layout; 1 blocked, 2 slice, 3 linear, 4 wgmma,
/// 5 wgmma_operand, 6 shared (src/layout.rs's `Kind`).
int32_t tileLayoutAttrGetKind(MlirAttribute attr) {
  Attribute a = unwrap(attr);
  if (!a)
    return 0;
  if (isa<BlockedAttr>(a))
    return 1;
  if (isa<SliceAttr>(a))
    return 2;
  if (isa<LinearAttr>(a))
    return 3;
  if (isa<WgmmaAttr>(a))
    return 4;
  if (isa<WgmmaOperandAttr>(a))
    return 5;
  if (isa<SharedAttr>(a))
    return 6;
  return 0;
}

/// The rank of a register layout; -1 for `#tile.shared` or any other
/// attribute.
int64_t tileLayoutAttrGetRank(MlirAttribute attr) {
  return registerLayoutRank(unwrap(attr)).value_or(-1);
}

MlirAttribute tileBlockedAttrGet(MlirContext context, intptr_t numSizePerThread,
                                 const int64_t *sizePerThread,
                                 intptr_t numThreadsPerWarp,
                                 const int64_t *threadsPerWarp,
                                 intptr_t numWarpsPerBlock,
                                 const int64_t *warpsPerBlock,
                                 intptr_t numOrder, const int64_t *order) {
  ArrayRef<int64_t> spt = arrayOf(sizePerThread, numSizePerThread),
                    tpw = arrayOf(threadsPerWarp, numThreadsPerWarp),
                    wpb = arrayOf(warpsPerBlock, numWarpsPerBlock),
                    ord = arrayOf(order, numOrder);
  if (!isValid([&](llvm::raw_ostream &why) {
        return checkBlocked(why, spt, tpw, wpb, ord);
      }))
    return MlirAttribute{nullptr};
  return wrap(BlockedAttr::get(withTile(context), spt, tpw, wpb, ord));
}

/// The rank; with `capacity >= rank`, the four lists into the buffers.
intptr_t tileBlockedAttrGetParams(MlirAttribute attr, int64_t *sizePerThread,
                                  int64_t *threadsPerWarp,
                                  int64_t *warpsPerBlock, int64_t *order,
                                  intptr_t capacity) {
  auto blocked = cast<BlockedAttr>(unwrap(attr));
  copyOut(blocked.getSizePerThread(), sizePerThread, capacity);
  copyOut(blocked.getThreadsPerWarp(), threadsPerWarp, capacity);
  copyOut(blocked.getWarpsPerBlock(), warpsPerBlock, capacity);
  return copyOut(blocked.getOrder(), order, capacity);
}

MlirAttribute tileSliceAttrGet(MlirContext context, int64_t dim,
                               MlirAttribute parent) {
  Attribute p = unwrap(parent);
  if (!isValid([&](llvm::raw_ostream &why) {
        return checkSlice(why, dim, p);
      }))
    return MlirAttribute{nullptr};
  return wrap(SliceAttr::get(withTile(context), dim, p));
}

/// The dim; the parent into `*parent`.
int64_t tileSliceAttrGetParams(MlirAttribute attr, MlirAttribute *parent) {
  auto slice = cast<SliceAttr>(unwrap(attr));
  *parent = wrap(slice.getParent());
  return slice.getDim();
}

/// The bases flattened, `rank` integers each.
MlirAttribute tileLinearAttrGet(MlirContext context, int64_t rank,
                                intptr_t numRegister,
                                const int64_t *registerBases, intptr_t numLane,
                                const int64_t *laneBases, intptr_t numWarp,
                                const int64_t *warpBases) {
  ArrayRef<int64_t> reg = arrayOf(registerBases, numRegister),
                    lane = arrayOf(laneBases, numLane),
                    warp = arrayOf(warpBases, numWarp);
  if (!isValid([&](llvm::raw_ostream &why) {
        return checkLinear(why, rank, reg, lane, warp);
      }))
    return MlirAttribute{nullptr};
  return wrap(LinearAttr::get(withTile(context), rank, reg, lane, warp));
}

int64_t tileLinearAttrGetRank(MlirAttribute attr) {
  return cast<LinearAttr>(unwrap(attr)).getRank();
}

/// The bases of list `which` (0 register, 1 lane, 2 warp), flattened: their
/// integer count; with `capacity` at least that, the integers into `out`.
intptr_t tileLinearAttrGetBases(MlirAttribute attr, int32_t which,
                                int64_t *out, intptr_t capacity) {
  auto linear = cast<LinearAttr>(unwrap(attr));
  ArrayRef<int64_t> list = which == 0   ? linear.getRegisterBases()
                           : which == 1 ? linear.getLaneBases()
                                        : linear.getWarpBases();
  return copyOut(list, out, capacity);
}

MlirAttribute tileWgmmaAttrGet(MlirContext context, intptr_t numWarpsPerBlock,
                               const int64_t *warpsPerBlock, int64_t instrN) {
  ArrayRef<int64_t> wpb = arrayOf(warpsPerBlock, numWarpsPerBlock);
  if (!isValid([&](llvm::raw_ostream &why) {
        return checkWgmma(why, wpb, instrN);
      }))
    return MlirAttribute{nullptr};
  return wrap(WgmmaAttr::get(withTile(context), wpb, instrN));
}

/// The length of warps_per_block (into `warpsPerBlock` when `capacity`
/// holds it); instr_n into `*instrN`.
intptr_t tileWgmmaAttrGetParams(MlirAttribute attr, int64_t *warpsPerBlock,
                                intptr_t capacity, int64_t *instrN) {
  auto wgmma = cast<WgmmaAttr>(unwrap(attr));
  *instrN = wgmma.getInstrN();
  return copyOut(wgmma.getWarpsPerBlock(), warpsPerBlock, capacity);
}

MlirAttribute tileWgmmaOperandAttrGet(MlirContext context, int64_t index,
                                      MlirAttribute parent, int64_t kWidth) {
  Attribute p = unwrap(parent);
  if (!isValid([&](llvm::raw_ostream &why) {
        return checkWgmmaOperand(why, index, p, kWidth);
      }))
    return MlirAttribute{nullptr};
  return wrap(WgmmaOperandAttr::get(withTile(context), index, p, kWidth));
}

/// The index; the parent into `*parent`, k_width into `*kWidth`.
int64_t tileWgmmaOperandAttrGetParams(MlirAttribute attr,
                                      MlirAttribute *parent, int64_t *kWidth) {
  auto operand = cast<WgmmaOperandAttr>(unwrap(attr));
  *parent = wrap(operand.getParent());
  *kWidth = operand.getKWidth();
  return operand.getIndex();
}

MlirAttribute tileSharedAttrGet(MlirContext context, int64_t swizzleBytes,
                                int64_t elementBits, bool transposed) {
  if (!isValid([&](llvm::raw_ostream &why) {
        return checkShared(why, swizzleBytes, elementBits);
      }))
    return MlirAttribute{nullptr};
  return wrap(SharedAttr::get(withTile(context), swizzleBytes, elementBits,
                              transposed));
}

void tileSharedAttrGetParams(MlirAttribute attr, int64_t *swizzleBytes,
                             int64_t *elementBits, bool *transposed) {
  auto shared = cast<SharedAttr>(unwrap(attr));
  *swizzleBytes = shared.getSwizzleBytes();
  *elementBits = shared.getElementBits();
  *transposed = shared.getTransposed();
}
}
