//! `convert-tile-to-scf`: the launch grid as a loop over block ids.
//!
//! Summary: outline each kernel's body into `@<name>.block`, which takes the
//! block id and the grid size as `index` arguments in place of
//! `tile.block_id` and `tile.num_blocks`, and make `@<name>` a function that
//! runs a range of blocks in a `scf.for` loop.
//!
//! Before:
//! ```mlir
//! func.func @k(%X: memref<?xf32>) attributes {tile.kernel} {
//!   %i = tile.block_id x : index
//!   ...
//! }
//! ```
//! After:
//! ```mlir
//! func.func private @k.block(%X: memref<?xf32>, %bx: index, %by: index, %bz: index,
//!                            %gx: index, %gy: index, %gz: index) {
//!   ... // %i is %bx
//! }
//! func.func @k(%X: memref<?xf32>, %gx: index, %gy: index, %gz: index,
//!              %first: index, %last: index) attributes {llvm.emit_c_interface} {
//!   scf.for %b = %first to %last step %c1 {
//!     // x varies fastest: b = bx + gx * (by + gy * bz)
//!     func.call @k.block(%X, %bx, %by, %bz, %gx, %gy, %gz) : (...) -> ()
//!   }
//!   return
//! }
//! ```
//!
//! The linear range `[first, last)` lets a runtime split the grid across
//! threads: blocks of a tile program never communicate, so any split gives
//! the same result as one loop over all blocks.
//!
//! Caveats: kernels keep their names, so a module must not already define
//! `@<name>.block`. Kernels are expected to have one block (the language's
//! control flow is structured, `scf`).

use crate::{
    build::index_constant,
    pass::{PassInfo, TilePass},
    rewrite::{BlockProbe, IrValue, Probe, detach, emit_error},
};
use melior::{
    Context, ContextRef,
    dialect::{arith, func, scf},
    ir::{
        Attribute, Block, BlockLike, Identifier, Location, OperationRef, Region, RegionLike, Type, ValueLike,
        attribute::{ArrayAttribute, DictionaryAttribute, FlatSymbolRefAttribute, StringAttribute, TypeAttribute},
        operation::{Operation, OperationLike, OperationMutLike, OperationRefMut, WalkOrder, WalkResult},
        r#type::FunctionType,
    },
    pass::{ExternalPass, RunExternalPass},
};

/// The suffix of the outlined per-block function.
pub const BLOCK_SUFFIX: &str = ".block";

/// The `convert-tile-to-scf` pass.
#[derive(Clone, Default)]
pub struct ConvertTileToScf;

impl TilePass for ConvertTileToScf {
    const INFO: PassInfo = PassInfo {
        argument: "convert-tile-to-scf",
        name: "ConvertTileToScf",
        summary: "Run the launch grid as an scf.for over block ids; tile.block_id and tile.num_blocks become arguments",
        op_name: "builtin.module",
    };
    crate::pass_type_id!();

    fn dependent_dialects() -> Vec<melior::dialect::DialectHandle> {
        use melior::dialect::DialectHandle;
        vec![DialectHandle::scf(), DialectHandle::func(), DialectHandle::arith()]
    }
}

impl<'c> RunExternalPass<'c> for ConvertTileToScf {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        let context = operation.context();
        // SAFETY: the context outlives the pass run.
        let context = unsafe { context.to_ref() };
        let Some(body) = operation.region_at(0).and_then(|region| region.first_block()) else {
            return;
        };
        let mut names = Vec::new();
        let mut kernels = Vec::new();
        let mut next = body.first_operation();
        while let Some(op) = next {
            if let Ok(name) = op.attribute("sym_name") {
                names.push(symbol_text(name));
            }
            if op.name().as_string_ref().as_str() == Ok("func.func") && op.has_attribute("tile.kernel") {
                kernels.push(op);
            }
            next = op.next_in_block();
        }
        for kernel in kernels {
            let name = symbol_text(kernel.attribute("sym_name").unwrap_or_else(|_| Attribute::unit(context)));
            let outlined = format!("{name}{BLOCK_SUFFIX}");
            if names.contains(&outlined) {
                emit_error(kernel.location(), &format!("kernel @{name}: the module already defines @{outlined}"));
                pass.signal_failure();
                continue;
            }
            if outline(context, kernel, &name, &outlined).is_none() {
                emit_error(kernel.location(), &format!("kernel @{name}: could not lower its grid"));
                pass.signal_failure();
            }
        }
    }
}

fn symbol_text(attribute: Attribute) -> String {
    StringAttribute::try_from(attribute).map(|s| s.value().to_string()).unwrap_or_default()
}

