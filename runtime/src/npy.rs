//! `.npy` files (format versions 1 to 3), as numpy writes them.
//!
//! Only what tile arrays need: little-endian (or byte-order-free) dtypes of
//! the element types, C order. Every other file is a typed error that says
//! what is wrong with it.

use crate::{Array, DType, Error, Result};
use std::path::Path;

const MAGIC: &[u8] = b"\x93NUMPY";

/// The header of a `.npy` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub descr: String,
    pub fortran_order: bool,
    pub shape: Vec<usize>,
}

/// The `.npy` dtype `dtype` is written as.
pub fn descr_of(dtype: DType) -> &'static str {
    match dtype {
        DType::F16 => "<f2",
        DType::BF16 => "<u2",
        DType::F32 => "<f4",
        DType::I1 => "|b1",
        DType::I8 => "|i1",
        DType::I16 => "<i2",
        DType::I32 => "<i4",
        DType::I64 => "<i8",
        DType::F8E4M3FN | DType::F8E5M2 => "|u1",
    }
}

/// Whether a `.npy` dtype can carry `dtype`: its own descr, and for the
/// signless integers also the unsigned one of the same width.
pub fn accepts(dtype: DType, descr: &str) -> bool {
    let unsigned = match dtype {
        DType::I8 => Some("|u1"),
        DType::I16 => Some("<u2"),
        DType::I32 => Some("<u4"),
        DType::I64 => Some("<u8"),
        _ => None,
    };
    descr == descr_of(dtype) || Some(descr) == unsigned
}

fn invalid(path: &str, reason: impl Into<String>) -> Error {
    Error::Npy { path: path.into(), reason: reason.into() }
}

/// Splits a `.npy` file into its header and data.
pub fn parse(path: &str, bytes: &[u8]) -> Result<(Header, usize)> {
    if bytes.len() < 10 || &bytes[..6] != MAGIC {
        return Err(invalid(path, "not a .npy file (no \\x93NUMPY magic)"));
    }
    let major = bytes[6];
    let (header_len, start) = match major {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10usize),
        2 | 3 => {
            if bytes.len() < 12 {
                return Err(invalid(path, "truncated header"));
            }
            (u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize, 12)
        }
        _ => return Err(invalid(path, format!("unsupported .npy format version {major}"))),
    };
    let end =
        start.checked_add(header_len).filter(|&e| e <= bytes.len()).ok_or_else(|| invalid(path, "truncated header"))?;
    let text = std::str::from_utf8(&bytes[start..end]).map_err(|_| invalid(path, "header is not text"))?;
    Ok((parse_header(path, text)?, end))
}

/// The value text after `'key':` in a header dict.
fn field<'a>(path: &str, text: &'a str, key: &str) -> Result<&'a str> {
    let pattern = format!("'{key}'");
    let at = text.find(&pattern).ok_or_else(|| invalid(path, format!("header has no '{key}'")))?;
    let rest = text[at + pattern.len()..].trim_start();
    let rest = rest.strip_prefix(':').ok_or_else(|| invalid(path, format!("malformed '{key}' in header")))?;
    Ok(rest.trim_start())
}

fn parse_header(path: &str, text: &str) -> Result<Header> {
    let descr = field(path, text, "descr")?;
    let quote = descr.chars().next().filter(|c| *c == '\'' || *c == '"');
    let descr = quote
        .and_then(|q| descr[1..].split_once(q))
        .map(|(d, _)| d.to_string())
        .ok_or_else(|| invalid(path, "the dtype is not a simple string (structured arrays are not tile arrays)"))?;
    let fortran = field(path, text, "fortran_order")?;
    let fortran_order = if fortran.starts_with("True") {
        true
    } else if fortran.starts_with("False") {
        false
    } else {
        return Err(invalid(path, "malformed 'fortran_order' in header"));
    };
    let shape = field(path, text, "shape")?;
    let inner = shape
        .strip_prefix('(')
        .and_then(|s| s.split_once(')'))
        .map(|(s, _)| s)
        .ok_or_else(|| invalid(path, "malformed 'shape' in header"))?;
    let shape = inner
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.trim_end_matches('L').parse::<usize>().map_err(|_| invalid(path, format!("bad dimension '{s}' in shape")))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Header { descr, fortran_order, shape })
}

/// The element type a `.npy` dtype holds for a memref of element type
/// `expected`, or the error that names both.
fn check_dtype(path: &str, descr: &str, expected: DType) -> Result<()> {
    if accepts(expected, descr) {
        return Ok(());
    }
    let hint = match expected {
        DType::BF16 => " (bf16 travels as its raw bits, '<u2')",
        DType::F8E4M3FN | DType::F8E5M2 => " (f8 travels as its raw bits, '|u1')",
        _ => "",
    };
    let order = if descr.starts_with('>') { "; big-endian arrays are not supported" } else { "" };
    Err(invalid(
        path,
        format!("dtype '{descr}' cannot hold {expected}: expected '{}'{hint}{order}", descr_of(expected)),
    ))
}

/// Reads an array of element type `dtype` from `.npy` bytes.
pub fn decode(path: &str, bytes: &[u8], dtype: DType) -> Result<Array> {
    let (header, start) = parse(path, bytes)?;
    check_dtype(path, &header.descr, dtype)?;
    if header.fortran_order && header.shape.len() > 1 {
        return Err(invalid(path, "Fortran-order arrays are not supported; save with np.ascontiguousarray"));
    }
    let expected = header
        .shape
        .iter()
        .try_fold(dtype.size(), |n, &d| n.checked_mul(d))
        .ok_or_else(|| invalid(path, "shape too large"))?;
    let data = &bytes[start..];
    if data.len() != expected {
        return Err(invalid(
            path,
            format!("shape {:?} of {dtype} needs {expected} bytes of data, the file has {}", header.shape, data.len()),
        ));
    }
    Ok(Array::from_bytes(dtype, &header.shape, data)?)
}

/// Reads an array of element type `dtype` from a `.npy` file.
pub fn read(path: &Path, dtype: DType) -> Result<Array> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| Error::Io { path: name.clone(), source })?;
    decode(&name, &bytes, dtype)
}

/// The `.npy` (version 1.0) encoding of an array.
pub fn encode(array: &Array) -> Vec<u8> {
    let shape = match array.shape() {
        [d] => format!("({d},)"),
        dims => format!("({})", dims.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")),
    };
    let mut header =
        format!("{{'descr': '{}', 'fortran_order': False, 'shape': {shape}, }}", descr_of(array.dtype()));
    // numpy pads the header with spaces and a newline so that data starts
    // at a multiple of 64 bytes.
    let unpadded = MAGIC.len() + 4 + header.len() + 1;
    header.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    header.push('\n');
    let mut bytes = MAGIC.to_vec();
    bytes.extend([1, 0]);
    bytes.extend((header.len() as u16).to_le_bytes());
    bytes.extend(header.as_bytes());
    bytes.extend(array.bytes());
    bytes
}

/// Writes an array to a `.npy` file.
pub fn write(path: &Path, array: &Array) -> Result<()> {
    std::fs::write(path, encode(array)).map_err(|source| Error::Io { path: path.display().to_string(), source })
}
