//! Host arrays of the language's element types.

use crate::{Error, Result};
use serde::{Deserialize, Serialize};

/// An element type of tile memrefs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DType {
    F16,
    BF16,
    F32,
    I1,
    I8,
    I16,
    I32,
    I64,
    F8E4M3FN,
    F8E5M2,
}

impl DType {
    pub const ALL: [DType; 10] = [
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::I1,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::F8E4M3FN,
        DType::F8E5M2,
    ];

    /// The MLIR spelling (`f16`, `f8E4M3FN`, ...).
    pub fn mlir_name(self) -> &'static str {
        match self {
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::F32 => "f32",
            DType::I1 => "i1",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::F8E4M3FN => "f8E4M3FN",
            DType::F8E5M2 => "f8E5M2",
        }
    }

    /// The element type an MLIR type spelling names.
    pub fn from_mlir_name(name: &str) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.mlir_name() == name)
    }

    /// Bytes per element (an `i1` takes a byte, as in numpy and LLVM memory).
    pub fn size(self) -> usize {
        match self {
            DType::I1 | DType::I8 | DType::F8E4M3FN | DType::F8E5M2 => 1,
            DType::F16 | DType::BF16 | DType::I16 => 2,
            DType::F32 | DType::I32 => 4,
            DType::I64 => 8,
        }
    }
}

impl std::fmt::Display for DType {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(self.mlir_name())
    }
}

/// 64-byte aligned storage: JIT-compiled code may use aligned vector
/// accesses, so element data must be at least as aligned as any element.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Chunk([u8; 64]);

/// A dense, row-major host array.
#[derive(Clone)]
pub struct Array {
    dtype: DType,
    shape: Vec<usize>,
    chunks: Vec<Chunk>,
    len: usize,
}

impl std::fmt::Debug for Array {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "Array({} {:?})", self.dtype, self.shape)
    }
}

impl Array {
    /// An array of zero bytes.
    pub fn zeros(dtype: DType, shape: &[usize]) -> Array {
        let len = shape.iter().product::<usize>() * dtype.size();
        Array { dtype, shape: shape.to_vec(), chunks: vec![Chunk([0; 64]); len.div_ceil(64)], len }
    }

    /// An array from its raw little-endian bytes.
    pub fn from_bytes(dtype: DType, shape: &[usize], bytes: &[u8]) -> Result<Array> {
        let mut array = Array::zeros(dtype, shape);
        if bytes.len() != array.len {
            return Err(Error::DataSize {
                dtype: dtype.to_string(),
                shape: shape.to_vec(),
                expected: array.len,
                got: bytes.len(),
            });
        }
        array.bytes_mut().copy_from_slice(bytes);
        Ok(array)
    }

    /// An array with every element's bytes set to `byte` (poisoning).
    pub fn filled_bytes(dtype: DType, shape: &[usize], byte: u8) -> Array {
        let mut array = Array::zeros(dtype, shape);
        array.bytes_mut().fill(byte);
        array
    }

    /// An `f32`, `f16` or `bf16` array from `f32` values (rounded to nearest
    /// even); `None` for other types or a length that does not fit.
    pub fn from_f32(dtype: DType, shape: &[usize], values: &[f32]) -> Option<Array> {
        if values.len() != shape.iter().product::<usize>() {
            return None;
        }
        let bytes: Vec<u8> = match dtype {
            DType::F32 => values.iter().flat_map(|v| v.to_le_bytes()).collect(),
            DType::F16 => values.iter().flat_map(|v| half::f16::from_f32(*v).to_le_bytes()).collect(),
            DType::BF16 => values.iter().flat_map(|v| half::bf16::from_f32(*v).to_le_bytes()).collect(),
            _ => return None,
        };
        Array::from_bytes(dtype, shape, &bytes).ok()
    }

    /// An `i32` array.
    pub fn from_i32(shape: &[usize], values: &[i32]) -> Option<Array> {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        Array::from_bytes(DType::I32, shape, &bytes).ok()
    }

    /// The elements of a float array (`f32`, `f16`, `bf16`) as `f32`.
    pub fn to_f32(&self) -> Option<Vec<f32>> {
        let bytes = self.bytes();
        Some(match self.dtype {
            DType::F32 => bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect(),
            DType::F16 => bytes.chunks_exact(2).map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32()).collect(),
            DType::BF16 => bytes.chunks_exact(2).map(|b| half::bf16::from_le_bytes([b[0], b[1]]).to_f32()).collect(),
            _ => return None,
        })
    }

    /// The elements of an `i32` array.
    pub fn to_i32(&self) -> Option<Vec<i32>> {
        (self.dtype == DType::I32)
            .then(|| self.bytes().chunks_exact(4).map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect())
    }

    pub fn dtype(&self) -> DType {
        self.dtype
    }

    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Row-major strides, in elements.
    pub fn strides(&self) -> Vec<i64> {
        let mut strides = vec![1i64; self.shape.len()];
        for d in (0..self.shape.len().saturating_sub(1)).rev() {
            strides[d] = strides[d + 1] * self.shape[d + 1] as i64;
        }
        strides
    }

    pub fn bytes(&self) -> &[u8] {
        // SAFETY: `chunks` holds at least `len` initialised bytes (chunks
        // are plain byte arrays, laid out contiguously by `repr(C)`).
        unsafe { std::slice::from_raw_parts(self.chunks.as_ptr().cast::<u8>(), self.len) }
    }

    pub fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `bytes`; the borrow is unique.
        unsafe { std::slice::from_raw_parts_mut(self.chunks.as_mut_ptr().cast::<u8>(), self.len) }
    }

    /// The element data's address, 64-byte aligned (dangling but aligned
    /// for an empty array).
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.chunks.as_mut_ptr().cast::<u8>()
    }
}
