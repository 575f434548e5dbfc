//! A tile block that runs as a cluster of blocks (`tile.cluster`).
//!
//! (A sliced cluster, `tile.sliced` from `tile-slice-clusters`, is the
//! other kind: each block runs its own rows of the program block, its
//! layouts span that block alone ([`spanned`]), and only the program's
//! grid ([`program_grid`]) and the TMA's multicast (`super::tma`) see the
//! cluster.)
//!
//! The layouts' warps span the cluster: warp `w` of the tile block is warp
//! `w % W` of block `w / W` of the cluster (`W` warps a block). What
//! changes against one block:
//!
//! * the program's grid: `tile.block_id x` is the cluster's (the launched
//!   block over the cluster size, as the runtime launches that many times
//!   the program's grid along `x`), `tile.num_blocks x` the program's;
//! * exchanges between warps: each write goes to the same place in every
//!   block of the cluster (`mapa` to the block, a store through distributed
//!   shared memory), so that the reads after the barrier stay local;
//! * barriers are cluster barriers (`barrier.cluster.arrive` and `wait`:
//!   release and acquire, as a block barrier orders shared memory), and the
//!   kernel starts with one, as no block may write into another before that
//!   one runs. A block's shared memory then outlives every write into it:
//!   each exchange's writes come before the barrier that precedes its reads.
//!
//! ```mlir
//! %a = memref.extract_aligned_pointer_as_index %scratch : memref<2048xf32> -> index
//! ...                                    // + the slot's byte offset, as i64
//! %p = llvm.inttoptr %address : i64 to !llvm.ptr
//! %q = nvvm.mapa %p, %rank : !llvm.ptr -> !llvm.ptr   // for each rank
//! llvm.store %partial, %q : f32, !llvm.ptr
//! nvvm.cluster.arrive {aligned}
//! nvvm.cluster.wait {aligned}
//! %x = memref.load %scratch[%slot] : memref<2048xf32>
//! ```

use crate::{
    build::{At, GpuQuery},
    rewrite::{IrValue, op_name},
};
use melior::{
    dialect::{arith, llvm, ods},
    ir::{
        Attribute, Identifier, OperationRef, Type, ValueLike,
        attribute::IntegerAttribute,
        operation::{OperationBuilder, OperationLike, WalkOrder, WalkResult},
        r#type::IntegerType,
    },
};

/// The blocks of the cluster a kernel's tile block runs as (1: none).
pub fn blocks(kernel: OperationRef) -> i64 {
    kernel
        .attribute(tile_dialect::attrs::CLUSTER)
        .ok()
        .and_then(|a| IntegerAttribute::try_from(a).ok())
        .map_or(1, |a| a.value().max(1))
}

/// The blocks a kernel's layouts span: its cluster's, or 1 where each
/// block runs a slice of the program block of its own
/// (`tile-slice-clusters`, `tile.sliced`).
pub fn spanned(kernel: OperationRef) -> i64 {
    if kernel.has_attribute(tile_dialect::attrs::SLICED) { 1 } else { blocks(kernel) }
}

/// `nvvm.cluster.arrive` and `nvvm.cluster.wait`, by every thread.
pub fn barrier<'c>(at: &At<'c, 'c>) -> Option<()> {
    for name in ["nvvm.cluster.arrive", "nvvm.cluster.wait"] {
        at.insert(
            OperationBuilder::new(name, at.location)
                .add_attributes(&[(Identifier::new(at.context, "aligned"), Attribute::unit(at.context))])
                .build()
                .ok()?,
        );
    }
    Some(())
}

/// Makes the program see its own grid along `x`: every `tile.block_id x`
/// reads the launched block over `blocks`, every `tile.num_blocks x` the
/// launched grid over `blocks`. Returns this block's rank in its cluster.
pub fn program_grid<'c>(entry: &At<'c, 'c>, kernel: OperationRef<'c, 'c>, blocks: i64) -> Option<IrValue<'c>> {
    let launched = entry.gpu(GpuQuery::BlockId)?;
    let grid = entry.gpu(GpuQuery::GridDim)?;
    let size = entry.index(blocks)?;
    let block = entry.divui(launched, size)?;
    let programs = entry.divui(grid, size)?;
    let rank = entry.remui(launched, size)?;
    let mut queries = Vec::new();
    kernel.walk(WalkOrder::PreOrder, |op| {
        let name = op_name(op);
        let on_x = op.attribute("axis").is_ok_and(|a| a.to_string().ends_with("x>"));
        if (name == "tile.block_id" || name == "tile.num_blocks") && on_x {
            queries.push((op.to_raw(), name == "tile.block_id"));
        }
        WalkResult::Advance
    });
    for (raw, is_block) in queries {
        let value = if is_block { block } else { programs };
        // SAFETY: a live query of the kernel with one result; its users
        // read the program's value instead. The query itself stays (dead,
        // `convert-tile-to-gpu` lowers it and canonicalisation drops it):
        // it may be the op the lowering's entry builder inserts before.
        unsafe {
            mlir_sys::mlirValueReplaceAllUsesOfWith(mlir_sys::mlirOperationGetResult(raw, 0), value.to_raw());
        }
    }
    Some(rank)
}

/// Stores `value` (an element, or a vector of elements) at element `index`
/// of the scratch buffer `buffer` in every block of a cluster of `blocks`.
pub fn store_everywhere<'c>(
    at: &At<'c, 'c>,
    value: IrValue<'c>,
    buffer: IrValue<'c>,
    index: IrValue<'c>,
    blocks: i64,
) -> Option<()> {
    store_in(at, value, buffer, index, 0..blocks)
}

/// [`store_everywhere`], in the blocks of `ranks` alone.
fn store_in<'c>(
    at: &At<'c, 'c>,
    value: IrValue<'c>,
    buffer: IrValue<'c>,
    index: IrValue<'c>,
    ranks: std::ops::Range<i64>,
) -> Option<()> {
    let context = at.context;
    let element = crate::build::element_of(buffer.r#type())?;
    let bytes = crate::build::element_bits(element)?.div_ceil(8) as i64;
    let base =
        at.add(ods::memref::extract_aligned_pointer_as_index(context, Type::index(context), buffer, at.location))?;
    let address = at.addi(base, at.muli(index, at.index(bytes)?)?)?;
    let i64_type: Type = IntegerType::new(context, 64).into();
    let i32_type: Type = IntegerType::new(context, 32).into();
    let address = at.add(arith::index_cast(address, i64_type, at.location))?;
    let pointer_type = llvm::r#type::pointer(context, 0);
    let pointer = at.add(ods::llvm::inttoptr(context, pointer_type, address, at.location))?;
    for rank in ranks {
        let rank = at.int(i32_type, rank)?;
        let remote = at.add(
            OperationBuilder::new("nvvm.mapa", at.location)
                .add_operands(&[pointer, rank])
                .add_results(&[pointer_type])
                .build()
                .ok()?,
        )?;
        at.insert(llvm::store(context, value, remote, at.location, Default::default()));
    }
    Some(())
}
