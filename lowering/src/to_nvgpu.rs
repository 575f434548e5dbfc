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
//! descriptors of `%A` and `%B`):
//! ```mlir
//! %bar = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<...>
//! nvgpu.mbarrier.init %bar[%c0], %c1, predicate = %thread0
//! gpu.barrier
//! %sa = memref.alloc() {alignment = 1024} : memref<128x64xf16, #gpu.address_space<workgroup>>
//! %sb = memref.alloc() {alignment = 1024} : memref<64x128xf16, #gpu.address_space<workgroup>>
//! %init = nvgpu.warpgroup.mma.init.accumulator -> <fragmented = vector<128x128xf32>>
//! %r = scf.for %k = %c0 to %nk step %c1 iter_args(%c = %init) -> (!nvgpu.warpgroup.accumulator<...>) {
//!   nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %c32768, predicate = %thread0
//!   nvgpu.tma.async.load %da[%k64, %bm128], %bar[%c0] to %sa, predicate = %thread0
//!   nvgpu.tma.async.load %db[%bn128, %k64], %bar[%c0] to %sb_left, predicate = %thread0
//!   nvgpu.tma.async.load %db[%bn128_64, %k64], %bar[%c0] to %sb_right, predicate = %thread0
//!   nvgpu.mbarrier.try_wait.parity %bar[%c0], %parity, %ticks
//!   %d = nvgpu.warpgroup.mma %ga, %gb, %c {transposeB, waitGroup = 0}
//!   gpu.barrier
//!   scf.yield %d
//! }
//! %buf = memref.alloc() : memref<128x128xf32>
//! nvgpu.warpgroup.mma.store %r, %buf
//! gpu.barrier
//! %acc = bufferization.to_tensor %buf restrict : memref<128x128xf32> to tensor<128x128xf32>
//! ```
//!
//! The variant runs one warpgroup (`tile.block_size = 128`); the rest of
//! the kernel (epilogue, other loads and stores) goes the general SIMT way
//! with 128 threads. Out-of-bounds operand elements come from the TMA's
//! zero fill, which is the views' padding. A non-zero initial accumulator
//! is added after the loop (`d = c + sum a*b`), and an f16 accumulator is
//! kept in f32 registers and rounded once at the end.
//!
//! What it maps, and what stays on the general path (never an error):
//! `f16` or `bf16` operands with `K = 64` (one 128-byte swizzled row per
//! operand row), `M` of 64 or 128, `N` a multiple of 64 up to 256 with at
//! most 16384 accumulator elements (128 registers a thread); operands that
//! are `tile.load`s, in the loop body, from views of kernel arguments with
//! zero padding; an accumulator that only the mma uses; and a loop that is
//! not itself inside a loop (its mbarrier phase restarts with it). `f32`
//! (tf32) and f8 operands, whose wgmma needs `K`-major `B`, stay on the
//! general path, as do hints (`tile.hints` is read by no pass yet).
//!
//! Caveats: one pipeline stage, so loads and mma do not overlap yet (issue
//! #5 adds stages by giving `%sa`/`%sb` a stage dim and the mbarrier group
//! more barriers). Only for `sm_90a`: `tile-to-ptx` runs this pass for that
//! chip alone.

use crate::{
    build::{At, tile_type},
    pass::{PassInfo, TilePass},
    rewrite::{IrValue, argument_of, defining_op, detach, op_name, single_use},
};
use melior::{
    Context, ContextRef,
    ir::{
        Attribute, BlockLike, OperationRef, RegionLike, Type, TypeLike, ValueLike,
        attribute::{ArrayAttribute, StringAttribute, TypeAttribute},
        operation::{OperationLike, OperationMutLike, WalkOrder, WalkResult},
        r#type::FunctionType,
    },
    pass::{ExternalPass, RunExternalPass},
};
use tile_runtime::TmaDescriptor;

/// Suffix of the variant's name.
pub const VARIANT_SUFFIX: &str = "__wgmma";
/// Threads of the variant: one warpgroup.
pub const WARPGROUP: i64 = 128;
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
            DialectHandle::gpu(),
            DialectHandle::memref(),
            crate::pass::bufferization_handle(),
            DialectHandle::arith(),
            DialectHandle::llvm(),
            DialectHandle::scf(),
        ]
    }
}

