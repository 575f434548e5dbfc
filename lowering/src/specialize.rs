//! `tile-specialize`: instantiate a kernel for one tuning configuration.
//!
//! Summary: for each `tile.kernel` function with a `tile.config`
//! dictionary, resize the tiles of its `tile.mma`s to the configuration's
//! `tile_m`, `tile_n` and `tile_k`, and move its hints (`num_stages`,
//! `occupancy`, ...: the keys and their values are
//! [`tile_dialect::attrs::KNOBS`], `docs/kernel-attributes.md`) into
//! `tile.hints`; drop every kernel's `tile.tune` space, which later passes
//! have no use for. The autotuner (`tile_lowering::tune`) sets
//! `tile.config` to each point of the kernel's `tile.tune` space in turn;
//! a user may also write one by hand.
//!
//! Before:
//! ```mlir
//! func.func @mm(...) attributes {tile.kernel, tile.config = {tile_m = 64 : i64, tile_n = 256 : i64, num_stages = 3 : i64}} {
//!   %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
//!   %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x128xf16>
//!   %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
//!   %nn = tile.num_tiles %pc dim 1 : !tile.partition_view<128x128xf32>
//!   %zero = arith.constant dense<0.0> : tensor<128x128xf32>
//!   ... tile.mma %a, %b, %acc : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32> ...
//! ```
//! After:
//! ```mlir
//! func.func @mm(...) attributes {tile.kernel, tile.hints = {num_stages = 3 : i64}} {
//!   %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
//!   %pb = tile.partition_view %B : memref<?x?xf16> -> !tile.partition_view<64x256xf16>
//!   %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<64x256xf32>
//!   %nn = tile.num_tiles %pc dim 1 : !tile.partition_view<64x256xf32>
//!   %zero = arith.constant dense<0.0> : tensor<64x256xf32>
//!   ... tile.mma %a, %b, %acc : tensor<64x64xf16>, tensor<64x256xf16> into tensor<64x256xf32> ...
//! ```
//!
//! Which dims are resized follows the data, not the numbers: the mma's
//! `M`, `K` and `N` dims are tied to the dims of every value they flow
//! through (loads and stores tie a tile to its view, loops tie their
//! carried values, element-wise `arith`/`math` ops tie operands to
//! results, and broadcasts, reductions, permutes and reshapes tie the dims
//! they keep), so a `128` that is not the mma's stays. Grid arithmetic
//! that reads `tile.num_tiles` follows the new views by itself; a
//! constant the program computes from a tile size by hand does not.
//!
//! Caveats: a resized dim that reaches an op this pass cannot resize
//! (a non-splat constant, a `tile.reshape` that regroups it, any op outside
//! the language) is an error at that op, as is a configuration that ties
//! two of `M`, `N`, `K` to different sizes or names an unknown key.

use crate::{
    pass::{PassInfo, TilePass},
    rewrite::{BlockProbe, Probe, emit_error, op_name},
};
use melior::{
    ContextRef,
    ir::{
        Attribute, AttributeLike, BlockLike, Location, OperationRef, RegionLike, Type, TypeLike, Value, ValueLike,
        attribute::{DenseI64ArrayAttribute, DictionaryAttribute, IntegerAttribute},
        operation::{OperationLike, OperationMutLike, WalkOrder, WalkResult},
        r#type::{RankedTensorType, ShapedTypeLike},
    },
    pass::{ExternalPass, RunExternalPass},
};
use std::collections::HashMap;
use tile_dialect::{
    attrs::{self, HINTS, KERNEL, knob},
    types::PartitionViewType,
};

/// The attributes that name the configuration to instantiate and declare
/// a kernel's tuning space (re-exported for `tune`).
pub use tile_dialect::attrs::{CONFIG, TUNE};

/// The mma dim each tile size of [`attrs::TILE_KNOBS`] sizes.
pub const TILE_KEYS: [(&str, Dim); 3] =
    [(knob::TILE_M.key, Dim::M), (knob::TILE_N.key, Dim::N), (knob::TILE_K.key, Dim::K)];

/// A dim of `tile.mma`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dim {
    M,
    N,
    K,
}

/// The `tile-specialize` pass.
#[derive(Clone, Default)]
pub struct Specialize;

impl TilePass for Specialize {
    const INFO: PassInfo = PassInfo {
        argument: "tile-specialize",
        name: "TileSpecialize",
        summary: "Instantiate kernels for their tile.config: resize the mma tiles, set the hints",
        op_name: "builtin.module",
    };
    crate::pass_type_id!();
}

