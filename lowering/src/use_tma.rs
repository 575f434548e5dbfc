//! `tile-use-tma`: a variant of each register-path kernel whose mma
//! operand rings the Tensor Memory Accelerator fills.
//!
//! Summary: the threads' `cp.async` copies of an mma loop's operand tiles
//! cost issue slots and registers that the mmas need; the TMA moves a
//! whole tile on one thread's request. The TMA needs a descriptor of the
//! array, which the runtime encodes only for arrays it can describe
//! (16-byte aligned rows, see `tile_runtime::tma`), so the kernel stays as
//! it is and this pass adds a variant, `@k__tma` (`tile.variant_of = @k`),
//! with one `!llvm.ptr` argument per descriptor (`tile.tma`) after the
//! kernel's, whose ring loads carry `tile.tma_load`, the argument to fill
//! their slots through. A store of a tile converted for the threads'
//! store (the mma's accumulator, say) gets a descriptor too: in the
//! variant it carries `tile.tma_store` and stores the tile in the layout
//! it had before the conversion, which `convert-tile-to-registers` stages
//! in shared memory as the descriptor's boxes for the TMA to write out.
//! The runtime takes the variant when it can encode every descriptor
//! but the optional ones (the stores'), else the kernel.
//!
//! A ring read only by its loop's one mma, which stays in flight, gives
//! back the spare slot `tile-prefetch-loads` gave it (`distance + 3`
//! slots, for the kernel's cp.async copies, whose block barrier comes
//! before the wgmmas): in the variant, without a producer warp, the block
//! meets after the mma's `wgmma.wait_group 1`, and `distance + 2` slots
//! suffice (`registers::groups::in_flight_rings`). Only where `distance + 2`
//! is a power of two (4 slots two ahead: a tile's slot and phase are a
//! mask and a shift, where 5 slots' division delayed each request after
//! the block barrier, BENCHMARKS.md, session 30); one ahead keeps its 4.
//!
//! In a sliced cluster (`tile-slice-clusters`, `tile.sliced`) whose
//! variant gets a producer warp, a ring whose loads' coordinates do not
//! depend on the block's rank in the cluster (B, which every block of the
//! cluster reads alike) is multicast (`tile.tma_multicast`): its
//! descriptor's box is `1 / tile.cluster` of the tile's rows, each block
//! asks for its part for all of them (`registers::tma`). Only where the
//! part is whole swizzle patterns (1024 bytes) and the ring's loop is at
//! the kernel's top level (a ring started again would initialise its
//! barriers while another block may multicast into them); without a
//! producer warp, whose `empty` barriers can count the other blocks'
//! consumers, each block asks for the whole tile itself.
//!
//! Before (after `tile-prefetch-loads` and `tile-assign-layouts`):
//! ```mlir
//! func.func @k(%A: memref<?x?xf16>, ...) attributes {tile.kernel} {
//!   %a0 = tile.load %pa[%m, %c0] {tile.ring = array<i64: 0, 2, 0, 5>} -> tensor<128x64xf16, #tile.shared<...>>
//!   ...
//!   %out = tile.convert_layout %acc : tensor<128x128xf16, #tile.wgmma<...>> -> tensor<128x128xf16, #tile.blocked<...>>
//!   tile.store %out, %pc[%m, %n] : tensor<128x128xf16, #tile.blocked<...>> -> ...
//! }
//! ```
//! After: the kernel as it was, and
//! ```mlir
//! func.func @k__tma(%A: memref<?x?xf16>, ..., %d0: !llvm.ptr {tile.tma = {arg = 0, box = array<i64: 128, 64>, swizzle = 128}})
//!     attributes {tile.kernel, tile.variant_of = @k} {
//!   %a0 = tile.load %pa[%m, %c0] {tile.ring = array<i64: 0, 2, 0, 4>, tile.tma_load = 3 : i64} -> ...
//!   ...
//!   tile.store %acc, %pc[%m, %n] {tile.tma_store = 5 : i64} : tensor<128x128xf16, #tile.wgmma<...>> -> ...
//! }
//! ```
//!
//! Caveats: only rings (loads issued ahead) go through the TMA, and only
//! those whose loads read a kernel argument through a zero-padded view
//! (the TMA fills what lies outside the array with zeros), with at most
//! 256 rows, in a loop whose mmas are all directly in its body (each
//! iteration waits for each slot it reads, which keeps the slots'
//! mbarrier phases in step), in a kernel whose layouts do not span a
//! cluster (a sliced cluster's blocks, `tile-slice-clusters`, each have
//! rings of their own). A ring that cannot says why in a remark at its
//! loads. Stores get the TMA only
//! in a kernel that gets the variant for its rings and has no loop of
//! several mmas (attention's causal kernel measured slower with it), only where a
//! conversion fed them (its exchange, at the tile's size, is what the
//! staging replaces, so the rings' shared-memory budget holds), of tiles
//! whose leading dims are 1, with at most 256 rows, whose rows cut into
//! 32-, 64- or 128-byte box rows; a converted store left to the threads
//! says why in a remark. A store's descriptor is optional: an
//! output the runtime cannot describe (rows not 16-byte aligned) gets a
//! null pointer, and the variant's threads store it themselves
//! (`tile-split-thread-stores` later gives that case a copy of the
//! variant of its own, outside persistent walks).

