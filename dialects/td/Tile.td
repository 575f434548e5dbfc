//===- Tile.td - the tile dialect ----------------------------*- tablegen -*-===//
//
// The single definition of the `tile` dialect: its dialect record, enums,
// the partition view type and every op of the language contract
// (shared/spec/tile-language.md). build.rs generates the C++ from this file;
// melior's `dialect!` generates the Rust builders from it too.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TD
#define TILE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinTypes.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/TensorEncoding.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

//===----------------------------------------------------------------------===//
// Dialect
//===----------------------------------------------------------------------===//

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::mlir::tile";
  let summary = "Tile-level GPU kernels: one program per tile block";
  let description = [{
    A kernel in the `tile` dialect is written for one *tile block*. Tiles are
    builtin static ranked tensors whose dimensions are powers of two (rank 1
    to 3, at most 2^20 elements); elementwise math on them is upstream `arith`
    and `math`, control flow is upstream `scf`. Global memory is reached
    through `!tile.partition_view`, which views a `memref` as a grid of tiles.
    The compiler, not the program, chooses threads, shared memory and
    hardware instructions.

    On the GPU path the compiler gives every tile a *layout*, carried as the
    tensor's encoding (`tensor<4x1024xf32, #tile.blocked<...>>`): which
    register of which thread holds which element. The layouts are the
    attributes below; a tile's encoding, if it has one, is one of them, and
    tile ops compare shapes and element types, never encodings.

    A tile also takes at most 227 KiB (232448 bytes; an `i1` element takes a
    byte): the GPU keeps each tile in registers or in shared memory, and one
    Hopper block has 227 KiB of shared memory. With power-of-two dims the
    largest tiles take 128 KiB: 32768 `f32`, 65536 `f16` or 131072 `f8`
    elements (a 128x256 `f32` accumulator). The rule holds for every static
    tensor a kernel computes, tile op or not (an `arith.constant`, an
    `scf.for` result), with the error at the op that produces it; several
    tiles live at once may still exceed a block's shared memory, which
    `tile-to-ptx` reports for the kernel.

    A kernel is a `func.func` carrying the unit attribute `tile.kernel`. Its
    arguments are memrefs (row-major, unit innermost stride) and scalars
    (`index`, `i32`, `i64`, `f32`); it returns nothing. It is defined (not
    a declaration) and its control flow is structured: every region in it
    has one block, and no op branches (`cf.br`, `cf.cond_br`, `cf.switch`);
    loops and conditions are `scf.for` and `scf.if`. Kernels call nothing
    (`func.call` and every other call op are errors). They reach global
    memory through their memref arguments only: a `memref.global` beside
    kernels (in the block that holds them) must be a constant with a value
    of at most one tile's 227 KiB, in the default memory space, which is
    what the compiler makes of tile constants; the verifier reports any
    other at the global.

    Code-generation hints (`tile.hints`), the autotuner's space
    (`tile.tune`) and one configuration of it (`tile.config`) are
    dictionaries on the kernel. Their keys, the values each key takes, and
    the attributes the compiler's passes write are listed in the kernel
    attribute reference, [`docs/kernel-attributes.md`](kernel-attributes.md),
    which is generated from the table the verifier checks them against
    (`dialects/src/attrs.rs`). Hints never change results; the compiler
    honours or ignores them, and ignores unknown keys.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Adds the attributes (cpp/Layouts.cpp, which has their storage).
    void registerAttributes();
  }];
  // The attribute names and hint keys are in KernelAttrs.h.inc, generated
  // from dialects/src/attrs.rs with the table the verifier checks.
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Tile_AxisX : I32EnumAttrCase<"x", 0>;
def Tile_AxisY : I32EnumAttrCase<"y", 1>;
def Tile_AxisZ : I32EnumAttrCase<"z", 2>;
def Tile_Axis : I32EnumAttr<"Axis", "a grid axis",
    [Tile_AxisX, Tile_AxisY, Tile_AxisZ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}
def Tile_AxisAttr : EnumAttr<Tile_Dialect, Tile_Axis, "axis">;

def Tile_PadZero   : I32EnumAttrCase<"zero", 0>;
def Tile_PadNegInf : I32EnumAttrCase<"neg_inf", 1>;
def Tile_PadPosInf : I32EnumAttrCase<"pos_inf", 2>;
def Tile_PadNan    : I32EnumAttrCase<"nan", 3>;
def Tile_Padding : I32EnumAttr<"Padding",
    "value of out-of-bounds elements on load",
    [Tile_PadZero, Tile_PadNegInf, Tile_PadPosInf, Tile_PadNan]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}

