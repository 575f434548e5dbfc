//! `convert-tile-to-registers`: tiles with layouts into per-thread code.
//!
//! Summary: every tile value whose type carries a layout (from
//! `tile-assign-layouts`) becomes the thread's registers of it, a
//! `vector<N x T>` with one entry per register of the layout, and every op
//! on tiles becomes the code one thread runs on its registers:
//!
//! * [`compute`]: element-wise `arith`/`math` ops on the register vectors
//!   (no shared memory, no barrier), `tile.splat`, splat constants and
//!   `tile.iota` built in registers;
//! * [`reduce`]: `tile.reduce` within a thread, across lanes by
//!   `gpu.shuffle xor`, across warps through one small shared-memory
//!   exchange;
//! * [`convert`]: `tile.convert_layout`, `tile.broadcast`, `tile.reshape`
//!   and `tile.permute` as layout changes: a register permutation where
//!   each thread already holds what it needs, else one shared-memory round
//!   trip;
//! * [`shared`]: tiles in shared memory (`#tile.shared`, the mma operands
//!   `tile-assign-layouts` keeps there): `tile.load` by 16- or 8-byte
//!   `cp.async`s into a swizzled ring slot or buffer, whose address is the
//!   tile's value; [`tma`]: ring slots the TMA fills instead (loads marked
//!   `tile.tma_load`), an mbarrier a slot; [`mma`]: `tile.mma` on wgmma;
//!   [`warps`]: a producer warp that requests a TMA variant's tiles while
//!   the others multiply (the kernel split in two after its set-up);
//!   [`turns`]: two warpgroups taking turns at the tensor cores in a loop
//!   of several mmas (named barriers around each wgmma group);
//! * [`memory`]: `tile.load` and `tile.store` as 16-byte vector accesses
//!   when the whole tile is inside the array and aligned (one uniform
//!   check), else element by element with the view's padding and masking;
//!   `tile.num_tiles`; [`tma_store`]: a store the TMA writes out (marked
//!   `tile.tma_store`), staged in shared memory as its swizzled boxes;
//! * loop-carried tiles (`scf.for`, `scf.if`) change type in place and stay
//!   in registers.
//!
//! Before:
//! ```mlir
//! %x = tile.load %px[%r, %c0] : !tile.partition_view<1x1024xf32> -> tensor<1x1024xf32, #b>
//! %e = math.exp %x : tensor<1x1024xf32, #b>
//! ```
//! After (`#b` gives each of 64 threads 16 elements, as four vectors):
//! ```mlir
//! %v = scf.if %whole_and_aligned -> (vector<16xf32>) {
//!   %v0 = vector.load %X[%row, %col0] {alignment = 16 : i64} : memref<?x1024xf32>, vector<4xf32>
//!   ...
//! } else { ... element by element, padded ... }
//! %e = math.exp %v : vector<16xf32>
//! ```
//!
//! Shared memory (the exchanges of reductions and conversions) is one
//! `memref.alloc` each, which `convert-tile-to-gpu` places in the block's
//! shared memory, each in its own range: an exchange never overlaps
//! another, so a barrier is needed only between its writes and its reads,
//! and before its writes when it runs in a loop (the previous iteration's
//! reads of the same range). The kernel is marked `tile.registers`.
//!
//! Caveats: layouts must be simple (see [`crate::layout::linear`]), which
//! every layout `tile-assign-layouts` makes is; shared-memory exchanges are
//! not swizzled (bank conflicts on transposes).

pub mod cluster;
pub mod cluster_sum;
pub mod compute;
pub mod convert;
pub mod global;
pub mod groups;
pub mod ldmatrix;
pub mod memory;
pub mod mma;
pub mod partial;
pub mod reduce;
pub mod rings;
pub mod shared;
pub mod swizzle;
pub mod tma;
pub mod tma_store;
pub mod turns;
pub mod unaligned;
pub mod version;
pub mod warps;

use crate::{
    build::{At, GpuQuery, tile_type},
    layout::{LinearLayout, layout_of_type},
    pass::{PassInfo, TilePass},
    rewrite::{BlockProbe, IrValue, Probe, detach, emit_error, op_name},
};
pub use crate::{
    build::{if_else, if_else_op},
    rewrite::in_loop,
};
use melior::{
    Context, ContextRef,
    dialect::{arith, llvm, memref, ods},
    ir::{
        Attribute, BlockLike, Location, OperationRef, RegionLike, Type, TypeLike, Value, ValueLike,
        attribute::{DenseI64ArrayAttribute, IntegerAttribute},
        operation::{OperationLike, OperationMutLike, OperationRefMut, WalkOrder, WalkResult},
        r#type::{IntegerType, MemRefType},
    },
    pass::{ExternalPass, RunExternalPass},
};
use std::collections::{HashMap, HashSet};

/// The `convert-tile-to-registers` pass.
#[derive(Clone, Default)]
pub struct ConvertTileToRegisters;