impl<'c> RunExternalPass<'c> for ConvertTileToNvgpu {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        let context = operation.context();
        // SAFETY: the context outlives the pass run.
        let context = unsafe { context.to_ref() };
        let Some(body) = operation.region(0).ok().and_then(|r| r.first_block()) else { return };
        let mut kernels = Vec::new();
        let mut next = body.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            if op_name(op) == "func.func" && op.has_attribute("tile.kernel") && !op.has_attribute("tile.variant_of") {
                kernels.push(op.to_raw());
            }
        }
        for raw in kernels {
            // SAFETY: a live top-level function collected above; the pass
            // only adds functions next to it.
            let kernel = unsafe { OperationRef::from_raw(raw) };
            if add_variant(context, kernel).is_none() {
                crate::rewrite::emit_error(kernel.location(), "convert-tile-to-nvgpu: could not build the wgmma variant");
                pass.signal_failure();
                return;
            }
        }
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
}

/// Clones `kernel` into its variant and maps the variant's main loops;
/// `Some` also when there is nothing to map (no variant then).
fn add_variant<'c>(context: &'c Context, kernel: OperationRef<'c, '_>) -> Option<()> {
    let name = StringAttribute::try_from(kernel.attribute("sym_name").ok()?).ok()?.value().to_string();
    let block = kernel.block()?;
    // SAFETY: mlirOperationClone returns a new op owned by the caller,
    // which the block takes over.
    let copy = unsafe { melior::ir::operation::Operation::from_raw(mlir_sys::mlirOperationClone(kernel.to_raw())) };
    let variant = block.insert_operation_after(kernel, copy);
    let matches = find(variant);
    if matches.is_empty() {
        // SAFETY: the clone was just inserted and nothing refers to it.
        unsafe { mlir_sys::mlirOperationDestroy(variant.to_raw()) };
        return Some(());
    }
    let mut variant_mut = unsafe {
        // SAFETY: the same live op, mutated only through this handle here.
        melior::ir::operation::OperationRefMut::from_raw(variant.to_raw())
    };
    variant_mut.set_attribute("sym_name", StringAttribute::new(context, &format!("{name}{VARIANT_SUFFIX}")).into());
    variant_mut.set_attribute("tile.block_size", Attribute::parse(context, &format!("{WARPGROUP} : i64"))?);
    variant_mut.set_attribute("tile.variant_of", Attribute::parse(context, &format!("@{name}"))?);

    let entry = variant.region(0).ok()?.first_block()?;
    let mut descriptors = Vec::new();
    for found in &matches {
        let mut pointers = Vec::new();
        for (operand, arg) in found.args.iter().enumerate() {
            let ptr = Type::parse(context, "!llvm.ptr")?;
            // SAFETY: `entry` is the live entry block of the variant.
            let value = unsafe { mlir_sys::mlirBlockAddArgument(entry.to_raw(), ptr.to_raw(), variant.location().to_raw()) };
            // SAFETY: a block argument just added, owned by `entry`.
            pointers.push(unsafe { IrValue::from_raw(value) });
            let box_shape = if operand == 0 { vec![found.m, found.k] } else { vec![found.k, SWIZZLE_COLUMNS] };
            descriptors.push(TmaDescriptor { arg: *arg, box_shape: box_shape.iter().map(|&d| d as u32).collect(), swizzle: 128 });
        }
        rewrite(context, found, [pointers[0], pointers[1]])?;
    }
    retype(context, variant, &descriptors)
}

