//! Small builders shared by the lowerings.
//!
//! Ops are built typed: with melior's dialect modules
//! (`melior::dialect::{arith, scf, func, memref}`) and its ODS-generated ones
//! (`melior::dialect::ods::{tensor, linalg, bufferization, ...}`), with
//! attributes from their typed constructors. Ops are built by name only
//! where melior has no usable builder (`linalg.generic`, the GPU index
//! queries) and attributes parsed from text only where MLIR's C API has no
//! constructor (`#linalg.iterator_type`, `#gpu<dim x>`); each such place says
//! so. [`At::op`] and [`At::void`] are the legacy, stringly path, still
//! called by the SIMT path's passes (`tile-distribute`,
//! `tile-vectorize-copies`, `convert-tile-to-gpu`); new code does not.
//!
//! melior's ODS builders do not set `operandSegmentSizes`; [`with_segments`]
//! sets it on ops with several variadic operand groups.

use crate::rewrite::{BlockProbe, Probe};
pub use crate::rewrite::{IrValue, detach, operand};
pub use melior::dialect::arith::CmpiPredicate;
use melior::{
    Context, RewriterBase,
    dialect::{arith, ods, scf},
    ir::{
        AffineExpr, AffineMap, Attribute, Block, BlockLike, BlockRef, Identifier, Location, OperationRef, Region,
        RegionLike, Type, TypeLike, Value, ValueLike,
        attribute::{ArrayAttribute, DenseElementsAttribute, DenseI32ArrayAttribute, FloatAttribute, IntegerAttribute},
        operation::{Operation, OperationBuilder, OperationLike, OperationMutLike},
        r#type::RankedTensorType,
    },
};

/// A binary `arith` builder of melior's (`arith::addi` and the like): the
/// result type is inferred from the operands.
type Binary<'c> = fn(Value<'c, '_>, Value<'c, '_>, Location<'c>) -> Operation<'c>;

/// The typed builder of a binary integer `arith` op, by name: what keeps the
/// legacy [`At::index_op`] typed.
fn binary_by_name<'c>(name: &str) -> Option<Binary<'c>> {
    // Each arm cast apart: fn items do not meet in a common fn pointer type.
    let binary: Binary<'c> = match name {
        "arith.addi" => arith::addi as Binary,
        "arith.subi" => arith::subi as Binary,
        "arith.muli" => arith::muli as Binary,
        "arith.divui" => arith::divui as Binary,
        "arith.divsi" => arith::divsi as Binary,
        "arith.remui" => arith::remui as Binary,
        "arith.remsi" => arith::remsi as Binary,
        "arith.ceildivui" => arith::ceildivui as Binary,
        "arith.ceildivsi" => arith::ceildivsi as Binary,
        "arith.minsi" => arith::minsi as Binary,
        "arith.maxsi" => arith::maxsi as Binary,
        "arith.minui" => arith::minui as Binary,
        "arith.maxui" => arith::maxui as Binary,
        "arith.andi" => arith::andi as Binary,
        "arith.ori" => arith::ori as Binary,
        "arith.xori" => arith::xori as Binary,
        "arith.shli" => arith::shli as Binary,
        "arith.shrui" => arith::shrui as Binary,
        _ => return None,
    };
    Some(binary)
}

/// The GPU's `index` queries along one dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuQuery {
    ThreadId,
    BlockId,
    BlockDim,
    GridDim,
    /// The block's rank in its cluster (`gpu.cluster_block_id`).
    ClusterBlockId,
}