use crate::registers::rings::ring_of;
use crate::{
    build::{element_bits, tile_type},
    layout::layout_of_type,
    pass::{PassInfo, TilePass},
    registers::{shared::SharedTile, tma_store},
    rewrite::{Probe, argument_of, defining_op, op_name, single_use},
};
use melior::{
    Context, ContextRef,
    ir::{
        Attribute, BlockLike, OperationRef, RegionLike, TypeLike, ValueLike,
        attribute::{DenseI64ArrayAttribute, IntegerAttribute, StringAttribute},
        operation::{OperationLike, OperationMutLike, WalkOrder, WalkResult},
        r#type::IntegerType,
    },
    pass::{ExternalPass, RunExternalPass},
};
use std::collections::BTreeMap;
use tile_abi::TmaDescriptor;
use tile_dialect::attrs;

/// The suffix of the variant's name.
pub const VARIANT_SUFFIX: &str = "__tma";

/// The `tile-use-tma` pass.
#[derive(Clone, Default)]
pub struct UseTma;

impl TilePass for UseTma {
    const INFO: PassInfo = PassInfo {
        argument: "tile-use-tma",
        name: "UseTma",
        summary: "Add a variant of register-path kernels whose mma operand rings the TMA fills and whose converted stores it writes out",
        op_name: "builtin.module",
    };
    crate::pass_type_id!();

    fn dependent_dialects() -> Vec<melior::dialect::DialectHandle> {
        vec![melior::dialect::DialectHandle::llvm()]
    }
}

impl<'c> RunExternalPass<'c> for UseTma {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        crate::rewrite::add_to_kernels(operation, &pass, "tile-use-tma: could not build the TMA variant", add_variant);
    }
}

/// A ring load the TMA can fill: the memref argument it reads and the
/// descriptor's box and swizzle.
struct Candidate {
    load: mlir_sys::MlirOperation,
    descriptor: TmaDescriptor,
}

/// The ring loads of `kernel` by ring id, each the TMA's or why not.
fn rings(kernel: OperationRef) -> BTreeMap<i64, Result<Vec<Candidate>, String>> {
    let mut rings: BTreeMap<i64, Result<Vec<Candidate>, String>> = BTreeMap::new();
    let cluster = crate::registers::cluster::spanned(kernel) > 1;
    kernel.walk(WalkOrder::PreOrder, |op| {
        if op_name(op) != "tile.load" {
            return WalkResult::Advance;
        }
        let Some([id, _, index, _]) = ring_of(op) else { return WalkResult::Advance };
        // SAFETY: an op of the kernel, alive for the pass run.
        let load = unsafe { OperationRef::from_raw(op.to_raw()) };
        let found = match candidate(kernel, load, index) {
            Ok(_) if cluster => Err("the kernel's blocks run as a cluster".to_string()),
            other => other,
        };
        let entry = rings.entry(id).or_insert_with(|| Ok(Vec::new()));
        match (entry.as_mut(), found) {
            (Ok(list), Ok(candidate)) => list.push(candidate),
            (Ok(_), Err(why)) => *entry = Err(why),
            (Err(_), _) => {}
        }
        WalkResult::Advance
    });
    rings
}