impl<'c> RunExternalPass<'c> for Specialize {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        let Some(body) = operation.region_at(0).and_then(|r| r.first_block()) else { return };
        let mut next = body.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            if op_name(op) == "func.func" && op.has_attribute(KERNEL) {
                if op.has_attribute(CONFIG)
                    && let Err((location, message)) = specialize(op)
                {
                    emit_error(location, &format!("tile-specialize: {message}"));
                    pass.signal_failure();
                    return;
                }
                // The space means nothing to later passes.
                // SAFETY: a live op of the module, changed only here.
                let _ = unsafe { melior::ir::operation::OperationRefMut::from_raw(op.to_raw()) }.remove_attribute(TUNE);
            }
        }
    }
}

pub(crate) type Failure<'c> = (Location<'c>, String);

/// A configuration read from `tile.config`: tile sizes by mma dim, hints.
struct Config {
    tiles: Vec<(Dim, i64)>,
    hints: Vec<(String, i64)>,
}

fn read_config<'c>(kernel: OperationRef<'c, '_>) -> Result<Config, Failure<'c>> {
    let at = kernel.location();
    let attribute = kernel.attribute(CONFIG).map_err(|_| (at, format!("no {CONFIG}")))?;
    let dict = DictionaryAttribute::try_from(attribute)
        .map_err(|_| (at, format!("{CONFIG} must be a dictionary of integers, not {attribute}")))?;
    let mut config = Config { tiles: Vec::new(), hints: Vec::new() };
    for i in 0..dict.len() {
        let named = dict.element(i).map_err(|_| (at, format!("unreadable {CONFIG}")))?;
        let key = named.0.as_string_ref().as_str().unwrap_or_default().to_string();
        let value = IntegerAttribute::try_from(named.1)
            .map_err(|_| (at, format!("{CONFIG}: '{key}' must be an integer")))?
            .value();
        // The verifier has checked the hints' values, but `tune::apply`
        // sets a configuration without verifying the module first.
        let knob = attrs::knob(&key).ok_or_else(|| {
            let known: Vec<&str> = attrs::KNOBS.iter().map(|k| k.key).collect();
            (at, format!("{CONFIG}: unknown key '{key}' (known: {})", known.join(", ")))
        })?;
        knob.check(value).map_err(|message| (at, format!("{CONFIG}: {message}")))?;
        match TILE_KEYS.iter().find(|(name, _)| *name == key) {
            Some(&(_, dim)) => config.tiles.push((dim, value)),
            None => config.hints.push((key, value)),
        }
    }
    Ok(config)
}

/// Union-find over the dims of the kernel's tiles and views: each value
/// of tile or view type has one slot per dim.
#[derive(Default)]
struct Dims<'c> {
    parent: Vec<usize>,
    /// Each slot's current extent.
    extent: Vec<i64>,
    /// The first slot of each value, by its raw pointer.
    first: HashMap<usize, usize>,
    /// The values in the order first seen, for the rewrite.
    values: Vec<Value<'c, 'c>>,
    /// Slots an op this pass cannot resize uses, with that op's location.
    frozen: Vec<(usize, Location<'c>, String)>,
}

