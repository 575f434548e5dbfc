//! Small builders shared by the lowerings.

pub use crate::rewrite::{IrValue, detach, operand};
use melior::{
    Context, RewriterBase,
    ir::{
        Attribute, Block, BlockLike, BlockRef, Identifier, Location, OperationRef, Region, RegionLike, Type, TypeLike,
        Value, ValueLike,
        operation::{Operation, OperationBuilder, OperationLike},
        r#type::RankedTensorType,
    },
};

/// Builds ops at one place outside a rewrite: before an anchor op, or at
/// the end of a block (for passes that restructure IR by hand).
pub struct At<'c, 'a> {
    pub context: &'c Context,
    pub location: Location<'c>,
    pub block: BlockRef<'c, 'a>,
    pub before: Option<OperationRef<'c, 'a>>,
}

impl<'c, 'a> At<'c, 'a> {
    /// Before `anchor`, at its location.
    pub fn before(context: &'c Context, anchor: OperationRef<'c, 'a>) -> Option<Self> {
        Some(At { context, location: anchor.location(), block: anchor.block()?, before: Some(anchor) })
    }

    /// Inserts `op`; the inserted op.
    pub fn insert(&self, op: Operation<'c>) -> OperationRef<'c, 'a> {
        match self.before {
            Some(anchor) => self.block.insert_operation_before(anchor, op),
            None => self.block.append_operation(op),
        }
    }