impl GpuQuery {
    fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "gpu.thread_id" => Self::ThreadId,
            "gpu.block_id" => Self::BlockId,
            "gpu.block_dim" => Self::BlockDim,
            "gpu.grid_dim" => Self::GridDim,
            "gpu.cluster_block_id" => Self::ClusterBlockId,
            _ => return None,
        })
    }
}

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

    /// Inserts `op` (a melior `Operation` or an ODS-generated op); the
    /// inserted op.
    pub fn insert(&self, op: impl Into<Operation<'c>>) -> OperationRef<'c, 'a> {
        match self.before {
            Some(anchor) => self.block.insert_operation_before(anchor, op.into()),
            None => self.block.append_operation(op.into()),
        }
    }

    /// Inserts `op`; its first result, if it has one.
    pub fn add(&self, op: impl Into<Operation<'c>>) -> Option<IrValue<'c>> {
        first_result(self.insert(op))
    }

    /// `llvm.inline_asm` with side effects (LLVM neither moves nor drops
    /// it): PTX `text` over `operands`, with LLVM's `constraints`, giving
    /// `result` (a struct for several outputs) or nothing. Not inserted.
    pub fn asm(
        &self,
        text: &str,
        constraints: &str,
        operands: &[IrValue<'c>],
        result: Option<Type<'c>>,
    ) -> Option<Operation<'c>> {
        let context = self.context;
        let named = |name: &str, value: Attribute<'c>| (Identifier::new(context, name), value);
        let mut builder = OperationBuilder::new("llvm.inline_asm", self.location).add_operands(operands);
        if let Some(result) = result {
            builder = builder.add_results(&[result]);
        }
        builder
            .add_attributes(&[
                named("asm_string", melior::ir::attribute::StringAttribute::new(context, text).into()),
                named("constraints", melior::ir::attribute::StringAttribute::new(context, constraints).into()),
                named("has_side_effects", Attribute::unit(context)),
            ])
            .build()
            .ok()
    }

    /// The fields of `value`, an LLVM struct of `types`.
    pub fn fields(&self, value: IrValue<'c>, types: &[Type<'c>]) -> Option<Vec<IrValue<'c>>> {
        (0..types.len())
            .map(|i| {
                self.add(melior::dialect::llvm::extract_value(
                    self.context,
                    value,
                    melior::ir::attribute::DenseI64ArrayAttribute::new(self.context, &[i as i64]),
                    types[i],
                    self.location,
                ))
            })
            .collect()
    }

    /// Legacy, stringly path (the SIMT path's passes; new code uses the typed
    /// helpers below, or [`At::add`] with a melior builder): inserts op
    /// `name` with result and attribute types in text form; its first result
    /// (`None` when it has none or the text is invalid).
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

    /// Legacy, stringly path: [`At::op`] for ops without results; the
    /// inserted op.
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

    /// An `index` result of op `name`: typed for the integer `arith` ops
    /// (and `arith.index_castui`), the legacy path otherwise. New code calls
    /// [`At::addi`] and the like.
    pub fn index_op(&self, name: &str, operands: &[IrValue<'c>]) -> Option<IrValue<'c>> {
        match (binary_by_name(name), operands) {
            (Some(binary), &[a, b]) => self.add(binary(a, b, self.location)),
            (None, &[value]) if name == "arith.index_castui" => {
                self.add(arith::index_castui(value, Type::index(self.context), self.location))
            }
            _ => self.op(name, operands, &["index"], &[]),
        }
    }

    /// An `index` constant.
    pub fn index(&self, value: i64) -> Option<IrValue<'c>> {
        self.add(index_constant(self.context, value, self.location))
    }

    /// An integer constant of type `r#type` (`i32`, `index`, ...).
    pub fn int(&self, r#type: Type<'c>, value: i64) -> Option<IrValue<'c>> {
        self.add(arith::constant(self.context, IntegerAttribute::new(r#type, value).into(), self.location))
    }

    /// `arith.cmpi predicate, a, b`.
    pub fn cmpi(&self, predicate: CmpiPredicate, a: IrValue<'c>, b: IrValue<'c>) -> Option<IrValue<'c>> {
        self.add(arith::cmpi(self.context, predicate, a, b, self.location))
    }

    /// `arith.select condition, a, b`.
    pub fn select(&self, condition: IrValue<'c>, a: IrValue<'c>, b: IrValue<'c>) -> Option<IrValue<'c>> {
        self.add(arith::select(condition, a, b, self.location))
    }

    pub fn addi(&self, a: IrValue<'c>, b: IrValue<'c>) -> Option<IrValue<'c>> {
        self.add(arith::addi(a, b, self.location))
    }

    pub fn subi(&self, a: IrValue<'c>, b: IrValue<'c>) -> Option<IrValue<'c>> {
        self.add(arith::subi(a, b, self.location))
    }

    pub fn muli(&self, a: IrValue<'c>, b: IrValue<'c>) -> Option<IrValue<'c>> {
        self.add(arith::muli(a, b, self.location))
    }

    /// Unsigned quotient.
    pub fn divui(&self, a: IrValue<'c>, b: IrValue<'c>) -> Option<IrValue<'c>> {
        self.add(arith::divui(a, b, self.location))
    }

    /// Logical shift right.
    pub fn shrui(&self, a: IrValue<'c>, b: IrValue<'c>) -> Option<IrValue<'c>> {
        self.add(arith::shrui(a, b, self.location))
    }

    /// Unsigned remainder.
    pub fn remui(&self, a: IrValue<'c>, b: IrValue<'c>) -> Option<IrValue<'c>> {
        self.add(arith::remui(a, b, self.location))
    }

    /// Unsigned quotient, rounded up.
    pub fn ceildivui(&self, a: IrValue<'c>, b: IrValue<'c>) -> Option<IrValue<'c>> {
        self.add(arith::ceildivui(a, b, self.location))
    }

    /// Signed minimum.
    pub fn minsi(&self, a: IrValue<'c>, b: IrValue<'c>) -> Option<IrValue<'c>> {
        self.add(arith::minsi(a, b, self.location))
    }

    /// Unsigned minimum.
    pub fn minui(&self, a: IrValue<'c>, b: IrValue<'c>) -> Option<IrValue<'c>> {
        self.add(arith::minui(a, b, self.location))
    }

    /// Signed maximum.
    pub fn maxsi(&self, a: IrValue<'c>, b: IrValue<'c>) -> Option<IrValue<'c>> {
        self.add(arith::maxsi(a, b, self.location))
    }

    pub fn andi(&self, a: IrValue<'c>, b: IrValue<'c>) -> Option<IrValue<'c>> {
        self.add(arith::andi(a, b, self.location))
    }

    pub fn ori(&self, a: IrValue<'c>, b: IrValue<'c>) -> Option<IrValue<'c>> {
        self.add(arith::ori(a, b, self.location))
    }

    pub fn xori(&self, a: IrValue<'c>, b: IrValue<'c>) -> Option<IrValue<'c>> {
        self.add(arith::xori(a, b, self.location))
    }

    /// Inserts `scf.if %condition { }` (with an empty `else { }` when
    /// `with_else`), without results; builders for its regions, each
    /// before the region's `scf.yield`.
    pub fn scf_if(&self, condition: IrValue<'c>, with_else: bool) -> Option<Vec<At<'c, 'a>>> {
        let regions = [Region::new(), Region::new()];
        let mut yields = Vec::new();
        for region in &regions[..1 + usize::from(with_else)] {
            let block = region.append_block(Block::new(&[]));
            yields.push(block.append_operation(scf::r#yield(&[], self.location)).to_raw());
        }
        let [then_region, else_region] = regions;
        self.insert(scf::r#if(condition, &[], then_region, else_region, self.location));
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
        let iv = detach(block.argument_at(0)?.into());
        let terminator = block.append_operation(scf::r#yield(&[], self.location)).to_raw();
        self.insert(scf::r#for(lower, upper, step, region, self.location));
        // SAFETY: the yield is alive, owned by the body of the scf.for just
        // inserted into `self.block`, which outlives 'a.
        let terminator = unsafe { OperationRef::from_raw(terminator) };
        Some((
            At { context: self.context, location: self.location, block: terminator.block()?, before: Some(terminator) },
            iv,
        ))
    }

    /// [`Self::scf_for`] marked for LLVM to leave rolled
    /// (`llvm.loop_annotation`, which `convert-scf-to-cf` carries onto the
    /// back edge): for rare paths whose code is kept small rather than
    /// fast, where a short constant trip count would be unrolled.
    pub fn scf_for_rolled(
        &self,
        lower: IrValue<'c>,
        upper: IrValue<'c>,
        step: IrValue<'c>,
    ) -> Option<(At<'c, 'a>, IrValue<'c>)> {
        let (body, iv) = self.scf_for(lower, upper, step)?;
        let r#loop = body.block.parent_operation()?;
        let annotation = attribute(self.context, "#llvm.loop_annotation<unroll = #llvm.loop_unroll<disable = true>>")?;
        // SAFETY: the loop was just inserted and nothing else holds it.
        let mut r#loop = unsafe { melior::ir::operation::OperationRefMut::from_raw(r#loop.to_raw()) };
        r#loop.set_attribute("llvm.loop_annotation", annotation);
        Some((body, iv))
    }

    /// `gpu.thread_id x` and the like.
    pub fn gpu(&self, query: GpuQuery) -> Option<IrValue<'c>> {
        let name = match query {
            GpuQuery::ThreadId => "gpu.thread_id",
            GpuQuery::BlockId => "gpu.block_id",
            GpuQuery::BlockDim => "gpu.block_dim",
            GpuQuery::GridDim => "gpu.grid_dim",
            GpuQuery::ClusterBlockId => "gpu.cluster_block_id",
        };
        // Built by name: melior's ODS builders for these ops drop their
        // (unnamed) `index` result, and the GPU dialect's DimensionAttr has
        // no C API constructor.
        self.add(
            OperationBuilder::new(name, self.location)
                .add_attributes(&[(
                    Identifier::new(self.context, "dimension"),
                    attribute(self.context, "#gpu<dim x>")?,
                )])
                .add_results(&[Type::index(self.context)])
                .build()
                .ok()?,
        )
    }

    /// `gpu.thread_id x`, `gpu.block_dim x` and the like, by name (typed for
    /// the four queries, the legacy path for any other name).
    pub fn gpu_query(&self, name: &str) -> Option<IrValue<'c>> {
        match GpuQuery::from_name(name) {
            Some(query) => self.gpu(query),
            None => self.op(name, &[], &["index"], &[("dimension", "#gpu<dim x>")]),
        }
    }
}

/// The first result of an inserted (or appended) op, if it has one.
fn first_result<'c>(op: OperationRef<'c, '_>) -> Option<IrValue<'c>> {
    // Asking melior for a result that is not there prints the op (for the
    // error), which reads the whole module: a data race while another
    // thread rewrites a sibling function.
    if op.result_count() == 0 {
        return None;
    }
    op.result_at(0).map(|r| detach(r.into()))
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

/// Inserts `op` at the rewriter's insertion point; its first result.
pub fn insert<'c>(rewriter: &RewriterBase<'c, '_>, op: impl Into<Operation<'c>>) -> Option<IrValue<'c>> {
    first_result(rewriter.insert(op.into()))
}

/// Inserts `op`, which has no results, at the rewriter's insertion point.
pub fn insert_void<'c>(rewriter: &RewriterBase<'c, '_>, op: impl Into<Operation<'c>>) {
    rewriter.insert(op.into());
}

