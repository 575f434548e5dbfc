//! The one bridge from a Rust rewrite function to an MLIR rewrite pattern,
//! shared by every pattern-based pass.

use melior::{
    Context, PatternRewriter, RewriterBase, create_op_rewrite_pattern,
    ir::{
        BlockLike, Location, OperationRef, RegionRef, Value, ValueLike,
        block::BlockArgument,
        operation::{OperationLike, OperationResult},
    },
};
use mlir_sys::{MlirOperation, MlirPatternRewriter, MlirRewritePattern};

/// A value of the IR being rewritten, whose lifetime is that of the IR
/// (the module), not of the Rust borrow it was read through.
pub type IrValue<'c> = Value<'c, 'c>;

/// Forgets the borrow a value was read through.
pub fn detach<'c>(value: Value<'c, '_>) -> IrValue<'c> {
    // SAFETY: values are owned by the IR under rewrite, which outlives the
    // pattern application that reads them; a value is only used while the op
    // defining it is alive (replaced ops are erased after their last use).
    unsafe { Value::from_raw(value.to_raw()) }
}

/// Operand, result and region accessors that answer `None` for an index out
/// of range.
///
/// melior's own `operand`, `result` and `region` build their out-of-range
/// error (`Error::PositionOutOfBounds`) with the whole op printed into it,
/// nested regions and all, even when the caller only wants to know whether
/// the position exists (`.ok()`, `.is_ok_and(..)`). Printing is slow, and
/// inside a pass nested on `func.func`, which MLIR runs on several functions
/// in parallel threads, printing an op races with the threads rewriting the
/// other functions (it has crashed). These check the count first and never
/// print; probe with them wherever the index may be out of range.
pub trait Probe<'c, 'a> {
    /// Operand `index`, if the op has that many operands.
    fn operand_at(&self, index: usize) -> Option<Value<'c, 'a>>;
    /// Result `index`, if the op has that many results.
    fn result_at(&self, index: usize) -> Option<OperationResult<'c, 'a>>;
    /// Region `index`, if the op has that many regions.
    fn region_at(&self, index: usize) -> Option<RegionRef<'c, 'a>>;
}

impl<'c: 'a, 'a, T: OperationLike<'c, 'a>> Probe<'c, 'a> for T {
    fn operand_at(&self, index: usize) -> Option<Value<'c, 'a>> {
        if index < self.operand_count() { self.operand(index).ok() } else { None }
    }

    fn result_at(&self, index: usize) -> Option<OperationResult<'c, 'a>> {
        if index < self.result_count() { self.result(index).ok() } else { None }
    }

    fn region_at(&self, index: usize) -> Option<RegionRef<'c, 'a>> {
        if index < self.region_count() { self.region(index).ok() } else { None }
    }
}

/// The block counterpart of [`Probe`]: melior's `argument` prints the whole
/// block into its out-of-range error; this checks the count first.
pub trait BlockProbe<'c, 'a> {
    /// Argument `index`, if the block has that many arguments.
    fn argument_at(&self, index: usize) -> Option<BlockArgument<'c, 'a>>;
}

impl<'c, 'a, T: BlockLike<'c, 'a>> BlockProbe<'c, 'a> for T {
    fn argument_at(&self, index: usize) -> Option<BlockArgument<'c, 'a>> {
        if index < self.argument_count() { self.argument(index).ok() } else { None }
    }
}

/// Operand `index` of the matched op.
pub fn operand<'c>(op: OperationRef<'c, '_>, index: usize) -> Option<IrValue<'c>> {
    Some(detach(op.operand_at(index)?))
}

/// Builds (at the rewriter's insertion point, just before the matched op) the
/// value that replaces one matched op, or returns `None` to leave it alone.
pub type Rewrite =
    for<'c, 'a, 'r> fn(&'c Context, OperationRef<'c, 'a>, &'r RewriterBase<'c, 'r>) -> Option<IrValue<'c>>;