def Tile_ReduceAdd : I32EnumAttrCase<"add", 0>;
def Tile_ReduceMul : I32EnumAttrCase<"mul", 1>;
def Tile_ReduceMax : I32EnumAttrCase<"max", 2>;
def Tile_ReduceMin : I32EnumAttrCase<"min", 3>;
def Tile_ReduceKind : I32EnumAttr<"ReduceKind", "a reduction",
    [Tile_ReduceAdd, Tile_ReduceMul, Tile_ReduceMax, Tile_ReduceMin]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}
def Tile_ReduceKindAttr : EnumAttr<Tile_Dialect, Tile_ReduceKind, "reduce_kind">;

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def Tile_PartitionViewType : TypeDef<Tile_Dialect, "PartitionView"> {
  let mnemonic = "partition_view";
  let summary = "a memref viewed as a grid of tiles";
  let description = [{
    `!tile.partition_view<128x64xf16>` views a rank-2 `memref` of `f16` as a
    grid of 128x64 tiles; `tile.load` and `tile.store` address it in tile
    coordinates. The tile shape follows the tile rules (static powers of two,
    rank 1 to 3, at most 2^20 elements and 227 KiB).

    The optional `padding` gives the value that out-of-bounds elements take
    on load: `zero` (the default, not printed), `neg_inf`, `pos_inf` or `nan`.
    The infinities and NaN need a floating-point element type that has them:
    `f8E4M3FN` has NaN but no infinities, so its views take `zero` or `nan`;
    `f8E5M2`, `f16`, `bf16` and `f32` take all four.

    ```mlir
    !tile.partition_view<4x1024xf32, padding = neg_inf>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "tile shape">:$shape,
    "::mlir::Type":$elementType,
    DefaultValuedParameter<"::mlir::tile::Padding",
                           "::mlir::tile::Padding::zero",
                           "padding value on load">:$padding
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    TypeBuilderWithInferredContext<(ins "::llvm::ArrayRef<int64_t>":$shape,
                                        "::mlir::Type":$elementType), [{
      return $_get(elementType.getContext(), shape, elementType,
                   ::mlir::tile::Padding::zero);
    }]>
  ];
  let extraClassDeclaration = [{
    int64_t getRank() const { return getShape().size(); }
  }];
}

//===----------------------------------------------------------------------===//
// Layouts: tensor encodings of the GPU path
//===----------------------------------------------------------------------===//
// Every tile value the GPU code generator handles carries one of these as its
// tensor encoding: which register of which lane of which warp holds which
// element (or, for `#tile.shared`, how shared memory holds it). Parsing,
// printing and verifying are hand-written in cpp/Layouts.cpp, which also has
// the C API that `src/layout.rs` wraps.

class Tile_Layout<string name, string layoutMnemonic, list<Trait> traits = []>
    : AttrDef<Tile_Dialect, name, traits> {
  let mnemonic = layoutMnemonic;
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

// Register layouts know their rank, so a tensor's encoding is checked against
// the tensor's rank when the type is built.
class Tile_RegisterLayout<string name, string layoutMnemonic>
    : Tile_Layout<name, layoutMnemonic,
        [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]>;

def Tile_BlockedAttr : Tile_RegisterLayout<"Blocked", "blocked"> {
  let summary = "a blocked register layout (Triton's)";
  let description = [{
    The tile is covered by a grid of `size_per_thread` blocks of elements, one
    block per thread: `threads_per_warp` threads of a warp along each dim,
    `warps_per_block` warps of the block; a layout smaller than the tile
    repeats over it, a larger one replicates elements. `order` lists the dims
    from the fastest-varying (`order[0]`): consecutive registers, then lanes,
    then warps run along it first.

    Rank 1 to 3; the four lists have one entry per dim, each a power of two;
    `threads_per_warp` multiplies to 32 and `warps_per_block` to at most 32;
    `order` is a permutation of `0 .. rank-1`.

    ```mlir
    tensor<4x1024xf32, #tile.blocked<size_per_thread = [1, 8], threads_per_warp = [1, 32], warps_per_block = [1, 4], order = [1, 0]>>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "elements of a thread, per dim">:$sizePerThread,
    ArrayRefParameter<"int64_t", "threads of a warp, per dim">:$threadsPerWarp,
    ArrayRefParameter<"int64_t", "warps of a block, per dim">:$warpsPerBlock,
    ArrayRefParameter<"int64_t", "dims, fastest-varying first">:$order
  );
  let extraClassDeclaration = [{
    int64_t getRank() const { return getOrder().size(); }
  }];
}

def Tile_SliceAttr : Tile_RegisterLayout<"Slice", "slice"> {
  let summary = "a register layout with one dim removed (a reduction's result)";
  let description = [{
    The layout of `parent` with dim `dim` removed: an element of the sliced
    tile lives where the elements of the parent that reduce into it did, so
    a `tile.reduce` over `dim` of a tile in `parent` produces a tile in this
    layout without moving data. `parent` is a register layout (blocked,
    slice, linear, wgmma or wgmma_operand) of rank 2 or 3 (the result has
    rank 1 at least), and `0 <= dim < rank(parent)`.

    ```mlir
    tensor<4xf32, #tile.slice<dim = 1, parent = #tile.blocked<size_per_thread = [1, 8], threads_per_warp = [1, 32], warps_per_block = [1, 4], order = [1, 0]>>>
    ```
  }];
  let parameters = (ins
    "int64_t":$dim,
    "::mlir::Attribute":$parent
  );
  let extraClassDeclaration = [{
    int64_t getRank() const;
  }];
}

def Tile_LinearAttr : Tile_RegisterLayout<"Linear", "linear"> {
  let summary = "a linear register layout over GF(2) (Triton's LinearLayout)";
  let description = [{
    Any register layout as a linear map over GF(2): basis `i` of `register`
    is the tile index (one integer per dim) of a thread's register `2^i`,
    likewise `lane` for lanes and `warp` for warps; the element in register
    `r` of lane `l` of warp `w` is the XOR of the bases of the set bits of
    `r`, `l` and `w`. A zero basis replicates (two registers, lanes or warps
    hold the same element).

    Every basis has one entry per dim (rank 1 to 3), each `>= 0`; `lane` has
    exactly 5 bases (a warp's 32 lanes), `warp` at most 5 and `register` at
    most 20; `register` and `warp` may be empty.

    ```mlir
    tensor<4x64xf32, #tile.linear<register = [[0, 1], [0, 2]], lane = [[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]], warp = [[0, 32], [0, 0]]>>
    ```
  }];
  // The bases of each list are stored flattened, `rank` integers each.
  let parameters = (ins
    "int64_t":$rank,
    ArrayRefParameter<"int64_t", "register bases, flattened">:$registerBases,
    ArrayRefParameter<"int64_t", "lane bases, flattened">:$laneBases,
    ArrayRefParameter<"int64_t", "warp bases, flattened">:$warpBases
  );
}

def Tile_WgmmaAttr : Tile_RegisterLayout<"Wgmma", "wgmma"> {
  let summary = "the Hopper wgmma accumulator layout";
  let description = [{
    The registers of a `wgmma.mma_async` accumulator: each warpgroup (4 warps)
    holds a 64 x `instr_n` block (the `m64nNk16` shapes), and the block's
    warpgroups tile the result `warps_per_block` warps along each of the 2
    dims. `warps_per_block` holds powers of two that multiply to a multiple
    of 4 (whole warpgroups) and at most 32; `instr_n` is a multiple of 8 from
    8 to 256.

    ```mlir
    tensor<128x128xf32, #tile.wgmma<warps_per_block = [8, 1], instr_n = 128>>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "warps of a block, per dim">:$warpsPerBlock,
    "int64_t":$instrN
  );
}

def Tile_WgmmaOperandAttr : Tile_RegisterLayout<"WgmmaOperand", "wgmma_operand"> {
  let summary = "a wgmma operand held in registers";
  let description = [{
    Operand `index` of a `wgmma.mma_async` whose accumulator has layout
    `parent` (a `#tile.wgmma`), held in registers, `k_width` consecutive K
    elements per register group (1, 2, 4 or 8). wgmma reads only its A
    operand from registers, so `index` is 0.

    ```mlir
    tensor<128x64xf16, #tile.wgmma_operand<index = 0, parent = #tile.wgmma<warps_per_block = [8, 1], instr_n = 128>, k_width = 2>>
    ```
  }];
  let parameters = (ins
    "int64_t":$index,
    "::mlir::Attribute":$parent,
    "int64_t":$kWidth
  );
}

def Tile_SharedAttr : Tile_Layout<"Shared", "shared"> {
  let summary = "a swizzled shared-memory layout (TMA's and wgmma's)";
  let description = [{
    A tile in shared memory as TMA writes it and wgmma reads it: rows of
    `swizzle_bytes` bytes whose 16-byte chunks are XOR-swizzled by the row
    index (`swizzle_bytes` 0, 32, 64 or 128; 0 is no swizzle), of elements of
    `element_bits` bits (8, 16 or 32). A `transposed` tile is stored with its
    last two dims swapped (column-major for a matrix), as a K-major wgmma
    operand is.

    ```mlir
    tensor<64x64xf16, #tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>>
    ```
  }];
  let parameters = (ins
    "int64_t":$swizzleBytes,
    "int64_t":$elementBits,
    "bool":$transposed
  );
}

def Tile_Tile : Type<AnyStaticShapeTensor.predicate,
                     "static ranked tensor (a tile)",
                     "::mlir::RankedTensorType">;

//===----------------------------------------------------------------------===//
// Grid queries
//===----------------------------------------------------------------------===//

class Tile_GridQueryOp<string mnemonic>
    : Tile_Op<mnemonic, [Pure,
        DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let arguments = (ins Tile_AxisAttr:$axis);
  let results = (outs Index:$result);
  let assemblyFormat = "`` $axis attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_BlockIdOp : Tile_GridQueryOp<"block_id"> {
  let summary = "this tile block's index along a grid axis";
  let description = [{
    The index of the running tile block along `x`, `y` or `z`, in
    `[0, tile.num_blocks)`. It may only appear inside a `tile.kernel`
    function.

    ```mlir
    %i = tile.block_id x : index
    ```
  }];
}

def Tile_NumBlocksOp : Tile_GridQueryOp<"num_blocks"> {
  let summary = "the grid size along an axis";
  let description = [{
    The number of tile blocks of the launch along `x`, `y` or `z`. It may
    only appear inside a `tile.kernel` function.

    ```mlir
    %n = tile.num_blocks x : index
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Views
//===----------------------------------------------------------------------===//

def Tile_PartitionViewOp : Tile_Op<"partition_view", [Pure]> {
  let summary = "view a memref as a grid of tiles";
  let description = [{
    Views `source` as tiles of the result type's shape. Rank and element
    type of the view equal those of the memref. The memref is row-major with
    unit stride in its innermost dimension (identity layout, or
    `strided<[..., 1]>`); its extents may be static or dynamic. Tiles at the
    memref's upper edges may stick out of it: out-of-bounds elements read as
    the view's padding value and are never written.

    ```mlir
    %v = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
    ```
  }];
  let arguments = (ins AnyMemRef:$source);
  let results = (outs Tile_PartitionViewType:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_NumTilesOp : Tile_Op<"num_tiles", [Pure,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "number of tiles of a view along one dimension";
  let description = [{
    `ceildiv(extent, tile extent)` of the viewed memref along `dim`: the
    partial tile at the edge counts.

    ```mlir
    %k = tile.num_tiles %v dim 1 : !tile.partition_view<128x64xf16>
    ```
  }];
  let arguments = (ins Tile_PartitionViewType:$view, I64Attr:$dim);
  let results = (outs Index:$result);
  let assemblyFormat = "$view `dim` $dim attr-dict `:` qualified(type($view))";
  let hasVerifier = 1;
}

def Tile_LoadOp : Tile_Op<"load", [MemoryEffects<[MemRead]>]> {
  let summary = "read one tile of a view";
  let description = [{
    Reads the tile at tile coordinates `indices` (one `index` per dimension)
    of `view`. Element `(i, j)` of the result is element
    `(indices[0] * T0 + i, indices[1] * T1 + j)` of the memref, where `T` is
    the tile shape; elements outside the memref take the view's padding
    value. The result's shape and element type equal the view's.

    ```mlir
    %t = tile.load %v[%i, %j] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
    ```
  }];
  let arguments = (ins Tile_PartitionViewType:$view, Variadic<Index>:$indices);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    $view `[` $indices `]` attr-dict `:` qualified(type($view)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [MemoryEffects<[MemWrite]>]> {
  let summary = "write one tile of a view";
  let description = [{
    Writes `value` to the tile at tile coordinates `indices` of `view`.
    Elements that fall outside the memref are dropped, never written. The
    tile's shape and element type equal the view's.

    ```mlir
    tile.store %t, %v[%i, %j] : tensor<128x64xf32> -> !tile.partition_view<128x64xf32>
    ```
  }];
  let arguments = (ins Tile_Tile:$value, Tile_PartitionViewType:$view,
                       Variadic<Index>:$indices);
  let assemblyFormat = [{
    $value `,` $view `[` $indices `]` attr-dict `:` type($value) `->` qualified(type($view))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Tile computation
//===----------------------------------------------------------------------===//

def Tile_MmaOp : Tile_Op<"mma", [Pure,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "matrix multiply-accumulate of tiles";
  let description = [{
    `d = a x b + c` with `a: MxK`, `b: KxN` and `c`, `d: MxN`. The result
    type is the accumulator's. Supported element types, as
    `(a, b) -> c`:

    * `(f16, f16) -> f32` or `f16`
    * `(bf16, bf16) -> f32`
    * `(f32, f32) -> f32`, computed on tf32 tensor cores
    * `(f8E4M3FN | f8E5M2, f8E4M3FN | f8E5M2) -> f32`

    ```mlir
    %d = tile.mma %a, %b, %c : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
    ```
  }];
  let arguments = (ins Tile_Tile:$a, Tile_Tile:$b, Tile_Tile:$c);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $c attr-dict `:` type($a) `,` type($b) `into` type($c)
  }];
  let hasVerifier = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce", [Pure]> {
  let summary = "reduce a tile along one dimension";
  let description = [{
    Combines the elements of `input` along `dim` with `add`, `mul`, `max`
    or `min`; the result has that dimension removed and the same element
    type. `max` and `min` on integers are signed; on floats they follow
    `arith.maximumf`/`arith.minimumf` (NaN propagates). The input must have
    rank 2 or 3 (a result is a tile, rank 1 at least): reshape a rank-1 tile
    to `1xN` first. `i1` and the f8 types cannot be reduced.

    ```mlir
    %r = tile.reduce add %t dim 1 : tensor<128x256xf32> -> tensor<128xf32>
    ```
  }];
  let arguments = (ins Tile_ReduceKindAttr:$kind, Tile_Tile:$input,
                       I64Attr:$dim);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    `` $kind $input `dim` $dim attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure]> {
  let summary = "expand size-1 dimensions of a tile";
  let description = [{
    Repeats `input` along its size-1 dimensions to the result's shape. Rank
    and element type are unchanged; every other dimension keeps its size.

    ```mlir
    %r = tile.broadcast %t : tensor<128x1xf32> -> tensor<128x256xf32>
    ```
  }];
  let arguments = (ins Tile_Tile:$input);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Pure]> {
  let summary = "the same elements in a new shape";
  let description = [{
    Reinterprets `input` in row-major order as the result's shape. Element
    counts and element types are equal.

    ```mlir
    %r = tile.reshape %t : tensor<128xf32> -> tensor<128x1xf32>
    ```
  }];
  let arguments = (ins Tile_Tile:$input);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_PermuteOp : Tile_Op<"permute", [Pure]> {
  let summary = "transpose a tile by a permutation";
  let description = [{
    Result dimension `i` is input dimension `permutation[i]`. The
    permutation lists each of `0 .. rank-1` exactly once.

    ```mlir
    %r = tile.permute %t [1, 0] : tensor<64x128xf16> -> tensor<128x64xf16>
    ```
  }];
  let arguments = (ins Tile_Tile:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    $input $permutation attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_SplatOp : Tile_Op<"splat", [Pure]> {
  let summary = "a tile filled with a scalar";
  let description = [{
    Every element of the result is `value`, whose type is the result's
    element type.

    ```mlir
    %r = tile.splat %s : f32 -> tensor<128x128xf32>
    ```
  }];
  let arguments = (ins AnyTypeOf<[AnyInteger, AnyFloat, Index]>:$value);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$value attr-dict `:` type($value) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_IotaOp : Tile_Op<"iota", [Pure]> {
  let summary = "the tile 0, 1, ..., n-1";
  let description = [{
    A rank-1 tile whose element `i` is `i`. The element type is an integer
    (`i8` to `i64`) or float (`f16`, `bf16`, `f32`) type that represents
    `n - 1` exactly.

    ```mlir
    %r = tile.iota : tensor<128xi32>
    ```
  }];
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_ConvertLayoutOp : Tile_Op<"convert_layout", [Pure]> {
  let summary = "the same tile in another register layout (compiler-internal)";
  let description = [{
    The GPU path's layout passes insert it where two register layouts meet
    (`tile-assign-layouts`), remove what they can
    (`tile-remove-layout-conversions`), and `convert-tile-to-registers`
    lowers the rest to a register permutation or a shared-memory round
    trip. Shape and element type are the operand's; only the layout (the
    tensor encoding) changes. Users never need to write it.

    ```mlir
    %r = tile.convert_layout %t : tensor<64x64xf32, #tile.blocked<size_per_thread = [1, 4], threads_per_warp = [8, 4], warps_per_block = [4, 1], order = [1, 0]>>
        -> tensor<64x64xf32, #tile.blocked<size_per_thread = [4, 1], threads_per_warp = [4, 8], warps_per_block = [1, 4], order = [0, 1]>>
    ```
  }];
  let arguments = (ins Tile_Tile:$input);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ClusterSumOp : Tile_Op<"cluster_sum", [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "a tile summed over the blocks of a cluster (compiler-internal)";
  let description = [{
    `tile-split-k` inserts it after a K loop that each block of a cluster
    ran a share of: in the cluster's first block (rank 0), the result is
    the element-wise sum of the input over every block of the cluster; in
    the others it is unspecified, and the code that reads it runs in the
    first block only. `convert-tile-to-registers` lowers it to writes
    through distributed shared memory into the first block, a cluster
    barrier and the first block's sums. Shape, element type and layout are
    the input's. Users never need to write it.

    ```mlir
    %s = tile.cluster_sum %acc : tensor<128x128xf32>
    ```
  }];
  let arguments = (ins Tile_Tile:$input);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Tile_PartialStoreOp : Tile_Op<"partial_store", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "publish a block's partial tile to another block (compiler-internal)";
  let description = [{
    `tile-stream-k` inserts it after a piece of a tile's K loop that does
    not start at the loop's first iteration: the block writes `value` into
    slot `slot` of `workspace` (slot `s` is elements `s * N` to
    `(s + 1) * N - 1`, `N` the tile's element count; the order of the
    tile's elements within a slot is unspecified, but the same for every
    block of the kernel) and then sets `flags[slot]` to 1, ordered after
    the writes at the device's scope. The block that owns the tile reads
    the slot back with `tile.partial_sum`. Users never need to write it.

    ```mlir
    tile.partial_store %acc, %workspace[%slot], %flags : tensor<128x256xf32>, memref<?xf32>, memref<?xi32>
    ```
  }];
  let arguments = (ins Tile_Tile:$value, MemRefRankOf<[AnyFloat], [1]>:$workspace, Index:$slot,
                       MemRefRankOf<[I32], [1]>:$flags);
  let assemblyFormat = [{
    $value `,` $workspace `[` $slot `]` `,` $flags attr-dict `:` type($value) `,` type($workspace) `,` type($flags)
  }];
  let hasVerifier = 1;
}

def Tile_PartialSumOp : Tile_Op<"partial_sum", [MemoryEffects<[MemRead, MemWrite]>,
                                                AllTypesMatch<["input", "result"]>]> {
  let summary = "a tile plus the partial tiles other blocks published (compiler-internal)";
  let description = [{
    `tile-stream-k` inserts it after the piece of a tile's K loop that
    starts at its first iteration, when other blocks ran the rest: for
    each slot `s` from `first` to `last - 1` in order, it waits until
    `flags[s]` is set (`tile.partial_store`), adds slot `s` of `workspace`
    to the running sum, and clears `flags[s]` for the next launch. The
    result is `input` plus those slots, added in slot order, so the same
    inputs always give the same sum. Users never need to write it.

    ```mlir
    %s = tile.partial_sum %acc, %workspace[%first to %last], %flags : tensor<128x256xf32>, memref<?xf32>, memref<?xi32>
    ```
  }];
  let arguments = (ins Tile_Tile:$input, MemRefRankOf<[AnyFloat], [1]>:$workspace, Index:$first, Index:$last,
                       MemRefRankOf<[I32], [1]>:$flags);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    $input `,` $workspace `[` $first `to` $last `]` `,` $flags attr-dict `:` type($input) `,` type($workspace) `,`
    type($flags)
  }];
  let hasVerifier = 1;
}

#endif // TILE_TD