/// Sets `operandSegmentSizes`, the operand count of each operand group, on
/// an op with several variadic groups: melior's ODS builders leave it unset.
pub fn with_segments<'c>(op: impl Into<Operation<'c>>, context: &'c Context, sizes: &[usize]) -> Option<Operation<'c>> {
    let mut op = op.into();
    let sizes = sizes.iter().map(|&n| i32::try_from(n).ok()).collect::<Option<Vec<_>>>()?;
    op.set_attribute("operandSegmentSizes", DenseI32ArrayAttribute::new(context, &sizes).into());
    Some(op)
}

/// An `index` constant op.
pub fn index_constant<'c>(context: &'c Context, value: i64, location: Location<'c>) -> Operation<'c> {
    arith::constant(context, IntegerAttribute::new(Type::index(context), value).into(), location)
}

/// An `arith.constant` of `value` (a typed scalar or dense attribute).
pub fn constant<'c>(
    context: &'c Context,
    rewriter: &RewriterBase<'c, '_>,
    value: Attribute<'c>,
    location: Location<'c>,
) -> Option<IrValue<'c>> {
    insert(rewriter, arith::constant(context, value, location))
}

/// Special float values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Special {
    NegInf,
    PosInf,
    Nan,
}

/// The bit pattern of `special` in float type `element` (`f16`, `bf16`, f8,
/// `f32`), or `None` for other types: the text form of these values.
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
        // f8E4M3FN has no infinities (the view verifier rejects them).
        ("f8E4M3FN", Special::Nan) => "0x7F",
        ("f8E5M2", Special::NegInf) => "0xFC",
        ("f8E5M2", Special::PosInf) => "0x7C",
        ("f8E5M2", Special::Nan) => "0x7E",
        _ => return None,
    })
}