/// Like [`Rewrite`], for ops with any number of results (none, for an op that
/// is only erased).
pub type RewriteMany =
    for<'c, 'a, 'r> fn(&'c Context, OperationRef<'c, 'a>, &'r RewriterBase<'c, 'r>) -> Option<Vec<IrValue<'c>>>;

#[derive(Clone, Copy)]
enum AnyRewrite {
    One(Rewrite),
    Many(RewriteMany),
}

/// The pattern that applies `rewrite` to ops named `root`.
pub fn pattern(context: &Context, root: &str, rewrite: Rewrite) -> melior::RewritePattern {
    any_pattern(context, root, AnyRewrite::One(rewrite))
}

/// The pattern that applies `rewrite` to ops named `root`, replacing all of
/// their results.
pub fn pattern_many(context: &Context, root: &str, rewrite: RewriteMany) -> melior::RewritePattern {
    any_pattern(context, root, AnyRewrite::Many(rewrite))
}

fn any_pattern(context: &Context, root: &str, rewrite: AnyRewrite) -> melior::RewritePattern {
    create_op_rewrite_pattern(
        root,
        1,
        context,
        move |_: MlirRewritePattern, raw_op: MlirOperation, raw_rewriter: MlirPatternRewriter| {
            // SAFETY: MLIR passes a live op and rewriter for the duration of
            // this call; neither escapes it.
            let (op, rewriter) = unsafe { (OperationRef::from_raw(raw_op), PatternRewriter::from_raw(raw_rewriter)) };
            let rewriter = rewriter.as_rewriter_base();
            let context = op.context();
            // SAFETY: the context outlives every rewrite applied within it.
            let context = unsafe { context.to_ref() };
            rewriter.set_insertion_point_before(op);
            let values = match rewrite {
                AnyRewrite::One(rewrite) => rewrite(context, op, &rewriter).map(|value| vec![value]),
                AnyRewrite::Many(rewrite) => rewrite(context, op, &rewriter),
            };
            match values {
                Some(values) if values.len() == op.result_count() => {
                    rewriter.replace_op_with_values(op, &values);
                    true
                }
                _ => false,
            }
        },
        &[],
    )
}

/// An op's name, such as `scf.for`.
pub fn op_name(op: OperationRef) -> String {
    op.name().as_string_ref().as_str().unwrap_or_default().to_string()
}

/// The only use of `value`: its user and the operand position, or `None`
/// when it has no use or several.
pub fn single_use<'c, 'a>(value: Value<'c, 'a>) -> Option<(OperationRef<'c, 'a>, usize)> {
    // SAFETY: `value` is live; the use list is read, not changed, and its
    // user is a live op.
    unsafe {
        let first = mlir_sys::mlirValueGetFirstUse(value.to_raw());
        if first.ptr.is_null() || !mlir_sys::mlirOpOperandGetNextUse(first).ptr.is_null() {
            return None;
        }
        let owner = OperationRef::from_raw(mlir_sys::mlirOpOperandGetOwner(first));
        Some((owner, mlir_sys::mlirOpOperandGetOperandNumber(first) as usize))
    }
}

/// Every use of `value`: its user and the operand position.
pub fn uses<'c, 'a>(value: Value<'c, 'a>) -> Vec<(OperationRef<'c, 'a>, usize)> {
    let mut found = Vec::new();
    // SAFETY: `value` is live; the use list is read, not changed, and each
    // user is a live op.
    unsafe {
        let mut next = mlir_sys::mlirValueGetFirstUse(value.to_raw());
        while !next.ptr.is_null() {
            let owner = OperationRef::from_raw(mlir_sys::mlirOpOperandGetOwner(next));
            found.push((owner, mlir_sys::mlirOpOperandGetOperandNumber(next) as usize));
            next = mlir_sys::mlirOpOperandGetNextUse(next);
        }
    }
    found
}