/// The variant's function type and argument attributes after its
/// descriptor arguments were added.
fn retype(context: &Context, variant: OperationRef, descriptors: &[TmaDescriptor]) -> Option<()> {
    let old = FunctionType::try_from(TypeAttribute::try_from(variant.attribute("function_type").ok()?).ok()?.value()).ok()?;
    let originals = old.input_count();
    let mut inputs: Vec<String> = (0..originals).map(|i| old.input(i).ok().map(|t| t.to_string())).collect::<Option<_>>()?;
    inputs.extend(descriptors.iter().map(|_| "!llvm.ptr".to_string()));
    let old_attrs = variant.attribute("arg_attrs").ok().and_then(|a| ArrayAttribute::try_from(a).ok());
    let mut attrs: Vec<String> = (0..originals)
        .map(|i| old_attrs.and_then(|a| a.element(i).ok()).map_or("{}".to_string(), |a| a.to_string()))
        .collect();
    attrs.extend(descriptors.iter().map(|d| {
        let shape: Vec<String> = d.box_shape.iter().map(|s| s.to_string()).collect();
        format!(
            "{{tile.tma = {{arg = {} : i64, box = array<i64: {}>, swizzle = {} : i64}}}}",
            d.arg,
            shape.join(", "),
            d.swizzle
        )
    }));
    let mut variant = unsafe {
        // SAFETY: a live op, mutated only through this handle here.
        melior::ir::operation::OperationRefMut::from_raw(variant.to_raw())
    };
    variant.set_attribute(
        "function_type",
        TypeAttribute::new(Type::parse(context, &format!("({}) -> ()", inputs.join(", ")))?).into(),
    );
    variant.set_attribute("arg_attrs", Attribute::parse(context, &format!("[{}]", attrs.join(", ")))?);
    Some(())
}

/// The mma main loops of `kernel` this pass maps.
fn find(kernel: OperationRef) -> Vec<Match> {
    let mut found = Vec::new();
    kernel.walk(WalkOrder::PreOrder, |op| {
        if op_name(op) == "tile.mma"
            && let Some(m) = match_loop(kernel, op)
        {
            found.push(m);
        }
        WalkResult::Advance
    });
    found
}

fn is_loop(op: OperationRef) -> bool {
    matches!(op_name(op).as_str(), "scf.for" | "scf.while" | "scf.parallel" | "scf.forall")
}

