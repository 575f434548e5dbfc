//! `convert-tile-to-gpu`: bufferized tile kernels into a `gpu.module`.
//!
//! Summary: move each `tile.kernel` function into `gpu.module @tile_kernels`
//! as a `gpu.func ... kernel`, turn the grid queries into `gpu.block_id` and
//! `gpu.grid_dim`, and place every tile buffer (`memref.alloc`) in the
//! block's dynamic shared memory.
//!
//! Before:
//! ```mlir
//! func.func @k(%X: memref<?xf32>) attributes {tile.kernel} {
//!   %b = tile.block_id x : index
//!   %t = memref.alloc() : memref<1024xf32>
//!   ...
//!   return
//! }
//! ```
//! After:
//! ```mlir
//! module attributes {gpu.container_module} {
//!   gpu.module @tile_kernels {
//!     gpu.func @k(%X: memref<?xf32>) kernel
//!         attributes {known_block_size = array<i32: 256, 1, 1>, tile.shared_memory = 4096 : i64} {
//!       %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
//!       %b = gpu.block_id x
//!       %v = memref.view %smem[%c0][] : ... to memref<1024xf32, #gpu.address_space<workgroup>>
//!       %t = memref.memory_space_cast %v : ... to memref<1024xf32>
//!       ...
//!       gpu.return
//!     }
//!   }
//! }
//! ```
//!
//! Block size is the compiler's choice: [`BLOCK_SIZE`] threads, or the
//! `tile.block_size` an earlier pass chose for the kernel (the register
//! path's: its warpgroups, and a producer warp where it has one).
//! A register-path kernel whose tile block runs as a cluster
//! (`tile.cluster`) gets `nvvm.cluster_dim` along `x` (the runtime launches
//! that many times the program's grid); on any other kernel `tile.cluster`
//! is an error at the kernel. Each buffer
//! gets its own range of shared memory, aligned to 128 bytes or to the
//! alloc's larger `alignment` (swizzled TMA tiles need 1024), for the whole
//! kernel (no reuse between buffers yet), and the kernel records the total
//! in `tile.shared_memory`; the runtime launches with that much dynamic
//! shared memory. A kernel that needs more than [`MAX_SHARED_MEMORY`] is an
//! error here, not a failed launch, unless a variant of it fits: the
//! runtime then refuses to launch the kernel itself (a typed error) when
//! the variant cannot run.
//!
//! Caveats: run after bufferization and `tile-distribute`. Buffers are seen
//! through generic-address-space casts, which keeps their users' types; the
//! NVPTX backend infers shared-memory accesses where it can. Buffers that
//! are already in the workgroup address space (TMA and wgmma operands) are
//! views of the shared memory without a cast. Module-level
//! `memref.global` constants move into the GPU module. A kernel whose
//! tiles exceed a block's shared memory is an error, but a variant
//! (`tile.variant_of`) that does is dropped: the runtime then launches the
//! kernel it optimises (`gpu::compile_with` compiles a kernel whole whose
//! general kernel it deferred and whose variants are all dropped).

use crate::{
    build::At,
    pass::{PassInfo, TilePass},
    rewrite::{IrValue, Probe, detach, emit_error, op_name},
};
use melior::{
    Context, ContextRef,
    ir::{
        Attribute, Block, BlockLike, Identifier, OperationRef, Region, RegionLike, Type, ValueLike,
        attribute::{IntegerAttribute, StringAttribute, TypeAttribute},
        operation::{OperationBuilder, OperationLike, OperationMutLike, OperationRefMut, WalkOrder, WalkResult},
        r#type::{MemRefType, ShapedTypeLike},
    },
    pass::{ExternalPass, RunExternalPass},
};

/// Threads per block.
pub const BLOCK_SIZE: u32 = 256;

/// The threads of a kernel's block: its `tile.block_size`, which a pass
/// such as `tile-assign-layouts` may choose, else the default.
pub fn block_size(kernel: OperationRef) -> i64 {
    kernel
        .attribute(tile_dialect::attrs::BLOCK_SIZE)
        .ok()
        .and_then(|a| melior::ir::attribute::IntegerAttribute::try_from(a).ok())
        .map_or(i64::from(BLOCK_SIZE), |a| a.value())
}