/// ` @name` for a symbol (a function) named `name`, else nothing: for
/// remarks that name the variant they are about.
pub fn symbol_label(op: OperationRef) -> String {
    op.attribute("sym_name")
        .ok()
        .and_then(|a| melior::ir::attribute::StringAttribute::try_from(a).ok())
        .map_or(String::new(), |s| format!(" @{}", s.value()))
}

/// Whether nothing uses `value`.
pub fn unused(value: Value) -> bool {
    // SAFETY: `value` is live; its use list is only read.
    unsafe { mlir_sys::mlirValueGetFirstUse(value.to_raw()).ptr.is_null() }
}

/// The kernels (`tile.kernel` functions) at the top level of a module
/// operation, without those that have any of the attributes `without`,
/// in order: raw handles, so that the caller may add functions while it
/// goes through them.
pub fn kernels(module: OperationRef<'_, '_>, without: &[&str]) -> Vec<mlir_sys::MlirOperation> {
    use melior::ir::{BlockLike as _, RegionLike as _};
    let Some(body) = module.region_at(0).and_then(|r| r.first_block()) else { return Vec::new() };
    let mut kernels = Vec::new();
    let mut next = body.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        if op_name(op) == "func.func"
            && op.has_attribute(tile_dialect::attrs::KERNEL)
            && !without.iter().any(|a| op.has_attribute(a))
        {
            kernels.push(op.to_raw());
        }
    }
    kernels
}

/// Runs `add` on each kernel of module `operation` (variants left out),
/// which may add functions after its kernel; the first that fails is
/// reported at its kernel with `error`, and fails the pass.
pub fn add_to_kernels(
    operation: OperationRef<'_, '_>,
    pass: &melior::pass::ExternalPass<'_>,
    error: &str,
    add: impl for<'k> Fn(&'k Context, OperationRef<'k, 'k>) -> Option<()>,
) {
    let context = operation.context();
    // SAFETY: the context outlives the pass run (and `to_ref` borrows the
    // handle bound above, not a temporary).
    let context = unsafe { context.to_ref() };
    for raw in kernels(operation, &[tile_dialect::attrs::VARIANT_OF]) {
        // SAFETY: a live top-level function collected above; `add` only
        // adds functions after it.
        let kernel = unsafe { OperationRef::from_raw(raw) };
        if add(context, kernel).is_none() {
            emit_error(kernel.location(), error);
            pass.signal_failure();
            return;
        }
    }
}

/// `value` as a block argument, if it is one. melior's `TryFrom` prints
/// the value when it is not, which prints (and verifies) the op around
/// it: slow, and a data race in a pass that MLIR runs on several functions
/// at once, while another thread rewrites a function beside it.
pub fn block_argument<'c, 'a>(value: Value<'c, 'a>) -> Option<melior::ir::block::BlockArgument<'c, 'a>> {
    if value.is_block_argument() { melior::ir::block::BlockArgument::try_from(value).ok() } else { None }
}

/// `value` as an op's result, if it is one ([`block_argument`] says why
/// not melior's `TryFrom` alone).
pub fn op_result<'c, 'a>(value: Value<'c, 'a>) -> Option<melior::ir::operation::OperationResult<'c, 'a>> {
    if value.is_operation_result() { melior::ir::operation::OperationResult::try_from(value).ok() } else { None }
}

/// The position of `value` among the arguments of `block`, if it is one.
pub fn argument_of(value: Value, block: melior::ir::BlockRef) -> Option<usize> {
    // SAFETY: read-only queries of a live value.
    unsafe {
        let raw = value.to_raw();
        (mlir_sys::mlirValueIsABlockArgument(raw) && mlir_sys::mlirBlockArgumentGetOwner(raw).ptr == block.to_raw().ptr)
            .then(|| mlir_sys::mlirBlockArgumentGetArgNumber(raw) as usize)
    }
}