/// The shape of a tile or view type.
fn shape_of(r#type: Type) -> Option<Vec<i64>> {
    if let Some(view) = PartitionViewType::try_from_type(r#type) {
        return Some(view.shape());
    }
    crate::build::tile_type(r#type).map(|(shape, _)| shape)
}

impl<'c> Dims<'c> {
    /// The slots of `value`, or `None` if it is neither a tile nor a view.
    fn slots(&mut self, value: Value<'c, '_>) -> Option<Vec<usize>> {
        let key = value.to_raw().ptr as usize;
        let shape = shape_of(value.r#type())?;
        let first = *self.first.entry(key).or_insert_with(|| {
            let first = self.parent.len();
            for (i, &extent) in shape.iter().enumerate() {
                self.parent.push(first + i);
                self.extent.push(extent);
            }
            // SAFETY: the value lives as long as the kernel, which
            // outlives the pass's use of it.
            self.values.push(unsafe { Value::from_raw(value.to_raw()) });
            first
        });
        Some((first..first + shape.len()).collect())
    }

    fn find(&mut self, mut slot: usize) -> usize {
        while self.parent[slot] != slot {
            self.parent[slot] = self.parent[self.parent[slot]];
            slot = self.parent[slot];
        }
        slot
    }

    fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            self.parent[a] = b;
        }
    }

    /// Ties dim `i` of `a` to dim `j` of `b`.
    fn tie(&mut self, a: Value<'c, '_>, i: usize, b: Value<'c, '_>, j: usize) {
        if let (Some(x), Some(y)) = (self.slots(a), self.slots(b))
            && let (Some(&x), Some(&y)) = (x.get(i), y.get(j))
        {
            self.union(x, y);
        }
    }

    /// Ties every dim of `a` to the same dim of `b`.
    fn tie_all(&mut self, a: Value<'c, '_>, b: Value<'c, '_>) {
        if let (Some(x), Some(y)) = (self.slots(a), self.slots(b))
            && x.len() == y.len()
        {
            for (x, y) in x.into_iter().zip(y) {
                self.union(x, y);
            }
        }
    }

    /// Marks every dim of `value` as one `op` cannot have resized.
    fn freeze(&mut self, value: Value<'c, '_>, op: OperationRef<'_, '_>) {
        if let Some(slots) = self.slots(value) {
            for slot in slots {
                // SAFETY: locations live as long as the context.
                let location = unsafe { Location::from_raw(op.location().to_raw()) };
                self.frozen.push((slot, location, op_name(op)));
            }
        }
    }
}