/// Shared memory one Hopper block may have (227 KiB).
pub const MAX_SHARED_MEMORY: u64 = 227 * 1024;

/// Shared memory of one Hopper SM, of which each resident block loses
/// 1 KiB to the system.
pub(crate) const SM_SHARED_MEMORY: i64 = 228 * 1024;
/// The GPU module that holds every kernel.
pub const GPU_MODULE: &str = "tile_kernels";

/// The `convert-tile-to-gpu` pass.
#[derive(Clone, Default)]
pub struct ConvertTileToGpu;

impl TilePass for ConvertTileToGpu {
    const INFO: PassInfo = PassInfo {
        argument: "convert-tile-to-gpu",
        name: "ConvertTileToGpu",
        summary: "Move bufferized tile kernels into a gpu.module as gpu.func kernels with tile buffers in shared memory",
        op_name: "builtin.module",
    };
    crate::pass_type_id!();

    fn dependent_dialects() -> Vec<melior::dialect::DialectHandle> {
        use melior::dialect::DialectHandle;
        vec![DialectHandle::gpu(), DialectHandle::memref(), DialectHandle::arith()]
    }
}

impl<'c> RunExternalPass<'c> for ConvertTileToGpu {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        let context = operation.context();
        // SAFETY: the context outlives the pass run.
        let context = unsafe { context.to_ref() };
        if convert(context, operation).is_none() {
            pass.signal_failure();
        }
    }
}

fn convert<'c>(context: &'c Context, module: OperationRef<'c, '_>) -> Option<()> {
    let body = module.region_at(0)?.first_block()?;
    let mut kernels = Vec::new();
    let mut globals = Vec::new();
    let mut next = body.first_operation();
    while let Some(op) = next {
        match op_name(op).as_str() {
            "func.func" if op.has_attribute(tile_dialect::attrs::KERNEL) => kernels.push(op.to_raw()),
            "memref.global" => globals.push(op.to_raw()),
            _ => {}
        }
        next = op.next_in_block();
    }
    if kernels.is_empty() {
        return Some(());
    }
    let location = module.location();

    // gpu.module @tile_kernels, at the end of the module.
    let gpu_body = Block::new(&[]);
    let gpu_region = Region::new();
    let gpu_block = gpu_region.append_block(gpu_body);
    body.append_operation(
        OperationBuilder::new("gpu.module", location)
            .add_attributes(&[(Identifier::new(context, "sym_name"), StringAttribute::new(context, GPU_MODULE).into())])
            .add_regions([gpu_region])
            .build()
            .ok()?,
    );
    // SAFETY: the module op is live and exclusively ours during the pass.
    let mut module_mut = unsafe { OperationRefMut::from_raw(module.to_raw()) };
    module_mut.set_attribute("gpu.container_module", Attribute::unit(context));

    for raw in globals {
        // SAFETY: both blocks are alive; the op is detached from the module
        // body and appended to the GPU module's block.
        unsafe {
            mlir_sys::mlirOperationRemoveFromParent(raw);
            mlir_sys::mlirBlockAppendOwnedOperation(gpu_block.to_raw(), raw);
        }
    }
    // Kernels with a variant: such a kernel may exceed shared memory as
    // long as a variant fits (the runtime refuses to launch the kernel
    // itself then, with a typed error).
    let mut with_variants = std::collections::HashSet::new();
    for &raw in &kernels {
        // SAFETY: a live kernel function of the module.
        let kernel = unsafe { OperationRef::from_raw(raw) };
        if let Ok(of) = kernel.attribute(tile_dialect::attrs::VARIANT_OF) {
            with_variants.insert(of.to_string().trim_start_matches('@').to_string());
        }
    }
    let mut oversized = Vec::new();
    for raw in kernels {
        // SAFETY: a live kernel function of the module.
        let kernel = unsafe { OperationRef::from_raw(raw) };
        // Read before the conversion erases the function (locations live
        // in the context).
        let location = kernel.location();
        if let Some((name, bytes)) = kernel_to_gpu(context, kernel, gpu_block, &with_variants)? {
            oversized.push((name, bytes, location));
        }
    }
    for (name, bytes, location) in oversized {
        let mut fits = false;
        let mut next = gpu_block.first_operation();
        while let Some(op) = next {
            fits |= op.attribute(tile_dialect::attrs::VARIANT_OF).is_ok_and(|of| of.to_string() == format!("@{name}"));
            next = op.next_in_block();
        }
        if !fits {
            emit_error(location, &too_large(&name, bytes));
            return None;
        }
    }
    Some(())
}