impl TilePass for ConvertTileToRegisters {
    const INFO: PassInfo = PassInfo {
        argument: "convert-tile-to-registers",
        name: "ConvertTileToRegisters",
        summary: "Lower tiles with register layouts to per-thread vector code, shuffles and shared-memory exchanges",
        op_name: "func.func",
    };
    crate::pass_type_id!();

    fn dependent_dialects() -> Vec<melior::dialect::DialectHandle> {
        use melior::dialect::DialectHandle;
        vec![
            DialectHandle::gpu(),
            DialectHandle::scf(),
            DialectHandle::arith(),
            DialectHandle::memref(),
            DialectHandle::llvm(),
            crate::pass::vector_handle(),
            crate::pass::nvvm_handle(),
        ]
    }
}

impl<'c> RunExternalPass<'c> for ConvertTileToRegisters {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        if !operation.has_attribute(tile_dialect::attrs::KERNEL) || !has_layouts(operation) {
            return;
        }
        // SAFETY: the pass runs on this function, which outlives the run.
        let kernel = unsafe { OperationRef::from_raw(operation.to_raw()) };
        if let Some(op) = unlowerable_layout(kernel) {
            emit_error(
                op.location(),
                "convert-tile-to-registers: this tile's layout leaves elements to no thread, has a basis of \
                 several bits, or spans more warps than the kernel's blocks have (tile.block_size, tile.cluster); \
                 the register path lowers layouts that hold every element, each basis one bit, on the kernel's warps",
            );
            pass.signal_failure();
            return;
        }
        if let Err((location, why)) = lower(kernel) {
            let message = match why {
                Some(why) => format!("convert-tile-to-registers: cannot lower this op in registers: {why}"),
                None => "convert-tile-to-registers: cannot lower this op in registers".to_string(),
            };
            emit_error(location, &message);
            pass.signal_failure();
        }
    }
}

