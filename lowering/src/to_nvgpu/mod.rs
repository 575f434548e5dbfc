//! `convert-tile-to-nvgpu`: `tile.mma` main loops onto Hopper's tensor
//! cores, with TMA staging their operands in shared memory.
//!
//! Summary: for each `tile.kernel` with a main loop this pass can map, add a
//! variant `@k__wgmma` of the kernel (same arguments, then one TMA
//! descriptor per mma operand) in which the loop's `tile.load`s of the mma
//! operands become `nvgpu.tma.async.load`s completed through an mbarrier,
//! and the `tile.mma` becomes `nvgpu.warpgroup.mma` (wgmma) on a register
//! accumulator carried by the loop. The kernel itself is kept unchanged:
//! the runtime launches the variant when the TMA can describe the arrays
//! (16-byte aligned rows) and the general kernel otherwise.
//!
//! Before:
//! ```mlir
//! %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%c = %zero) -> (tensor<128x128xf32>) {
//!   %a = tile.load %pa[%bm, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
//!   %b = tile.load %pb[%k, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
//!   %d = tile.mma %a, %b, %c : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
//!   scf.yield %d : tensor<128x128xf32>
//! }
//! ```
//! After (in `@k__wgmma`, whose last two arguments are `!llvm.ptr`s to the
//! descriptors of `%A` and `%B`; `S` stages, here 3 for brevity):
//! ```mlir
//! %bar = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<..., num_barriers = 3>
//! nvgpu.mbarrier.init %bar[%s], %c1, predicate = %thread0      // each stage s
//! gpu.barrier
//! %raw = memref.alloc() {alignment = 1024} : memref<98304xi8, #gpu.address_space<workgroup>>
//! %sa = memref.view %raw[%c0][] : ... to memref<3x128x64xf16, #gpu.address_space<workgroup>>
//! %sb = memref.view %raw[%c49152][] : ... to memref<3x64x128xf16, #gpu.address_space<workgroup>>
//! %init = nvgpu.warpgroup.mma.init.accumulator -> <fragmented = vector<128x128xf32>>
//! // prologue: iterations 0 .. S-2 into stages 0 .. S-2 (if they exist)
//! nvgpu.mbarrier.arrive.expect_tx %bar[%s], %c32768, predicate = %exists_and_thread0
//! nvgpu.tma.async.load %da[%k64, %bm128], %bar[%s] to %sa_s, predicate = ...
//! nvgpu.tma.async.load %db[%bn128, %k64], %bar[%s] to %sb_s_left, ...  // 64-column boxes
//! %r = scf.for %k = %c0 to %nk step %c1 iter_args(%c = %init) -> (!nvgpu.warpgroup.accumulator<...>) {
//!   %s = arith.remui %i32, %c3_i32               // stage of iteration i (in 32 bits)
//!   nvgpu.mbarrier.try_wait.parity %bar[%s], %odd, %ticks      // (i / S) mod 2
//!   %d = nvgpu.warpgroup.mma %ga_s, %gb_s, %c {transposeB}     // waitGroup 1: stays in flight
//!   gpu.barrier                                  // mma i-1 done in every warp
//!   // iteration i+S-1 into the stage mma i-1 read, (i+S-1) mod S
//!   nvgpu.mbarrier.arrive.expect_tx ...; nvgpu.tma.async.load ...
//!   scf.yield %d
//! }
//! nvvm.wgmma.wait.group.sync.aligned 0
//! gpu.barrier
//! %buf = memref.view %raw[%c0][] : ... to memref<128x128xf32, #gpu.address_space<workgroup>>
//! nvgpu.warpgroup.mma.store %r, %buf
//! gpu.barrier
//! %acc = bufferization.to_tensor %buf restrict : memref<128x128xf32> to tensor<128x128xf32>
//! ```
//!
//! The ring has the kernel's `num_stages` hint stages, else 4 (measured
//! fastest on the H200, BENCHMARKS.md), at most eight and what fits in 160 KiB
//! (200 KiB with the TMA epilogue below, which needs no tile of its own). The
//! ring's buffers are views of one workgroup allocation, which the f32
//! tile the accumulator is stored to reuses after the loop. When a load's
//! coordinates are computed in the loop body (not the induction variable itself or loop-invariant), they
//! cannot be requested ahead: one stage, the loads at the top of each
//! iteration, and the mma waited for (waitGroup 0).
//!
//! For `M = 128` the variant runs two warpgroups (`tile.block_size =
//! 256`), each multiplying its 64 rows of A into a 64xN accumulator (the
//! example above shows one warpgroup's view as the whole tile, for
//! brevity); for `M = 256`, two warpgroups of 128 rows (two wgmma row
//! blocks each, with the TMA epilogue only); for `M = 64`, one warpgroup. The rest of the kernel (epilogue,
//! other loads and stores) goes the general SIMT way with those threads.
//! Thread 0 alone requests the loads. Out-of-bounds operand elements come
//! from the TMA's zero fill, which is the views' padding. A non-zero initial accumulator
//! is added after the loop (`d = c + sum a*b`), and an f16 accumulator is
//! kept in f32 registers and rounded once at the end.
//!
//! What it maps, and what stays on the general path (never an error):
//! `f16` or `bf16` operands with `K = 64` (one 128-byte swizzled row per
//! operand row), `M` of 64, 128 or 256, `N` a multiple of 64 up to 256 (at
//! most 64 x 256 or 128 x 128 accumulator elements a warpgroup: 128
//! registers a thread); operands that
//! are `tile.load`s, in the loop body, from views of kernel arguments with
//! zero padding; an accumulator that only the mma uses; and a loop that is
//! not itself inside a loop (its mbarrier phase restarts with it). `f32`
//! (tf32) and f8 operands, whose wgmma needs `K`-major `B`, stay on the
//! general path. Of the hints, `num_stages` sets the ring's size and
//! `occupancy` caps it so that that many blocks fit on an SM; `num_ctas =
//! 2` pairs persistent producer blocks into clusters (below; other values,
//! and other kinds of variant, run blocks alone); `pingpong` and `split_k`
//! are below.
//!
//! With the `warp_specialize = 1` hint (and a loop body of nothing but the
//! operand loads, the mma and scalar arithmetic), a producer warpgroup
//! joins the consumers (the last one, so that the accumulator store's
//! warp-indexed rows stay the consumers'): one of its threads requests
//! every iteration's operands, each stage once its `empty` mbarrier says
//! every consumer warp has finished the wgmma that read it; the consumers
//! wait on the `full` barriers, multiply, and release each stage with one
//! arrive per warp, with no block barrier in the loop. The roles branch
//! on a warp-uniform warpgroup index and the requests are predicated, or
//! ptxas serialises the consumers' wgmma (C7520). With persistent blocks,
//! the producer walks the tiles too and the consumers' epilogue meets at a
//! named barrier, and the roles become the two sides of one if/else so
//! that `setmaxnreg` gives the producer 40 registers and the consumers 232
//! (the variant gets `nvvm.minctasm = 1`, the cap at entry it needs). It
//! is a knob of the examples' tuning spaces.
//!
//! The epilogue (`epilogue.rs`): when the accumulator starts at zero and
//! goes straight to a `tile.store` of the whole tile (through at most an
//! `arith.truncf`), the registers are rounded in place, written to the
//! ring's memory as 128-byte-swizzled boxes (a third descriptor argument,
//! for the output) and stored by thread 0 with `cp.async.bulk.tensor`,
//! instead of the f32 staging tile and the general path's copy shown
//! above. Measured 0.95 (f16) and 0.92 (bf16) of cuBLAS at 4096^3, against
//! 0.84 and 0.81 before (BENCHMARKS.md).
//!
//! With `num_ctas = 2` on a persistent producer (`cluster.rs`), blocks run
//! in clusters of two, and partners whose tiles have the same B each
//! request half of its boxes for both, multicast by the TMA; stages are
//! released to both producers. The coupling needs slack: with three
//! stages it ran at 0.90 of cuBLAS at 4096^3, with four at 0.976 against
//! 0.994 for single blocks (BENCHMARKS.md, session 8). A knob the tuner
//! tries.
//!
//! With the `persistent = 1` hint (`persistent.rs`), a kernel that is one
//! such loop and its store over a 1-D grid runs on resident blocks that
//! each walk several tiles, a loop over tiles around the K loop, with the
//! next tile's loads in flight during the epilogue. It is a knob of the
//! examples' tuning spaces: it wins where each block gets several tiles
//! (BENCHMARKS.md, session 7), not where the grid fits on the GPU at once.
//! When the staging beside the ring holds half of the output's boxes (a
//! 128x256 tile with four stages), the other half is staged in the tile's
//! last ring stage, which thread 0 gives back to the producer only after
//! the TMA has read it, once the next tile's first wgmma is issued: the
//! consumers no longer wait for the first half to be read out (0.995 ->
//! 1.003 of cuBLAS at 4096^3, BENCHMARKS.md, session 9).
//!
//! Ping-pong (the `pingpong = 1` hint, with a persistent producer): the two
//! consumer warpgroups take alternate tiles of the block, each a whole
//! tile of at most 128 x 128 or 64 x 256 (128 accumulator registers), so
//! that one's epilogue runs during the other's K loop. Their K loops take
//! turns through two mbarriers (`turns[w]` completes when the other
//! warpgroup has issued its tile's last wgmma): without the turns, a
//! warpgroup would wait on a ring stage a whole round before its phase,
//! which the phase parity cannot tell from the one before. Measured slower
//! than the cooperative 128x256 tile (0.966 against 0.995 at 4096^3,
//! BENCHMARKS.md, session 9), so not in the examples' spaces.
//!
//! Split-K (the `split_k = 2` hint, `split.rs`): each program block runs as
//! a cluster of two blocks that multiply one half of its K steps each and
//! add through distributed shared memory. Measured slower than deeper
//! rings on the benchmark's shapes (0.970 against 1.011 for 128x8192x8192,
//! BENCHMARKS.md, session 9), so not in the examples' spaces; it is for
//! grids of very few tiles.
//!
//! Caveats: by default the warpgroups that multiply also issue the loads
//! (thread 0), with a block barrier per iteration; the
//! accumulator store relies on `nvgpu.warpgroup.mma.store` placing rows by
//! the warp's index in the block (see the store below); only for
//! `sm_90a`: `tile-to-ptx` runs this pass for that chip alone. Every
//! `tile.mma` whose loop it does not map says why in a remark at the mma
//! (`--remarks-filter=tile`): its types, its K tile, a permuted or computed
//! operand, a nested loop, an accumulator computed in the loop, ...; and
//! `convert-tile-to-gpu` says so when a variant is dropped for want of
//! shared memory.

