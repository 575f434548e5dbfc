//! A kernel's parameter ABI, and the checks that make launches safe.

use crate::{Array, DType, Error, Result};
use serde::{Deserialize, Serialize};

/// A scalar parameter type of a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ScalarType {
    Index,
    I32,
    I64,
    F32,
}

impl ScalarType {
    pub fn mlir_name(self) -> &'static str {
        match self {
            ScalarType::Index => "index",
            ScalarType::I32 => "i32",
            ScalarType::I64 => "i64",
            ScalarType::F32 => "f32",
        }
    }

    pub fn from_mlir_name(name: &str) -> Option<ScalarType> {
        [ScalarType::Index, ScalarType::I32, ScalarType::I64, ScalarType::F32]
            .into_iter()
            .find(|t| t.mlir_name() == name)
    }

    /// Parses a command-line number as a value of this type.
    pub fn parse(self, text: &str) -> Option<Scalar> {
        Some(match self {
            ScalarType::Index => Scalar::Index(text.parse().ok()?),
            ScalarType::I32 => Scalar::I32(text.parse().ok()?),
            ScalarType::I64 => Scalar::I64(text.parse().ok()?),
            ScalarType::F32 => Scalar::F32(text.parse().ok()?),
        })
    }
}

/// A scalar argument.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    Index(i64),
    I32(i32),
    I64(i64),
    F32(f32),
}

impl Scalar {
    pub fn scalar_type(self) -> ScalarType {
        match self {
            Scalar::Index(_) => ScalarType::Index,
            Scalar::I32(_) => ScalarType::I32,
            Scalar::I64(_) => ScalarType::I64,
            Scalar::F32(_) => ScalarType::F32,
        }
    }
}

impl Scalar {
    /// The scalar as one 8-byte parameter slot, its value in the low bytes
    /// (a 4-byte parameter reads those on a little-endian host).
    pub fn slot(self) -> u64 {
        match self {
            Scalar::Index(v) | Scalar::I64(v) => v as u64,
            Scalar::I32(v) => v as u32 as u64,
            Scalar::F32(v) => v.to_bits() as u64,
        }
    }
}

/// The parameter slots of a memref argument, as MLIR's LLVM lowering (CPU
/// and GPU alike) expands a memref descriptor: allocated pointer, aligned
/// pointer, offset (0), then each size and each stride, in elements.
pub fn memref_slots(address: u64, array: &Array) -> impl Iterator<Item = u64> + '_ {
    [address, address, 0]
        .into_iter()
        .chain(array.shape().iter().map(|&d| d as u64))
        .chain(array.strides().into_iter().map(|s| s as u64))
}

/// One kernel parameter.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Param {
    /// A memref: element type, extents (`None` where dynamic) and strides in
    /// elements (`None` where dynamic; the innermost is always 1).
    Memref {
        dtype: DType,
        shape: Vec<Option<u64>>,
        strides: Vec<Option<i64>>,
    },
    Scalar(ScalarType),
}

impl std::fmt::Display for Param {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Param::Memref { dtype, shape, .. } => {
                let dims: Vec<String> = shape.iter().map(|d| d.map_or("?".to_string(), |d| d.to_string())).collect();
                write!(f, "memref<{}x{dtype}>", dims.join("x"))
            }
            Param::Scalar(t) => f.write_str(t.mlir_name()),
        }
    }
}

/// A kernel's name and parameters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signature {
    pub name: String,
    pub params: Vec<Param>,
}

/// An argument of a launch.
#[derive(Debug)]
pub enum Arg<'a> {
    Array(&'a mut Array),
    Scalar(Scalar),
}

/// A launch grid: blocks along x, y and z.
///
/// Both targets take the same grids, within CUDA's limits (x below 2^31, y
/// and z at most 65535): the CPU keeps them too, so that a grid one target
/// runs the other runs as well, and so that a mistyped grid is an error
/// rather than a run of billions of blocks. A dim of 0 is an empty grid:
/// launchers check the arguments, then return without running a block
/// (`--grid tiles:I` of an empty array is such a grid).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid(pub [u64; 3]);

impl Grid {
    /// The largest dims a grid may have: CUDA's launch limits.
    pub const MAX: [u64; 3] = [i32::MAX as u64, 65535, 65535];

    /// A grid within [`Grid::MAX`]; dims of 0 are allowed (an empty grid).
    /// Its block count fits an `i64` (the kernels' `index`).
    pub fn new(dims: [u64; 3]) -> Result<Grid> {
        if dims.iter().zip(Grid::MAX).any(|(&dim, max)| dim > max) {
            return Err(Error::Grid(dims));
        }
        Ok(Grid(dims))
    }