    /// Inserts `op`; its first result, if it has one.
    pub fn add(&self, op: Operation<'c>) -> Option<IrValue<'c>> {
        let op = self.insert(op);
        // Asking melior for a result that is not there prints the op (for
        // the error), which reads the whole module: a data race while
        // another thread rewrites a sibling function.
        if op.result_count() == 0 {
            return None;
        }
        op.result(0).ok().map(|r| detach(r.into()))
    }

    /// Inserts op `name` with result and attribute types in text form;
    /// its first result (`None` when it has none or the text is invalid).
    pub fn op(
        &self,
        name: &str,
        operands: &[IrValue<'c>],
        results: &[&str],
        attributes: &[(&str, &str)],
    ) -> Option<IrValue<'c>> {
        let op = self.build(name, operands, results, attributes)?;
        self.add(op)
    }

    /// [`At::op`] for ops without results; the inserted op.
    pub fn void(
        &self,
        name: &str,
        operands: &[IrValue<'c>],
        attributes: &[(&str, &str)],
    ) -> Option<OperationRef<'c, 'a>> {
        let op = self.build(name, operands, &[], attributes)?;
        Some(self.insert(op))
    }

    fn build(
        &self,
        name: &str,
        operands: &[IrValue<'c>],
        results: &[&str],
        attributes: &[(&str, &str)],
    ) -> Option<Operation<'c>> {
        let results = results.iter().map(|t| Type::parse(self.context, t)).collect::<Option<Vec<_>>>()?;
        let attributes = attributes
            .iter()
            .map(|(key, value)| Some((Identifier::new(self.context, key), attribute(self.context, value)?)))
            .collect::<Option<Vec<_>>>()?;
        OperationBuilder::new(name, self.location)
            .add_operands(operands)
            .add_results(&results)
            .add_attributes(&attributes)
            .build()
            .ok()
    }

    /// An `index` result of op `name`.
    pub fn index_op(&self, name: &str, operands: &[IrValue<'c>]) -> Option<IrValue<'c>> {
        self.op(name, operands, &["index"], &[])
    }

    /// An `index` constant.
    pub fn index(&self, value: i64) -> Option<IrValue<'c>> {
        self.op("arith.constant", &[], &["index"], &[("value", &format!("{value} : index"))])
    }

    /// Inserts `scf.if %condition { }` (with an empty `else { }` when
    /// `with_else`), without results; builders for its regions, each
    /// before the region's `scf.yield`.
    pub fn scf_if(&self, condition: IrValue<'c>, with_else: bool) -> Option<Vec<At<'c, 'a>>> {
        let regions = [Region::new(), Region::new()];
        let mut yields = Vec::new();
        for region in &regions[..1 + usize::from(with_else)] {
            let block = region.append_block(Block::new(&[]));
            yields
                .push(block.append_operation(OperationBuilder::new("scf.yield", self.location).build().ok()?).to_raw());
        }
        self.insert(
            OperationBuilder::new("scf.if", self.location)
                .add_operands(&[condition])
                .add_regions(regions)
                .build()
                .ok()?,
        );
        yields
            .into_iter()
            .map(|raw| {
                // SAFETY: each yield is alive, owned by a block of the scf.if
                // just inserted into `self.block`, which outlives 'a.
                let terminator = unsafe { OperationRef::from_raw(raw) };
                Some(At {
                    context: self.context,
                    location: self.location,
                    block: terminator.block()?,
                    before: Some(terminator),
                })
            })
            .collect()
    }

    /// An `scf.for` from `lower` to `upper` by `step` with no carried
    /// values: a builder at the end of its body, and its induction variable.
    pub fn scf_for(
        &self,
        lower: IrValue<'c>,
        upper: IrValue<'c>,
        step: IrValue<'c>,
    ) -> Option<(At<'c, 'a>, IrValue<'c>)> {
        let region = Region::new();
        let block = region.append_block(Block::new(&[(Type::index(self.context), self.location)]));
        let iv = detach(block.argument(0).ok()?.into());
        let terminator =
            block.append_operation(OperationBuilder::new("scf.yield", self.location).build().ok()?).to_raw();
        self.insert(
            OperationBuilder::new("scf.for", self.location)
                .add_operands(&[lower, upper, step])
                .add_regions([region])
                .build()
                .ok()?,
        );
        // SAFETY: the yield is alive, owned by the body of the scf.for just
        // inserted into `self.block`, which outlives 'a.
        let terminator = unsafe { OperationRef::from_raw(terminator) };
        Some((
            At { context: self.context, location: self.location, block: terminator.block()?, before: Some(terminator) },
            iv,
        ))
    }

    /// `gpu.thread_id x`, `gpu.block_dim x` and the like.
    pub fn gpu_query(&self, name: &str) -> Option<IrValue<'c>> {
        self.op(name, &[], &["index"], &[("dimension", "#gpu<dim x>")])
    }
}

/// Shape and element type of a tile.
pub fn tile_of<'c>(value: Value<'c, '_>) -> Option<(Vec<i64>, Type<'c>)> {
    tile_type(value.r#type())
}

/// Shape and element type of a tile type.
pub fn tile_type(r#type: Type) -> Option<(Vec<i64>, Type)> {
    use melior::ir::r#type::{DimSize, ShapedTypeLike};
    let tensor = RankedTensorType::try_from(r#type).ok()?;
    let shape = (0..tensor.rank())
        .map(|d| match tensor.dim_size(d).ok()? {
            DimSize::Static(size) => i64::try_from(size).ok(),
            DimSize::Dynamic => None,
        })
        .collect::<Option<Vec<_>>>()?;
    Some((shape, tensor.element()))
}

/// Inserts `builder`'s op at the rewriter's insertion point; its first result.
pub fn insert<'c>(rewriter: &RewriterBase<'c, '_>, builder: OperationBuilder<'c>) -> Option<IrValue<'c>> {
    let op = rewriter.insert(builder.build().ok()?);
    Some(detach(op.result(0).ok()?.into()))
}

/// Inserts `builder`'s op, which has no results, at the rewriter's insertion
/// point.
pub fn insert_void<'c>(rewriter: &RewriterBase<'c, '_>, builder: OperationBuilder<'c>) -> Option<()> {
    rewriter.insert(builder.build().ok()?);
    Some(())
}

/// An `arith.constant` from the attribute's text form (`0xFF800000 : f32`).
pub fn constant<'c>(
    context: &'c Context,
    rewriter: &RewriterBase<'c, '_>,
    r#type: Type<'c>,
    value: &str,
    location: Location<'c>,
) -> Option<IrValue<'c>> {
    insert(
        rewriter,
        OperationBuilder::new("arith.constant", location)
            .add_attributes(&[(Identifier::new(context, "value"), attribute(context, value)?)])
            .add_results(&[r#type]),
    )
}

/// Special float values, as bit patterns of the element's own width (the
/// only text form MLIR's parser accepts for infinities and NaN).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Special {
    NegInf,
    PosInf,
    Nan,
}

