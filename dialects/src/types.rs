//! Building and inspecting `!tile.partition_view` and the tile enum attributes.

use crate::Error;
use melior::{
    Context,
    ir::{Attribute, Type, TypeLike},
};
use mlir_sys::{MlirContext, MlirType};
use std::fmt;

unsafe extern "C" {
    fn tileTypeIsAPartitionView(ty: MlirType) -> bool;
    fn tilePartitionViewTypeGetChecked(
        context: MlirContext,
        rank: isize,
        shape: *const i64,
        element_type: MlirType,
        padding: i32,
    ) -> MlirType;
    fn tilePartitionViewTypeGetRank(ty: MlirType) -> isize;
    fn tilePartitionViewTypeGetDim(ty: MlirType, dim: isize) -> i64;
    fn tilePartitionViewTypeGetElementType(ty: MlirType) -> MlirType;
    fn tilePartitionViewTypeGetPadding(ty: MlirType) -> i32;
}

/// Value of out-of-bounds elements on `tile.load`. The discriminants are
/// those of the ODS enum `Tile_Padding`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Padding {
    #[default]
    Zero = 0,
    NegInf = 1,
    PosInf = 2,
    Nan = 3,
}

impl Padding {
    fn from_raw(raw: i32) -> Self {
        match raw {
            1 => Self::NegInf,
            2 => Self::PosInf,
            3 => Self::Nan,
            _ => Self::Zero,
        }
    }

    /// The keyword in the type's syntax.
    pub fn keyword(self) -> &'static str {
        match self {
            Self::Zero => "zero",
            Self::NegInf => "neg_inf",
            Self::PosInf => "pos_inf",
            Self::Nan => "nan",
        }
    }
}

/// A grid axis, for `tile.block_id` and `tile.num_blocks`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Axis {
    X,
    Y,
    Z,
}

impl Axis {
    /// The axis as the `#tile<axis ...>` attribute the ops take. Fails only
    /// when the tile dialect is not registered in `context`.
    pub fn attribute(self, context: &Context) -> Result<Attribute<'_>, Error> {
        let name = match self {
            Self::X => "x",
            Self::Y => "y",
            Self::Z => "z",
        };
        enum_attribute(context, "axis", name)
    }
}

/// A reduction of `tile.reduce`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceKind {
    Add,
    Mul,
    Max,
    Min,
}

impl ReduceKind {
    /// The kind as the `#tile<reduce_kind ...>` attribute the op takes. Fails
    /// only when the tile dialect is not registered in `context`.
    pub fn attribute(self, context: &Context) -> Result<Attribute<'_>, Error> {
        let name = match self {
            Self::Add => "add",
            Self::Mul => "mul",
            Self::Max => "max",
            Self::Min => "min",
        };
        enum_attribute(context, "reduce_kind", name)
    }
}

fn enum_attribute<'c>(context: &'c Context, mnemonic: &str, value: &str) -> Result<Attribute<'c>, Error> {
    // The keywords are fixed by Tile.td, so the text parses whenever the
    // dialect is registered in the context.
    let text = format!("#tile<{mnemonic} {value}>");
    let (attribute, diagnostics) = crate::diagnostics::capture(context, || Attribute::parse(context, &text));
    attribute.ok_or(Error::Invalid {
        what: "attribute (is the tile dialect registered in this context?)",
        text: if diagnostics.is_empty() { text } else { diagnostics },
    })
}

/// `!tile.partition_view<shape x element, padding = ...>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartitionViewType<'c> {
    r#type: Type<'c>,
}

impl<'c> PartitionViewType<'c> {
    /// Builds the type; an error names the broken tile rule.
    pub fn new(context: &'c Context, shape: &[i64], element_type: Type<'c>, padding: Padding) -> Result<Self, Error> {
        // The C function reports at an unknown location: the message alone.
        let diagnostics = crate::diagnostics::capture_messages(context, || {
            // SAFETY: `shape` outlives the call; the C function copies it into
            // the context's uniqued storage and returns null on invalid input.
            unsafe {
                tilePartitionViewTypeGetChecked(
                    context.to_raw(),
                    shape.len() as isize,
                    shape.as_ptr(),
                    element_type.to_raw(),
                    padding as i32,
                )
            }
        });
        match diagnostics {
            (raw, _) if !raw.ptr.is_null() => {
                // SAFETY: non-null types returned by getChecked are valid for
                // the context's lifetime 'c.
                Ok(Self { r#type: unsafe { Type::from_raw(raw) } })
            }
            (_, text) => Err(Error::Invalid { what: "partition view type", text }),
        }
    }

    /// Views `r#type` as a partition view, if it is one.
    pub fn try_from_type(r#type: Type<'c>) -> Option<Self> {
        // SAFETY: an isa check on a valid type.
        unsafe { tileTypeIsAPartitionView(r#type.to_raw()) }.then_some(Self { r#type })
    }

    /// The tile shape.
    pub fn shape(&self) -> Vec<i64> {
        // SAFETY: `self` is a partition view (checked on construction) and
        // every dim index is below its rank.
        unsafe {
            let rank = tilePartitionViewTypeGetRank(self.r#type.to_raw());
            (0..rank).map(|d| tilePartitionViewTypeGetDim(self.r#type.to_raw(), d)).collect()
        }
    }

    /// The element type.
    pub fn element_type(&self) -> Type<'c> {
        // SAFETY: `self` is a partition view; the result lives in its context.
        unsafe { Type::from_raw(tilePartitionViewTypeGetElementType(self.r#type.to_raw())) }
    }

    /// The padding value of out-of-bounds loads.
    pub fn padding(&self) -> Padding {
        // SAFETY: `self` is a partition view.
        Padding::from_raw(unsafe { tilePartitionViewTypeGetPadding(self.r#type.to_raw()) })
    }
}

impl<'c> From<PartitionViewType<'c>> for Type<'c> {
    fn from(view: PartitionViewType<'c>) -> Self {
        view.r#type
    }
}

impl fmt::Display for PartitionViewType<'_> {
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        fmt::Display::fmt(&self.r#type, formatter)
    }
}