    /// Parses `X[,Y[,Z]]` (missing dims are 1) and checks it with
    /// [`Grid::new`].
    pub fn parse(text: &str) -> Result<Grid> {
        let syntax = || Error::GridSyntax(text.to_string());
        let parts: Vec<u64> =
            text.split(',').map(|p| p.trim().parse().ok()).collect::<Option<_>>().ok_or_else(syntax)?;
        if parts.is_empty() || parts.len() > 3 {
            return Err(syntax());
        }
        let mut dims = [1u64; 3];
        dims[..parts.len()].copy_from_slice(&parts);
        Grid::new(dims)
    }

    /// Number of blocks (saturating, for a grid built without
    /// [`Grid::new`]).
    pub fn blocks(self) -> u64 {
        self.0.iter().fold(1u64, |n, &d| n.saturating_mul(d))
    }

    /// Whether the grid has no block (a dim of 0).
    pub fn is_empty(self) -> bool {
        self.0.contains(&0)
    }
}

impl Signature {
    /// Checks that `args` fit the parameters: count, kinds, element types,
    /// ranks, static extents and static strides (arrays are contiguous).
    /// Launchers call it before every launch; compiled code relies on it.
    pub fn check(&self, args: &[Arg]) -> Result<()> {
        if args.len() != self.params.len() {
            return Err(Error::ArgumentCount {
                kernel: self.name.clone(),
                expected: self.params.len(),
                got: args.len(),
            });
        }
        for (index, (param, arg)) in self.params.iter().zip(args).enumerate() {
            match (param, arg) {
                (Param::Memref { dtype, shape, strides }, Arg::Array(array)) => {
                    check_array(index, *dtype, shape, strides, array)?;
                }
                (Param::Scalar(t), Arg::Scalar(s)) if s.scalar_type() == *t => {}
                (param, arg) => {
                    let got = match arg {
                        Arg::Array(a) => format!("an array ({} {:?})", a.dtype(), a.shape()),
                        Arg::Scalar(s) => format!("a {} scalar", s.scalar_type().mlir_name()),
                    };
                    return Err(Error::ArgumentKind { index, expected: param.to_string(), got });
                }
            }
        }
        Ok(())
    }
}

fn check_array(
    index: usize,
    dtype: DType,
    shape: &[Option<u64>],
    strides: &[Option<i64>],
    array: &Array,
) -> Result<()> {
    if array.dtype() != dtype {
        return Err(Error::DType { index, expected: dtype.to_string(), got: array.dtype().to_string() });
    }
    if array.shape().len() != shape.len() {
        return Err(Error::Rank { index, expected: shape.len(), got: array.shape().to_vec() });
    }
    for (dim, (&expected, &got)) in shape.iter().zip(array.shape()).enumerate() {
        if let Some(expected) = expected
            && expected != got as u64
        {
            return Err(Error::Shape { index, dim, expected, got });
        }
    }
    for (dim, (&expected, got)) in strides.iter().zip(array.strides()).enumerate() {
        if let Some(expected) = expected
            && expected != got
        {
            return Err(Error::Stride { index, dim, expected, got, shape: array.shape().to_vec() });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::Grid;
    use crate::Error;

    #[test]
    fn grids_within_cuda_limits_are_accepted() {
        assert_eq!(Grid::new([1, 1, 1]).unwrap().blocks(), 1);
        let largest = Grid::new([(1 << 31) - 1, 65535, 65535]).unwrap();
        assert_eq!(largest.blocks(), ((1u64 << 31) - 1) * 65535 * 65535);
        assert!(largest.blocks() <= i64::MAX as u64, "the block count fits the kernels' index");
        assert_eq!(Grid::parse("7, 3").unwrap(), Grid([7, 3, 1]));
    }

    #[test]
    fn grids_past_cuda_limits_are_typed_errors() {
        for dims in [[1 << 31, 1, 1], [1, 65536, 1], [1, 1, 65536], [u64::MAX, u64::MAX, u64::MAX]] {
            assert!(matches!(Grid::new(dims), Err(Error::Grid(d)) if d == dims), "{dims:?}");
        }
        let error = Grid::parse("2147483648").unwrap_err();
        assert!(matches!(error, Error::Grid([2147483648, 1, 1])), "{error}");
        assert!(error.to_string().contains("2^31"), "{error}");
    }

    #[test]
    fn empty_grids_have_no_blocks() {
        for dims in [[0, 1, 1], [4, 0, 1], [4, 2, 0], [0, 0, 0]] {
            let grid = Grid::new(dims).unwrap();
            assert!(grid.is_empty());
            assert_eq!(grid.blocks(), 0);
        }
        assert!(!Grid::new([1, 1, 1]).unwrap().is_empty());
        assert_eq!(Grid::parse("0").unwrap(), Grid([0, 1, 1]));
    }

    #[test]
    fn malformed_grid_text_is_a_typed_error() {
        for text in ["", "x", "1,2,3,4", "-1", "1,,2", "1.5"] {
            assert!(matches!(Grid::parse(text), Err(Error::GridSyntax(_))), "{text:?}");
        }
    }
}
