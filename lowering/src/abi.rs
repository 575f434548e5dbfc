//! The compiler's side of `tile-abi`: the launch metadata that passes write
//! into the IR as attributes and the bundle reads back, as typed data both
//! ways (no attribute text is formatted or parsed).

use melior::{
    Context,
    ir::{
        Attribute, Identifier, OperationRef, Type,
        attribute::{ArrayAttribute, DenseI64ArrayAttribute, DictionaryAttribute, IntegerAttribute, TypeAttribute},
        operation::{OperationLike, OperationMutLike},
        r#type::{FunctionType, IntegerType},
    },
};
use tile_abi::TmaDescriptor;
use tile_dialect::attrs::{TMA, TMA_ARG, TMA_BOX, TMA_OPTIONAL, TMA_SWIZZLE};

/// `{arg = N : i64, box = array<i64: ...>, swizzle = N : i64}` (and
/// `optional` where it is), the value of [`TMA`] on the descriptor's
/// `!llvm.ptr` argument (the dialect's verifier checks its form).
pub fn tma_attribute<'c>(context: &'c Context, descriptor: &TmaDescriptor) -> Attribute<'c> {
    let i64_type = IntegerType::new(context, 64).into();
    let box_shape: Vec<i64> = descriptor.box_shape.iter().map(|&d| i64::from(d)).collect();
    let mut entries = vec![
        (Identifier::new(context, TMA_ARG), IntegerAttribute::new(i64_type, descriptor.arg as i64).into()),
        (Identifier::new(context, TMA_BOX), DenseI64ArrayAttribute::new(context, &box_shape).into()),
    ];
    if descriptor.optional {
        entries.push((Identifier::new(context, TMA_OPTIONAL), Attribute::unit(context)));
    }
    entries.push((
        Identifier::new(context, TMA_SWIZZLE),
        IntegerAttribute::new(i64_type, i64::from(descriptor.swizzle)).into(),
    ));
    DictionaryAttribute::new(context, &entries).into()
}

/// The argument attributes `{tile.tma = ...}` of a descriptor argument.
pub fn tma_arg_attributes<'c>(context: &'c Context, descriptor: &TmaDescriptor) -> Attribute<'c> {
    DictionaryAttribute::new(context, &[(Identifier::new(context, TMA), tma_attribute(context, descriptor))]).into()
}

/// The descriptor an argument's attribute dictionary carries: `None` when
/// it carries none, `Some(None)` when its [`TMA`] entry is unreadable.
pub fn read_tma(arg_attrs: Attribute) -> Option<Option<TmaDescriptor>> {
    let dict = DictionaryAttribute::try_from(arg_attrs).ok()?;
    let tma = dict.element_by_name(TMA)?;
    Some(tma_descriptor(tma))
}

fn tma_descriptor(tma: Attribute) -> Option<TmaDescriptor> {
    let tma = DictionaryAttribute::try_from(tma).ok()?;
    let arg = IntegerAttribute::try_from(tma.element_by_name(TMA_ARG)?).ok()?.value();
    let swizzle = IntegerAttribute::try_from(tma.element_by_name(TMA_SWIZZLE)?).ok()?.value();
    let shape = DenseI64ArrayAttribute::try_from(tma.element_by_name(TMA_BOX)?).ok()?;
    let box_shape =
        (0..shape.len()).map(|i| shape.element(i).ok().and_then(|v| u32::try_from(v).ok())).collect::<Option<_>>()?;
    let optional = tma.element_by_name(TMA_OPTIONAL).is_some();
    Some(TmaDescriptor { arg: usize::try_from(arg).ok()?, box_shape, swizzle: u32::try_from(swizzle).ok()?, optional })
}

/// The descriptor arguments of `variant`: each one's descriptor (`None`
/// where its entry is unreadable).
fn descriptors(variant: OperationRef) -> Vec<Option<TmaDescriptor>> {
    let Some(attrs) = variant.attribute("arg_attrs").ok().and_then(|a| ArrayAttribute::try_from(a).ok()) else {
        return Vec::new();
    };
    (0..attrs.len()).filter_map(|i| attrs.element(i).ok()).filter_map(read_tma).collect()
}

/// Whether an argument of `variant` is a descriptor.
pub(crate) fn has_descriptor(variant: OperationRef) -> bool {
    !descriptors(variant).is_empty()
}

/// Whether an argument of `variant` is an optional descriptor.
pub(crate) fn has_optional_descriptor(variant: OperationRef) -> bool {
    descriptors(variant).into_iter().any(|d| d.is_some_and(|d| d.optional))
}