/// The op that defines `value`, or `None` for a block argument.
pub fn defining_op<'c, 'a>(value: Value<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    // SAFETY: read-only queries of a live value; the owner of an op result
    // is a live op for as long as the value is.
    unsafe {
        if !mlir_sys::mlirValueIsAOpResult(value.to_raw()) {
            return None;
        }
        Some(OperationRef::from_raw(mlir_sys::mlirOpResultGetOwner(value.to_raw())))
    }
}

/// The value of an `arith.constant` of integer or index type.
pub fn constant_index(value: Value) -> Option<i64> {
    use melior::ir::AttributeLike as _;
    let def = defining_op(value)?;
    if op_name(def) != "arith.constant" {
        return None;
    }
    // (The kind first: a failed conversion prints the attribute, a whole
    // dense tile's for a vector constant.)
    let attribute = def.attribute("value").ok().filter(|a| a.is_integer())?;
    melior::ir::attribute::IntegerAttribute::try_from(attribute).ok().map(|a| a.value())
}

/// Whether `op` lies inside the op whose handle's address is `container`
/// (in one of its regions, at any depth).
pub fn inside(op: OperationRef, container: usize) -> bool {
    let mut parent = op.parent_operation();
    while let Some(p) = parent {
        if p.to_raw().ptr as usize == container {
            return true;
        }
        parent = p.parent_operation();
    }
    false
}

/// Whether `value` is defined outside `block` (and its nested regions).
pub fn defined_outside(value: IrValue, block: melior::ir::BlockRef) -> bool {
    // SAFETY: read-only queries of a live value and ops.
    unsafe {
        let raw = value.to_raw();
        let mut owner_block = if mlir_sys::mlirValueIsABlockArgument(raw) {
            mlir_sys::mlirBlockArgumentGetOwner(raw)
        } else {
            mlir_sys::mlirOperationGetBlock(mlir_sys::mlirOpResultGetOwner(raw))
        };
        while !owner_block.ptr.is_null() {
            if owner_block.ptr == block.to_raw().ptr {
                return false;
            }
            let parent = mlir_sys::mlirBlockGetParentOperation(owner_block);
            if parent.ptr.is_null() {
                break;
            }
            owner_block = mlir_sys::mlirOperationGetBlock(parent);
        }
        true
    }
}

/// Reports an error at `location` through the context's diagnostic handlers
/// (tile-opt prints it with its location; `-verify-diagnostics` sees it).
pub fn emit_error(location: Location, message: &str) {
    let message = std::ffi::CString::new(message.replace('\0', " ")).unwrap_or_default();
    // SAFETY: the location is live and the message a NUL-terminated string
    // that outlives the call.
    unsafe { mlir_sys::mlirEmitError(location.to_raw(), message.as_ptr()) }
}

/// The ops that use `value` (one entry a use), as raw pointers: to find
/// them among ops walked later.
pub fn users(value: Value) -> Vec<usize> {
    let mut users = Vec::new();
    // SAFETY: read-only walk of a live value's use list.
    unsafe {
        let mut use_ = mlir_sys::mlirValueGetFirstUse(value.to_raw());
        while !use_.ptr.is_null() {
            users.push(mlir_sys::mlirOpOperandGetOwner(use_).ptr as usize);
            use_ = mlir_sys::mlirOpOperandGetNextUse(use_);
        }
    }
    users
}

/// An integer hint of the kernel's `tile.hints`.
pub fn hint(kernel: OperationRef, name: &str) -> Option<i64> {
    kernel
        .attribute(tile_dialect::attrs::HINTS)
        .ok()
        .and_then(|h| melior::ir::attribute::DictionaryAttribute::try_from(h).ok())
        .and_then(|h| h.element_by_name(name))
        .and_then(|v| melior::ir::attribute::IntegerAttribute::try_from(v).ok())
        .map(|v| v.value())
}

/// Whether `op` holds an op named `name` (itself included).
pub fn has_op(op: OperationRef, name: &str) -> bool {
    let mut found = false;
    op.walk(melior::ir::operation::WalkOrder::PreOrder, |nested| {
        found |= op_name(nested) == name;
        if found { melior::ir::operation::WalkResult::Interrupt } else { melior::ir::operation::WalkResult::Advance }
    });
    found
}