/// `special` as a float attribute of `element` (`f16`, `bf16`, `f32`, f8; `None`
/// for other types, as in [`float_bits`]). The quiet NaN is the canonical
/// one, as the bit patterns above.
pub fn special_attribute<'c>(context: &'c Context, element: Type<'c>, special: Special) -> Option<Attribute<'c>> {
    float_bits(element, special)?;
    let value = match special {
        Special::NegInf => f64::NEG_INFINITY,
        Special::PosInf => f64::INFINITY,
        Special::Nan => f64::NAN,
    };
    Some(FloatAttribute::new(context, element, value).into())
}

/// A scalar attribute of `element`: a float for float types, else an integer.
pub fn scalar_attribute<'c>(context: &'c Context, element: Type<'c>, float: f64, integer: i64) -> Attribute<'c> {
    if element.is_float() {
        FloatAttribute::new(context, element, float).into()
    } else {
        IntegerAttribute::new(element, integer).into()
    }
}

/// Arithmetic on `index` values, inserted at a rewriter's insertion point.
pub struct IndexMath<'c, 'r> {
    pub context: &'c Context,
    pub rewriter: &'r RewriterBase<'c, 'r>,
    pub location: Location<'c>,
}

impl<'c> IndexMath<'c, '_> {
    pub fn constant(&self, value: i64) -> Option<IrValue<'c>> {
        insert(self.rewriter, index_constant(self.context, value, self.location))
    }

    fn binary(&self, op: Binary<'c>, a: IrValue<'c>, b: IrValue<'c>) -> Option<IrValue<'c>> {
        insert(self.rewriter, op(a, b, self.location))
    }

    pub fn add(&self, a: IrValue<'c>, b: IrValue<'c>) -> Option<IrValue<'c>> {
        self.binary(arith::addi, a, b)
    }

    pub fn sub(&self, a: IrValue<'c>, b: IrValue<'c>) -> Option<IrValue<'c>> {
        self.binary(arith::subi, a, b)
    }

    pub fn mul(&self, a: IrValue<'c>, b: IrValue<'c>) -> Option<IrValue<'c>> {
        self.binary(arith::muli, a, b)
    }

    /// Unsigned quotient (operands are non-negative).
    pub fn div(&self, a: IrValue<'c>, b: IrValue<'c>) -> Option<IrValue<'c>> {
        self.binary(arith::divui, a, b)
    }

    /// Unsigned remainder (operands are non-negative).
    pub fn rem(&self, a: IrValue<'c>, b: IrValue<'c>) -> Option<IrValue<'c>> {
        self.binary(arith::remui, a, b)
    }

    /// Signed minimum and maximum: tile coordinates may be negative.
    pub fn min(&self, a: IrValue<'c>, b: IrValue<'c>) -> Option<IrValue<'c>> {
        self.binary(arith::minsi, a, b)
    }

    pub fn max(&self, a: IrValue<'c>, b: IrValue<'c>) -> Option<IrValue<'c>> {
        self.binary(arith::maxsi, a, b)
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