fn match_loop(kernel: OperationRef, mma: OperationRef) -> Option<Match> {
    let body = mma.block()?;
    let for_op = mma.parent_operation()?;
    if op_name(for_op) != "scf.for" || for_op.region(0).ok()?.first_block()? != body {
        return None;
    }
    let mut ancestor = for_op.parent_operation();
    while let Some(op) = ancestor {
        if is_loop(op) {
            return None;
        }
        ancestor = op.parent_operation();
    }

    // The accumulator: an iter_arg that only this mma reads, whose result
    // only the yield takes back.
    let c = mma.operand(2).ok()?;
    let iter = argument_of(c, body)?.checked_sub(1)?;
    if single_use(c)?.0 != mma {
        return None;
    }
    let (user, position) = single_use(mma.result(0).ok()?.into())?;
    if op_name(user) != "scf.yield" || position != iter || user.block()? != body {
        return None;
    }

    // Types and shapes.
    let (a_shape, element) = tile_type(mma.operand(0).ok()?.r#type())?;
    let (b_shape, b_element) = tile_type(mma.operand(1).ok()?.r#type())?;
    let (c_shape, accumulator) = tile_type(mma.result(0).ok()?.r#type())?;
    let (element, accumulator) = (element.to_string(), accumulator.to_string());
    let (m, k, n) = (a_shape[0], a_shape[1], b_shape[1]);
    let supported = match (element.as_str(), accumulator.as_str()) {
        ("f16", "f32" | "f16") | ("bf16", "f32") => b_element.to_string() == element,
        _ => false,
    };
    if !supported
        || k != SWIZZLE_COLUMNS
        || !matches!(m, 64 | 128)
        || n % SWIZZLE_COLUMNS != 0
        || n > 256
        || m * n > 128 * WARPGROUP
        || c_shape != [m, n]
    {
        return None;
    }

    // The operands: tile.loads in the body from zero-padded views of
    // kernel arguments.
    let mut loads = [mma.to_raw(); 2];
    let mut args = [0usize; 2];
    for operand in 0..2 {
        let value = mma.operand(operand).ok()?;
        let load = defining_op(value)?;
        if op_name(load) != "tile.load" || load.block()? != body {
            return None;
        }
        let view = load.operand(0).ok()?;
        let view_type = view.r#type().to_string();
        if view_type.contains("padding") && !view_type.contains("padding = zero") {
            return None;
        }
        let Some(partition) = defining_op(view) else { return None };
        if op_name(partition) != "tile.partition_view" {
            return None;
        }
        let entry = kernel.region(0).ok()?.first_block()?;
        let arg = argument_of(partition.operand(0).ok()?, entry)?;
        if load.operand_count() != 3 {
            return None;
        }
        loads[operand] = load.to_raw();
        args[operand] = arg;
    }
    Some(Match { for_op: for_op.to_raw(), mma: mma.to_raw(), loads, args, iter, m, n, k, element, accumulator })
}

/// Rewrites one matched loop; `pointers` are the descriptor arguments of
/// its A and B operands.
fn rewrite<'c>(context: &'c Context, found: &Match, pointers: [IrValue<'c>; 2]) -> Option<()> {
    // SAFETY: the matched ops are alive: the variant is only changed by
    // this function, one match at a time, and matches are disjoint loops.
    let (for_op, mma) = unsafe { (OperationRef::from_raw(found.for_op), OperationRef::from_raw(found.mma)) };
    let (m, n, k, t) = (found.m, found.n, found.k, found.element.as_str());
    let workgroup = "#gpu.address_space<workgroup>";
    let barrier_type = format!("!nvgpu.mbarrier.group<memorySpace = {workgroup}>");
    let descriptor_type = |rows: i64, cols: i64| {
        format!(
            "!nvgpu.tensormap.descriptor<tensor = memref<{rows}x{cols}x{t}, 3>, swizzle = swizzle_128b, \
             l2promo = l2promo_256b, oob = zero, interleave = none>"
        )
    };
    let (a_map, b_map) = (descriptor_type(m, k), descriptor_type(k, SWIZZLE_COLUMNS));
    let a_smem = format!("memref<{m}x{k}x{t}, {workgroup}>");
    let b_smem = format!("memref<{k}x{n}x{t}, {workgroup}>");
    let accumulator = format!("!nvgpu.warpgroup.accumulator<fragmented = vector<{m}x{n}xf32>>");

    // Before the loop: barrier, buffers, descriptors, accumulator.
    let pre = At::before(context, for_op)?;
    let c0 = pre.index(0)?;
    let c1 = pre.index(1)?;
    let thread = pre.gpu_query("gpu.thread_id")?;
    let leader = pre.op("arith.cmpi", &[thread, c0], &["i1"], &[("predicate", "0 : i64")])?;
    let barrier = pre.op("nvgpu.mbarrier.create", &[], &[&barrier_type], &[])?;
    pre.void("nvgpu.mbarrier.init", &[barrier, c1, c0, leader], &[])?;
    pre.void("gpu.barrier", &[], &[])?;
    let alloc = [("alignment", "1024 : i64"), ("operandSegmentSizes", "array<i32: 0, 0>")];
    let a_buffer = pre.op("memref.alloc", &[], &[&a_smem], &alloc)?;
    let b_buffer = pre.op("memref.alloc", &[], &[&b_smem], &alloc)?;
    let mut b_boxes = Vec::new();
    for chunk in 0..n / SWIZZLE_COLUMNS {
        let offset = chunk * k * SWIZZLE_COLUMNS;
        let layout = if offset == 0 { String::new() } else { format!("strided<[{SWIZZLE_COLUMNS}, 1], offset: {offset}>, ") };
        b_boxes.push(pre.op(
            "memref.reinterpret_cast",
            &[b_buffer],
            &[&format!("memref<{k}x{SWIZZLE_COLUMNS}x{t}, {layout}{workgroup}>")],
            &[
                ("operandSegmentSizes", "array<i32: 1, 0, 0, 0>"),
                ("static_offsets", &format!("array<i64: {offset}>")),
                ("static_sizes", &format!("array<i64: {k}, {SWIZZLE_COLUMNS}>")),
                ("static_strides", &format!("array<i64: {SWIZZLE_COLUMNS}, 1>")),
            ],
        )?);
    }
    let a_desc = pre.op("builtin.unrealized_conversion_cast", &[pointers[0]], &[&a_map], &[])?;
    let b_desc = pre.op("builtin.unrealized_conversion_cast", &[pointers[1]], &[&b_map], &[])?;
    let init = pre.op("nvgpu.warpgroup.mma.init.accumulator", &[], &[&accumulator], &[])?;
    // Spin budget of one try_wait before it retries (it loops until the
    // phase completes).
    let ticks = pre.index(10_000_000)?;
    let bytes = pre.index((m * k + k * n) * 2)?;

    // In the body: TMA loads, the wait, the mma.
    let body = for_op.region(0).ok()?.first_block()?;
    let at = At::before(context, mma)?;
    // SAFETY: the loads are live ops of the body, before the mma.
    let (a_load, b_load) = unsafe { (OperationRef::from_raw(found.loads[0]), OperationRef::from_raw(found.loads[1])) };
    let scaled = |value: IrValue<'c>, by: i64| -> Option<IrValue<'c>> {
        let factor = at.index(by)?;
        at.index_op("arith.muli", &[value, factor])
    };
    let a_row = scaled(detach(a_load.operand(1).ok()?), m)?;
    let a_col = scaled(detach(a_load.operand(2).ok()?), k)?;
    let b_row = scaled(detach(b_load.operand(1).ok()?), k)?;
    let b_col = scaled(detach(b_load.operand(2).ok()?), n)?;
    let tma = [("operandSegmentSizes", "array<i32: 1, 1, 1, 2, 1, 0, 1>")];
    at.void("nvgpu.mbarrier.arrive.expect_tx", &[barrier, bytes, c0, leader], &[])?;
    // TMA coordinates go innermost first.
    at.void("nvgpu.tma.async.load", &[a_buffer, barrier, a_desc, a_col, a_row, c0, leader], &tma)?;
    for (chunk, b_box) in b_boxes.iter().enumerate() {
        let offset = at.index(chunk as i64 * SWIZZLE_COLUMNS)?;
        let col = at.index_op("arith.addi", &[b_col, offset])?;
        at.void("nvgpu.tma.async.load", &[*b_box, barrier, b_desc, col, b_row, c0, leader], &tma)?;
    }
    // Iteration i waits for phase i of the barrier: parity i mod 2.
    let iv = detach(body.argument(0).ok()?.into());
    let lower = detach(for_op.operand(0).ok()?);
    let step = detach(for_op.operand(2).ok()?);
    let done = at.index_op("arith.subi", &[iv, lower])?;
    let iteration = at.index_op("arith.divui", &[done, step])?;
    let two = at.index(2)?;
    let odd = at.index_op("arith.remui", &[iteration, two])?;
    let parity = at.op("arith.cmpi", &[odd, c0], &["i1"], &[("predicate", "1 : i64")])?;
    at.void("nvgpu.mbarrier.try_wait.parity", &[barrier, parity, ticks, c0], &[])?;
    let a_wgmma = at.op(
        "nvgpu.warpgroup.generate.descriptor",
        &[a_buffer, a_desc],
        &[&format!("!nvgpu.warpgroup.descriptor<tensor = {a_smem}>")],
        &[],
    )?;
    let b_wgmma = at.op(
        "nvgpu.warpgroup.generate.descriptor",
        &[b_buffer, b_desc],
        &[&format!("!nvgpu.warpgroup.descriptor<tensor = {b_smem}>")],
        &[],
    )?;
    let c = detach(mma.operand(2).ok()?);
    // waitGroup 0: the mma has finished reading shared memory when it
    // returns, so the barrier below frees the buffers for the next loads.
    let d = at.op(
        "nvgpu.warpgroup.mma",
        &[a_wgmma, b_wgmma, c],
        &[&accumulator],
        &[("transposeB", "unit"), ("waitGroup", "0 : i64")],
    )?;
    let after_mma = At::before(context, mma.next_in_block()?)?;
    after_mma.void("gpu.barrier", &[], &[])?;

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
    let staging = post.op("memref.alloc", &[], &[&format!("memref<{m}x{n}xf32>")], &[("operandSegmentSizes", "array<i32: 0, 0>")])?;
    let store = post.void("nvgpu.warpgroup.mma.store", &[result, staging], &[])?;
    post.void("gpu.barrier", &[], &[])?;
    let f32_tile = format!("tensor<{m}x{n}xf32>");
    let mut value = post.op("bufferization.to_tensor", &[staging], &[&f32_tile], &[("restrict", "unit")])?;
    if !zero_init {
        let init32 = if found.accumulator == "f16" { post.op("arith.extf", &[old_init], &[&f32_tile], &[])? } else { old_init };
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

/// Whether `value` is a splat constant zero.
fn is_zero(value: IrValue) -> bool {
    let Some(def) = defining_op(value) else { return false };
    op_name(def) == "arith.constant"
        && def.attribute("value").is_ok_and(|v| {
            let text = v.to_string();
            text.starts_with("dense<0.000000e+00>") || text.starts_with("dense<0>")
        })
}