/// How many of `users` (from [`users`]) are `op` or ops nested in it.
pub fn uses_inside(op: OperationRef, users: &[usize]) -> usize {
    let mut count = 0;
    op.walk(melior::ir::operation::WalkOrder::PreOrder, |nested| {
        count += users.iter().filter(|&&u| u == nested.to_raw().ptr as usize).count();
        melior::ir::operation::WalkResult::Advance
    });
    count
}

/// Whether `first` comes before `op` in program order, not around it: an
/// op that holds `op` (or `op` itself) follows `first` in `first`'s block.
pub fn precedes(first: OperationRef, op: OperationRef) -> bool {
    let Some(block) = first.block() else { return false };
    let mut ancestor = Some(op);
    while let Some(a) = ancestor {
        if a.block().is_some_and(|b| b == block) {
            let mut next = first.next_in_block();
            while let Some(n) = next {
                if n.to_raw().ptr == a.to_raw().ptr {
                    return true;
                }
                next = n.next_in_block();
            }
            return false;
        }
        ancestor = a.parent_operation();
    }
    false
}

/// Whether `op` runs inside a loop of its function (`scf.for` or
/// `scf.while`): a register exchange there needs a barrier before its
/// writes too, and a select there is worth versioning.
pub fn in_loop(op: OperationRef) -> bool {
    let mut parent = op.parent_operation();
    while let Some(p) = parent {
        match op_name(p).as_str() {
            "scf.for" | "scf.while" => return true,
            "func.func" => return false,
            _ => parent = p.parent_operation(),
        }
    }
    false
}

/// Moves the ops after `after` in its block, up to `stop` (not included),
/// before `before` (in a region nested where they were), in order.
pub fn move_following(after: OperationRef, stop: OperationRef, before: OperationRef) {
    let mut next = after.next_in_block();
    while let Some(op) = next {
        if op.to_raw().ptr == stop.to_raw().ptr {
            break;
        }
        next = op.next_in_block();
        // SAFETY: both ops are alive; they move in order into a block
        // nested at their old place, so every use stays after its
        // definition (from before them, or moved ahead of them).
        unsafe { mlir_sys::mlirOperationMoveBefore(op.to_raw(), before.to_raw()) };
    }
}

/// Replaces each op under `operation` that `pick` chooses by the value
/// `replacement` builds for it, where it builds one: the op's only result's
/// uses go to that value and the op is erased. The ops are collected first
/// (pre-order), so those `replacement` builds are not visited. Only ops
/// with one result and no regions are offered (erasing a region would
/// erase picked ops inside it); `replacement` builds ops, it erases none.
pub fn replace_each<'c>(
    operation: OperationRef<'c, '_>,
    pick: impl Fn(OperationRef) -> bool,
    mut replacement: impl FnMut(OperationRef<'c, '_>) -> Option<IrValue<'c>>,
) {
    let mut picked = Vec::new();
    operation.walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
        if op.result_count() == 1 && op.region_count() == 0 && pick(op) {
            picked.push(op.to_raw());
        }
        melior::ir::operation::WalkResult::Advance
    });
    for raw in picked {
        // SAFETY: collected above and not erased since: each picked op is
        // erased only below, once, has no regions that held other picked
        // ops, and `replacement` erases nothing.
        let op = unsafe { OperationRef::from_raw(raw) };
        let Some(old) = op.result_at(0) else { continue };
        if let Some(new) = replacement(op) {
            // SAFETY: `new` replaces every use of the op's one result
            // (`new`, built before the op from its operands, is not one);
            // the op, then unused, is erased.
            unsafe {
                mlir_sys::mlirValueReplaceAllUsesOfWith(old.to_raw(), new.to_raw());
                mlir_sys::mlirOperationDestroy(raw);
            }
        }
    }
}