fn too_large(name: &str, bytes: u64) -> String {
    format!("kernel @{name} needs {bytes} bytes of shared memory for its tiles; a Hopper block has {MAX_SHARED_MEMORY}")
}

fn kernel_to_gpu<'c>(
    context: &'c Context,
    kernel: OperationRef<'c, '_>,
    gpu_block: melior::ir::BlockRef<'c, '_>,
    with_variants: &std::collections::HashSet<String>,
) -> Option<Option<(String, u64)>> {
    let location = kernel.location();
    let block_size = block_size(kernel);
    let name = StringAttribute::try_from(kernel.attribute("sym_name").ok()?).ok()?.value().to_string();
    let function_type = TypeAttribute::try_from(kernel.attribute("function_type").ok()?).ok()?;
    let index = Type::index(context);

    // Grid queries and buffers, found before the body moves.
    let mut queries = Vec::new();
    let mut allocs = Vec::new();
    let mut returns = Vec::new();
    kernel.walk(WalkOrder::PreOrder, |op| {
        match op_name(op).as_str() {
            "tile.block_id" | "tile.num_blocks" | "memref.alloca" => queries.push(op.to_raw()),
            "memref.alloc" => allocs.push(op.to_raw()),
            "func.return" => returns.push(op.to_raw()),
            _ => {}
        }
        WalkResult::Advance
    });

    // Offsets of every buffer in shared memory.
    let mut offsets = Vec::new();
    let mut total: u64 = 0;
    let mut max_alignment: u64 = 128;
    for &raw in &allocs {
        // SAFETY: a live op collected above.
        let alloc = unsafe { OperationRef::from_raw(raw) };
        let memref = MemRefType::try_from(alloc.result_at(0)?.r#type()).ok()?;
        if alloc.operand_count() != 0 || !memref.has_static_shape() {
            emit_error(alloc.location(), "a tile buffer must have a static shape to live in shared memory");
            return None;
        }
        let elements: u64 =
            (0..memref.rank()).map(|d| memref.dim_size(d).ok().and_then(static_size)).product::<Option<u64>>()?;
        let element_bits = crate::build::element_bits(memref.element())?;
        let bytes = (elements * element_bits).div_ceil(8);
        let alignment = alloc
            .attribute("alignment")
            .ok()
            .and_then(|a| IntegerAttribute::try_from(a).ok())
            .map_or(128, |a| (a.value() as u64).max(128));
        max_alignment = max_alignment.max(alignment);
        total = total.next_multiple_of(alignment);
        offsets.push(total);
        total += bytes;
    }
    // Dynamic shared memory starts after the static (mbarriers, for one),
    // 16-byte aligned; buffers that need more alignment are placed from the
    // first suitably aligned byte, found at run time, with the worst-case
    // padding reserved.
    let realign = max_alignment > 128;
    if realign {
        total += max_alignment;
    }
    if total > MAX_SHARED_MEMORY && kernel.has_attribute(tile_dialect::attrs::VARIANT_OF) {
        // A variant is an optimisation of a kernel that is compiled anyway:
        // one that does not fit is dropped, never an error, but said.
        let of = kernel.attribute(tile_dialect::attrs::VARIANT_OF).map(|a| a.to_string()).unwrap_or_default();
        crate::remarks::missed(
            location,
            ConvertTileToGpu::INFO.argument,
            "VariantDropped",
            &format!(
                "variant @{name} of {of} is dropped: with the rest of the kernel it needs {total} bytes of shared \
                 memory, and a block has {MAX_SHARED_MEMORY}; the kernel runs on the general path"
            ),
        );
        // SAFETY: the variant is a top-level function nothing calls (the
        // runtime reaches it by name, and the bundle lists only the
        // gpu.funcs that exist).
        unsafe { mlir_sys::mlirOperationDestroy(kernel.to_raw()) };
        return Some(None);
    }
    let oversized = (total > MAX_SHARED_MEMORY).then(|| (name.clone(), total));
    if oversized.is_some() && !with_variants.contains(&name) {
        emit_error(location, &too_large(&name, total));
        return None;
    }

    // Descriptor arguments and the kernel a variant belongs to, which
    // the bundle's metadata is read from.
    let mut carried = Vec::new();
    for key in [
        "arg_attrs",
        tile_dialect::attrs::VARIANT_OF,
        tile_dialect::attrs::PERSISTENT,
        tile_dialect::attrs::STREAM_K,
        "nvvm.minctasm",
        tile_dialect::attrs::CLUSTER,
        tile_dialect::attrs::RETILED,
        tile_dialect::attrs::GRID_SLICE,
    ] {
        if let Ok(value) = kernel.attribute(key) {
            carried.push((Identifier::new(context, key), value));
        }
    }
    // A tile block that runs as a cluster (the register path's
    // `tile.cluster`): the blocks of the cluster along `x`.
    let cluster = crate::registers::cluster::blocks(kernel);
    if cluster > 1 && !kernel.has_attribute(tile_dialect::attrs::REGISTERS) {
        emit_error(
            location,
            "'tile.cluster' is for kernels on the register path (tile-assign-layouts or tile-slice-clusters \
             writes it); this kernel's tiles are not in registers",
        );
        return None;
    }
    if cluster > 1 {
        carried.push((
            Identifier::new(context, "nvvm.cluster_dim"),
            Attribute::parse(context, &format!("array<i32: {cluster}, 1, 1>"))?,
        ));
    }
    let region = Region::new();
    // SAFETY: both regions are alive; the kernel's body moves into the new
    // region, leaving the (soon erased) func with an empty one.
    unsafe { mlir_sys::mlirRegionTakeBody(region.to_raw(), kernel.region_at(0)?.to_raw()) };
    let entry = region.first_block()?;
    gpu_block.append_operation(
        OperationBuilder::new("gpu.func", location)
            .add_attributes(&[
                (Identifier::new(context, "sym_name"), StringAttribute::new(context, &name).into()),
                (Identifier::new(context, "function_type"), function_type.into()),
                (Identifier::new(context, "gpu.kernel"), Attribute::unit(context)),
                (
                    Identifier::new(context, "known_block_size"),
                    Attribute::parse(context, &format!("array<i32: {block_size}, 1, 1>"))?,
                ),
                (
                    Identifier::new(context, tile_dialect::attrs::SHARED_MEMORY),
                    Attribute::parse(context, &format!("{total} : i64"))?,
                ),
            ])
            .add_attributes(&carried)
            .add_regions([region])
            .build()
            .ok()?,
    );
    let first = entry.first_operation()?;
    let insert_first = |op: melior::ir::operation::Operation<'c>| -> Option<IrValue<'c>> {
        let op = entry.insert_operation_before(first, op);
        op.result_at(0).map(|r| detach(r.into()))
    };

    let shared = if allocs.is_empty() {
        None
    } else {
        Some(insert_first(
            OperationBuilder::new("gpu.dynamic_shared_memory", location)
                .add_results(&[Type::parse(context, "memref<?xi8, #gpu.address_space<workgroup>>")?])
                .build()
                .ok()?,
        )?)
    };

    for raw in queries {
        // SAFETY: a live op of the moved body; replaced, then destroyed.
        let query = unsafe { OperationRef::from_raw(raw) };
        let kind = op_name(query);
        if kind == "memref.alloca" {
            emit_error(query.location(), "stack buffers are not supported in GPU kernels");
            return None;
        }
        let axis = query.attribute("axis").ok()?.to_string();
        let dim = ["x", "y", "z"].into_iter().find(|a| axis.ends_with(&format!("{a}>")))?;
        let gpu_op = if kind == "tile.block_id" { "gpu.block_id" } else { "gpu.grid_dim" };
        let block = query.block()?;
        let new = block.insert_operation_before(
            query,
            OperationBuilder::new(gpu_op, query.location())
                .add_attributes(&[(
                    Identifier::new(context, "dimension"),
                    Attribute::parse(context, &format!("#gpu<dim {dim}>"))?,
                )])
                .add_results(&[index])
                .build()
                .ok()?,
        );
        replace_and_erase(raw, detach(new.result_at(0)?.into()));
    }

    let padding = match (&shared, realign) {
        (Some(shared), true) => {
            let at = At::before(context, entry.first_operation()?.next_in_block()?)?;
            let base = at.op("memref.extract_aligned_pointer_as_index", &[*shared], &["index"], &[])?;
            let alignment = at.index(max_alignment as i64)?;
            let misalignment = at.index_op("arith.remui", &[base, alignment])?;
            let gap = at.index_op("arith.subi", &[alignment, misalignment])?;
            Some(at.index_op("arith.remui", &[gap, alignment])?)
        }
        _ => None,
    };
    for (raw, offset) in allocs.into_iter().zip(offsets) {
        // SAFETY: a live op of the moved body; replaced, then destroyed.
        let alloc = unsafe { OperationRef::from_raw(raw) };
        let block = alloc.block()?;
        let result_type = alloc.result_at(0)?.r#type();
        let memref = MemRefType::try_from(result_type).ok()?;
        let dims: Vec<String> = (0..memref.rank())
            .map(|d| memref.dim_size(d).ok().and_then(static_size).map(|n| n.to_string()))
            .collect::<Option<_>>()?;
        let workgroup = memref.memory_space().is_some_and(|space| space.to_string() == "#gpu.address_space<workgroup>");
        let shared_type = Type::parse(
            context,
            &format!("memref<{}x{}, #gpu.address_space<workgroup>>", dims.join("x"), memref.element()),
        )?;
        let offset_value = insert_before(
            &block,
            alloc,
            OperationBuilder::new("arith.constant", location)
                .add_attributes(&[(
                    Identifier::new(context, "value"),
                    Attribute::parse(context, &format!("{offset} : index"))?,
                )])
                .add_results(&[index]),
        )?;
        let offset_value = match padding {
            Some(padding) => insert_before(
                &block,
                alloc,
                OperationBuilder::new("arith.addi", location)
                    .add_operands(&[padding, offset_value])
                    .add_results(&[index]),
            )?,
            None => offset_value,
        };
        let view = insert_before(
            &block,
            alloc,
            OperationBuilder::new("memref.view", location)
                .add_operands(&[shared?, offset_value])
                .add_results(&[shared_type]),
        )?;
        if workgroup {
            replace_and_erase(raw, view);
            continue;
        }
        let cast = insert_before(
            &block,
            alloc,
            OperationBuilder::new("memref.memory_space_cast", location)
                .add_operands(&[view])
                .add_results(&[result_type]),
        )?;
        replace_and_erase(raw, cast);
    }
    for raw in returns {
        // SAFETY: a live terminator of the moved body.
        let ret = unsafe { OperationRef::from_raw(raw) };
        let block = ret.block()?;
        block.insert_operation_before(ret, OperationBuilder::new("gpu.return", location).build().ok()?);
        // SAFETY: the return has no results and is replaced by gpu.return.
        unsafe { mlir_sys::mlirOperationDestroy(raw) };
    }
    // SAFETY: the function is empty (its body moved) and unused.
    unsafe { mlir_sys::mlirOperationDestroy(kernel.to_raw()) };
    Some(oversized)
}

fn insert_before<'c>(
    block: &melior::ir::BlockRef<'c, '_>,
    anchor: OperationRef<'c, '_>,
    builder: OperationBuilder<'c>,
) -> Option<IrValue<'c>> {
    let op = block.insert_operation_before(anchor, builder.build().ok()?);
    Some(detach(op.result_at(0)?.into()))
}

/// Replaces the single result of `raw` by `value` and erases the op.
fn replace_and_erase(raw: mlir_sys::MlirOperation, value: IrValue) {
    // SAFETY: `raw` is a live op with one result; after its uses move to
    // `value`, nothing refers to it.
    unsafe {
        mlir_sys::mlirValueReplaceAllUsesOfWith(mlir_sys::mlirOperationGetResult(raw, 0), value.to_raw());
        mlir_sys::mlirOperationDestroy(raw);
    }
}

fn static_size(size: melior::ir::r#type::DimSize) -> Option<u64> {
    match size {
        melior::ir::r#type::DimSize::Static(n) => Some(n),
        melior::ir::r#type::DimSize::Dynamic => None,
    }
}