fn has_layouts(kernel: OperationRef) -> bool {
    let mut found = false;
    kernel.walk(WalkOrder::PreOrder, |op| {
        if op.results().any(|r| layout_of_type(r.r#type()).is_some()) {
            found = true;
            return WalkResult::Interrupt;
        }
        WalkResult::Advance
    });
    found
}

/// The first op with a tile result whose layout (written by hand, say)
/// the lowering cannot take: one that gives some element to no thread
/// (a load or store would skip it), a basis of several bits, or more warps
/// than the kernel's blocks have (`tile.block_size` threads, times the
/// blocks its layouts span, `cluster::spanned`).
fn unlowerable_layout<'c>(kernel: OperationRef<'c, 'c>) -> Option<OperationRef<'c, 'c>> {
    let warps = crate::to_gpu::block_size(kernel) * cluster::spanned(kernel) / 32;
    let mut found = None;
    kernel.walk(WalkOrder::PreOrder, |op| {
        let bad = op.results().any(|r| {
            tile_type(r.r#type()).is_some()
                && tile_dialect::layout::Layout::of_type(r.r#type()).is_some()
                && shared::SharedTile::of_type(r.r#type()).is_none()
                && !layout_of_type(r.r#type()).is_some_and(|(_, l)| l.surjective() && l.warps() <= warps)
        });
        if bad {
            // SAFETY: an op of the kernel, which outlives the pass run.
            found = Some(unsafe { OperationRef::from_raw(op.to_raw()) });
            return WalkResult::Interrupt;
        }
        WalkResult::Advance
    });
    found
}

type Key = usize;

pub(super) fn key(value: Value) -> Key {
    value.to_raw().ptr as usize
}

/// A `tile.partition_view`: the array, the tile shape and the padding.
#[derive(Clone)]
pub struct View<'c> {
    pub memref: IrValue<'c>,
    pub tile: Vec<i64>,
    pub padding: tile_dialect::types::Padding,
    pub element: Type<'c>,
}

/// The state of one kernel's lowering.
pub struct Lowering<'c> {
    pub context: &'c Context,
    /// Builds at the start of the kernel (what every op may use).
    pub entry: At<'c, 'c>,
    pub lane: IrValue<'c>,
    /// The warp within the tile block (across the cluster, if any).
    pub warp: IrValue<'c>,
    /// `warp / 4` as lane 0 has it ([`Lowering::warpgroup`]), once made.
    warpgroup: Option<IrValue<'c>>,
    /// Blocks of the cluster the tile block's layouts span (1: none, or a
    /// sliced cluster, `cluster::spanned`).
    pub cluster: i64,
    /// Warps of the tile block.
    pub warps: i64,
    values: HashMap<Key, IrValue<'c>>,
    layouts: HashMap<Key, LinearLayout>,
    /// The tiles in shared memory (their registers are their addresses).
    pub shared: HashMap<Key, shared::SharedTile<'c>>,
    /// The rings of shared tiles loaded ahead, by id.
    pub rings: HashMap<i64, shared::Ring<'c>>,
    /// Cp.async groups committed so far, in program order.
    pub commits: usize,
    /// What the loads and mmas of each loop (by op) need after it.
    pub loops: HashMap<usize, LoopState>,
    views: HashMap<Key, View<'c>>,
    thread_flat: HashMap<LinearLayout, IrValue<'c>>,
    /// The kernel gets a producer warp ([`warps`]).
    pub producer: Option<warps::Producer>,
    /// The blocks of the cluster the program block runs as (1: none).
    pub cluster_blocks: i64,
    /// This block's rank in the cluster its program block runs as (none:
    /// no cluster, `cluster_blocks` 1).
    pub cluster_rank: Option<IrValue<'c>>,
    /// The blocks of a sliced cluster that TMA rings are multicast to, and
    /// this block's rank among them (`tile.tma_multicast` loads).
    pub multicast: Option<tma::Multicast<'c>>,
    /// The TMA rings of `D + 2` slots whose mma stays in flight all the
    /// same, the block barrier after its `wgmma.wait_group 1`
    /// ([`groups::spareless`]; none with a producer warp).
    pub spareless: HashSet<i64>,
    /// The TMA rings that share their slots' barriers, and those made.
    pub groups: tma::Groups<'c>,
    /// The loop whose body loads each ring's tiles ahead, by ring id (the
    /// `scf.if` of its versions, where it was versioned: [`version`]).
    pub ring_loops: HashMap<i64, OperationRef<'c, 'c>>,
    /// The loops versioned on their arrays' alignment ([`version`]).
    pub versions: version::Versions<'c>,
    /// Each loop's shifted copies loaded and not yet stored, by the loop
    /// ([`shared::finish_copies`]).
    pub pending_copies: HashMap<usize, Vec<shared::PendingCopy<'c>>>,
    /// Why the op being lowered is refused, where a check said so
    /// ([`Self::refuse`]): the error at the op gives it.
    refusal: std::cell::RefCell<Option<&'static str>>,
}

/// What the lowering noted of one loop.
#[derive(Default)]
pub struct LoopState {
    /// Ring loads in its body (one cp.async group each an iteration).
    pub ring_loads: usize,
    /// A shared tile loaded in it outside a ring (the groups an iteration
    /// commits are then not counted).
    pub other_loads: bool,
    /// A `cp.async.wait_group 0` follows it.
    pub copies_waited: bool,
    /// A `wgmma.wait_group 0` follows it.
    pub mmas_waited: bool,
    /// Its rings the TMA fills, whose tiles past its end are waited for
    /// after it (once a group of rings sharing barriers).
    pub tma_rings: Vec<i64>,
    /// The shared tiles its mmas read that were copied before it are
    /// waited for (with a fence and a barrier) before it.
    pub synced_before: bool,
    /// An mma of its body has placed a block barrier before its wgmmas
    /// (every iteration meets there).
    pub ring_barrier: bool,
    /// TMA rings (id, slots) its mmas read so far that the loop's last
    /// mma gives back to the producer warp.
    pub unreleased: Vec<(i64, i64)>,
}

impl<'c> Lowering<'c> {
    /// The warpgroup of this thread's warp, shuffled from lane 0 at the
    /// kernel's start (`shfl.sync.idx`): the same in every lane of a warp,
    /// which ptxas can then tell, so that what derives from it (a branch
    /// on a warp's role, and a warpgroup's rows of A in a wgmma descriptor
    /// where `mma.rs` takes it) stays on the uniform datapath. From `tid / 128` it cannot, and puts
    /// those in vector registers (BENCHMARKS.md, session 33, runs 1 and 3:
    /// variants `_g`, `_bcg`), which a shuffle avoids.
    pub fn warpgroup(&mut self) -> Option<IrValue<'c>> {
        if let Some(warpgroup) = self.warpgroup {
            return Some(warpgroup);
        }
        let warpgroup = self.warpgroup_at(&self.entry)?;
        self.warpgroup = Some(warpgroup);
        Some(warpgroup)
    }

    /// The warpgroup of this thread's warp, shuffled from lane 0 at `at`
    /// ([`Self::warpgroup`] makes it once, at the kernel's start).
    pub fn warpgroup_at(&self, at: &At<'c, 'c>) -> Option<IrValue<'c>> {
        let group = at.divui(self.warp, at.index(mma::WARPGROUP_WARPS)?)?;
        let i32_type: Type = melior::ir::r#type::IntegerType::new(self.context, 32).into();
        let narrow = at.add(arith::index_cast(group, i32_type, at.location))?;
        let uniform = reduce::shuffle_i32(at, narrow, 0, "idx")?;
        at.add(arith::index_cast(uniform, Type::index(self.context), at.location))
    }

    /// Refuses the op being lowered, saying why (the error at the op
    /// ends with `why`).
    pub fn refuse<T>(&self, why: &'static str) -> Option<T> {
        *self.refusal.borrow_mut() = Some(why);
        None
    }

    /// The registers of tile `value` (an operand of an op being lowered);
    /// a shared tile's are its address.
    pub fn registers(&self, value: Value<'c, '_>) -> Option<IrValue<'c>> {
        if let Some(&mapped) = self.values.get(&key(value)) {
            return Some(mapped);
        }
        (is_vector(value.r#type()) || self.shared.contains_key(&key(value))).then(|| detach(value))
    }

    /// The tile in shared memory `value` is, if it is one.
    pub fn shared(&self, value: Value) -> Option<shared::SharedTile<'c>> {
        self.shared.get(&key(value)).cloned()
    }

    /// Notes a ring load in `loop`'s body; the first puts a wait for all
    /// copies after the loop (its last loads run past the end).
    pub fn note_ring_load(&mut self, r#loop: OperationRef<'c, 'c>) -> Option<()> {
        let state = self.loops.entry(r#loop.to_raw().ptr as usize).or_default();
        state.ring_loads += 1;
        if !state.copies_waited {
            state.copies_waited = true;
            let after = At::before(self.context, r#loop.next_in_block()?)?;
            after.insert(
                melior::ir::operation::OperationBuilder::new("nvvm.cp.async.wait.group", after.location)
                    .add_attributes(&[(
                        melior::ir::Identifier::new(self.context, "n"),
                        melior::ir::attribute::IntegerAttribute::new(
                            melior::ir::r#type::IntegerType::new(self.context, 32).into(),
                            0,
                        )
                        .into(),
                    )])
                    .build()
                    .ok()?,
            );
        }
        Some(())
    }

    /// Notes a load of ring `id`, which the TMA fills, in `loop`'s body;
    /// the first of its group puts the wait for its first tiles past the
    /// loop's end after the loop.
    pub fn note_tma_ring(
        &mut self,
        r#loop: OperationRef<'c, 'c>,
        id: i64,
        ring: (IrValue<'c>, i64),
        distance: i64,
    ) -> Option<()> {
        let state = self.loops.entry(r#loop.to_raw().ptr as usize).or_default();
        if !state.tma_rings.contains(&id) {
            let leader = self.groups.leader(id);
            let drained = state.tma_rings.iter().any(|&other| self.groups.leader(other) == leader);
            state.tma_rings.push(id);
            // A ring that continues across an enclosing loop asks for no
            // tile its loop does not read.
            if !drained && tma::continued(r#loop).is_none() {
                let after = At::before(self.context, r#loop.next_in_block()?)?;
                tma::drain(&after, r#loop, ring, distance)?;
            }
        }
        Some(())
    }

    /// The buffer of the first ring (by id, so that the code is the same
    /// each time) of `element`s that holds `elements`, for a tile staged
    /// by `op`, outside every loop, after the ring's loop: every copy into
    /// the ring was waited for after that loop ([`Self::note_ring_load`],
    /// [`Self::note_tma_ring`]) and each warpgroup waited for its wgmmas
    /// before reading its accumulator, so the memory is free once every
    /// warp is past a barrier (the caller's, ahead of its writes). Not a
    /// ring whose loop is still to come (its first tiles, loaded before
    /// the loop, may be in flight), nor in a cluster, whose exchanges
    /// write the other blocks' memory.
    pub fn done_ring(&self, op: OperationRef<'c, 'c>, elements: i64, element: Type<'c>) -> Option<IrValue<'c>> {
        use melior::ir::r#type::ShapedTypeLike;
        let element_of = |buffer: IrValue<'c>| MemRefType::try_from(buffer.r#type()).ok().map(|m| m.element());
        self.done_rings(op)
            .into_iter()
            .find(|r| {
                let (_, slots, per_slot) = r.shape;
                slots * per_slot >= elements && element_of(r.buffer) == Some(element)
            })
            .map(|r| r.buffer)
    }

    /// The rings free at `op`, as for [`Self::done_ring`], by id.
    pub fn done_rings(&self, op: OperationRef<'c, 'c>) -> Vec<shared::Ring<'c>> {
        if self.cluster > 1 || in_loop(op) {
            return Vec::new();
        }
        let mut ids: Vec<i64> = self.rings.keys().copied().collect();
        ids.sort_unstable();
        ids.iter()
            .filter(|id| self.ring_loops.get(id).is_some_and(|r#loop| crate::rewrite::precedes(*r#loop, op)))
            .filter_map(|id| self.rings.get(id).copied())
            .collect()
    }

    /// Notes a shared tile loaded outside a ring inside loops.
    pub fn note_other_load(&mut self, op: OperationRef<'c, 'c>) {
        let mut parent = op.parent_operation();
        while let Some(p) = parent {
            if op_name(p) == "scf.for" {
                self.loops.entry(p.to_raw().ptr as usize).or_default().other_loads = true;
            }
            parent = p.parent_operation();
        }
    }

    /// The layout of tile `value`, as its type had it.
    pub fn layout(&self, value: Value) -> Option<LinearLayout> {
        if let Some(layout) = self.layouts.get(&key(value)) {
            return Some(layout.clone());
        }
        layout_of_type(value.r#type()).map(|(_, l)| l)
    }

    /// The view a `tile.partition_view` result stands for.
    pub fn view(&self, value: Value) -> Option<View<'c>> {
        self.views.get(&key(value)).cloned()
    }

    fn map(&mut self, old: Value, new: IrValue<'c>) {
        self.values.insert(key(old), new);
    }

    /// The flat tile index of this thread's register 0 in `layout`: the XOR
    /// (for a simple layout, the sum) of its lanes' and warps' bases.
    pub fn thread_flat(&mut self, layout: &LinearLayout) -> Option<IrValue<'c>> {
        if let Some(&value) = self.thread_flat.get(layout) {
            return Some(value);
        }
        let at = &self.entry;
        let mut flat = at.index(0)?;
        for (bases, id) in [(&layout.lane, self.lane), (&layout.warp, self.warp)] {
            for (bit, &basis) in bases.iter().enumerate() {
                if basis == 0 {
                    continue;
                }
                let shifted = at.add(arith::shrui(id, at.index(bit as i64)?, at.location))?;
                let one = at.andi(shifted, at.index(1)?)?;
                let part = at.muli(one, at.index(basis as i64)?)?;
                flat = at.addi(flat, part)?;
            }
        }
        self.thread_flat.insert(layout.clone(), flat);
        Some(flat)
    }

    /// [`Self::thread_flat`] of a layout, once made.
    pub fn thread_flat_made(&self, layout: &LinearLayout) -> Option<IrValue<'c>> {
        self.thread_flat.get(layout).copied()
    }

    /// The tile index (one value a dim) of register `r` of this thread;
    /// [`Self::thread_flat`] of the layout must have been made.
    pub fn element_index(&self, at: &At<'c, 'c>, layout: &LinearLayout, r: usize) -> Option<Vec<IrValue<'c>>> {
        let thread = *self.thread_flat.get(layout)?;
        let flat = at.addi(thread, at.index(layout.register_index(r) as i64)?)?;
        split_flat(at, &layout.shape, flat)
    }

    /// A shared-memory buffer of `elements` elements, allocated at the
    /// kernel's start (`convert-tile-to-gpu` gives it its own range).
    pub fn scratch(&self, elements: i64, element: Type<'c>) -> Option<IrValue<'c>> {
        let r#type = MemRefType::new(element, &[elements], None, None);
        self.entry.add(memref::alloc(self.context, r#type, &[], &[], None, self.entry.location))
    }

    /// `gpu.barrier` before `at` (a cluster barrier in a cluster).
    pub fn barrier(&self, at: &At<'c, 'c>) -> Option<()> {
        if self.cluster > 1 {
            return cluster::barrier(at);
        }
        at.insert(melior::dialect::ods::gpu::barrier(self.context, at.location));
        Some(())
    }

    /// A write of an exchange between warps: `value` at `index` of the
    /// scratch buffer, in every block of the cluster if there is one.
    pub fn exchange_store(
        &self,
        at: &At<'c, 'c>,
        value: IrValue<'c>,
        buffer: IrValue<'c>,
        index: IrValue<'c>,
    ) -> Option<()> {
        if self.cluster > 1 {
            return cluster::store_everywhere(at, value, buffer, index, self.cluster);
        }
        at.insert(memref::store(value, buffer, &[index], at.location));
        Some(())
    }
}

/// The dims of a flat index into a tile of `shape` (powers of two).
pub fn split_flat<'c>(at: &At<'c, 'c>, shape: &[i64], flat: IrValue<'c>) -> Option<Vec<IrValue<'c>>> {
    let mut stride = 1i64;
    let mut dims = vec![flat; shape.len()];
    for d in (0..shape.len()).rev() {
        let shifted = if stride == 1 {
            flat
        } else {
            at.add(arith::shrui(flat, at.index(stride.trailing_zeros() as i64)?, at.location))?
        };
        dims[d] = if d == 0 { shifted } else { at.andi(shifted, at.index(shape[d] - 1)?)? };
        stride *= shape[d];
    }
    Some(dims)
}

/// `vector<n x element>`.
pub fn vector_type<'c>(n: usize, element: Type<'c>) -> Type<'c> {
    Type::vector(&[n as u64], element)
}

/// Whether a type is a vector.
pub fn is_vector(r#type: Type) -> bool {
    // SAFETY: an isa query on a live type.
    unsafe { mlir_sys::mlirTypeIsAVector(r#type.to_raw()) }
}

/// Registers of a 1-D register vector.
pub fn length(value: Value) -> Option<usize> {
    if !is_vector(value.r#type()) {
        return None;
    }
    // SAFETY: a vector type (checked above), which is shaped, of rank 1 on this path.
    Some(unsafe { mlir_sys::mlirShapedTypeGetDimSize(value.r#type().to_raw(), 0) } as usize)
}

/// The register vector type of a tile type with a layout (a shared
/// tile's address for a `#tile.shared` one).
pub fn registers_type<'c>(tile: Type<'c>) -> Option<Type<'c>> {
    if shared::SharedTile::of_type(tile).is_some() {
        // SAFETY: the index type of the live type's own context.
        return Some(unsafe {
            Type::from_raw(mlir_sys::mlirIndexTypeGet(mlir_sys::mlirTypeGetContext(tile.to_raw())))
        });
    }
    let (_, linear) = layout_of_type(tile)?;
    let (_, element) = tile_type(tile)?;
    Some(vector_type(linear.registers(), element))
}

/// An `scf.if` without results.
pub fn when<'c>(at: &At<'c, 'c>, condition: IrValue<'c>, then: impl FnOnce(&At<'c, 'c>) -> Option<()>) -> Option<()> {
    if_else(
        at,
        condition,
        &[],
        |inner| {
            then(inner)?;
            Some(vec![])
        },
        |_| Some(vec![]),
    )?;
    Some(())
}

/// `arith.andi` of all `conditions` (true if none).
pub fn all<'c>(at: &At<'c, 'c>, conditions: &[IrValue<'c>]) -> Option<IrValue<'c>> {
    let mut result = match conditions.first() {
        Some(&first) => first,
        None => at.int(Type::parse(at.context, "i1")?, 1)?,
    };
    for &condition in &conditions[1..] {
        result = at.andi(result, condition)?;
    }
    Some(result)
}

/// The shared-memory address of a buffer (bytes, `index`).
pub fn shared_address<'c>(at: &At<'c, 'c>, buffer: IrValue<'c>) -> Option<IrValue<'c>> {
    let context = at.context;
    let generic =
        at.add(ods::memref::extract_aligned_pointer_as_index(context, Type::index(context), buffer, at.location))?;
    let i64_type: Type = IntegerType::new(context, 64).into();
    let generic = at.add(arith::index_cast(generic, i64_type, at.location))?;
    let pointer = at.add(ods::llvm::inttoptr(context, llvm::r#type::pointer(context, 0), generic, at.location))?;
    let shared = at.add(ods::llvm::addrspacecast(context, llvm::r#type::pointer(context, 3), pointer, at.location))?;
    let address = at.add(ods::llvm::ptrtoint(context, i64_type, shared, at.location))?;
    at.add(arith::index_cast(address, Type::index(context), at.location))
}

/// Element `i` of a register vector.
pub fn extract<'c>(at: &At<'c, 'c>, vector: IrValue<'c>, i: usize) -> Option<IrValue<'c>> {
    let element = crate::build::element_of(vector.r#type())?;
    let _ = element;
    at.add(melior::dialect::ods::vector::extract(
        at.context,
        vector,
        &[],
        DenseI64ArrayAttribute::new(at.context, &[i as i64]).into(),
        at.location,
    ))
}

/// A register vector of scalars.
pub fn from_elements<'c>(at: &At<'c, 'c>, elements: &[IrValue<'c>]) -> Option<IrValue<'c>> {
    let element = elements.first()?.r#type();
    at.add(melior::dialect::ods::vector::from_elements(
        at.context,
        vector_type(elements.len(), element),
        elements,
        at.location,
    ))
}

/// `vector.shuffle` of `a` and `b` (indices into their concatenation).
pub fn shuffle<'c>(at: &At<'c, 'c>, a: IrValue<'c>, b: IrValue<'c>, mask: &[usize]) -> Option<IrValue<'c>> {
    let element = crate::build::element_of(a.r#type())?;
    let mask: Vec<i64> = mask.iter().map(|&i| i as i64).collect();
    let _ = element;
    at.add(melior::dialect::ods::vector::shuffle(
        at.context,
        a,
        b,
        DenseI64ArrayAttribute::new(at.context, &mask).into(),
        at.location,
    ))
}

/// `count` registers of `vector` from `first`.
pub fn slice<'c>(at: &At<'c, 'c>, vector: IrValue<'c>, first: usize, count: usize) -> Option<IrValue<'c>> {
    let n = length(vector)?;
    if first == 0 && count == n {
        return Some(vector);
    }
    shuffle(at, vector, vector, &(first..first + count).collect::<Vec<_>>())
}