/// The bit pattern of `special` in float type `element` (`f16`, `bf16`,
/// `f32`), or `None` for other types.
pub fn float_bits(element: Type, special: Special) -> Option<&'static str> {
    Some(match (element.to_string().as_str(), special) {
        ("f32", Special::NegInf) => "0xFF800000",
        ("f32", Special::PosInf) => "0x7F800000",
        ("f32", Special::Nan) => "0x7FC00000",
        ("f16", Special::NegInf) => "0xFC00",
        ("f16", Special::PosInf) => "0x7C00",
        ("f16", Special::Nan) => "0x7E00",
        ("bf16", Special::NegInf) => "0xFF80",
        ("bf16", Special::PosInf) => "0x7F80",
        ("bf16", Special::Nan) => "0x7FC0",
        _ => return None,
    })
}

/// Arithmetic on `index` values, inserted at a rewriter's insertion point.
pub struct IndexMath<'c, 'r> {
    pub context: &'c Context,
    pub rewriter: &'r RewriterBase<'c, 'r>,
    pub location: Location<'c>,
}

impl<'c> IndexMath<'c, '_> {
    fn index_type(&self) -> Type<'c> {
        Type::index(self.context)
    }

    pub fn constant(&self, value: i64) -> Option<IrValue<'c>> {
        constant(self.context, self.rewriter, self.index_type(), &format!("{value} : index"), self.location)
    }

    fn binary(&self, name: &str, a: IrValue<'c>, b: IrValue<'c>) -> Option<IrValue<'c>> {
        insert(
            self.rewriter,
            OperationBuilder::new(name, self.location).add_operands(&[a, b]).add_results(&[self.index_type()]),
        )
    }

    pub fn add(&self, a: IrValue<'c>, b: IrValue<'c>) -> Option<IrValue<'c>> {
        self.binary("arith.addi", a, b)
    }

    pub fn sub(&self, a: IrValue<'c>, b: IrValue<'c>) -> Option<IrValue<'c>> {
        self.binary("arith.subi", a, b)
    }

    pub fn mul(&self, a: IrValue<'c>, b: IrValue<'c>) -> Option<IrValue<'c>> {
        self.binary("arith.muli", a, b)
    }

    /// Unsigned quotient (operands are non-negative).
    pub fn div(&self, a: IrValue<'c>, b: IrValue<'c>) -> Option<IrValue<'c>> {
        self.binary("arith.divui", a, b)
    }

    /// Unsigned remainder (operands are non-negative).
    pub fn rem(&self, a: IrValue<'c>, b: IrValue<'c>) -> Option<IrValue<'c>> {
        self.binary("arith.remui", a, b)
    }

    /// Signed minimum and maximum: tile coordinates may be negative.
    pub fn min(&self, a: IrValue<'c>, b: IrValue<'c>) -> Option<IrValue<'c>> {
        self.binary("arith.minsi", a, b)
    }

    pub fn max(&self, a: IrValue<'c>, b: IrValue<'c>) -> Option<IrValue<'c>> {
        self.binary("arith.maxsi", a, b)
    }

    /// `min(max(value, low), high)`.
    pub fn clamp(&self, value: IrValue<'c>, low: IrValue<'c>, high: IrValue<'c>) -> Option<IrValue<'c>> {
        self.min(self.max(value, low)?, high)
    }

    /// `ceil(a / b)` for `a >= 0` and a positive constant `b`.
    pub fn ceil_div(&self, a: IrValue<'c>, b: i64) -> Option<IrValue<'c>> {
        let bias = self.add(a, self.constant(b - 1)?)?;
        self.div(bias, self.constant(b)?)
    }
}

pub fn attribute<'c>(context: &'c Context, text: &str) -> Option<Attribute<'c>> {
    Attribute::parse(context, text)
}