/// Whether the TMA can fill `load`'s tiles, and with which descriptor.
fn candidate(kernel: OperationRef, load: OperationRef, index: i64) -> Result<Candidate, String> {
    let result = load.result_at(0).ok_or_else(String::new)?;
    let Some(tile) = SharedTile::of_type(result.r#type()) else {
        return Err("they are not kept in shared memory".into());
    };
    let (full_shape, _) = tile_type(result.r#type()).ok_or_else(String::new)?;
    let view = load.operand_at(0).ok_or_else(String::new)?;
    let Some(partition) = defining_op(view).filter(|d| op_name(*d) == "tile.partition_view") else {
        return Err("its view is not made in the kernel".into());
    };
    let view_type = tile_dialect::types::PartitionViewType::try_from_type(view.r#type()).ok_or_else(String::new)?;
    if !matches!(view_type.padding(), tile_dialect::types::Padding::Zero) {
        return Err("its view pads with other values than zero, and the TMA fills with zeros".into());
    }
    let entry = kernel.region_at(0).and_then(|r| r.first_block()).ok_or_else(String::new)?;
    let memref = partition.operand_at(0).ok_or_else(String::new)?;
    let Some(arg) = argument_of(memref, entry) else {
        return Err("it reads no kernel argument directly".into());
    };
    let rows = tile.rows();
    let per_row = tile.swizzle / tile.bytes;
    if rows > attrs::TMA_MAX_BOX || per_row > attrs::TMA_MAX_BOX || (tile.shape[1] * tile.bytes) % tile.swizzle != 0 {
        return Err(format!("its {rows}-row tile is over the TMA's 256-row box"));
    }
    if index < 0 {
        let r#loop = load.parent_operation().filter(|p| op_name(*p) == "scf.for").ok_or_else(String::new)?;
        if let Some(why) = nested_mma(r#loop) {
            return Err(why);
        }
    }
    let mut box_shape = vec![1u32; full_shape.len() - 2];
    box_shape.extend([rows as u32, per_row as u32]);
    Ok(Candidate {
        load: load.to_raw(),
        descriptor: TmaDescriptor { arg, box_shape, swizzle: tile.swizzle as u32, optional: false },
    })
}

/// The stores of `kernel` the TMA can write out, by their position among
/// its `tile.store`s in walk order, each with its descriptor.
fn stores(kernel: OperationRef) -> Vec<(usize, TmaDescriptor)> {
    let Some(entry) = kernel.region_at(0).and_then(|r| r.first_block()) else { return Vec::new() };
    // Measured: attention's causal kernel with head dim 128 ran 9-13%
    // slower with the TMA's epilogue (ptxas allocated 136 registers where
    // it had allocated 156, and scheduled the two mmas' loop worse), where
    // every one-mma GEMM gained (BENCHMARKS.md, session 20).
    let several = several_mmas_a_loop(kernel);
    let mut found = Vec::new();
    let mut position = 0;
    kernel.walk(WalkOrder::PreOrder, |op| {
        if op_name(op) == "tile.store" {
            let chosen = if !converted_register_tile(op) {
                // The threads store it as it is (no exchange to replace).
                None
            } else if several {
                Some(Err("a loop of this kernel holds several mmas, which measured slower with the TMA's store".into()))
            } else {
                Some(store_candidate(entry, op))
            };
            match chosen {
                Some(Ok(descriptor)) => found.push((position, descriptor)),
                Some(Err(why)) => crate::remarks::missed(
                    op.location(),
                    UseTma::INFO.argument,
                    "TmaStore",
                    &format!("this tile is converted and stored by the threads, not staged for the TMA: {why}"),
                ),
                None => {}
            }
            position += 1;
        }
        WalkResult::Advance
    });
    found
}

/// Whether `store` stores a tile in registers converted for it (a
/// `tile.convert_layout` only it uses, whose exchange a TMA staging
/// would replace, at the same size).
fn converted_register_tile(store: OperationRef) -> bool {
    let Some(tile) = store.operand_at(0) else { return false };
    let Some(convert) = defining_op(tile).filter(|d| op_name(*d) == "tile.convert_layout") else { return false };
    let Some(source) = convert.operand_at(0) else { return false };
    single_use(tile).is_some()
        && SharedTile::of_type(source.r#type()).is_none()
        && layout_of_type(source.r#type()).is_some()
}

/// Whether a loop of `kernel` holds more than one `tile.mma` (attention's
/// two products a key tile).
fn several_mmas_a_loop(kernel: OperationRef) -> bool {
    let mut several = false;
    kernel.walk(WalkOrder::PreOrder, |op| {
        if op_name(op) == "scf.for" {
            let mmas = op.region_at(0).and_then(|r| r.first_block()).map_or(0, |body| {
                let mut count = 0;
                let mut next = body.first_operation();
                while let Some(inner) = next {
                    count += usize::from(op_name(inner) == "tile.mma");
                    next = inner.next_in_block();
                }
                count
            });
            if mmas > 1 {
                several = true;
                return WalkResult::Interrupt;
            }
        }
        WalkResult::Advance
    });
    several
}

/// The descriptor the TMA can write the tiles of `store` (a
/// [`converted_register_tile`]) through, or why there is none: its view
/// must be of a kernel argument, its tiles must cut into boxes
/// ([`tma_store::boxes`]).
fn store_candidate(entry: melior::ir::BlockRef, store: OperationRef) -> Result<TmaDescriptor, String> {
    let tile = store.operand_at(0).ok_or_else(String::new)?;
    let (shape, element) = tile_type(tile.r#type()).ok_or_else(String::new)?;
    let bits = element_bits(element).ok_or_else(String::new)?;
    let boxes = (bits % 8 == 0).then(|| tma_store::boxes(&shape, (bits / 8) as i64)).flatten().ok_or_else(|| {
        "its tile is not rows of whole bytes, at most 256 of them, each a whole number of 32-, 64- or \
             128-byte box rows, with leading dims of 1"
            .to_string()
    })?;
    let view = store.operand_at(1).ok_or_else(String::new)?;
    let Some(partition) = defining_op(view).filter(|d| op_name(*d) == "tile.partition_view") else {
        return Err("its view is not made in the kernel".into());
    };
    let memref = partition.operand_at(0).ok_or_else(String::new)?;
    let Some(arg) = argument_of(memref, entry) else {
        return Err("it writes no kernel argument directly".into());
    };
    let mut box_shape = vec![1u32; shape.len() - 2];
    box_shape.extend([boxes.rows as u32, (boxes.swizzle / boxes.bytes) as u32]);
    // Optional: an output whose rows the TMA cannot describe (an odd
    // vocabulary's logits, say) keeps the variant for its operands.
    Ok(TmaDescriptor { arg, box_shape, swizzle: boxes.swizzle as u32, optional: true })
}

/// Why the mmas of `loop` cannot wait for TMA slots each iteration: one
/// of them is inside a nested region of its body.
fn nested_mma(r#loop: OperationRef) -> Option<String> {
    let mut nested = false;
    r#loop.walk(WalkOrder::PreOrder, |op| {
        if op_name(op) == "tile.mma" && op.parent_operation().is_none_or(|p| p.to_raw().ptr != r#loop.to_raw().ptr) {
            nested = true;
            return WalkResult::Interrupt;
        }
        WalkResult::Advance
    });
    nested.then(|| "a tile.mma of its loop is inside a nested region of the body".into())
}

/// Adds the TMA variant of `kernel` after it and its other variants if
/// one of its rings can have the TMA; `Some` also when none can.
fn add_variant<'c>(context: &'c Context, kernel: OperationRef<'c, '_>) -> Option<()> {
    let name = StringAttribute::try_from(kernel.attribute("sym_name").ok()?).ok()?.value().to_string();
    let found = rings(kernel);
    remark_rejected(kernel, &found);
    let chosen: Vec<&Candidate> = found.values().filter_map(|r| r.as_ref().ok()).flatten().collect();
    if chosen.is_empty() {
        return Some(());
    }
    // The loads' positions in walk order, to find them in the copy.
    let mut positions = Vec::new();
    let mut loads = 0usize;
    kernel.walk(WalkOrder::PreOrder, |op| {
        if op_name(op) == "tile.load" {
            if let Some(c) = chosen.iter().find(|c| c.load.ptr == op.to_raw().ptr) {
                positions.push((loads, c.descriptor.clone()));
            }
            loads += 1;
        }
        WalkResult::Advance
    });

    let store_positions = stores(kernel);

    let block = kernel.block()?;
    // SAFETY: mlirOperationClone returns a new op owned by the caller,
    // which the block takes over.
    let copy = unsafe { melior::ir::operation::Operation::from_raw(mlir_sys::mlirOperationClone(kernel.to_raw())) };
    let variant = block.insert_operation_after(kernel, copy);
    let originals = kernel.region_at(0)?.first_block()?.argument_count();

    // One descriptor per array, box and swizzle.
    let mut descriptors: Vec<TmaDescriptor> = Vec::new();
    let mut index_of = |descriptor: &TmaDescriptor| {
        let at = match descriptors.iter().position(|d| d == descriptor) {
            Some(at) => at,
            None => {
                descriptors.push(descriptor.clone());
                descriptors.len() - 1
            }
        };
        originals + at
    };
    let mut loads_in_copy = Vec::new();
    variant.walk(WalkOrder::PreOrder, |op| {
        if op_name(op) == "tile.load" {
            loads_in_copy.push(op.to_raw());
        }
        WalkResult::Advance
    });
    let i64_type = IntegerType::new(context, 64).into();
    // SAFETY (both closures): a load of the copy, which is alive and only
    // this pass changes.
    let load_in_copy = |position: usize| -> Option<melior::ir::operation::OperationRefMut> {
        Some(unsafe { melior::ir::operation::OperationRefMut::from_raw(*loads_in_copy.get(position)?) })
    };
    // Marked first, descriptors counted below: which loads are multicast
    // depends on the producer warp, which depends on the marks.
    for (position, _) in &positions {
        load_in_copy(*position)?.set_attribute(attrs::TMA_LOAD, IntegerAttribute::new(i64_type, 0).into());
    }
    let multicast = multicast_loads(variant, &positions, &loads_in_copy);
    for (i, (position, descriptor)) in positions.iter_mut().enumerate() {
        if let Some(&blocks) = multicast.get(&i) {
            let rows = descriptor.box_shape.len() - 2;
            descriptor.box_shape[rows] /= blocks as u32;
            load_in_copy(*position)?.set_attribute(attrs::TMA_MULTICAST, Attribute::unit(context));
        }
    }
    let marks: Vec<usize> = positions.iter().map(|(_, d)| index_of(d)).collect();
    let store_marks: Vec<usize> = store_positions.iter().map(|(_, d)| index_of(d)).collect();
    for ((position, _), mark) in positions.iter().zip(&marks) {
        load_in_copy(*position)?.set_attribute(attrs::TMA_LOAD, IntegerAttribute::new(i64_type, *mark as i64).into());
    }
    let mut stores_in_copy = Vec::new();
    variant.walk(WalkOrder::PreOrder, |op| {
        if op_name(op) == "tile.store" {
            stores_in_copy.push(op.to_raw());
        }
        WalkResult::Advance
    });
    for ((position, _), mark) in store_positions.iter().zip(&store_marks) {
        // SAFETY: a store of the copy, which is alive and only this pass
        // changes.
        let mut store = unsafe { melior::ir::operation::OperationRefMut::from_raw(*stores_in_copy.get(*position)?) };
        store.set_attribute(attrs::TMA_STORE, IntegerAttribute::new(i64_type, *mark as i64).into());
        // The tile goes to the staging in the layout it has: the
        // conversion's exchange is not needed.
        let convert = defining_op(store.operand_at(0)?)?;
        store.set_operand(0, convert.operand_at(0)?);
        // SAFETY: the store was the conversion's only user (checked on the
        // kernel, which the copy repeats) and reads its source now.
        unsafe { mlir_sys::mlirOperationDestroy(convert.to_raw()) };
    }
    take_spare_slots(context, variant)?;
    remark_unapplied_knobs(variant);
    let entry = variant.region_at(0)?.first_block()?;
    let pointer = melior::dialect::llvm::r#type::pointer(context, 0);
    for _ in &descriptors {
        // SAFETY: `entry` is the live entry block of the copy.
        unsafe { mlir_sys::mlirBlockAddArgument(entry.to_raw(), pointer.to_raw(), variant.location().to_raw()) };
    }
    // SAFETY: the copy, mutated only through this handle here.
    let mut variant_mut = unsafe { melior::ir::operation::OperationRefMut::from_raw(variant.to_raw()) };
    variant_mut.set_attribute("sym_name", StringAttribute::new(context, &format!("{name}{VARIANT_SUFFIX}")).into());
    variant_mut.set_attribute(attrs::VARIANT_OF, Attribute::parse(context, &format!("@{name}"))?);
    crate::abi::add_descriptor_arguments(context, variant, &descriptors, false)
}

/// The loads (by their index in `positions`) that the TMA multicasts, with
/// the cluster's blocks: in a sliced cluster's variant
/// (`tile-slice-clusters`) with a producer warp, the ring loads whose
/// coordinates do not depend on the block's rank in the cluster (every
/// block reads the same tile), whose rows cut into one whole swizzle
/// pattern (1024 bytes) or more a block, at the kernel's top level or in
/// a loop there, one whose bounds do not depend on the block where the
/// kernel is to be persistent (a ring that starts again, as such a loop's
/// would in each walk, would initialise its barriers while another block
/// may multicast into them); a ring multicast in all of its loads or
/// none.
fn multicast_loads(
    variant: OperationRef,
    positions: &[(usize, TmaDescriptor)],
    loads: &[mlir_sys::MlirOperation],
) -> std::collections::HashMap<usize, i64> {
    use crate::registers::{cluster, warps};
    let mut chosen = std::collections::HashMap::new();
    let blocks = cluster::blocks(variant);
    if !variant.has_attribute(attrs::SLICED) || blocks < 2 {
        return chosen;
    }
    let missed = |op: OperationRef, why: &str| {
        crate::remarks::missed(
            op.location(),
            UseTma::INFO.argument,
            "TmaMulticast",
            &format!(
                "every block of the cluster reads this ring's tiles, but each asks the TMA for them itself, not \
                 once for all (multicast): {why}"
            ),
        )
    };
    let top = |op: OperationRef| op.parent_operation().is_some_and(|p| op_name(p) == "func.func");
    let persistent = crate::rewrite::hint(variant, attrs::knob::PERSISTENT.key) == Some(1);
    let producer = warps::producer(variant, 1);
    let mut said = BTreeMap::new();
    let mut refused = std::collections::HashSet::new();
    let mut eligible = Vec::new();
    for (i, (position, descriptor)) in positions.iter().enumerate() {
        let Some(&load) = loads.get(*position) else { return chosen };
        // SAFETY: a load of the variant, alive for the pass run.
        let load = unsafe { OperationRef::from_raw(load) };
        let Some([id, ..]) = ring_of(load) else { continue };
        let [.., rows, _] = descriptor.box_shape[..] else { continue };
        let part = i64::from(rows) / blocks;
        let fits = i64::from(rows) % blocks == 0 && (part * i64::from(descriptor.swizzle)) % 1024 == 0;
        // A loop whose bounds depend on the block would start its rings
        // again in each walk of a persistent kernel (`tile-persist-blocks`
        // runs later), with their barriers initialised again.
        let steady = |r#loop: OperationRef| {
            (0..3).all(|i| r#loop.operand_at(i).is_some_and(|v| !depends_on(v, &BLOCK_QUERIES, 32)))
        };
        let placed = top(load)
            || load.parent_operation().is_some_and(|p| op_name(p) == "scf.for" && top(p) && (!persistent || steady(p)));
        let same = (1..load.operand_count())
            .all(|j| load.operand_at(j).is_some_and(|v| !depends_on(v, &["gpu.cluster_block_id"], 32)));
        if fits && placed && same {
            eligible.push((i, id));
        } else {
            refused.insert(id);
        }
        // Said once a ring read alike by every block, at its first load.
        if same {
            let why = if producer.is_none() {
                Some("the variant has no producer warp, whose empty barriers could count the other blocks' consumers")
            } else if !fits {
                Some("a block's part of its rows would not be whole 1024-byte swizzle patterns")
            } else if !placed {
                Some("its loop would start the ring again in each walk of the persistent kernel")
            } else {
                None
            };
            let entry = said.entry(id).or_insert((load, None));
            entry.1 = entry.1.or(why);
        }
    }
    for (load, why) in said.into_values() {
        if let Some(why) = why {
            missed(load, why);
        }
    }
    if producer.is_none() {
        return std::collections::HashMap::new();
    }
    for (i, id) in eligible {
        if !refused.contains(&id) {
            chosen.insert(i, blocks);
        }
    }
    chosen
}

/// The ops that tell blocks (and clusters) apart.
const BLOCK_QUERIES: [&str; 3] = ["gpu.cluster_block_id", "tile.block_id", "tile.num_blocks"];

/// Whether `value` may depend on one of the ops named `queries` (so
/// differ between the blocks of a sliced cluster, for
/// `gpu.cluster_block_id`), or on what is not followed: a loop's carried
/// values, an op with regions, a chain deeper than `depth`. A loop's
/// induction variable depends on what its bounds do.
fn depends_on(value: melior::ir::Value, queries: &[&str], depth: usize) -> bool {
    if depth == 0 {
        return true;
    }
    if let Some(op) = defining_op(value) {
        return queries.contains(&op_name(op).as_str())
            || op.region_count() > 0
            || op.operands().any(|v| depends_on(v, queries, depth - 1));
    }
    let Some(argument) = crate::rewrite::block_argument(value) else { return true };
    match argument.owner().parent_operation() {
        Some(op) if op_name(op) == "func.func" => false,
        Some(op) if op_name(op) == "scf.for" && argument.argument_number() == 0 => {
            (0..3).any(|i| op.operand_at(i).is_some_and(|v| depends_on(v, queries, depth - 1)))
        }
        _ => true,
    }
}

/// Gives the variant's rings whose mma stays in flight with the block
/// barrier after its `wgmma.wait_group 1` (`registers::tma::
/// in_flight_rings`, where the kernel gets no producer warp) the `D + 2`
/// slots that suffice there, where `tile-prefetch-loads` gave them `D + 3`
/// (its spare slot, which the cp.async kernel's barrier before the
/// wgmmas needs) and `D + 2` is a power of two
/// (`registers::groups::spareless_slots`: a ring of 3 slots, a division an
/// iteration, keeps its 4). A kernel whose producer warp this would
/// change is left as it is (`registers::warps::producer` counts such a
/// ring as one with its spare slot, so none is).
fn take_spare_slots<'c>(context: &'c Context, variant: OperationRef<'c, '_>) -> Option<()> {
    use crate::registers::{cluster, warps};
    if crate::rewrite::hint(variant, attrs::knob::WARP_SPECIALIZE.key) == Some(1) {
        return Some(());
    }
    let producer = |kernel: OperationRef| warps::producer(kernel, cluster::spanned(kernel)).is_some();
    if producer(variant) {
        return Some(());
    }
    let slots: BTreeMap<i64, (i64, i64)> = crate::registers::groups::in_flight_rings(variant)
        .into_iter()
        .filter(|&(_, distance, slots)| crate::registers::groups::spareless_slots(distance) == Some(slots - 1))
        .map(|(id, _, slots)| (id, (slots, slots - 1)))
        .collect();
    if slots.is_empty() {
        return Some(());
    }
    let mut loads = Vec::new();
    variant.walk(WalkOrder::PreOrder, |op| {
        if op_name(op) == "tile.load"
            && let Some([id, distance, index, _]) = ring_of(op)
            && let Some(&(old, new)) = slots.get(&id)
        {
            loads.push((op.to_raw(), [id, distance, index], old, new));
        }
        WalkResult::Advance
    });
    let set = |pick: fn(i64, i64) -> i64| {
        for &(load, [id, distance, index], old, new) in &loads {
            // SAFETY: a load of the variant, which is alive and only this
            // pass changes.
            let mut load = unsafe { melior::ir::operation::OperationRefMut::from_raw(load) };
            let ring = [id, distance, index, pick(old, new)];
            load.set_attribute(attrs::RING, DenseI64ArrayAttribute::new(context, &ring).into());
        }
    };
    set(|_, new| new);
    if producer(variant) {
        set(|old, _| old);
    }
    Some(())
}

/// A remark at the variant for each tuning knob it leaves as if unset:
/// split K and clusters of an mma kernel where `tile-split-k` or
/// `tile-slice-clusters` did not apply them (which say why), and turns at
/// the tensor cores, which apply to a loop of several mmas only.
/// (`persistent` is `tile-persist-blocks`', which says where it does not
/// apply it.)
fn remark_unapplied_knobs(variant: OperationRef) {
    use attrs::knob;
    let hint = |key| crate::rewrite::hint(variant, key);
    let mut mmas = std::collections::HashMap::<usize, usize>::new();
    variant.walk(WalkOrder::PreOrder, |op| {
        if op_name(op) == "tile.mma" {
            let parent = op.parent_operation().map_or(0, |p| p.to_raw().ptr as usize);
            *mmas.entry(parent).or_default() += 1;
        }
        WalkResult::Advance
    });
    let several = mmas.values().any(|&n| n > 1);
    let mut unapplied = Vec::new();
    for (knob, what) in [(knob::SPLIT_K, "one block a tile's K loop"), (knob::NUM_CTAS, "one block a cluster")] {
        let split = crate::registers::warps::cluster_sums(variant);
        let applied =
            variant.has_attribute(attrs::SLICED) && if knob.key == knob::SPLIT_K.key { split } else { !split };
        if let Some(v) = hint(knob.key).filter(|&v| v > 1 && !mmas.is_empty() && !applied) {
            unapplied.push(format!("{} = {v} ({what})", knob.key));
        }
    }
    if hint(knob::PINGPONG.key) == Some(1) && !several {
        unapplied.push("pingpong = 1 (for a loop of several mmas only)".to_string());
    }
    if unapplied.is_empty() {
        return;
    }
    crate::remarks::missed(
        variant.location(),
        UseTma::INFO.argument,
        "KnobNotApplied",
        &format!("the TMA variant of this kernel leaves {} as if unset", unapplied.join(", ")),
    );
}

/// A remark at the first load of each ring the TMA does not fill.
fn remark_rejected(kernel: OperationRef, found: &BTreeMap<i64, Result<Vec<Candidate>, String>>) {
    let mut said = std::collections::HashSet::new();
    kernel.walk(WalkOrder::PreOrder, |op| {
        if let Some([id, ..]) = ring_of(op)
            && let Some(Err(why)) = found.get(&id)
            && !why.is_empty()
            && said.insert(id)
        {
            let how = match op.result_at(0).is_some_and(|r| SharedTile::of_type(r.r#type()).is_some()) {
                true => "this ring of mma operand tiles is filled by cp.async copies",
                false => "these mma operand tiles are loaded into registers by the threads",
            };
            crate::remarks::missed(
                op.location(),
                UseTma::INFO.argument,
                "TmaLoad",
                &format!("{how}, not the TMA: {why}"),
            );
        }
        WalkResult::Advance
    });
}