use crate::{
    build::{At, tile_type},
    pass::{PassInfo, TilePass},
    rewrite::{IrValue, argument_of, defined_outside, defining_op, detach, hint, op_name, single_use},
};
use melior::dialect::arith::CmpiPredicate;
use melior::{
    Context, ContextRef,
    ir::{
        Attribute, BlockLike, OperationRef, RegionLike, Type, TypeLike, ValueLike,
        attribute::StringAttribute,
        operation::{OperationLike, OperationMutLike, WalkOrder, WalkResult},
    },
    pass::{ExternalPass, RunExternalPass},
};
use tile_abi::TmaDescriptor;
use tile_dialect::attrs::knob;

mod cluster;
mod epilogue;
mod persistent;
mod split;

/// Suffix of the variant's name.
pub const VARIANT_SUFFIX: &str = "__wgmma";
/// Threads of one warpgroup.
pub const WARPGROUP: i64 = 128;
/// Rows of one wgmma: a warpgroup's share of the accumulator.
const WGMMA_M: i64 = 64;
/// Columns of one swizzled TMA box of a 16-bit operand (128 bytes).
const SWIZZLE_COLUMNS: i64 = 64;

/// The `convert-tile-to-nvgpu` pass.
#[derive(Clone, Default)]
pub struct ConvertTileToNvgpu;

impl TilePass for ConvertTileToNvgpu {
    const INFO: PassInfo = PassInfo {
        argument: "convert-tile-to-nvgpu",
        name: "ConvertTileToNvgpu",
        summary: "Add a wgmma variant of tile kernels whose mma main loop maps onto TMA and warpgroup mma (sm_90a)",
        op_name: "builtin.module",
    };
    crate::pass_type_id!();

    fn dependent_dialects() -> Vec<melior::dialect::DialectHandle> {
        use melior::dialect::DialectHandle;
        vec![
            crate::pass::nvgpu_handle(),
            crate::pass::nvvm_handle(),
            DialectHandle::gpu(),
            DialectHandle::memref(),
            crate::pass::bufferization_handle(),
            DialectHandle::arith(),
            DialectHandle::llvm(),
            DialectHandle::scf(),
            crate::pass::vector_handle(),
        ]
    }
}

impl<'c> RunExternalPass<'c> for ConvertTileToNvgpu {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        crate::rewrite::add_to_kernels(
            operation,
            &pass,
            "convert-tile-to-nvgpu: could not build the wgmma variant",
            add_variant,
        );
    }
}

/// One main loop to map.
struct Match {
    for_op: mlir_sys::MlirOperation,
    mma: mlir_sys::MlirOperation,
    loads: [mlir_sys::MlirOperation; 2],
    /// Kernel arguments the operands are views of.
    args: [usize; 2],
    /// Position of the accumulator among the loop's iter_args.
    iter: usize,
    m: i64,
    n: i64,
    k: i64,
    element: String,
    accumulator: String,
    /// Operand buffers in the ring.
    stages: i64,
    /// Whether later iterations' operands can be requested early (their
    /// coordinates are the induction variable or loop-invariant).
    prefetch: bool,
    /// Whether a producer warpgroup runs the loads on its own (the
    /// `warp_specialize` hint): the body must hold nothing but the operand
    /// loads, the mma and scalar arithmetic, so that no other code needs
    /// the whole block in the loop.
    specialize: bool,
    /// The store of the accumulator the TMA epilogue does, if it can.
    store: Option<epilogue::Store>,
    /// Whether blocks walk several tiles (see `persistent`).
    persistent: Option<persistent::Persistent>,
    /// Whether blocks run in clusters of two that multicast B (see
    /// `cluster`).
    cluster: bool,
    /// Whether each tile runs as a cluster of two blocks that split its K
    /// steps (see `split`).
    split: bool,
    /// Whether the two consumer warpgroups of a persistent producer take
    /// alternate tiles, each a whole tile (ping-pong, in the module docs).
    pingpong: bool,
}

/// Clones `kernel` into its variant and maps the variant's main loops;
/// `Some` also when there is nothing to map (no variant then).
fn add_variant<'c>(context: &'c Context, kernel: OperationRef<'c, '_>) -> Option<()> {
    let name = StringAttribute::try_from(kernel.attribute("sym_name").ok()?).ok()?.value().to_string();
    // An instance of wider K steps (`tile-widen-blocks`): the kernel's own
    // variant here widens them too.
    if name.ends_with(crate::widen_blocks::WIDE_K_SUFFIX)
        && kernel.has_attribute(tile_dialect::attrs::WIDE_OF)
        && !kernel.has_attribute(tile_dialect::attrs::RETILED)
    {
        return Some(());
    }
    let block = kernel.block()?;
    // SAFETY: mlirOperationClone returns a new op owned by the caller,
    // which the block takes over.
    let copy = unsafe { melior::ir::operation::Operation::from_raw(mlir_sys::mlirOperationClone(kernel.to_raw())) };
    let variant = block.insert_operation_after(kernel, copy);
    // K tiles narrower than this main loop's 64 go several at a time, here
    // only: the kernel, which runs where the TMA cannot, keeps its steps
    // (wider ones made its element-wise copies spill, BENCHMARKS.md,
    // session 18).
    let widened = crate::widen_k::widen_loops(context, variant);
    let matches = find(variant);
    if matches.is_empty() {
        // SAFETY: the clone was just inserted and nothing refers to it.
        unsafe { mlir_sys::mlirOperationDestroy(variant.to_raw()) };
        return Some(());
    }
    crate::widen_k::remark(&widened, " in the wgmma variant");
    let mut variant_mut = unsafe {
        // SAFETY: the same live op, mutated only through this handle here.
        melior::ir::operation::OperationRefMut::from_raw(variant.to_raw())
    };
    variant_mut.set_attribute("sym_name", StringAttribute::new(context, &format!("{name}{VARIANT_SUFFIX}")).into());
    // Two warpgroups share a 128-row accumulator (64 rows each): twice the
    // warps to hide latency with, half the registers each.
    // In ping-pong, two warpgroups of whole tiles.
    let pingpong = matches.len() == 1 && matches[0].pingpong;
    let warpgroups = if pingpong || matches.iter().all(|m| m.m >= 2 * WGMMA_M) { 2 } else { 1 };
    // At most 128 accumulator registers a thread (64 x 256 f32 per
    // warpgroup); more would spill.
    let rows = |found: &Match| if pingpong { found.m } else { found.m / warpgroups };
    if matches.iter().any(|found| rows(found) * found.n > 128 * WARPGROUP) {
        for found in &matches {
            // SAFETY: the matched mma is a live op of the variant.
            let mma = unsafe { OperationRef::from_raw(found.mma) };
            crate::remarks::missed(
                mma.location(),
                ConvertTileToNvgpu::INFO.argument,
                "Wgmma",
                "this tile.mma gets no wgmma main loop: its accumulator would take more than 128 registers a thread",
            );
        }
        // SAFETY: the clone was just inserted and nothing refers to it.
        unsafe { mlir_sys::mlirOperationDestroy(variant.to_raw()) };
        return Some(());
    }
    // A producer warpgroup after the consumers (last: see the accumulator
    // store) when every loop can have one.
    let producer = matches.iter().all(|m| m.specialize);
    let threads = (warpgroups + i64::from(producer)) * WARPGROUP;
    variant_mut.set_attribute(tile_dialect::attrs::BLOCK_SIZE, Attribute::parse(context, &format!("{threads} : i64"))?);
    variant_mut.set_attribute(tile_dialect::attrs::VARIANT_OF, Attribute::parse(context, &format!("@{name}"))?);

    let entry = variant.region(0).ok()?.first_block()?;
    // One main loop alone can run persistently; its virtual block count
    // is the variant's last argument, after the descriptors.
    let persistent = matches.len() == 1 && matches[0].persistent.is_some();
    let cluster = persistent && producer && matches[0].cluster;
    let mut descriptors = Vec::new();
    for found in &matches {
        let mut pointers = Vec::new();
        for (operand, arg) in found.args.iter().enumerate() {
            let ptr = Type::parse(context, "!llvm.ptr")?;
            // SAFETY: `entry` is the live entry block of the variant.
            let value =
                unsafe { mlir_sys::mlirBlockAddArgument(entry.to_raw(), ptr.to_raw(), variant.location().to_raw()) };
            // SAFETY: a block argument just added, owned by `entry`.
            pointers.push(unsafe { IrValue::from_raw(value) });
            let box_shape = if operand == 0 { vec![found.m, found.k] } else { vec![found.k, SWIZZLE_COLUMNS] };
            descriptors.push(TmaDescriptor {
                arg: *arg,
                box_shape: box_shape.iter().map(|&d| d as u32).collect(),
                swizzle: 128,
                optional: false,
            });
        }
        let output = match &found.store {
            Some(store) => {
                let ptr = Type::parse(context, "!llvm.ptr")?;
                // SAFETY: as for the operands' descriptors above.
                let value = unsafe {
                    mlir_sys::mlirBlockAddArgument(entry.to_raw(), ptr.to_raw(), variant.location().to_raw())
                };
                descriptors.push(TmaDescriptor {
                    arg: store.arg,
                    box_shape: vec![found.m as u32, store.box_columns() as u32],
                    swizzle: 128,
                    optional: false,
                });
                // SAFETY: a block argument just added, owned by `entry`.
                Some(unsafe { IrValue::from_raw(value) })
            }
            None => None,
        };
        let virtual_blocks = if persistent {
            let index = Type::index(context);
            // SAFETY: as for the descriptors above; added after all of them.
            let value =
                unsafe { mlir_sys::mlirBlockAddArgument(entry.to_raw(), index.to_raw(), variant.location().to_raw()) };
            // The program's grid is the virtual blocks, not the launch's.
            for grid in found.persistent.iter().flat_map(|p| &p.grids) {
                // SAFETY: a live `tile.num_blocks x` result of the variant;
                // its users read the new entry argument, which dominates them.
                unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(*grid, value) };
            }
            // SAFETY: a block argument just added, owned by `entry`.
            Some(unsafe { IrValue::from_raw(value) })
        } else {
            None
        };
        let split = match found.split && matches.len() == 1 {
            // SAFETY: the matched loop is a live op of the variant.
            true => Some(split::prepare(context, variant, unsafe { OperationRef::from_raw(found.for_op) })?),
            false => None,
        };
        let roles = Roles { warpgroups, producer, cluster, split, pingpong };
        rewrite(context, found, [pointers[0], pointers[1]], output, roles, virtual_blocks)?;
    }
    if cluster {
        variant_mut.set_attribute(
            "nvvm.cluster_dim",
            Attribute::parse(context, &format!("array<i32: {}, 1, 1>", cluster::CTAS))?,
        );
        cluster::end(context, variant)?;
    }
    if matches.len() == 1 && matches[0].split {
        variant_mut.set_attribute(
            "nvvm.cluster_dim",
            Attribute::parse(context, &format!("array<i32: {}, 1, 1>", split::WAYS))?,
        );
        variant_mut
            .set_attribute(tile_dialect::attrs::SPLIT_K, Attribute::parse(context, &format!("{} : i64", split::WAYS))?);
    }
    if persistent {
        variant_mut.set_attribute(tile_dialect::attrs::PERSISTENT, Attribute::unit(context));
        if producer {
            // `setmaxnreg` needs a register cap at entry: one block per
            // multiprocessor (with the block size, 65536 / 384 registers).
            variant_mut.set_attribute("nvvm.minctasm", Attribute::parse(context, "1 : i32")?);
        }
    }
    crate::abi::add_descriptor_arguments(context, variant, &descriptors, persistent)
}