/// `tensor.empty` of a static tensor type.
pub fn empty<'c>(rewriter: &RewriterBase<'c, '_>, r#type: Type<'c>, location: Location<'c>) -> Option<IrValue<'c>> {
    insert(rewriter, OperationBuilder::new("tensor.empty", location).add_results(&[r#type]))
}

/// A dense splat constant of a tensor type, from the element's text form.
pub fn splat_constant<'c>(
    context: &'c Context,
    rewriter: &RewriterBase<'c, '_>,
    r#type: Type<'c>,
    element: &str,
    location: Location<'c>,
) -> Option<IrValue<'c>> {
    let value = attribute(context, &format!("dense<{element}> : {type}"))?;
    insert(
        rewriter,
        OperationBuilder::new("arith.constant", location)
            .add_attributes(&[(Identifier::new(context, "value"), value)])
            .add_results(&[r#type]),
    )
}

/// `(d0, ..., d{n-1})`.
pub fn dims(n: usize) -> String {
    (0..n).map(|d| format!("d{d}")).collect::<Vec<_>>().join(", ")
}

/// `affine_map<(d0..d{n-1}) -> (results)>`.
pub fn map(n: usize, results: &[String]) -> String {
    format!("affine_map<({}) -> ({})>", dims(n), results.join(", "))
}

/// The identity map over `n` loops.
pub fn identity(n: usize) -> String {
    map(n, &(0..n).map(|d| format!("d{d}")).collect::<Vec<_>>())
}

/// Element type of a shaped (tensor or memref) type.
pub fn element_of(r#type: Type) -> Option<Type> {
    // SAFETY: the type is live; the shaped-type query is only made on a
    // shaped type.
    unsafe {
        if !mlir_sys::mlirTypeIsAShaped(r#type.to_raw()) {
            return None;
        }
        Some(Type::from_raw(mlir_sys::mlirShapedTypeGetElementType(r#type.to_raw())))
    }
}

/// A `linalg.generic` over `loops` loops whose body `body` builds from the
/// block arguments (one per input, one per output) the yielded value; its
/// result, the new output tensor.
#[allow(clippy::too_many_arguments)]
pub fn generic<'c>(
    context: &'c Context,
    rewriter: &RewriterBase<'c, '_>,
    inputs: &[IrValue<'c>],
    output: IrValue<'c>,
    maps: &[String],
    iterators: &[&str],
    location: Location<'c>,
    body: impl FnOnce(&Block<'c>) -> Option<IrValue<'c>>,
) -> Option<IrValue<'c>> {
    generic_op(context, rewriter, inputs, output, maps, iterators, location, body)?
}

/// [`generic`] on tensors or memrefs: `None` if it could not be built, else
/// its result (`None` on memrefs, which it writes in place).
#[allow(clippy::too_many_arguments)]
pub fn generic_op<'c>(
    context: &'c Context,
    rewriter: &RewriterBase<'c, '_>,
    inputs: &[IrValue<'c>],
    output: IrValue<'c>,
    maps: &[String],
    iterators: &[&str],
    location: Location<'c>,
    body: impl FnOnce(&Block<'c>) -> Option<IrValue<'c>>,
) -> Option<Option<IrValue<'c>>> {
    let element_types = inputs
        .iter()
        .chain([&output])
        .map(|v| element_of(v.r#type()).map(|e| (e, location)))
        .collect::<Option<Vec<_>>>()?;
    let block = Block::new(&element_types);
    let yielded = body(&block)?;
    block.append_operation(OperationBuilder::new("linalg.yield", location).add_operands(&[yielded]).build().ok()?);
    let region = Region::new();
    region.append_block(block);
    let iterator_types = iterators.iter().map(|i| format!("#linalg.iterator_type<{i}>")).collect::<Vec<_>>().join(", ");
    let mut operands = inputs.to_vec();
    operands.push(output);
    let on_tensors = RankedTensorType::try_from(output.r#type()).is_ok();
    let results = if on_tensors { vec![output.r#type()] } else { vec![] };
    let op = rewriter.insert(
        OperationBuilder::new("linalg.generic", location)
            .add_operands(&operands)
            .add_results(&results)
            .add_attributes(&[
                (Identifier::new(context, "indexing_maps"), attribute(context, &format!("[{}]", maps.join(", ")))?),
                (Identifier::new(context, "iterator_types"), attribute(context, &format!("[{iterator_types}]"))?),
                (
                    Identifier::new(context, "operandSegmentSizes"),
                    attribute(context, &format!("array<i32: {}, 1>", inputs.len()))?,
                ),
            ])
            .add_regions([region])
            .build()
            .ok()?,
    );
    // (No result(0) on a memref generic: melior prints the op for the error.)
    Some((op.result_count() > 0).then(|| op.result(0).ok().map(|result| detach(result.into()))).flatten())
}

/// Appends an op to a generic's body and returns its first result.
pub fn push<'c>(block: &Block<'c>, builder: OperationBuilder<'c>) -> Option<IrValue<'c>> {
    // The block moves into the generic op's region, which keeps the op alive.
    let op = block.append_operation(builder.build().ok()?);
    Some(detach(op.result(0).ok()?.into()))
}

/// Argument `index` of a body block.
pub fn argument<'c>(block: &Block<'c>, index: usize) -> Option<IrValue<'c>> {
    Some(detach(block.argument(index).ok()?.into()))
}