/// Turns `kernel` into the per-block function and inserts the grid function
/// after it.
fn outline<'c>(context: &'c Context, kernel: OperationRef<'c, '_>, name: &str, outlined: &str) -> Option<()> {
    let location = kernel.location();
    let index = Type::index(context);
    let entry = kernel.region_at(0)?.first_block()?;
    if entry.next_in_region().is_some() {
        emit_error(location, "a tile kernel has one block; use scf for control flow");
        return None;
    }
    let parameters: Vec<Type<'c>> =
        (0..entry.argument_count()).map(|i| entry.argument_at(i).map(|a| a.r#type())).collect::<Option<_>>()?;

    // block id x, y, z, then grid size x, y, z
    let grid: Vec<IrValue<'c>> = (0..6).map(|_| detach(entry.add_argument(index, location))).collect();
    let mut queries = Vec::new();
    kernel.walk(WalkOrder::PreOrder, |op| {
        let op_name = op.name();
        let base = match op_name.as_string_ref().as_str() {
            Ok("tile.block_id") => 0,
            Ok("tile.num_blocks") => 3,
            _ => return WalkResult::Advance,
        };
        let axis = op.attribute("axis").map(|a| a.to_string()).unwrap_or_default();
        let offset = ["x>", "y>", "z>"].iter().position(|suffix| axis.ends_with(suffix));
        queries.push((op.to_raw(), offset.map(|o| base + o)));
        WalkResult::Advance
    });
    for (raw, argument) in queries {
        let argument = grid[argument?];
        // SAFETY: the query op is alive (collected above, erased only here);
        // its result is replaced before the op is destroyed.
        unsafe {
            let result = mlir_sys::mlirOperationGetResult(raw, 0);
            mlir_sys::mlirValueReplaceAllUsesOfWith(result, argument.to_raw());
            mlir_sys::mlirOperationDestroy(raw);
        }
    }

    let mut block_inputs = parameters.clone();
    block_inputs.extend([index; 6]);
    // SAFETY: `kernel` is a live op of the module this pass owns, and no
    // other reference mutates it during this call.
    let mut function = unsafe { OperationRefMut::from_raw(kernel.to_raw()) };
    function.set_attribute(
        "function_type",
        TypeAttribute::new(FunctionType::new(context, &block_inputs, &[]).into()).into(),
    );
    function.set_attribute("sym_name", StringAttribute::new(context, outlined).into());
    function.set_attribute("sym_visibility", StringAttribute::new(context, "private").into());
    if let Ok(arg_attrs) = function.attribute("arg_attrs") {
        // The grid arguments have no attributes.
        let arg_attrs = ArrayAttribute::try_from(arg_attrs).ok()?;
        let mut extended = (0..arg_attrs.len()).map(|i| arg_attrs.element(i).ok()).collect::<Option<Vec<_>>>()?;
        extended.extend([Attribute::from(DictionaryAttribute::new(context, &[])); 6]);
        function.set_attribute("arg_attrs", ArrayAttribute::new(context, &extended).into());
    }
    for attribute in ["tile.kernel", "tile.hints", tile_dialect::attrs::GROUPED] {
        let _ = function.remove_attribute(attribute);
    }

    let grid_function = grid_function(context, name, outlined, &parameters, location)?;
    let parent = kernel.block()?;
    parent.insert_operation_after(kernel, grid_function);
    Some(())
}

/// `@name(parameters..., gx, gy, gz, first, last)`, which calls the block
/// function for every linear block id in `[first, last)`.
fn grid_function<'c>(
    context: &'c Context,
    name: &str,
    outlined: &str,
    parameters: &[Type<'c>],
    location: Location<'c>,
) -> Option<melior::ir::Operation<'c>> {
    let index = Type::index(context);
    let mut inputs = parameters.to_vec();
    inputs.extend([index; 5]);
    let entry = Block::new(&inputs.iter().map(|&t| (t, location)).collect::<Vec<_>>());
    let argument = |i: usize| entry.argument_at(i).map(|a| detach(a.into()));
    let n = parameters.len();
    let (gx, gy, gz, first, last) =
        (argument(n)?, argument(n + 1)?, argument(n + 2)?, argument(n + 3)?, argument(n + 4)?);
    let append = |block: &Block<'c>, op: Operation<'c>| -> Option<IrValue<'c>> {
        let op = block.append_operation(op);
        Some(detach(op.result_at(0)?.into()))
    };
    let one = append(&entry, index_constant(context, 1, location))?;
    let plane = append(&entry, arith::muli(gx, gy, location))?;

    let body = Block::new(&[(index, location)]);
    let linear = detach(body.argument_at(0)?.into());
    let bx = append(&body, arith::remui(linear, gx, location))?;
    let row = append(&body, arith::divui(linear, gx, location))?;
    let by = append(&body, arith::remui(row, gy, location))?;
    let bz = append(&body, arith::divui(linear, plane, location))?;
    let mut call_arguments: Vec<IrValue<'c>> = (0..n).map(argument).collect::<Option<_>>()?;
    call_arguments.extend([bx, by, bz, gx, gy, gz]);
    body.append_operation(func::call(
        context,
        FlatSymbolRefAttribute::new(context, outlined),
        &call_arguments,
        &[],
        location,
    ));
    body.append_operation(scf::r#yield(&[], location));
    let loop_region = Region::new();
    loop_region.append_block(body);
    entry.append_operation(scf::r#for(first, last, one, loop_region, location));
    entry.append_operation(func::r#return(&[], location));

    let region = Region::new();
    region.append_block(entry);
    Some(func::func(
        context,
        StringAttribute::new(context, name),
        TypeAttribute::new(FunctionType::new(context, &inputs, &[]).into()),
        region,
        &[(Identifier::new(context, "llvm.emit_c_interface"), Attribute::unit(context))],
        location,
    ))
}