/// An attribute from its text form, for attributes that have no typed
/// constructor (and the legacy path).
pub fn attribute<'c>(context: &'c Context, text: &str) -> Option<Attribute<'c>> {
    Attribute::parse(context, text)
}

/// `tensor.empty` of a static tensor type.
pub fn empty<'c>(
    context: &'c Context,
    rewriter: &RewriterBase<'c, '_>,
    r#type: Type<'c>,
    location: Location<'c>,
) -> Option<IrValue<'c>> {
    insert(rewriter, ods::tensor::empty(context, r#type, &[], location))
}

/// A dense splat constant of a tensor type, from the element's attribute.
pub fn splat_constant<'c>(
    context: &'c Context,
    rewriter: &RewriterBase<'c, '_>,
    r#type: Type<'c>,
    element: Attribute<'c>,
    location: Location<'c>,
) -> Option<IrValue<'c>> {
    constant(context, rewriter, DenseElementsAttribute::splat(r#type, element).into(), location)
}

/// `(d0, ..., d{n-1})`: the text form, for maps written as text.
pub fn dims(n: usize) -> String {
    (0..n).map(|d| format!("d{d}")).collect::<Vec<_>>().join(", ")
}

/// `affine_map<(d0..d{n-1}) -> (results)>` as text (see [`affine_map`]).
pub fn map(n: usize, results: &[String]) -> String {
    format!("affine_map<({}) -> ({})>", dims(n), results.join(", "))
}

/// The identity map over `n` loops, in text (see [`identity_map`]).
pub fn identity(n: usize) -> String {
    map(n, &(0..n).map(|d| format!("d{d}")).collect::<Vec<_>>())
}

/// A map result of an indexing map: loop `d{i}`, or a constant index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Index {
    Loop(usize),
    Constant(i64),
}