/// The mma main loops of `kernel` this pass maps.
fn find(kernel: OperationRef) -> Vec<Match> {
    let mut found = Vec::new();
    kernel.walk(WalkOrder::PreOrder, |op| {
        if op_name(op) == "tile.mma" {
            match match_loop(kernel, op) {
                Ok(m) => found.push(m),
                Err(why) => crate::remarks::missed(
                    op.location(),
                    ConvertTileToNvgpu::INFO.argument,
                    "Wgmma",
                    &format!("this tile.mma gets no wgmma main loop: {why}"),
                ),
            }
        }
        WalkResult::Advance
    });
    found
}

/// Shared memory this pass may give the ring of operand buffers (which
/// the f32 accumulator tile reuses after the loop), leaving room for the
/// general path's tiles within a block's 227 KiB.
const PIPELINE_BUDGET: i64 = 160 * 1024;
/// The same with the TMA epilogue, whose staging reuses the ring: four
/// stages of 128x64 and 64x256 (or 256x64 and 64x128) operands instead of
/// three, 0.947 -> 0.963 of cuBLAS for bf16 4096^3 with a producer
/// warpgroup (BENCHMARKS.md, session 8). A variant that then does not fit
/// beside the rest of the kernel is dropped, not an error
/// (`convert-tile-to-gpu`).
const TMA_EPILOGUE_BUDGET: i64 = 200 * 1024;
/// Registers a thread of a persistent block with a producer warpgroup
/// keeps after `setmaxnreg`: the producer's warpgroup needs few; the two
/// consumer warpgroups take the rest of the 64 K (128 x 40 + 256 x 232 =
/// 64512).
const PRODUCER_REGISTERS: i64 = 40;
const CONSUMER_REGISTERS: i64 = 232;

/// Shared memory of a persistent block's ring and output tile together
/// (of the 227 KiB a block may have, 2 KiB left to the general path).
const PERSISTENT_BUDGET: i64 = 225 * 1024;
/// Most stages. Small grids need loads far ahead: cuBLAS's kernel at
/// 1024^3 has eight stages of 128x64 tiles (`nvjet_..._128x64_64x8_...`),
/// and 64x128 tiles with eight stages ran at 1.046 of cuBLAS there against
/// 0.910 with four (BENCHMARKS.md, session 9).
const MAX_STAGES: i64 = match knob::NUM_STAGES.max {
    Some(max) => max,
    None => 8,
};
/// Stages without a hint.
pub(crate) const DEFAULT_STAGES: i64 = match knob::NUM_STAGES.default {
    Some(stages) => stages,
    None => 4,
};

/// The first element of tile `coordinate` of a box of `extent` elements
/// along one dim, as a TMA coordinate: the tile coordinate is first
/// clamped to `[-1, TMA_TILE_LIMIT / extent]`, so that the product fits the
/// TMA's signed 32 bits and a far coordinate (2^60 + 1, -2^63) cannot wrap
/// onto real elements. Every clamped coordinate still names a box wholly
/// outside the array: the runtime gives TMA only arrays whose extents are
/// at most `tile_runtime::tma::MAX_EXTENT` (2^31 - 512), below
/// `TMA_TILE_LIMIT - extent` for every box extent (at most 256).
pub(super) fn tma_start<'c>(at: &At<'c, '_>, coordinate: IrValue<'c>, extent: i64) -> Option<IrValue<'c>> {
    let last = TMA_TILE_LIMIT / extent - 1;
    let clamped = at.minsi(at.maxsi(coordinate, at.index(-1)?)?, at.index(last)?)?;
    at.muli(clamped, at.index(extent)?)
}

/// See [`tma_start`]: `2^31 - 1`, the largest TMA coordinate.
const TMA_TILE_LIMIT: i64 = i32::MAX as i64;

use crate::to_gpu::SM_SHARED_MEMORY;

/// Stages of the ring: the kernel's `num_stages` hint, else four; at
/// least one, and no more than fit. With an `occupancy` hint of `n`, the
/// ring leaves room for `n` blocks on an SM, each also holding the
/// `epilogue_tile` bytes of the general path's epilogue (none when the
/// TMA epilogue stages the output in the ring); `reserve` bytes go to
/// neither (split-K's partial sums).
fn stages(kernel: OperationRef, m: i64, n: i64, k: i64, epilogue_tile: i64, reserve: i64) -> i64 {
    let stage_bytes = (m * k + k * n) * 2;
    let occupancy = hint(kernel, knob::OCCUPANCY.key).unwrap_or(1).clamp(1, knob::OCCUPANCY.max.unwrap_or(32));
    // 2 KiB of slack for the general path's small buffers.
    let per_block = SM_SHARED_MEMORY / occupancy - 1024 - 2048;
    // With the TMA epilogue, the output is staged in the ring's memory
    // once the loop is done: the ring can have more of the block's.
    let pipeline = if epilogue_tile == 0 { TMA_EPILOGUE_BUDGET } else { PIPELINE_BUDGET };
    let budget = if occupancy > 1 { pipeline.min(per_block - epilogue_tile) } else { pipeline } - reserve;
    let fit = (budget / stage_bytes).clamp(1, MAX_STAGES);
    hint(kernel, knob::NUM_STAGES.key).unwrap_or(DEFAULT_STAGES).clamp(1, fit)
}

/// Boxes of the output a persistent block stages at a time: all of them
/// if `stages` stages of `stage_bytes` fit beside them, else the most (a
/// divisor of the box count) that let them fit, at least one. Each chunk
/// after the first waits until the one before has been read out, which
/// costs less than a stage: a 128x256 tile's four stages with two boxes
/// at a time ran at 0.994 of cuBLAS (bf16 4096^3) where three stages with
/// all four boxes ran at 0.983 (BENCHMARKS.md, session 8).
fn staging(store: &epilogue::Store, m: i64, stages: i64, stage_bytes: i64, buffers: i64) -> i64 {
    let boxes = store.chunk;
    let fits = |chunk: i64| stages * stage_bytes + buffers * chunk * store.box_bytes(m) <= PERSISTENT_BUDGET;
    (1..=boxes).rev().find(|&chunk| boxes % chunk == 0 && fits(chunk)).unwrap_or(1)
}

fn is_loop(op: OperationRef) -> bool {
    matches!(op_name(op).as_str(), "scf.for" | "scf.while" | "scf.parallel" | "scf.forall")
}

/// `Some(value)`, or `why` it is not there.
fn need<T>(value: Option<T>, why: &str) -> Result<T, String> {
    value.ok_or_else(|| why.to_string())
}

