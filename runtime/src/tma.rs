//! The host side of TMA: which arrays a tiled descriptor can describe, and
//! the values `cuTensorMapEncodeTiled` takes for them.
//!
//! The hardware's rules (CUDA driver API, `cuTensorMapEncodeTiled`): the
//! global address 16-byte aligned, every stride but the innermost a
//! multiple of 16 bytes below 2^40, every extent from 1 to 2^32 (here
//! 2^31 - 512, see [`MAX_EXTENT`]), box extents
//! from 1 to 256, and with a swizzle the box's inner extent at most the
//! swizzle width. An array that breaks one of them cannot take the TMA
//! variant of a kernel; the launcher then runs the general kernel.

use crate::{Array, DType, TmaDescriptor};

/// Why the TMA cannot describe an array; the launcher then runs the
/// general kernel.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unsupported {
    #[error("rank {rank} does not match the descriptor's box {box_shape:?}")]
    Rank { rank: usize, box_shape: Vec<u32> },
    #[error("{0:?} has no TMA data type")]
    DataType(DType),
    #[error("address {0:#x} is not 16-byte aligned")]
    Address(u64),
    #[error("extent {0} is outside 1..=2^31 - 512")]
    Extent(u64),
    #[error("stride of {0} bytes is not a multiple of 16 below 2^40")]
    Stride(u64),
    #[error("box {0:?} has an extent outside 1..=256")]
    Box(Vec<u32>),
    #[error("box inner extent of {bytes} bytes does not suit swizzle {swizzle}")]
    Swizzle { bytes: u64, swizzle: u32 },
}

/// The largest extent given to the TMA: the driver takes up to 2^32, but
/// the compiler clamps a variant's tile coordinates so that their element
/// coordinates fit 32 signed bits and stay wholly outside any array of at
/// most this extent (each tile coordinate clamped to `[-1, dim / box + 1]`,
/// boxes of at most 256 elements: `registers::global::origin` in the
/// lowering). A larger array runs the general kernel.
pub const MAX_EXTENT: u64 = (1 << 31) - 512;

/// The encoder's arguments, innermost dim first as the driver wants them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TmaLayout {
    /// Extents in elements.
    pub dims: Vec<u64>,
    /// Byte strides of dims 1.. (dim 0 is contiguous).
    pub strides: Vec<u64>,
    /// Box extents in elements.
    pub box_dims: Vec<u32>,
}

/// The layout for `descriptor` over `array` at device `address`, or why
/// the TMA cannot describe it.
pub fn layout(descriptor: &TmaDescriptor, array: &Array, address: u64) -> Result<TmaLayout, Unsupported> {
    let element = array.dtype().size() as u64;
    let rank = array.shape().len();
    if rank == 0 || rank > 5 || descriptor.box_shape.len() != rank {
        return Err(Unsupported::Rank { rank, box_shape: descriptor.box_shape.clone() });
    }
    if tma_data_type(array.dtype()).is_none() {
        return Err(Unsupported::DataType(array.dtype()));
    }
    if !address.is_multiple_of(16) {
        return Err(Unsupported::Address(address));
    }
    let dims: Vec<u64> = array.shape().iter().rev().map(|&d| d as u64).collect();
    if let Some(d) = dims.iter().find(|&&d| d == 0 || d > MAX_EXTENT) {
        return Err(Unsupported::Extent(*d));
    }
    let strides: Vec<u64> = array.strides().iter().rev().skip(1).map(|&s| s as u64 * element).collect();
    if let Some(s) = strides.iter().find(|&&s| s % 16 != 0 || s >= 1 << 40) {
        return Err(Unsupported::Stride(*s));
    }
    let box_dims: Vec<u32> = descriptor.box_shape.iter().rev().copied().collect();
    if box_dims.iter().any(|&b| b == 0 || b > 256) {
        return Err(Unsupported::Box(descriptor.box_shape.clone()));
    }
    let inner_bytes = u64::from(box_dims[0]) * element;
    let fits = match descriptor.swizzle {
        0 => inner_bytes.is_multiple_of(16),
        32 | 64 | 128 => inner_bytes <= u64::from(descriptor.swizzle),
        _ => false,
    };
    if !fits {
        return Err(Unsupported::Swizzle { bytes: inner_bytes, swizzle: descriptor.swizzle });
    }
    Ok(TmaLayout { dims, strides, box_dims })
}

/// `CUtensorMapDataType` of an element type (f8 travels as bytes).
pub fn tma_data_type(dtype: DType) -> Option<u32> {
    Some(match dtype {
        DType::I8 | DType::F8E4M3FN | DType::F8E5M2 => 0, // UINT8
        DType::I16 => 1,                                  // UINT16
        DType::I32 => 3,                                  // INT32
        DType::I64 => 5,                                  // INT64
        DType::F16 => 6,                                  // FLOAT16
        DType::F32 => 7,                                  // FLOAT32
        DType::BF16 => 9,                                 // BFLOAT16
        DType::I1 => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn descriptor(box_shape: Vec<u32>) -> TmaDescriptor {
        TmaDescriptor { arg: 0, box_shape, swizzle: 128, optional: false }
    }

    #[test]
    fn encodes_aligned_arrays_innermost_first() {
        let a = Array::zeros(DType::F16, &[1000, 200]);
        let l = layout(&descriptor(vec![128, 64]), &a, 0x1000).unwrap();
        assert_eq!(l.dims, vec![200, 1000]);
        assert_eq!(l.strides, vec![400]);
        assert_eq!(l.box_dims, vec![64, 128]);
    }

    #[test]
    fn refuses_what_the_hardware_cannot_do() {
        let a = Array::zeros(DType::F16, &[300, 100]); // rows of 200 bytes
        assert!(matches!(layout(&descriptor(vec![128, 64]), &a, 0x1000).unwrap_err(), Unsupported::Stride(200)));
        let b = Array::zeros(DType::F16, &[64, 64]);
        assert!(matches!(layout(&descriptor(vec![128, 64]), &b, 0x1008).unwrap_err(), Unsupported::Address(0x1008)));
        assert!(matches!(layout(&descriptor(vec![128, 128]), &b, 0x1000).unwrap_err(), Unsupported::Swizzle { .. }));
        assert!(layout(&descriptor(vec![64]), &b, 0x1000).is_err());
        let empty = Array::zeros(DType::F16, &[0, 64]);
        assert!(layout(&descriptor(vec![128, 64]), &empty, 0x1000).is_err());
    }
}