/// `affine_map<(d0..d{loops-1}) -> (results)>`.
pub fn affine_map<'c>(context: &'c Context, loops: usize, results: &[Index]) -> AffineMap<'c> {
    let results = results
        .iter()
        .map(|&result| match result {
            Index::Loop(d) => AffineExpr::dim(context, d),
            Index::Constant(value) => AffineExpr::constant(context, value),
        })
        .collect::<Vec<_>>();
    AffineMap::new(context, loops, 0, &results)
}

/// The identity map over `n` loops.
pub fn identity_map(context: &Context, n: usize) -> AffineMap<'_> {
    AffineMap::multi_dim_identity(context, n)
}

/// An indexing map of a `linalg.generic`: typed ([`AffineMap`]) or, for
/// older callers, in text.
pub trait IndexingMap<'c> {
    fn attribute(&self, context: &'c Context) -> Option<Attribute<'c>>;
}

impl<'c> IndexingMap<'c> for AffineMap<'c> {
    fn attribute(&self, _context: &'c Context) -> Option<Attribute<'c>> {
        // SAFETY: the map is live (uniqued in the context, which outlives
        // 'c); the attribute wraps it.
        Some(unsafe { Attribute::from_raw(mlir_sys::mlirAffineMapAttrGet(self.to_raw())) })
    }
}