/// The concatenation of register vectors of one element type.
pub fn concat<'c>(at: &At<'c, 'c>, mut parts: Vec<IrValue<'c>>) -> Option<IrValue<'c>> {
    while parts.len() > 1 {
        let mut next = Vec::new();
        for pair in parts.chunks(2) {
            match pair {
                [a, b] => {
                    let total = length(*a)? + length(*b)?;
                    next.push(shuffle(at, *a, *b, &(0..total).collect::<Vec<_>>())?);
                }
                [a] => next.push(*a),
                _ => return None,
            }
        }
        parts = next;
    }
    parts.pop()
}

/// The kernel lowered, or the op that could not be and why, where known.
fn lower<'c>(kernel: OperationRef<'c, 'c>) -> Result<(), (Location<'c>, Option<&'static str>)> {
    lower_kernel(kernel).ok_or_else(|| (kernel.location(), None))?.map_err(|(op, why)| (op.location(), why))
}

type Refused<'c> = (OperationRef<'c, 'c>, Option<&'static str>);

fn lower_kernel<'c>(kernel: OperationRef<'c, 'c>) -> Option<Result<(), Refused<'c>>> {
    let context = kernel.context();
    // SAFETY: the context outlives the pass run.
    let context: &'c Context = unsafe { context.to_ref() };
    let body = kernel.region_at(0)?.first_block()?;
    let first = body.first_operation()?;
    // SAFETY: the kernel's first op lives as long as the kernel.
    let first = unsafe { OperationRef::from_raw(first.to_raw()) };
    // The set-up goes before the marker, the kernel's own code after it
    // (where a producer warp's kernel splits).
    let marker = At::before(context, first)?.insert(arith::constant(
        context,
        IntegerAttribute::new(Type::index(context), 0).into(),
        kernel.location(),
    ));
    let entry = At::before(context, marker)?;
    let thread = entry.gpu(GpuQuery::ThreadId)?;
    tma::prefetch_descriptors(&entry, kernel, thread)?;
    let warp_size = entry.index(32)?;
    let lane = entry.remui(thread, warp_size)?;
    let mut warp = entry.divui(thread, warp_size)?;
    let blocks = cluster::spanned(kernel);
    let mut multicast = None;
    let producer = warps::producer(kernel, blocks);
    let mut cluster_rank = None;
    if cluster::blocks(kernel) > 1 {
        let rank = cluster::program_grid(&entry, kernel, cluster::blocks(kernel))?;
        cluster_rank = Some(rank);
        // Only with a producer warp, whose `empty` barriers count the other
        // blocks' consumers, and rings that never start again.
        if tma::multicasts(kernel) && producer.is_some() && tma::multicast_rings_steady(kernel) {
            multicast = Some(tma::Multicast { rank, blocks: cluster::blocks(kernel), lane });
        }
        if blocks > 1 {
            let block_warps = crate::to_gpu::block_size(kernel) / 32;
            warp = entry.addi(warp, entry.muli(rank, entry.index(block_warps)?)?)?;
            cluster::barrier(&entry)?;
        }
    }
    let warps = crate::to_gpu::block_size(kernel) * blocks / 32;
    let versions = version::loops(context, kernel)?;
    let mut lowering = Lowering {
        context,
        entry,
        lane,
        warp,
        warpgroup: None,
        cluster: blocks,
        warps,
        values: HashMap::new(),
        layouts: HashMap::new(),
        shared: HashMap::new(),
        rings: HashMap::new(),
        commits: 0,
        loops: HashMap::new(),
        views: HashMap::new(),
        thread_flat: HashMap::new(),
        producer,
        cluster_blocks: cluster::blocks(kernel),
        cluster_rank,
        multicast,
        spareless: HashSet::new(),
        groups: tma::Groups::default(),
        ring_loops: HashMap::new(),
        versions,
        pending_copies: HashMap::new(),
        refusal: std::cell::RefCell::new(None),
    };
    lowering.groups = groups::of(kernel, lowering.producer.is_some());
    if lowering.producer.is_none() {
        lowering.spareless = groups::spareless(kernel);
    }
    let turns = turns::loops(kernel, blocks, lowering.producer.is_some());

    if lowering.producer.is_some() {
        warps::clear_markers(kernel)?;
    }
    let mut ops = Vec::new();
    kernel.walk(WalkOrder::PreOrder, |op| {
        // SAFETY: ops of the kernel, alive until erased at the end.
        ops.push(unsafe { OperationRef::from_raw(op.to_raw()) });
        WalkResult::Advance
    });
    ops.retain(|op| op.to_raw().ptr != kernel.to_raw().ptr);
    let mut erase = Vec::new();
    for op in ops {
        let name = op_name(op);
        let lowered = match name.as_str() {
            "tile.partition_view" => {
                let memref = detach(op.operand_at(0)?);
                let result = op.result_at(0)?;
                let view = tile_dialect::types::PartitionViewType::try_from_type(result.r#type())?;
                let view = View { memref, tile: view.shape(), padding: view.padding(), element: view.element_type() };
                lowering.views.insert(key(result.into()), view);
                Some(())
            }
            "tile.load" if shared::SharedTile::of_type(op.result_at(0)?.r#type()).is_some() => {
                shared::load(&mut lowering, op)
            }
            "tile.permute" | "tile.reshape" if lowering.shared(op.operand_at(0)?).is_some() => {
                shared::view(&mut lowering, op)
            }
            "tile.load" => memory::load(&mut lowering, op),
            "tile.store" if op.has_attribute(tile_dialect::attrs::TMA_STORE) => tma_store::store(&mut lowering, op),
            "tile.store" => memory::store(&mut lowering, op),
            "tile.num_tiles" => memory::num_tiles(&mut lowering, op),
            "tile.reduce" => reduce::reduce(&mut lowering, op),
            "tile.mma" => mma::lower(&mut lowering, op),
            "tile.cluster_sum" => cluster_sum::sum(&mut lowering, op),
            "tile.partial_store" => partial::store(&mut lowering, op),
            "tile.partial_sum" => partial::sum(&mut lowering, op),
            // A ring tile read into registers (`tile-prefetch-fragments`).
            "tile.convert_layout" if op.operand_at(0).and_then(|v| lowering.shared(v)).is_some() => {
                let tile = lowering.shared(op.operand_at(0)?)?;
                shared::from_ring(&mut lowering, op, tile)
            }
            "tile.convert_layout" | "tile.broadcast" | "tile.reshape" | "tile.permute" => {
                convert::lower(&mut lowering, op)
            }
            "tile.splat" | "tile.iota" => compute::create(&mut lowering, op),
            "arith.constant" if registers_type(op.result_at(0)?.r#type()).is_some() => {
                compute::create(&mut lowering, op)
            }
            "scf.for" | "scf.if" | "scf.yield" => {
                if control(&mut lowering, op).is_none() {
                    return Some(Err((op, lowering.refusal.take())));
                }
                continue;
            }
            // Only loads, permutes, reshapes and loops make shared tiles
            // (a hand-written #tile.shared anywhere else is refused here).
            _ if op.results().any(|r| shared::SharedTile::of_type(r.r#type()).is_some()) => lowering.refuse(
                "only tile.load, tile.permute, tile.reshape and loops make #tile.shared tiles (a shared tile's value \
                 is its buffer's address)",
            ),
            _ if crate::layout::assign::elementwise(&name)
                && op.results().any(|r| registers_type(r.r#type()).is_some()) =>
            {
                compute::elementwise(&mut lowering, op)
            }
            _ => continue,
        };
        if lowered.is_none() {
            return Some(Err((op, lowering.refusal.take())));
        }
        erase.push(op);
    }
    for op in erase.into_iter().rev() {
        // SAFETY: every use of the op's results was an op erased before it
        // (reverse program order) or was moved to its registers; nothing
        // refers to it any more.
        unsafe { mlir_sys::mlirOperationDestroy(op.to_raw()) };
    }
    turns::take(&lowering, kernel, &turns)?;
    match lowering.producer.clone() {
        Some(producer) => warps::specialize(&mut lowering, kernel, marker, &producer)?,
        // SAFETY: the marker is a constant nothing uses.
        None => unsafe { mlir_sys::mlirOperationDestroy(marker.to_raw()) },
    }
    if lowering.multicast.is_some() {
        // No block exits while another may still multicast into its slots
        // or arrive on its barriers; every thread, both roles, gets here.
        let body = kernel.region_at(0)?.first_block()?;
        cluster::barrier(&At::before(context, body.terminator()?)?)?;
    }
    // SAFETY: the kernel is the op the pass runs on; only an attribute changes.
    let mut kernel = unsafe { OperationRefMut::from_raw(kernel.to_raw()) };
    kernel.set_attribute(tile_dialect::attrs::REGISTERS, Attribute::unit(context));
    Some(Ok(()))
}

/// `scf.for`, `scf.if` and `scf.yield` keep their tiles in registers: the
/// carried values change type in place, the inits and yields take the
/// registers.
fn control<'c>(lowering: &mut Lowering<'c>, op: OperationRef<'c, 'c>) -> Option<()> {
    // SAFETY: a live op of the kernel; only its operands and value types change.
    let mut op_mut = unsafe { OperationRefMut::from_raw(op.to_raw()) };
    let retype =
        |lowering: &mut Lowering<'c>, value: Value<'c, '_>, tile: Option<shared::SharedTile<'c>>| -> Option<()> {
            if let Some(tile) = tile {
                lowering.shared.insert(key(value), tile);
                value.set_type(Type::index(lowering.context));
            } else if let Some(vector) = registers_type(value.r#type()) {
                let layout = layout_of_type(value.r#type())?.1;
                lowering.layouts.insert(key(value), layout);
                value.set_type(vector);
            }
            Some(())
        };
    match op_name(op).as_str() {
        "scf.for" => {
            let body = op.region_at(0)?.first_block()?;
            for i in 0..op.result_count() {
                let init = op.operand_at(3 + i)?;
                let tile = lowering.shared(init);
                if registers_type(init.r#type()).is_some() || tile.is_some() {
                    let registers = lowering.registers(init)?;
                    op_mut.set_operand(3 + i, registers);
                }
                let after = tile.clone().map(|t| shared::SharedTile { ring: None, ..t });
                retype(lowering, body.argument_at(i + 1)?.into(), tile)?;
                retype(lowering, op.result_at(i)?.into(), after)?;
            }
        }
        "scf.if" => {
            for i in 0..op.result_count() {
                let result = op.result_at(i)?;
                if shared::SharedTile::of_type(result.r#type()).is_some() {
                    return lowering.refuse(
                        "an scf.if cannot give #tile.shared tiles (which buffer each branch's tile is in is not \
                         known)",
                    );
                }
                retype(lowering, result.into(), None)?;
            }
        }
        _ => {
            // A loop's shifted copies not stored after an mma are stored
            // by the end of its body.
            if let Some(r#loop) = op.parent_operation().filter(|p| op_name(*p) == "scf.for") {
                shared::finish_copies(lowering, &At::before(lowering.context, op)?, r#loop)?;
            }
            for i in 0..op.operand_count() {
                let value = op.operand_at(i)?;
                if registers_type(value.r#type()).is_some() || lowering.shared.contains_key(&key(value)) {
                    let registers = lowering.registers(value)?;
                    op_mut.set_operand(i, registers);
                }
            }
        }
    }
    Some(())
}