/// Makes every optional descriptor argument of `variant` required (drops
/// its [`TMA_OPTIONAL`]), keeping the arguments' other attributes; the
/// number of descriptors changed.
pub(crate) fn require_descriptors(context: &Context, variant: OperationRef) -> usize {
    let Some(old) = variant.attribute("arg_attrs").ok().and_then(|a| ArrayAttribute::try_from(a).ok()) else {
        return 0;
    };
    let mut changed = 0;
    let mut attrs = Vec::with_capacity(old.len());
    for i in 0..old.len() {
        let Ok(entry) = old.element(i) else { return 0 };
        let dict = DictionaryAttribute::try_from(entry).ok();
        let descriptor = dict.and_then(|d| d.element_by_name(TMA)).and_then(tma_descriptor);
        match (dict, descriptor) {
            (Some(dict), Some(descriptor)) if descriptor.optional => {
                let required = TmaDescriptor { optional: false, ..descriptor };
                let entries = (0..dict.len())
                    .filter_map(|j| dict.element(j).ok())
                    .map(|(name, value)| {
                        if name.as_string_ref().as_str() == Ok(TMA) {
                            (name, tma_attribute(context, &required))
                        } else {
                            (name, value)
                        }
                    })
                    .collect::<Vec<_>>();
                attrs.push(DictionaryAttribute::new(context, &entries).into());
                changed += 1;
            }
            _ => attrs.push(entry),
        }
    }
    if changed > 0 {
        let mut variant = unsafe {
            // SAFETY: a live op, mutated only through this handle here.
            melior::ir::operation::OperationRefMut::from_raw(variant.to_raw())
        };
        variant.set_attribute("arg_attrs", ArrayAttribute::new(context, &attrs).into());
    }
    changed
}

/// Sets a variant's function type and argument attributes after its TMA
/// descriptor arguments (and, for a `persistent` one, its program-grid
/// argument) were added to its entry block: one `!llvm.ptr` with
/// `{tile.tma = ...}` per descriptor after the original arguments.
pub(crate) fn add_descriptor_arguments(
    context: &Context,
    variant: OperationRef,
    descriptors: &[TmaDescriptor],
    persistent: bool,
) -> Option<()> {
    let old =
        FunctionType::try_from(TypeAttribute::try_from(variant.attribute("function_type").ok()?).ok()?.value()).ok()?;
    let originals = old.input_count();
    let pointer = melior::dialect::llvm::r#type::pointer(context, 0);
    let mut inputs: Vec<Type> = (0..originals).map(|i| old.input(i).ok()).collect::<Option<_>>()?;
    inputs.extend(descriptors.iter().map(|_| pointer));
    if persistent {
        inputs.push(Type::index(context));
    }
    let empty = || DictionaryAttribute::new(context, &[]).into();
    let old_attrs = variant.attribute("arg_attrs").ok().and_then(|a| ArrayAttribute::try_from(a).ok());
    let mut attrs: Vec<Attribute> =
        (0..originals).map(|i| old_attrs.and_then(|a| a.element(i).ok()).unwrap_or_else(empty)).collect();
    attrs.extend(descriptors.iter().map(|d| tma_arg_attributes(context, d)));
    if persistent {
        attrs.push(empty());
    }
    let mut variant = unsafe {
        // SAFETY: a live op, mutated only through this handle here.
        melior::ir::operation::OperationRefMut::from_raw(variant.to_raw())
    };
    variant.set_attribute("function_type", TypeAttribute::new(FunctionType::new(context, &inputs, &[]).into()).into());
    variant.set_attribute("arg_attrs", ArrayAttribute::new(context, &attrs).into());
    Some(())
}

/// Inserts arguments of `types` (no attributes of their own) into a
/// function before its argument `at`; their values.
pub(crate) fn insert_arguments<'c>(
    context: &'c Context,
    function: OperationRef<'c, '_>,
    at: usize,
    types: &[Type<'c>],
) -> Option<Vec<melior::ir::Value<'c, 'c>>> {
    let old = FunctionType::try_from(TypeAttribute::try_from(function.attribute("function_type").ok()?).ok()?.value())
        .ok()?;
    let count = old.input_count();
    if at > count {
        return None;
    }
    let entry = melior::ir::RegionLike::first_block(&crate::rewrite::Probe::region_at(&function, 0)?)?;
    let location = function.location();
    let values = types
        .iter()
        .enumerate()
        .map(|(i, t)| {
            // SAFETY: `entry` is the function's live entry block, which has
            // `count + i` arguments here; its type gets the same below.
            unsafe {
                let raw = mlir_sys::mlirBlockInsertArgument(
                    entry.to_raw(),
                    (at + i) as isize,
                    melior::ir::TypeLike::to_raw(t),
                    location.to_raw(),
                );
                melior::ir::Value::from_raw(raw)
            }
        })
        .collect();
    let mut inputs: Vec<Type> = (0..count).map(|i| old.input(i).ok()).collect::<Option<_>>()?;
    inputs.splice(at..at, types.iter().copied());
    let empty = || DictionaryAttribute::new(context, &[]).into();
    let old_attrs = function.attribute("arg_attrs").ok().and_then(|a| ArrayAttribute::try_from(a).ok());
    let mut attrs: Vec<Attribute> =
        (0..count).map(|i| old_attrs.and_then(|a| a.element(i).ok()).unwrap_or_else(empty)).collect();
    attrs.splice(at..at, types.iter().map(|_| empty()));
    let mut function = unsafe {
        // SAFETY: a live op, mutated only through this handle here.
        melior::ir::operation::OperationRefMut::from_raw(function.to_raw())
    };
    function.set_attribute("function_type", TypeAttribute::new(FunctionType::new(context, &inputs, &[]).into()).into());
    function.set_attribute("arg_attrs", ArrayAttribute::new(context, &attrs).into());
    Some(values)
}