impl<'c> IndexingMap<'c> for String {
    fn attribute(&self, context: &'c Context) -> Option<Attribute<'c>> {
        attribute(context, self)
    }
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
pub fn generic<'c, M: IndexingMap<'c>>(
    context: &'c Context,
    rewriter: &RewriterBase<'c, '_>,
    inputs: &[IrValue<'c>],
    output: IrValue<'c>,
    maps: &[M],
    iterators: &[&str],
    location: Location<'c>,
    body: impl FnOnce(&Block<'c>) -> Option<IrValue<'c>>,
) -> Option<IrValue<'c>> {
    generic_op(context, rewriter, inputs, output, maps, iterators, location, body)?
}

/// [`generic`] on tensors or memrefs: `None` if it could not be built, else
/// its result (`None` on memrefs, which it writes in place).
#[allow(clippy::too_many_arguments)]
pub fn generic_op<'c, M: IndexingMap<'c>>(
    context: &'c Context,
    rewriter: &RewriterBase<'c, '_>,
    inputs: &[IrValue<'c>],
    output: IrValue<'c>,
    maps: &[M],
    iterators: &[&str],
    location: Location<'c>,
    body: impl FnOnce(&Block<'c>) -> Option<IrValue<'c>>,
) -> Option<Option<IrValue<'c>>> {
    use ods::linalg;
    let element_types = inputs
        .iter()
        .chain([&output])
        .map(|v| element_of(v.r#type()).map(|e| (e, location)))
        .collect::<Option<Vec<_>>>()?;
    let block = Block::new(&element_types);
    let yielded = body(&block)?;
    block.append_operation(linalg::r#yield(context, &[yielded], location).into());
    let region = Region::new();
    region.append_block(block);
    let maps = maps.iter().map(|m| m.attribute(context)).collect::<Option<Vec<_>>>()?;
    // linalg's IteratorTypeAttr has no C API constructor: parsed from text.
    let iterators = iterators
        .iter()
        .map(|i| attribute(context, &format!("#linalg.iterator_type<{i}>")))
        .collect::<Option<Vec<_>>>()?;
    let on_tensors = RankedTensorType::try_from(output.r#type()).is_ok();
    let results = if on_tensors { vec![output.r#type()] } else { vec![] };
    // melior's ODS `linalg` module is generated from LinalgOps.td alone,
    // which lacks the structured ops: the one op built by name here.
    let op = OperationBuilder::new("linalg.generic", location)
        .add_operands(inputs)
        .add_operands(&[output])
        .add_results(&results)
        .add_attributes(&[
            (Identifier::new(context, "indexing_maps"), ArrayAttribute::new(context, &maps).into()),
            (Identifier::new(context, "iterator_types"), ArrayAttribute::new(context, &iterators).into()),
        ])
        .add_regions([region])
        .build()
        .ok()?;
    let op = rewriter.insert(with_segments(op, context, &[inputs.len(), 1])?);
    // (No result(0) on a memref generic: melior prints the op for the error.)
    Some(first_result(op))
}

/// Appends `op` to a generic's body; its first result.
pub fn push<'c>(block: &Block<'c>, op: impl Into<Operation<'c>>) -> Option<IrValue<'c>> {
    // The block moves into the generic op's region, which keeps the op alive.
    first_result(block.append_operation(op.into()))
}

/// Argument `index` of a body block.
pub fn argument<'c>(block: &Block<'c>, index: usize) -> Option<IrValue<'c>> {
    Some(detach(block.argument_at(index)?.into()))
}

/// Storage bits of an element (`i1` takes a byte, like LLVM memory).
pub fn element_bits(element: Type) -> Option<u64> {
    if element.is_index() {
        return Some(64);
    }
    let text = element.to_string();
    Some(match text.as_str() {
        "i1" | "i8" | "f8E4M3FN" | "f8E5M2" => 8,
        "f16" | "bf16" | "i16" => 16,
        "f32" | "i32" => 32,
        "f64" | "i64" => 64,
        _ => return None,
    })
}

/// The kind of a `tile.reduce` (`add`, `mul`, `max`, `min`).
pub fn reduce_kind(attribute: Attribute) -> Option<&'static str> {
    let text = attribute.to_string();
    ["add", "mul", "max", "min"].into_iter().find(|k| text.ends_with(&format!("{k}>")))
}

/// The op that combines the accumulator `a` with an element `b`.
pub fn combine<'c>(
    context: &'c Context,
    kind: &str,
    float: bool,
    a: IrValue<'c>,
    b: IrValue<'c>,
    location: Location<'c>,
) -> Operation<'c> {
    match (kind, float) {
        ("add", true) => arith::addf(a, b, location),
        ("add", false) => arith::addi(a, b, location),
        ("mul", true) => arith::mulf(a, b, location),
        ("mul", false) => arith::muli(a, b, location),
        // melior's arith module has no maximumf.
        ("max", true) => ods::arith::maximumf(context, a, b, location).into(),
        ("max", false) => arith::maxsi(a, b, location),
        ("min", true) => arith::minimumf(a, b, location),
        _ => arith::minsi(a, b, location),
    }
}

/// The splat element equal to the view's padding.
pub fn padding_value<'c>(
    context: &'c Context,
    padding: tile_dialect::types::Padding,
    element: Type<'c>,
) -> Option<Attribute<'c>> {
    let special = match padding {
        tile_dialect::types::Padding::Zero => return Some(scalar_attribute(context, element, 0.0, 0)),
        tile_dialect::types::Padding::NegInf => Special::NegInf,
        tile_dialect::types::Padding::PosInf => Special::PosInf,
        tile_dialect::types::Padding::Nan => Special::Nan,
    };
    special_attribute(context, element, special)
}

/// An `scf.if` yielding `types`, its regions built by `then` and
/// `otherwise` (each returns the values its branch yields).
pub fn if_else<'c>(
    at: &At<'c, 'c>,
    condition: IrValue<'c>,
    types: &[Type<'c>],
    then: impl FnOnce(&At<'c, 'c>) -> Option<Vec<IrValue<'c>>>,
    otherwise: impl FnOnce(&At<'c, 'c>) -> Option<Vec<IrValue<'c>>>,
) -> Option<Vec<IrValue<'c>>> {
    let op = if_else_op(at, condition, types, then, otherwise)?;
    (0..op.result_count()).map(|i| op.result_at(i).map(|r| detach(r.into()))).collect()
}

/// [`if_else`], giving the `scf.if` itself.
pub fn if_else_op<'c>(
    at: &At<'c, 'c>,
    condition: IrValue<'c>,
    types: &[Type<'c>],
    then: impl FnOnce(&At<'c, 'c>) -> Option<Vec<IrValue<'c>>>,
    otherwise: impl FnOnce(&At<'c, 'c>) -> Option<Vec<IrValue<'c>>>,
) -> Option<OperationRef<'c, 'c>> {
    let regions = [Region::new(), Region::new()];
    let mut blocks = Vec::new();
    for region in &regions {
        blocks.push(region.append_block(Block::new(&[])).to_raw());
    }
    let [then_region, else_region] = regions;
    let op = at.insert(scf::r#if(condition, types, then_region, else_region, at.location));
    for (raw, build) in blocks
        .into_iter()
        .zip([Box::new(then) as Box<dyn FnOnce(&At<'c, 'c>) -> Option<Vec<IrValue<'c>>>>, Box::new(otherwise)])
    {
        // SAFETY: the block belongs to the scf.if just inserted, which
        // lives as long as the kernel.
        let block = unsafe { melior::ir::BlockRef::from_raw(raw) };
        let inner = At { context: at.context, location: at.location, block, before: None };
        let values = build(&inner)?;
        inner.insert(scf::r#yield(&values, at.location));
    }
    Some(op)
}