/// The main loop of `mma`, or why it is not mapped (said at the mma in a
/// remark).
fn match_loop(kernel: OperationRef, mma: OperationRef) -> Result<Match, String> {
    const FORM: &str = "its loop is not in the form the matcher reads";
    let body = need(mma.block(), FORM)?;
    let for_op = need(mma.parent_operation(), FORM)?;
    if op_name(for_op) != "scf.for" || for_op.region(0).ok().and_then(|r| r.first_block()) != Some(body) {
        return Err("it is not directly in the body of an scf.for (a main loop)".into());
    }
    let mut ancestor = for_op.parent_operation();
    while let Some(op) = ancestor {
        if is_loop(op) {
            return Err("its loop is nested in another loop (such as a persistent loop written by hand)".into());
        }
        ancestor = op.parent_operation();
    }

    // The accumulator: an iter_arg that only this mma reads, whose result
    // only the yield takes back.
    let c = need(mma.operand(2).ok(), FORM)?;
    let iter = match (argument_of(c, body).and_then(|i| i.checked_sub(1)), defining_op(c)) {
        (Some(iter), _) => iter,
        (None, Some(op)) if op.block() == Some(body) => {
            return Err(format!(
                "its accumulator is computed in the loop by {} (a fresh tile or a rescaled one), not carried into \
                 the mma as it is",
                op_name(op)
            ));
        }
        (None, Some(op)) => {
            return Err(format!(
                "its accumulator is not carried by the loop ({} from outside it: the mma starts afresh each \
                 iteration)",
                op_name(op)
            ));
        }
        _ => return Err("its accumulator is not carried by the loop".into()),
    };
    if single_use(c).map(|(user, _)| user) != Some(mma) {
        return Err("other ops read its accumulator in the loop (such as a rescaling)".into());
    }
    match single_use(need(mma.result(0).ok(), FORM)?.into()) {
        Some((user, position)) if op_name(user) == "scf.yield" && position == iter && user.block() == Some(body) => {}
        _ => return Err("its result goes elsewhere than back into the accumulator".into()),
    }

    // Types and shapes.
    let (a_shape, element) = need(tile_type(need(mma.operand(0).ok(), FORM)?.r#type()), FORM)?;
    let (b_shape, b_element) = need(tile_type(need(mma.operand(1).ok(), FORM)?.r#type()), FORM)?;
    let (c_shape, accumulator) = need(tile_type(need(mma.result(0).ok(), FORM)?.r#type()), FORM)?;
    let (element, accumulator) = (element.to_string(), accumulator.to_string());
    let (m, k, n) = (a_shape[0], a_shape[1], b_shape[1]);
    let supported = match (element.as_str(), accumulator.as_str()) {
        ("f16", "f32" | "f16") | ("bf16", "f32") => b_element.to_string() == element,
        _ => false,
    };
    if !supported {
        return Err(format!(
            "its types ({element} x {b_element} -> {accumulator}) are not f16 or bf16 operands into f32 (or f16 \
             into f16), the only ones this matcher maps"
        ));
    }
    if k != SWIZZLE_COLUMNS {
        return Err(format!("its K tile is {k}; the matcher maps only {SWIZZLE_COLUMNS}"));
    }
    if !matches!(m, 64 | 128 | 256) || n % SWIZZLE_COLUMNS != 0 || n > 256 || c_shape != [m, n] {
        return Err(format!(
            "its {m}x{n} tile is not 64, 128 or 256 rows by a multiple of {SWIZZLE_COLUMNS} up to 256 columns"
        ));
    }

    // The operands: tile.loads in the body from zero-padded views of
    // kernel arguments.
    let mut loads = [mma.to_raw(); 2];
    let mut args = [0usize; 2];
    for operand in 0..2 {
        let name = ["A", "B"][operand];
        let value = need(mma.operand(operand).ok(), FORM)?;
        let load = need(defining_op(value), &format!("operand {name} is not loaded in the loop"))?;
        if op_name(load) != "tile.load" || load.block() != Some(body) {
            return Err(format!(
                "operand {name} is not a tile.load in the loop's body but {} (a computed or permuted tile)",
                op_name(load)
            ));
        }
        let view = need(load.operand(0).ok(), FORM)?;
        let view_type = view.r#type().to_string();
        if view_type.contains("padding") && !view_type.contains("padding = zero") {
            return Err(format!("operand {name} is loaded with a padding other than zero"));
        }
        let partition = need(defining_op(view), FORM)?;
        let entry = need(kernel.region(0).ok().and_then(|r| r.first_block()), FORM)?;
        let arg = (op_name(partition) == "tile.partition_view")
            .then(|| partition.operand(0).ok().and_then(|memref| argument_of(memref, entry)))
            .flatten();
        let arg = need(arg, &format!("operand {name} is not viewed from a kernel argument"))?;
        if load.operand_count() != 3 {
            return Err(format!("operand {name}'s load is not two-dimensional"));
        }
        loads[operand] = load.to_raw();
        args[operand] = arg;
    }
    // Loads run ahead of the mma only when their coordinates for a later
    // iteration can be written before it: each index the induction
    // variable itself or defined outside the loop.
    let iv = need(body.argument(0).ok(), FORM)?;
    let ahead = loads.iter().all(|&raw| {
        // SAFETY: the loads found above are live ops of the body.
        let load = unsafe { OperationRef::from_raw(raw) };
        (1..3).all(|i| load.operand(i).is_ok_and(|v| v == iv.into() || defined_outside(detach(v), body)))
    });
    let store = if is_zero(detach(need(for_op.operand(3 + iter).ok(), FORM)?)) {
        epilogue::find(kernel, for_op, iter, m, n)
    } else {
        None
    };
    // 128 rows a warpgroup (two wgmma row blocks) only with the TMA
    // epilogue, which knows their layout; the general path's
    // `nvgpu.warpgroup.mma.store` places rows by the warp's index.
    if m > 2 * WGMMA_M && store.is_none() {
        return Err(format!(
            "its {m}-row tile needs the TMA epilogue (the accumulator stored as it is after the loop, from zeros)"
        ));
    }
    // The TMA epilogue stages the output in the ring; the general one
    // needs a tile of its own.
    let epilogue_tile = if store.is_some() { 0 } else { m * n * 2 };
    let mut simple = true;
    let mut next = body.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        let scalar = op_name(op).starts_with("arith.")
            && op.region_count() == 0
            && (0..op.result_count()).all(|i| op.result(i).is_ok_and(|r| tile_type(r.r#type()).is_none()));
        simple &= scalar || op == mma || loads.iter().any(|l| l.ptr == op.to_raw().ptr) || op_name(op) == "scf.yield";
    }
    // On request (the tuner tries it), for blocks that are not persistent:
    // a K loop that carries nothing but the accumulator and does nothing
    // but multiply, which the TMA epilogue stores (its partial sums are
    // then all the loop leaves).
    let split = ahead
        && simple
        && for_op.result_count() == 1
        && store.is_some()
        && hint(kernel, knob::SPLIT_K.key) == Some(split::WAYS)
        && hint(kernel, knob::PERSISTENT.key) != Some(1);
    let reserve = if split { m * n * 4 } else { 0 };
    let stages = if ahead { stages(kernel, m, n, k, epilogue_tile, reserve) } else { 1 };
    // On request (the tuner tries it): a warpgroup of loads only pays
    // off where the loop runs long (BENCHMARKS.md).
    let specialize = ahead && stages > 1 && simple && hint(kernel, knob::WARP_SPECIALIZE.key).is_some_and(|v| v > 0);
    // Persistent blocks keep the output tile apart from the ring (the next
    // tile's operands arrive during the epilogue): both must fit.
    let mut stages = stages;
    let mut store = store;
    let mut pingpong = false;
    let persistent = match &mut store {
        // On request (the tuner tries it): with one tile per block it only
        // costs a stage.
        Some(store) if ahead && simple && hint(kernel, knob::PERSISTENT.key) == Some(1) => {
            let stage_bytes = (m * k + k * n) * 2;
            let clustered = specialize && hint(kernel, knob::NUM_CTAS.key) == Some(cluster::CTAS);
            let wanted = if clustered { stages.min(cluster::MAX_STAGES) } else { stages };
            pingpong = specialize
                && !clustered
                && hint(kernel, knob::PINGPONG.key) == Some(1)
                && m <= 2 * WGMMA_M
                && m * n <= 128 * WARPGROUP;
            // Ping-pong stages each warpgroup's tile apart.
            let buffers = 1 + i64::from(pingpong);
            let staging = staging(store, m, wanted, stage_bytes, buffers);
            let fit = (PERSISTENT_BUDGET - buffers * staging * store.box_bytes(m)) / stage_bytes;
            let (op, truncf) = store.ops();
            let found = if fit >= 2 { persistent::find(kernel, for_op, op, truncf) } else { None };
            // The ring shrinks only for a kernel that does run persistently.
            if found.is_some() {
                stages = wanted.min(fit);
                store.chunk = staging;
            }
            found
        }
        _ => None,
    };
    // On request (the tuner tries it), for the persistent producer alone:
    // its `empty` barriers are what lets a block know that its partner's
    // stage is free too.
    let cluster = specialize && persistent.is_some() && hint(kernel, knob::NUM_CTAS.key) == Some(cluster::CTAS);
    Ok(Match {
        for_op: for_op.to_raw(),
        mma: mma.to_raw(),
        loads,
        args,
        iter,
        m,
        n,
        k,
        element,
        accumulator,
        stages,
        prefetch: ahead,
        specialize,
        store,
        pingpong: pingpong && persistent.is_some(),
        persistent,
        cluster,
        split,
    })
}

/// Rewrites one matched loop; `pointers` are the descriptor arguments of
/// its A and B operands.
fn rewrite<'c>(
    context: &'c Context,
    found: &Match,
    pointers: [IrValue<'c>; 2],
    output: Option<IrValue<'c>>,
    roles: Roles<'c>,
    virtual_blocks: Option<IrValue<'c>>,
) -> Option<()> {
    let Roles { warpgroups, producer, cluster, split, pingpong } = roles;
    // SAFETY: the matched ops are alive: the variant is only changed by
    // this function, one match at a time, and matches are disjoint loops.
    let (for_op, mma) = unsafe { (OperationRef::from_raw(found.for_op), OperationRef::from_raw(found.mma)) };
    let (m, n, k, t) = (found.m, found.n, found.k, found.element.as_str());
    let workgroup = "#gpu.address_space<workgroup>";
    let barrier_type_prefix = format!("!nvgpu.mbarrier.group<memorySpace = {workgroup}");
    let descriptor_type = |rows: i64, cols: i64| {
        format!(
            "!nvgpu.tensormap.descriptor<tensor = memref<{rows}x{cols}x{t}, 3>, swizzle = swizzle_128b, \
             l2promo = l2promo_256b, oob = zero, interleave = none>"
        )
    };
    let (a_map, b_map) = (descriptor_type(m, k), descriptor_type(k, SWIZZLE_COLUMNS));
    let stages = found.stages;
    // With a ring, each wgmma stays in flight while the next is issued
    // (waitGroup 1), so the stage it read is free one iteration later.
    let wait_group = i64::from(stages > 1);
    // How many iterations ahead operands are requested: at the top of its
    // own iteration (0) when their coordinates are computed in the body.
    let ahead = if found.prefetch { stages - wait_group } else { 0 };
    let view = |rows: i64, cols: i64, stride: i64| {
        format!("memref<{rows}x{cols}x{t}, strided<[{stride}, 1], offset: ?>, {workgroup}>")
    };
    let a_view = view(m, k, k);
    let b_view = view(k, n, n);
    let b_box_view = view(k, SWIZZLE_COLUMNS, SWIZZLE_COLUMNS);
    // Each warpgroup multiplies its rows of A (and holds those rows of
    // the accumulator).
    let rows = if pingpong { m } else { m / warpgroups };
    let a_rows_view = view(rows, k, k);
    let accumulator = format!("!nvgpu.warpgroup.accumulator<fragmented = vector<{rows}x{n}xf32>>");

    // Before the loop: barriers, buffers, descriptors, accumulator.
    let pre = At::before(context, for_op)?;
    let c0 = pre.index(0)?;
    let c1 = pre.index(1)?;
    let thread = pre.gpu_query("gpu.thread_id")?;
    let leader = pre.cmpi(CmpiPredicate::Eq, thread, c0)?;
    // The thread that stores a persistent block's output tiles: thread 0,
    // or in ping-pong each warpgroup's first.
    let storer = match pingpong {
        true => {
            let first = pre.index_op("arith.remui", &[thread, pre.index(WARPGROUP)?])?;
            pre.cmpi(CmpiPredicate::Eq, first, c0)?
        }
        false => leader,
    };
    let mut warpgroup = pre.index_op("arith.divui", &[thread, pre.index(WARPGROUP)?])?;
    if producer {
        // The roles branch on the warpgroup: broadcast from lane 0, it is
        // visibly warp-uniform. Otherwise ptxas takes the consumers' wgmma
        // for a divergent path and serialises it (warning C7520).
        let narrow = pre.op("arith.index_castui", &[warpgroup], &["i32"], &[])?;
        let lane = pre.op("arith.constant", &[], &["i32"], &[("value", "0 : i32")])?;
        let width = pre.op("arith.constant", &[], &["i32"], &[("value", "32 : i32")])?;
        let uniform =
            pre.op("gpu.shuffle", &[narrow, lane, width], &["i32", "i1"], &[("mode", "#gpu<shuffle_mode idx>")])?;
        warpgroup = pre.op("arith.index_castui", &[uniform], &["index"], &[])?;
    }
    let barrier =
        pre.op("nvgpu.mbarrier.create", &[], &[&format!("{barrier_type_prefix}, num_barriers = {stages}>")], &[])?;
    for stage in 0..stages {
        pre.void("nvgpu.mbarrier.init", &[barrier, c1, pre.index(stage)?, leader], &[])?;
    }
    // With a producer, each stage also has an `empty` barrier, which
    // every consumer warp arrives on once its wgmma has read the stage.
    // (In ping-pong, one warpgroup reads each stage.)
    let consumer_warps = if pingpong { 1 } else { warpgroups } * WARPGROUP / 32;
    let empty = if producer {
        let empty =
            pre.op("nvgpu.mbarrier.create", &[], &[&format!("{barrier_type_prefix}, num_barriers = {stages}>")], &[])?;
        // In a cluster, the partner's consumer warps arrive too.
        let count = pre.index(consumer_warps * if cluster { cluster::CTAS } else { 1 })?;
        for stage in 0..stages {
            pre.void("nvgpu.mbarrier.init", &[empty, count, pre.index(stage)?, leader], &[])?;
        }
        Some(empty)
    } else {
        None
    };
    // Lane 0 of each consumer warp releases the stages; in a cluster,
    // lane 1 too, for the partner.
    let (lane, signalling) = match empty {
        Some(_) => {
            let lane = pre.index_op("arith.remui", &[thread, pre.index(32)?])?;
            let lanes = pre.index(if cluster { cluster::CTAS } else { 1 })?;
            (Some(lane), Some(pre.cmpi(CmpiPredicate::Ult, lane, lanes)?))
        }
        None => (None, None),
    };
    // In ping-pong, the warpgroups' K loops take turns (module docs):
    // `turns[w]` completes once each time the other warpgroup's K loop is
    // done.
    let turns = match pingpong {
        true => {
            let turns =
                pre.op("nvgpu.mbarrier.create", &[], &[&format!("{barrier_type_prefix}, num_barriers = 2>")], &[])?;
            for w in 0..2 {
                pre.void("nvgpu.mbarrier.init", &[turns, pre.index(WARPGROUP)?, pre.index(w)?, leader], &[])?;
            }
            Some(turns)
        }
        false => None,
    };
    if cluster {
        cluster::start(&pre)?;
    } else {
        pre.void("gpu.barrier", &[], &[])?;
    }
    if split.is_some() {
        split::start(&pre)?;
    }
    // One allocation holds the ring and, after the loop, the f32 tile the
    // accumulator is stored to: the ring is free by then.
    let a_ring_bytes = stages * m * k * 2;
    let ring_bytes = a_ring_bytes + stages * k * n * 2;
    let tile_bytes = found.store.as_ref().map_or(m * n * 4, |store| store.tile_bytes(m, n));
    // A persistent block stages each output tile (a chunk of it at a time)
    // after the ring, which is already filling with the next tile's
    // operands.
    let persistent = virtual_blocks.is_some() && found.persistent.is_some() && found.store.is_some();
    // Split-K's partial sums come after the ring and the staging: they
    // arrive while this block may still be multiplying.
    let partials_offset = ring_bytes.max(tile_bytes);
    let raw_bytes = match &found.store {
        Some(store) if persistent => ring_bytes + (1 + i64::from(pingpong)) * store.staging_bytes(m),
        _ if split.is_some() => partials_offset + m * n * 4,
        _ => ring_bytes.max(tile_bytes),
    };
    // A persistent block whose staging holds half the output's boxes
    // stages the other half in the tile's last ring stage, which then goes
    // back to the producer only once the TMA has read it, early in the
    // next tile (see the release below); without it the second half waited
    // for the first to be read out, in the consumers' critical path.
    let deferred = match &found.store {
        Some(store) if persistent && empty.is_some() && !cluster && !pingpong => {
            let boxes = n / store.box_columns();
            boxes == 2 * store.chunk && store.chunk * store.box_bytes(m) <= k * n * 2
        }
        _ => false,
    };
    let raw_type = format!("memref<{raw_bytes}xi8, {workgroup}>");
    let alloc = [("alignment", "1024 : i64"), ("operandSegmentSizes", "array<i32: 0, 0>")];
    let raw = pre.op("memref.alloc", &[], &[&raw_type], &alloc)?;
    let a_buffer = pre.op("memref.view", &[raw, c0], &[&format!("memref<{stages}x{m}x{k}x{t}, {workgroup}>")], &[])?;
    let b_offset = pre.index(a_ring_bytes)?;
    let b_buffer =
        pre.op("memref.view", &[raw, b_offset], &[&format!("memref<{stages}x{k}x{n}x{t}, {workgroup}>")], &[])?;
    let a_desc = pre.op("builtin.unrealized_conversion_cast", &[pointers[0]], &[&a_map], &[])?;
    let b_desc = pre.op("builtin.unrealized_conversion_cast", &[pointers[1]], &[&b_map], &[])?;
    let init = pre.op("nvgpu.warpgroup.mma.init.accumulator", &[], &[&accumulator], &[])?;
    // Spin budget of one try_wait before it retries (it loops until the
    // phase completes).
    let ticks = pre.index(10_000_000)?;
    let bytes = pre.index((m * k + k * n) * 2)?;

    // A stage's part of a ring buffer.
    let part = |at: &At<'c, '_>, buffer: IrValue<'c>, offset: IrValue<'c>, r#type: &str, rows: i64, cols: i64| {
        at.op(
            "memref.reinterpret_cast",
            &[buffer, offset],
            &[r#type],
            &[
                ("operandSegmentSizes", "array<i32: 1, 1, 0, 0>"),
                ("static_offsets", &format!("array<i64: {}>", i64::MIN)),
                ("static_sizes", &format!("array<i64: {rows}, {cols}>")),
                ("static_strides", &format!("array<i64: {cols}, 1>")),
            ],
        )
    };
    // Requests the operand tiles at tile coordinates `[a_row, a_col]`
    // and `[b_row, b_col]` into `stage`, completing on its barrier. In a
    // cluster, `shared` says whether the partner block has the same B and
    // this block's rank: then each requests every other 64-column box of B
    // for both.
    let issue = |at: &At<'c, '_>,
                 stage: IrValue<'c>,
                 tiles: [IrValue<'c>; 4],
                 predicate: IrValue<'c>,
                 shared: Option<cluster::Pairing<'c>>|
     -> Option<()> {
        let scaled =
            |value: IrValue<'c>, by: i64| -> Option<IrValue<'c>> { at.index_op("arith.muli", &[value, at.index(by)?]) };
        let (a_row, a_col, b_row, b_col) = (
            tma_start(at, tiles[0], m)?,
            tma_start(at, tiles[1], k)?,
            tma_start(at, tiles[2], k)?,
            tma_start(at, tiles[3], n)?,
        );
        let tma = [("operandSegmentSizes", "array<i32: 1, 1, 1, 2, 1, 0, 1>")];
        at.void("nvgpu.mbarrier.arrive.expect_tx", &[barrier, bytes, stage, predicate], &[])?;
        let a_offset = scaled(stage, m * k)?;
        let a_part = part(at, a_buffer, a_offset, &a_view, m, k)?;
        // TMA coordinates go innermost first.
        at.void("nvgpu.tma.async.load", &[a_part, barrier, a_desc, a_col, a_row, stage, predicate], &tma)?;
        let b_offset = scaled(stage, k * n)?;
        let alone = match shared {
            Some(cluster::Pairing { share, .. }) => {
                let apart = at.op(
                    "arith.xori",
                    &[share, at.op("arith.constant", &[], &["i1"], &[("value", "true")])?],
                    &["i1"],
                    &[],
                )?;
                at.op("arith.andi", &[predicate, apart], &["i1"], &[])?
            }
            None => predicate,
        };
        for chunk in 0..n / SWIZZLE_COLUMNS {
            let offset = at.index_op("arith.addi", &[b_offset, at.index(chunk * k * SWIZZLE_COLUMNS)?])?;
            let b_part = part(at, b_buffer, offset, &b_box_view, k, SWIZZLE_COLUMNS)?;
            let col = at.index_op("arith.addi", &[b_col, at.index(chunk * SWIZZLE_COLUMNS)?])?;
            at.void("nvgpu.tma.async.load", &[b_part, barrier, b_desc, col, b_row, stage, alone], &tma)?;
            if let Some(cluster::Pairing { share, rank, .. }) = shared {
                let mine = at.cmpi(CmpiPredicate::Eq, rank, at.index(chunk % cluster::CTAS)?)?;
                let both = at.op(
                    "arith.andi",
                    &[at.op("arith.andi", &[predicate, share], &["i1"], &[])?, mine],
                    &["i1"],
                    &[],
                )?;
                let mask = at.op(
                    "arith.constant",
                    &[],
                    &["i16"],
                    &[("value", &format!("{} : i16", (1 << cluster::CTAS) - 1))],
                )?;
                let multicast = [("operandSegmentSizes", "array<i32: 1, 1, 1, 2, 1, 1, 1>")];
                at.void("nvgpu.tma.async.load", &[b_part, barrier, b_desc, col, b_row, stage, mask, both], &multicast)?;
            }
        }
        Some(())
    };

    let body = for_op.region(0).ok()?.first_block()?;
    let iv = detach(body.argument(0).ok()?.into());
    let (lower, upper, step) =
        (detach(for_op.operand(0).ok()?), detach(for_op.operand(1).ok()?), detach(for_op.operand(2).ok()?));
    // SAFETY: the loads are live ops of the body, before the mma.
    let (a_load, b_load) = unsafe { (OperationRef::from_raw(found.loads[0]), OperationRef::from_raw(found.loads[1])) };
    let indices: [IrValue<'c>; 4] = [
        detach(a_load.operand(1).ok()?),
        detach(a_load.operand(2).ok()?),
        detach(b_load.operand(1).ok()?),
        detach(b_load.operand(2).ok()?),
    ];
    // A persistent block owns `count` tiles: tile t is virtual block
    // `block + t * grid`. Its K steps are the ring's flat iterations
    // `t * nk ..`, of `total` in all.
    let flat = match (virtual_blocks, &found.persistent) {
        (Some(virtual_blocks), Some(found_persistent)) if persistent => {
            let grid = pre.gpu_query("gpu.grid_dim")?;
            // SAFETY: the kernel's live tile.block_id result.
            let block = unsafe { IrValue::from_raw(found_persistent.block_id) };
            // The runtime launches at most `virtual_blocks` blocks (in
            // clusters, rounded up to whole clusters: the last block may have
            // none).
            let left = pre.index_op("arith.subi", &[virtual_blocks, block])?;
            let rounded = pre.index_op("arith.addi", &[left, pre.index_op("arith.subi", &[grid, c1])?])?;
            let count = pre.index_op("arith.divui", &[rounded, grid])?;
            let total = pre.index_op("arith.muli", &[count, upper])?;
            Some(Flat { grid, block, count, total, tiles: virtual_blocks })
        }
        _ => None,
    };
    let limit = flat.as_ref().map_or(upper, |flat| flat.total);
    // The operands' tile coordinates at K step `k_step` of virtual block
    // `vb`: the program's index arithmetic recomputed for that block.
    let coordinates =
        |at: &At<'c, '_>, block: IrValue<'c>, vb: IrValue<'c>, k_step: IrValue<'c>| -> Option<[IrValue<'c>; 4]> {
            let mut memo = std::collections::HashMap::new();
            let mut tiles = indices;
            for (tile, index) in tiles.iter_mut().zip(indices) {
                *tile = if index == iv { k_step } else { persistent::remat(at, index, block.to_raw(), vb, &mut memo)? };
            }
            Some(tiles)
        };
    // The tile coordinates of the iteration whose induction variable is
    // `at_iv` (indices are `iv` itself or loop-invariant when `ahead > 0`);
    // in a persistent block, of flat iteration `at_iv`, which takes
    // divisions: for the prologue and tile boundaries only.
    let tiles_at = |at: &At<'c, '_>, at_iv: IrValue<'c>| -> Option<[IrValue<'c>; 4]> {
        let Some(flat) = &flat else { return Some(indices.map(|index| if index == iv { at_iv } else { index })) };
        let tile = at.index_op("arith.divui", &[at_iv, upper])?;
        let k_step = at.index_op("arith.remui", &[at_iv, upper])?;
        let vb = at.index_op("arith.addi", &[flat.block, at.index_op("arith.muli", &[tile, flat.grid])?])?;
        coordinates(at, flat.block, vb, k_step)
    };
    // Whether the iteration at `at_iv` exists, for the leader only.
    let exists = |at: &At<'c, '_>, at_iv: IrValue<'c>| -> Option<IrValue<'c>> {
        let inside = at.cmpi(CmpiPredicate::Slt, at_iv, limit)?;
        at.op("arith.andi", &[inside, leader], &["i1"], &[])
    };
    // In a cluster, this block's rank in it.
    let rank = match &flat {
        Some(flat) if cluster => Some(cluster::rank(&pre, flat.block)?),
        _ => None,
    };
    // Tile `t` of a persistent block: its virtual block, the flat
    // iteration of its first K step, its operands' coordinates (the K
    // step where they follow the loop's), and in a cluster whether the
    // partner block's tile has the same B, whether it has a tile at all,
    // and this block's rank.
    let tile_of = |at: &At<'c, '_>, flat: &Flat<'c>, t: IrValue<'c>| -> Option<Tile<'c>> {
        let vb = at.index_op("arith.addi", &[flat.block, at.index_op("arith.muli", &[t, flat.grid])?])?;
        let base = at.index_op("arith.muli", &[t, upper])?;
        let current = coordinates(at, flat.block, vb, iv)?;
        let shared = match rank {
            Some(rank) => {
                let peer = at.index_op("arith.xori", &[vb, at.index(1)?])?;
                let partner = coordinates(at, flat.block, peer, iv)?;
                // B's coordinates that change between tiles.
                let differ: Vec<usize> = (2..4).filter(|&i| indices[i] != iv).collect();
                let own: Vec<IrValue<'c>> = differ.iter().map(|&i| current[i]).collect();
                let theirs: Vec<IrValue<'c>> = differ.iter().map(|&i| partner[i]).collect();
                Some(cluster::Pairing {
                    share: cluster::shares(at, peer, flat.tiles, &own, &theirs)?,
                    paired: at.cmpi(CmpiPredicate::Ult, peer, flat.tiles)?,
                    rank,
                })
            }
            None => None,
        };
        Some(Tile { vb, base, current, shared })
    };
    let mut consumers: Option<At<'c, '_>> = None;
    if let Some(empty) = empty {
        // The producer: the last warpgroup waits for each stage to be
        // released, and its first thread requests the iteration's operands
        // into it. The first round finds every stage free: waiting for the
        // phase before the barrier's first counts as complete. The branch is
        // on the (warp-uniform) warpgroup and the requests are predicated:
        // a branch on the thread would put the consumers' wgmma after a
        // divergent path, which ptxas serialises (warning C7520).
        let producer_group = pre.cmpi(CmpiPredicate::Eq, warpgroup, pre.index(warpgroups)?)?;
        let first_producer = pre.cmpi(CmpiPredicate::Eq, thread, pre.index(warpgroups * WARPGROUP)?)?;
        // Persistent, the consumers' part is the else branch: with each
        // role one side of an if/else, `setmaxnreg` moves registers from
        // the producer (which needs few) to the consumers.
        let mut branches = pre.scf_if(producer_group, flat.is_some())?.into_iter();
        let then = branches.next()?;
        consumers = branches.next();
        if let Some(consumers) = &consumers {
            let set = |at: &At<'c, '_>, count: i64, action: &str| {
                at.void(
                    "nvvm.setmaxregister",
                    &[],
                    &[("regCount", &format!("{count} : i32")), ("action", &format!("#nvvm<action {action}>"))],
                )
                .map(|_| ())
            };
            set(&then, PRODUCER_REGISTERS, "decrease")?;
            set(consumers, CONSUMER_REGISTERS, "increase")?;
        }
        // A persistent producer walks the block's tiles as the consumers
        // do, the coordinates recomputed once per tile (its warps share the
        // multiprocessor's issue slots with the consumers').
        let (at, iteration, tiles, shared) = match &flat {
            Some(flat) => {
                let (per_tile, t) = then.scf_for(c0, flat.count, c1)?;
                let tile = tile_of(&per_tile, flat, t)?;
                let (at, j) = per_tile.scf_for(lower, upper, step)?;
                let iteration = at.index_op("arith.addi", &[tile.base, j])?;
                (at, iteration, tile.current.map(|index| if index == iv { j } else { index }), tile.shared)
            }
            None => {
                let (at, j) = then.scf_for(lower, upper, step)?;
                let iteration = at.index_op("arith.divui", &[at.index_op("arith.subi", &[j, lower])?, step])?;
                let tiles = tiles_at(&at, j)?;
                (at, iteration, tiles, None)
            }
        };
        let (stage, odd) = ring_slot(&at, iteration, stages)?;
        let even =
            at.op("arith.xori", &[odd, at.op("arith.constant", &[], &["i1"], &[("value", "true")])?], &["i1"], &[])?;
        at.void("nvgpu.mbarrier.try_wait.parity", &[empty, even, ticks, stage], &[])?;
        issue(&at, stage, tiles, first_producer, shared)?;
        // The consumers' loop: none of its iterations for the producer. (A
        // persistent block's consumers are the else branch instead.)
        if flat.is_none() {
            let consumer = pre.cmpi(CmpiPredicate::Ult, warpgroup, pre.index(warpgroups)?)?;
            let bound = pre.op("arith.select", &[consumer, upper, lower], &["index"], &[])?;
            // SAFETY: operand 1 of the live scf.for is its upper bound, an index.
            unsafe { mlir_sys::mlirOperationSetOperand(for_op.to_raw(), 1, bound.to_raw()) };
        }
    } else if ahead > 0 {
        // The prologue: the first `ahead` iterations' operands.
        for j in 0..ahead {
            let offset = pre.index_op("arith.muli", &[step, pre.index(j)?])?;
            let at_iv = pre.index_op("arith.addi", &[lower, offset])?;
            issue(&pre, pre.index(j)?, tiles_at(&pre, at_iv)?, exists(&pre, at_iv)?, None)?;
        }
    }
    // A persistent block runs the K loop once per tile, inside a loop
    // over its tiles.
    let outer = match &flat {
        Some(flat) => {
            // With a producer, the consumers alone walk the tiles, in the
            // else branch of the roles.
            // In ping-pong, warpgroup w takes tiles w, w + 2, ...
            let walker = consumers.as_ref().unwrap_or(&pre);
            let (body, t) = match pingpong {
                true => walker.scf_for(warpgroup, flat.count, walker.index(2)?)?,
                false => walker.scf_for(c0, flat.count, c1)?,
            };
            let outer_yield = body.before?;
            // SAFETY: both ops are alive; the K loop only uses values
            // defined before it in the entry block, which dominate the new
            // loop as well.
            unsafe { mlir_sys::mlirOperationMoveBefore(for_op.to_raw(), outer_yield.to_raw()) };
            let top = At::before(context, for_op)?;
            let Tile { vb, base, current, shared } = tile_of(&top, flat, t)?;
            if let Some(turns) = turns {
                // Warpgroup w's tile j (t = w + 2j) waits for completion
                // j - 1 + w of its turn barrier: none for warpgroup 0's
                // first (the phase before the first counts as complete).
                let j = top.index_op("arith.divui", &[top.index_op("arith.subi", &[t, warpgroup])?, top.index(2)?])?;
                let phase = top.index_op("arith.addi", &[top.index_op("arith.addi", &[j, c1])?, warpgroup])?;
                let narrow = top.op("arith.index_castui", &[phase], &["i32"], &[])?;
                let parity = top.op("arith.trunci", &[narrow], &["i1"], &[])?;
                top.void("nvgpu.mbarrier.try_wait.parity", &[turns, parity, ticks, warpgroup], &[])?;
            }
            let output = match &found.store {
                Some(store) => {
                    let [row, col] = epilogue::coordinates(store)?;
                    let mut memo = std::collections::HashMap::new();
                    Some([
                        persistent::remat(&top, row, flat.block.to_raw(), vb, &mut memo)?,
                        persistent::remat(&top, col, flat.block.to_raw(), vb, &mut memo)?,
                    ])
                }
                None => None,
            };
            Some(Outer { op: outer_yield.block()?.parent_operation()?, base, current, output, shared })
        }
        None => None,
    };

    // In the body: the wait for this iteration's stage, the mma, then
    // (with a ring) the request for the iteration `ahead` on, into the
    // stage the previous mma has released.
    let at = At::before(context, mma)?;
    let iteration = match &outer {
        Some(outer) => at.index_op("arith.addi", &[outer.base, iv])?,
        None => at.index_op("arith.divui", &[at.index_op("arith.subi", &[iv, lower])?, step])?,
    };
    let ring = at.index(stages)?;
    let (stage, odd) = ring_slot(&at, iteration, stages)?;
    if ahead == 0 {
        issue(&at, stage, indices, leader, None)?;
    }
    // Iteration i waits for completion i / stages of its stage's barrier.
    at.void("nvgpu.mbarrier.try_wait.parity", &[barrier, odd, ticks, stage], &[])?;
    let a_stage = at.index_op("arith.muli", &[stage, at.index(m * k)?])?;
    let a_rows = if pingpong { at.index(0)? } else { at.index_op("arith.muli", &[warpgroup, at.index(rows * k)?])? };
    let a_part = part(&at, a_buffer, at.index_op("arith.addi", &[a_stage, a_rows])?, &a_rows_view, rows, k)?;
    let b_part = part(&at, b_buffer, at.index_op("arith.muli", &[stage, at.index(k * n)?])?, &b_view, k, n)?;
    let a_wgmma = at.op(
        "nvgpu.warpgroup.generate.descriptor",
        &[a_part, a_desc],
        &[&format!("!nvgpu.warpgroup.descriptor<tensor = memref<{rows}x{k}x{t}, 3>>")],
        &[],
    )?;
    let b_wgmma = at.op(
        "nvgpu.warpgroup.generate.descriptor",
        &[b_part, b_desc],
        &[&format!("!nvgpu.warpgroup.descriptor<tensor = memref<{k}x{n}x{t}, 3>>")],
        &[],
    )?;
    let c = detach(mma.operand(2).ok()?);
    let d = at.op(
        "nvgpu.warpgroup.mma",
        &[a_wgmma, b_wgmma, c],
        &[&accumulator],
        &[("transposeB", "unit"), ("waitGroup", &format!("{wait_group} : i64"))],
    )?;
    // After the barrier, every warp's earlier mma has finished reading
    // (wgmma.wait_group is per warp), and every thread has passed its wait
    // on the stage refilled next, so the leader may re-arm it.
    let after_mma = At::before(context, mma.next_in_block()?)?;
    // Lane 0 of each consumer warp releases a stage its wgmma has read:
    // one arrival on its `empty` barrier. In a cluster lane 1 arrives too,
    // on the partner's barrier whenever the partner has a tile this round
    // (whether or not they share B: see `cluster::release`), else on its
    // own.
    let release = |at: &At<'c, '_>, stage: IrValue<'c>, shared: Option<cluster::Pairing<'c>>| -> Option<()> {
        let empty = empty?;
        match shared {
            Some(pairing) => cluster::release(at, empty, stage, lane?, pairing),
            None => at.op("nvgpu.mbarrier.arrive", &[empty, stage], &["!nvgpu.mbarrier.token"], &[]).map(|_| ()),
        }
    };
    let shared = outer.as_ref().and_then(|outer| outer.shared);
    if let Some(signalling) = signalling {
        // mma i-1 has completed (waitGroup 1): its stage is released. A
        // persistent block releases the last stage of a tile after its K
        // loop, with that tile's sharing.
        let later = after_mma.cmpi(CmpiPredicate::Ugt, iv, lower)?;
        let now = after_mma.op("arith.andi", &[signalling, later], &["i1"], &[])?;
        let then = after_mma.scf_if(now, false)?.into_iter().next()?;
        let previous = then.index_op("arith.remui", &[then.index_op("arith.subi", &[iteration, c1])?, ring])?;
        release(&then, previous, shared)?;
        if let (true, Some(outer), Some(empty)) = (deferred, &outer, empty) {
            // The previous tile's last stage, which held half its output:
            // once the TMA has read it, the storer releases it for every
            // consumer warp, after this tile's first wgmma is issued (the
            // read is then overlapped with it).
            let first = after_mma.cmpi(CmpiPredicate::Eq, iv, lower)?;
            let earlier = after_mma.cmpi(CmpiPredicate::Ugt, outer.base, c0)?;
            let now = after_mma.op(
                "arith.andi",
                &[after_mma.op("arith.andi", &[first, earlier], &["i1"], &[])?, storer],
                &["i1"],
                &[],
            )?;
            let then = after_mma.scf_if(now, false)?.into_iter().next()?;
            then.void("nvvm.cp.async.bulk.wait_group", &[], &[("group", "0 : i32"), ("read", "unit")])?;
            let previous = then.index_op("arith.remui", &[then.index_op("arith.subi", &[iteration, c1])?, ring])?;
            for _ in 0..consumer_warps {
                then.op("nvgpu.mbarrier.arrive", &[empty, previous], &["!nvgpu.mbarrier.token"], &[])?;
            }
        }
    } else {
        after_mma.void("gpu.barrier", &[], &[])?;
    }
    if ahead > 0 && empty.is_none() {
        let next = after_mma.index_op("arith.addi", &[iteration, after_mma.index(ahead)?])?;
        let (next_stage, _) = ring_slot(&after_mma, next, stages)?;
        match &outer {
            // Within the tile, the next K step's coordinates are the
            // tile's; past its end they are the next tile's, for the last
            // `ahead` steps only.
            Some(outer) => {
                let j = after_mma.index_op("arith.addi", &[iv, after_mma.index(ahead)?])?;
                let within = after_mma.cmpi(CmpiPredicate::Ult, j, upper)?;
                let branches = after_mma.scf_if(within, true)?;
                issue(
                    &branches[0],
                    next_stage,
                    outer.current.map(|index| if index == iv { j } else { index }),
                    leader,
                    None,
                )?;
                issue(&branches[1], next_stage, tiles_at(&branches[1], next)?, exists(&branches[1], next)?, None)?;
            }
            None => {
                let next_iv = after_mma.index_op(
                    "arith.addi",
                    &[iv, after_mma.index_op("arith.muli", &[step, after_mma.index(ahead)?])?],
                )?;
                issue(&after_mma, next_stage, tiles_at(&after_mma, next_iv)?, exists(&after_mma, next_iv)?, None)?;
            }
        }
    }

    // The loop now carries the accumulator registers.
    let iter = found.iter;
    let old_init = detach(for_op.operand(3 + iter).ok()?);
    let zero_init = is_zero(old_init);
    let result = detach(for_op.result(iter).ok()?.into());
    let accumulator_type = Type::parse(context, &accumulator)?;
    // SAFETY: all handles are live; the yield, init, block argument and
    // result change type together, so the loop verifies again, and the
    // mma (whose only use was the yield) and the operand loads (if now
    // unused) are erased last.
    unsafe {
        let terminator = body.terminator()?;
        mlir_sys::mlirOperationSetOperand(terminator.to_raw(), iter as isize, d.to_raw());
        mlir_sys::mlirOperationSetOperand(for_op.to_raw(), (3 + iter) as isize, init.to_raw());
        mlir_sys::mlirValueSetType(body.argument(1 + iter).ok()?.to_raw(), accumulator_type.to_raw());
        mlir_sys::mlirValueSetType(result.to_raw(), accumulator_type.to_raw());
        mlir_sys::mlirOperationDestroy(mma.to_raw());
        for load in found.loads {
            if mlir_sys::mlirValueGetFirstUse(mlir_sys::mlirOperationGetResult(load, 0)).ptr.is_null() {
                mlir_sys::mlirOperationDestroy(load);
            }
        }
    }

    // After the loop: registers to a tile buffer, back to a tensor.
    let post = match for_op.next_in_block() {
        Some(next) => At::before(context, next)?,
        None => return None,
    };
    if let Some(turns) = turns {
        // The other warpgroup's turn: this one's waits on the ring are
        // done, and its last wgmma is issued (its completion is not
        // needed: the tensor cores take the next in order).
        let other = post.index_op("arith.subi", &[c1, warpgroup])?;
        post.op("nvgpu.mbarrier.arrive", &[turns, other], &["!nvgpu.mbarrier.token"], &[])?;
    }
    if wait_group > 0 {
        post.void("nvvm.wgmma.wait.group.sync.aligned", &[], &[("group", "0 : i64")])?;
    }
    if let (Some(outer), Some(signalling), false) = (&outer, signalling, deferred) {
        // The tile's last wgmma has completed: its stage is free for the
        // next tile's operands.
        let some = post.cmpi(CmpiPredicate::Ugt, upper, lower)?;
        let now = post.op("arith.andi", &[signalling, some], &["i1"], &[])?;
        let then = post.scf_if(now, false)?.into_iter().next()?;
        let last = then.index_op("arith.subi", &[then.index_op("arith.addi", &[outer.base, upper])?, c1])?;
        let (stage, _) = ring_slot(&then, last, stages)?;
        release(&then, stage, outer.shared)?;
    }
    if let (Some(outer), Some(store), Some(descriptor)) = (&outer, &found.store, output) {
        // Only consumers get here; a producer warpgroup is still loading.
        // In ping-pong each warpgroup stores its own tile: it meets alone
        // (named barrier 1 + w), stages after the other's buffer, and its
        // first thread stores.
        let (meeting, staged, leader) = match pingpong {
            true => {
                let id =
                    post.op("arith.index_castui", &[post.index_op("arith.addi", &[warpgroup, c1])?], &["i32"], &[])?;
                let meeting = epilogue::Meeting { id, threads: WARPGROUP };
                let own = post.index_op("arith.muli", &[warpgroup, post.index(store.staging_bytes(m))?])?;
                let staged = post.index_op("arith.addi", &[own, post.index(ring_bytes)?])?;
                (Some(meeting), staged, storer)
            }
            false => {
                let meeting = match empty {
                    Some(_) => {
                        let id = post.op("arith.constant", &[], &["i32"], &[("value", "1 : i32")])?;
                        Some(epilogue::Meeting { id, threads: warpgroups * WARPGROUP })
                    }
                    None => None,
                };
                (meeting, post.index(ring_bytes)?, leader)
            }
        };
        let at_loop = epilogue::Loop {
            result,
            raw,
            descriptor,
            thread,
            leader,
            consumer: None,
            meeting,
            own_tile: pingpong,
            m,
            n,
            rows,
        };
        // The staging buffer takes `chunk` boxes at a time.
        let boxes = n / store.box_columns();
        for first in (0..boxes).step_by(store.chunk.max(1) as usize) {
            let chunk = first..(first + store.chunk).min(boxes);
            if deferred && first > 0 {
                // The second half goes to the tile's last stage, which
                // every wgmma is done with (the first half's barrier).
                let last = post.index_op("arith.subi", &[post.index_op("arith.addi", &[outer.base, upper])?, c1])?;
                let (stage, _) = ring_slot(&post, last, stages)?;
                let offset = post.index_op("arith.muli", &[stage, post.index(k * n * 2)?])?;
                let offset = post.index_op("arith.addi", &[offset, post.index(a_ring_bytes)?])?;
                let issue_at = epilogue::stage(context, &post, store, &at_loop, offset, chunk.clone())?;
                epilogue::store_boxes(&issue_at, store, &at_loop, offset, outer.output?, chunk)?;
                continue;
            }
            // The boxes staged before (the previous chunk's, or the previous
            // tile's) must be read out before they are overwritten; the
            // barrier tells every thread.
            let lead = post.scf_if(leader, false)?.into_iter().next()?;
            lead.void("nvvm.cp.async.bulk.wait_group", &[], &[("group", "0 : i32"), ("read", "unit")])?;
            epilogue::sync(&post, meeting)?;
            let issue_at = epilogue::stage(context, &post, store, &at_loop, staged, chunk.clone())?;
            epilogue::store_boxes(&issue_at, store, &at_loop, staged, outer.output?, chunk)?;
        }
        // The last boxes must be read out before the block exits.
        let after = At::before(context, outer.op.next_in_block()?)?;
        let lead = after.scf_if(storer, false)?.into_iter().next()?;
        lead.void("nvvm.cp.async.bulk.wait_group", &[], &[("group", "0 : i32"), ("read", "unit")])?;
        epilogue::erase(store);
        return Some(());
    }
    // A barrier first: every warp's last wgmma has completed (each waits
    // for its own), so no warp still reads the ring the tile overwrites.
    post.void("gpu.barrier", &[], &[])?;
    if let (Some(store), Some(descriptor)) = (&found.store, output) {
        let consumer =
            if producer { Some(post.cmpi(CmpiPredicate::Ult, warpgroup, post.index(warpgroups)?)?) } else { None };
        // With split-K, rank 1's sums join rank 0's, which stores them.
        let (result, leader) = match split {
            Some(rank) => {
                let threads = warpgroups * WARPGROUP;
                let partials = split::Partials { raw, offset: partials_offset, thread, threads, consumer, rank };
                let sum = split::reduce(&post, result, &accumulator, &partials, rows, n)?;
                let first = post.cmpi(CmpiPredicate::Eq, rank, c0)?;
                (sum, post.op("arith.andi", &[leader, first], &["i1"], &[])?)
            }
            None => (result, leader),
        };
        let at_loop = epilogue::Loop {
            result,
            raw,
            descriptor,
            thread,
            leader,
            consumer,
            meeting: None,
            own_tile: false,
            m,
            n,
            rows,
        };
        return epilogue::emit(context, store, &at_loop);
    }
    let staging =
        post.op("memref.view", &[raw, post.index(0)?], &[&format!("memref<{m}x{n}xf32, {workgroup}>")], &[])?;
    // The store's target must have the fragment's shape, but its lowering
    // places each warp's rows by the warp's index in the block (warp w
    // writes rows 16w..16w+15), not in its warpgroup: through a view of
    // the first `rows` rows, warpgroup 1's warps write rows 64..127 of the
    // tile buffer, which lie inside it (the view's strides are the
    // buffer's). One view serves both warpgroups.
    let share = post.op(
        "memref.subview",
        &[staging],
        &[&format!("memref<{rows}x{n}xf32, strided<[{n}, 1]>, {workgroup}>")],
        &[
            ("operandSegmentSizes", "array<i32: 1, 0, 0, 0>"),
            ("static_offsets", "array<i64: 0, 0>"),
            ("static_sizes", &format!("array<i64: {rows}, {n}>")),
            ("static_strides", "array<i64: 1, 1>"),
        ],
    )?;
    // The producer warpgroup holds no accumulator (its warps would store
    // past the tile).
    let store = if producer {
        let consumer = post.cmpi(CmpiPredicate::Ult, warpgroup, post.index(warpgroups)?)?;
        let then = post.scf_if(consumer, false)?.into_iter().next()?;
        then.void("nvgpu.warpgroup.mma.store", &[result, share], &[])?
    } else {
        post.void("nvgpu.warpgroup.mma.store", &[result, share], &[])?
    };
    post.void("gpu.barrier", &[], &[])?;
    let f32_tile = format!("tensor<{m}x{n}xf32>");
    let mut value = post.op("bufferization.to_tensor", &[staging], &[&f32_tile], &[("restrict", "unit")])?;
    if !zero_init {
        let init32 =
            if found.accumulator == "f16" { post.op("arith.extf", &[old_init], &[&f32_tile], &[])? } else { old_init };
        value = post.op("arith.addf", &[value, init32], &[&f32_tile], &[])?;
    }
    if found.accumulator == "f16" {
        value = post.op("arith.truncf", &[value], &[&format!("tensor<{m}x{n}xf16>")], &[])?;
    }
    // SAFETY: live values and op; every use of the loop result but the
    // store now reads the tensor.
    unsafe {
        let mut except = [store.to_raw()];
        mlir_sys::mlirValueReplaceAllUsesExcept(result.to_raw(), value.to_raw(), 1, except.as_mut_ptr());
    }
    Some(())
}

/// The ring stage of iteration `iteration` (counted from the block's
/// first), and whether its round (`iteration / stages`) is odd: the phase
/// its barrier completes. In 32 bits: a 64-bit division, even by a
/// constant, is a chain of wide multiplies on the GPU, in the main loop's
/// critical path; a block's iterations stay far below 2^32 (that many K
/// steps of 64 would be 2^38 in K).
fn ring_slot<'c>(at: &At<'c, '_>, iteration: IrValue<'c>, stages: i64) -> Option<(IrValue<'c>, IrValue<'c>)> {
    let narrow = at.op("arith.index_castui", &[iteration], &["i32"], &[])?;
    let ring = at.op("arith.constant", &[], &["i32"], &[("value", &format!("{stages} : i32"))])?;
    let stage = at.op("arith.remui", &[narrow, ring], &["i32"], &[])?;
    let round = at.op("arith.divui", &[narrow, ring], &["i32"], &[])?;
    let odd = at.op("arith.trunci", &[round], &["i1"], &[])?;
    Some((at.op("arith.index_castui", &[stage], &["index"], &[])?, odd))
}

/// Whether `value` is a splat constant zero.
fn is_zero(value: IrValue) -> bool {
    let Some(def) = defining_op(value) else { return false };
    op_name(def) == "arith.constant"
        && def.attribute("value").is_ok_and(|v| {
            let text = v.to_string();
            text.starts_with("dense<0.000000e+00>") || text.starts_with("dense<0>")
        })
}

/// How the variant's warpgroups work: consumers that multiply (one or
/// two), whether a producer warpgroup loads for them, whether blocks
/// pair up in clusters (see `cluster`), and with split-K the block's rank
/// in its tile's cluster (see `split`).
#[derive(Clone, Copy)]
struct Roles<'c> {
    warpgroups: i64,
    producer: bool,
    cluster: bool,
    split: Option<IrValue<'c>>,
    pingpong: bool,
}

/// One tile of a persistent block (see `tile_of` in `rewrite`).
struct Tile<'c> {
    vb: IrValue<'c>,
    base: IrValue<'c>,
    current: [IrValue<'c>; 4],
    shared: Option<cluster::Pairing<'c>>,
}

/// A persistent block's share of the grid (see `persistent`).
struct Flat<'c> {
    grid: IrValue<'c>,
    /// The kernel's `tile.block_id x`.
    block: IrValue<'c>,
    /// How many tiles this block owns.
    count: IrValue<'c>,
    /// Its K steps over all of them.
    total: IrValue<'c>,
    /// The program's grid: how many tiles there are.
    tiles: IrValue<'c>,
}

/// The loop over a persistent block's tiles, around the K loop.
struct Outer<'c, 'a> {
    op: OperationRef<'c, 'a>,
    /// The flat iteration of the tile's first K step.
    base: IrValue<'c>,
    /// The operands' coordinates in this tile (the K loop's induction
    /// variable where they follow it).
    current: [IrValue<'c>; 4],
    /// The output tile's coordinates, with a TMA epilogue.
    output: Option<[IrValue<'c>; 2]>,
    /// In a cluster, how this block's tile pairs with its partner's.
    shared: Option<cluster::Pairing<'c>>,
}