/// Every tile-typed operand and result of `op`.
fn tiles<'c, 'a>(op: OperationRef<'c, 'a>) -> Vec<Value<'c, 'a>> {
    let operands = (0..op.operand_count()).filter_map(|i| op.operand_at(i));
    let results = (0..op.result_count()).filter_map(|i| op.result_at(i).map(Into::into));
    operands.chain(results).filter(|v: &Value| shape_of(v.r#type()).is_some()).collect()
}

/// The operands of the terminator of region `index` of `op`.
fn yielded<'c, 'a>(op: OperationRef<'c, 'a>, index: usize) -> Vec<Value<'c, 'a>> {
    let Some(terminator) = op.region_at(index).and_then(|r| r.first_block()).and_then(|b| b.terminator()) else {
        return Vec::new();
    };
    (0..terminator.operand_count()).filter_map(|i| terminator.operand_at(i)).collect()
}

/// Instantiates `kernel` for its `tile.config` (which it removes).
pub(crate) fn specialize<'c>(kernel: OperationRef<'c, '_>) -> Result<(), Failure<'c>> {
    let config = read_config(kernel)?;
    let mut dims = Dims::default();
    // The slots of each mma's M, N and K.
    let mut roots: Vec<(Dim, usize)> = Vec::new();
    kernel.walk(WalkOrder::PreOrder, |op| {
        // SAFETY: the walk visits live ops of the kernel, which outlive
        // this function; nothing is erased while `dims` holds their values.
        let op: OperationRef<'c, 'c> = unsafe { OperationRef::from_raw(op.to_raw()) };
        let name = op_name(op);
        let operand = |i: usize| op.operand_at(i);
        let result = |i: usize| op.result_at(i).map(Value::from);
        match name.as_str() {
            "tile.mma" => {
                if let (Some(a), Some(b), Some(c), Some(d)) = (operand(0), operand(1), operand(2), result(0)) {
                    dims.tie(a, 0, c, 0);
                    dims.tie(a, 1, b, 0);
                    dims.tie(b, 1, c, 1);
                    dims.tie_all(c, d);
                    if let (Some(a), Some(b)) = (dims.slots(a), dims.slots(b)) {
                        roots.extend([(Dim::M, a[0]), (Dim::K, a[1]), (Dim::N, b[1])]);
                    }
                }
            }
            "tile.load" => {
                if let (Some(view), Some(tile)) = (operand(0), result(0)) {
                    dims.tie_all(view, tile);
                }
            }
            "tile.store" => {
                if let (Some(tile), Some(view)) = (operand(0), operand(1)) {
                    dims.tie_all(tile, view);
                }
            }
            "tile.broadcast" => {
                if let (Some(input), Some(output), Some(shape)) =
                    (operand(0), result(0), operand(0).and_then(|v| shape_of(v.r#type())))
                {
                    for (i, &extent) in shape.iter().enumerate() {
                        if extent != 1 {
                            dims.tie(input, i, output, i);
                        }
                    }
                }
            }
            "tile.reduce" => {
                let dim = op
                    .attribute("dim")
                    .ok()
                    .and_then(|a| IntegerAttribute::try_from(a).ok())
                    .map(|a| a.value() as usize);
                if let (Some(input), Some(output), Some(dim), Some(shape)) =
                    (operand(0), result(0), dim, operand(0).and_then(|v| shape_of(v.r#type())))
                {
                    for (j, i) in (0..shape.len()).filter(|&i| i != dim).enumerate() {
                        dims.tie(input, i, output, j);
                    }
                }
            }
            "tile.permute" => {
                let permutation =
                    op.attribute("permutation").ok().and_then(|a| DenseI64ArrayAttribute::try_from(a).ok());
                if let (Some(input), Some(output), Some(permutation)) = (operand(0), result(0), permutation) {
                    for i in 0..permutation.len() {
                        if let Ok(from) = permutation.element(i) {
                            dims.tie(input, from as usize, output, i);
                        }
                    }
                }
            }
            "tile.reshape" => {
                // Only a reshape that adds or drops unit dims keeps the
                // others in order; any other regrouping cannot follow a
                // resize.
                if let (Some(input), Some(output)) = (operand(0), result(0)) {
                    let kept = |v: Value| -> Vec<(usize, i64)> {
                        shape_of(v.r#type())
                            .unwrap_or_default()
                            .into_iter()
                            .enumerate()
                            .filter(|&(_, e)| e != 1)
                            .collect()
                    };
                    let (from, to) = (kept(input), kept(output));
                    if from.iter().map(|e| e.1).eq(to.iter().map(|e| e.1)) {
                        for (&(i, _), &(j, _)) in from.iter().zip(&to) {
                            dims.tie(input, i, output, j);
                        }
                    } else {
                        dims.freeze(input, op);
                        dims.freeze(output, op);
                    }
                }
            }
            "scf.for" => {
                let body = op.region_at(0).and_then(|r| r.first_block());
                let carried = yielded(op, 0);
                for i in 0..op.result_count() {
                    if let (Some(init), Some(out)) = (operand(3 + i), result(i)) {
                        dims.tie_all(init, out);
                        if let Some(argument) = body.and_then(|b| b.argument_at(1 + i)) {
                            dims.tie_all(init, argument.into());
                        }
                        if let Some(&value) = carried.get(i) {
                            dims.tie_all(init, value);
                        }
                    }
                }
            }
            "scf.if" => {
                for region in 0..op.region_count() {
                    for (i, value) in yielded(op, region).into_iter().enumerate() {
                        if let Some(out) = result(i) {
                            dims.tie_all(value, out);
                        }
                    }
                }
            }
            // Their operands are tied by the op that owns them.
            "scf.yield" | "func.return" => {}
            // Results of any shape; nothing to tie.
            "arith.constant"
            | "tile.splat"
            | "tile.iota"
            | "tile.partition_view"
            | "tile.num_tiles"
            | "tile.block_id"
            | "tile.num_blocks" => {}
            _ if name.starts_with("arith.") || name.starts_with("math.") => {
                // Element-wise: every tile operand and result has one shape.
                let all = tiles(op);
                for pair in all.windows(2) {
                    dims.tie_all(pair[0], pair[1]);
                }
            }
            _ => {
                for value in tiles(op) {
                    dims.freeze(value, op);
                }
            }
        }
        WalkResult::Advance
    });

    // The new extent of each resized class, keyed by its root slot.
    let mut resized: HashMap<usize, (i64, &'static str)> = HashMap::new();
    for &(dim, size) in &config.tiles {
        let key = TILE_KEYS.iter().find(|(_, d)| *d == dim).map_or("", |(k, _)| *k);
        for &(_, slot) in roots.iter().filter(|(d, _)| *d == dim) {
            let root = dims.find(slot);
            match resized.get(&root) {
                Some(&(other, other_key)) if other != size => {
                    return Err((
                        kernel.location(),
                        format!(
                            "'{key}' = {size} and '{other_key}' = {other} size the same tile dim (the program ties them)"
                        ),
                    ));
                }
                _ => {
                    resized.insert(root, (size, key));
                }
            }
        }
    }
    if !config.tiles.is_empty() && roots.is_empty() {
        return Err((kernel.location(), "the kernel has no tile.mma whose tiles the configuration could size".into()));
    }
    for index in 0..dims.frozen.len() {
        let (slot, location, name) = dims.frozen[index].clone();
        let root = dims.find(slot);
        if let Some(&(size, key)) = resized.get(&root)
            && size != dims.extent[slot]
        {
            return Err((location, format!("cannot resize the tiles of '{name}' for '{key}' = {size}")));
        }
    }

    // New types for every value with a resized dim.
    for index in 0..dims.values.len() {
        let value = dims.values[index];
        let Some(slots) = dims.slots(value) else { continue };
        let mut shape: Vec<i64> = slots.iter().map(|&s| dims.extent[s]).collect();
        let mut changed = false;
        for (d, &slot) in slots.iter().enumerate() {
            let root = dims.find(slot);
            if let Some(&(size, _)) = resized.get(&root)
                && shape[d] != size
            {
                shape[d] = size;
                changed = true;
            }
        }
        if changed {
            retype(kernel, value, &shape)?;
        }
    }

    // The hints, and the configuration is spent.
    let context = kernel.context();
    let mut entries: Vec<String> = kernel
        .attribute(HINTS)
        .ok()
        .and_then(|h| DictionaryAttribute::try_from(h).ok())
        .map(|h| {
            (0..h.len())
                .filter_map(|i| h.element(i).ok())
                .filter(|e| !config.hints.iter().any(|(k, _)| Some(k.as_str()) == e.0.as_string_ref().as_str().ok()))
                .map(|e| format!("{} = {}", e.0.as_string_ref().as_str().unwrap_or_default(), e.1))
                .collect()
        })
        .unwrap_or_default();
    entries.extend(config.hints.iter().map(|(k, v)| format!("{k} = {v} : i64")));
    // SAFETY: the context outlives the pass; the kernel is a live op that
    // only this pass changes.
    let (context, mut kernel_mut) =
        unsafe { (context.to_ref(), melior::ir::operation::OperationRefMut::from_raw(kernel.to_raw())) };
    if !entries.is_empty() {
        let hints = Attribute::parse(context, &format!("{{{}}}", entries.join(", ")))
            .ok_or_else(|| (kernel.location(), format!("could not build {HINTS}")))?;
        kernel_mut.set_attribute(HINTS, hints);
    }
    kernel_mut.remove_attribute(CONFIG).map_err(|_| (kernel.location(), format!("could not remove {CONFIG}")))?;
    Ok(())
}

/// Gives `value` its type with the new `shape`, and a splat constant its
/// new value.
fn retype<'c>(kernel: OperationRef<'c, '_>, value: Value<'c, 'c>, shape: &[i64]) -> Result<(), Failure<'c>> {
    let old = value.r#type();
    let new: Type = if let Some(view) = PartitionViewType::try_from_type(old) {
        // `to_ref` reinterprets the ContextRef it is called on: that must be
        // a binding, not a temporary dropped at the end of the statement.
        let context = kernel.context();
        // SAFETY: the context outlives the pass, and `context` outlives
        // the reference.
        let context = unsafe { context.to_ref() };
        PartitionViewType::new(context, shape, view.element_type(), view.padding())
            .map_err(|e| (kernel.location(), e.to_string()))?
            .into()
    } else {
        let tensor =
            RankedTensorType::try_from(old).map_err(|_| (kernel.location(), format!("unexpected type {old}")))?;
        let shape: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
        RankedTensorType::new(&shape, tensor.element(), tensor.encoding()).into()
    };
    let owner = crate::rewrite::defining_op(value);
    if let Some(def) = owner.filter(|d| op_name(*d) == "arith.constant") {
        // SAFETY: `def` is a live constant whose one result is `value`;
        // its new value is the old splat at the new type.
        unsafe {
            let old_value =
                def.attribute("value").map_err(|_| (def.location(), "a constant without a value".to_string()))?;
            if !mlir_sys::mlirAttributeIsADenseElements(old_value.to_raw())
                || !mlir_sys::mlirDenseElementsAttrIsSplat(old_value.to_raw())
            {
                return Err((def.location(), "cannot resize a constant tile that is not a splat".into()));
            }
            let splat = mlir_sys::mlirDenseElementsAttrGetSplatValue(old_value.to_raw());
            let resized = Attribute::from_raw(mlir_sys::mlirDenseElementsAttrSplatGet(new.to_raw(), splat));
            melior::ir::operation::OperationRefMut::from_raw(def.to_raw()).set_attribute("value", resized);
        }
    }
    // SAFETY: a live value; every op tying it was resized consistently
    // (the verifier, which runs after the pass, checks the result).
    unsafe { mlir_sys::mlirValueSetType(value.to_raw(), new.to_raw()) };
    Ok(())
}
