//! `.npy` files (format versions 1 to 3), as numpy writes them.
//!
//! Only what tile arrays need: little-endian (or byte-order-free) dtypes of
//! the element types, C order. Every other file is a typed error that says
//! what is wrong with it.
//!
//! `ndarray-npy` reads and writes the header (a Python dict literal); the
//! data is the array's bytes, copied as they are. The fixed-size preamble
//! before the header is checked here, and a header the crate refuses is
//! explained here, so that the messages name the field that is wrong.

use crate::{Array, DType, Error, Result};
use ndarray_npy::npy::header::{Header, Layout, ParseHeaderError, ReadHeaderError};
use py_literal::Value;
use std::{borrow::Cow, path::Path};

const MAGIC: &[u8] = b"\x93NUMPY";

/// The keys of a header's dict, in the order their errors are reported.
const KEYS: [&str; 3] = ["descr", "fortran_order", "shape"];

const STRUCTURED: &str = "the dtype is not a simple string (structured arrays are not tile arrays)";

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

/// The header text of a `.npy` file and where its data starts. Checked
/// here rather than by the crate for the messages, and because tile has
/// always read any minor version and a UTF-8 header in any version.
fn header_text<'a>(path: &str, bytes: &'a [u8]) -> Result<(&'a str, usize)> {
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
    Ok((text, end))
}

/// The header `text` says, as the crate reads it.
fn read_header(path: &str, text: &str) -> Result<Header> {
    let mut dict = Cow::Borrowed(text);
    let mut read = parse_dict(&dict);
    // numpy for Python 2 wrote dimensions that were `long`s as `3L`; numpy
    // still reads such files (and so did tile), the crate does not.
    if let Err(ReadHeaderError::Parse(ParseHeaderError::DictParse(_))) = read {
        let filtered = without_long_suffixes(&dict);
        if filtered != dict {
            read = parse_dict(&filtered);
            dict = Cow::Owned(filtered);
        }
    }
    // Keys other than the three: numpy refuses them, but tile has always
    // ignored them, and still does.
    if let Err(ReadHeaderError::Parse(ParseHeaderError::UnknownKey(_))) = read
        && let Some(known) = known_keys_only(&dict)
    {
        read = parse_dict(&known);
    }
    read.map_err(|refused| invalid(path, explain(text, &refused)))
}

/// The header dict `text`, read by the crate. It reads a whole file's
/// preamble, so it is given version 3.0's (UTF-8 text, a 32-bit length)
/// whatever the file's was, and the final newline numpy writes, which tile
/// never required.
fn parse_dict(text: &str) -> std::result::Result<Header, ReadHeaderError> {
    let newline = if text.ends_with('\n') { "" } else { "\n" };
    // A header over 4 GiB gets a length the crate cannot read past, and
    // its error, rather than a panic here.
    let len = u32::try_from(text.len() + newline.len()).unwrap_or(u32::MAX);
    let mut bytes = MAGIC.to_vec();
    bytes.extend([3, 0]);
    bytes.extend(len.to_le_bytes());
    bytes.extend(text.as_bytes());
    bytes.extend(newline.as_bytes());
    Header::from_reader(&mut bytes.as_slice())
}

/// `text` without the `L` after digits, as numpy's `_filter_header` does.
/// Strings in the header (the keys and a plain descr) never hold a digit
/// followed by `L`.
fn without_long_suffixes(text: &str) -> String {
    let mut previous = ' ';
    let mut kept = String::with_capacity(text.len());
    for c in text.chars() {
        if !(c == 'L' && previous.is_ascii_digit()) {
            kept.push(c);
        }
        previous = c;
    }
    kept
}

/// The header dict `text` with only the keys numpy writes, if it is a dict.
fn known_keys_only(text: &str) -> Option<String> {
    let Ok(Value::Dict(entries)) = text.trim().parse::<Value>() else { return None };
    let known = entries.into_iter().filter(|(key, _)| matches!(key, Value::String(k) if KEYS.contains(&k.as_str())));
    Some(Value::Dict(known.collect()).to_string())
}

/// Why the crate refused a header, said as tile always said it: the first
/// field (in the order of [`KEYS`]) that is missing or malformed, found in
/// the text itself; else the crate's reason, in the same words.
fn explain(text: &str, refused: &ReadHeaderError) -> String {
    for key in KEYS {
        let pattern = format!("'{key}'");
        let Some(at) = text.find(&pattern) else { return format!("header has no '{key}'") };
        let Some(value) = text[at + pattern.len()..].trim_start().strip_prefix(':').map(str::trim_start) else {
            return format!("malformed '{key}' in header");
        };
        match key {
            "descr" => {
                let quote = value.chars().next().filter(|c| *c == '\'' || *c == '"');
                if !quote.is_some_and(|q| value[1..].contains(q)) {
                    return STRUCTURED.into();
                }
            }
            "fortran_order" => {
                if !value.starts_with("True") && !value.starts_with("False") {
                    return "malformed 'fortran_order' in header".into();
                }
            }
            _ => {
                let Some((dims, _)) = value.strip_prefix('(').and_then(|s| s.split_once(')')) else {
                    return "malformed 'shape' in header".into();
                };
                let bad = dims
                    .split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .find(|s| s.trim_end_matches('L').parse::<usize>().is_err());
                if let Some(bad) = bad {
                    return format!("bad dimension '{bad}' in shape");
                }
            }
        }
    }
    match refused {
        ReadHeaderError::Parse(ParseHeaderError::MissingKey(missing)) => {
            // The crate names a missing 'shape' "shaper".
            let key = KEYS.into_iter().find(|k| missing.starts_with(k)).unwrap_or(missing);
            format!("header has no '{key}'")
        }
        ReadHeaderError::Parse(ParseHeaderError::IllegalValue { key, .. }) => format!("malformed '{key}' in header"),
        // The crate's parse errors draw the text in several lines.
        ReadHeaderError::Parse(ParseHeaderError::DictParse(_) | ParseHeaderError::MetaNotDict(_)) => {
            "malformed header: not a Python dict".into()
        }
        ReadHeaderError::Parse(e) => format!("malformed header: {e}"),
        ReadHeaderError::Io(e) => format!("malformed header: {e}"),
    }
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
    let (text, start) = header_text(path, bytes)?;
    let header = read_header(path, text)?;
    let Value::String(descr) = &header.type_descriptor else { return Err(invalid(path, STRUCTURED)) };
    check_dtype(path, descr, dtype)?;
    if header.layout == Layout::Fortran && header.shape.len() > 1 {
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

/// The `.npy` encoding of an array: version 1.0 (2.0 for a header too long
/// for it), the data starting at a multiple of 64 bytes, as numpy writes.
pub fn encode(array: &Array) -> Vec<u8> {
    let header = Header {
        type_descriptor: Value::String(descr_of(array.dtype()).into()),
        layout: Layout::Standard,
        shape: array.shape().to_vec(),
    };
    // The crate fails only on a Python value it cannot write (an empty set)
    // or a header longer than 4 GiB; a string, a bool and a tuple of as
    // many integers as an array has dimensions are neither.
    let mut bytes = header.to_bytes().expect("a .npy header of a descr, an order and a shape always formats");
    bytes.extend(array.bytes());
    bytes
}

/// Writes an array to a `.npy` file.
pub fn write(path: &Path, array: &Array) -> Result<()> {
    std::fs::write(path, encode(array)).map_err(|source| Error::Io { path: path.display().to_string(), source })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reason of `decode`'s error for `bytes` read as `dtype`.
    fn reason(bytes: &[u8], dtype: DType) -> String {
        match decode("x.npy", bytes, dtype) {
            Err(Error::Npy { path, reason }) => {
                assert_eq!(path, "x.npy");
                reason
            }
            other => panic!("expected an Npy error, got {other:?}"),
        }
    }

    /// A file of format `version` whose header is `dict` (padded as numpy
    /// pads it), followed by `data`.
    fn file(version: u8, dict: &str, data: &[u8]) -> Vec<u8> {
        let prefix = if version == 1 { 10 } else { 12 };
        let mut text = dict.to_string();
        text.push_str(&" ".repeat((prefix + text.len() + 1).next_multiple_of(64) - (prefix + text.len() + 1)));
        text.push('\n');
        let mut bytes = MAGIC.to_vec();
        bytes.extend([version, 0]);
        if version == 1 {
            bytes.extend((text.len() as u16).to_le_bytes());
        } else {
            bytes.extend((text.len() as u32).to_le_bytes());
        }
        bytes.extend(text.as_bytes());
        bytes.extend(data);
        bytes
    }

    /// `n` pseudo-random bytes, none of them zero (xorshift, so the tests
    /// need no random crate and are the same every run).
    fn noise(n: usize, seed: u64) -> Vec<u8> {
        let mut state = seed | 1;
        (0..n)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state % 255) as u8 + 1
            })
            .collect()
    }

    #[test]
    fn every_dtype_round_trips() {
        for (i, dtype) in DType::ALL.into_iter().enumerate() {
            for shape in [vec![5], vec![3, 7], vec![2, 3, 4], vec![]] {
                let n: usize = shape.iter().product();
                let mut data = noise(n * dtype.size(), i as u64 + 1);
                if dtype == DType::I1 {
                    // numpy's bools are 0 or 1.
                    data.iter_mut().for_each(|b| *b &= 1);
                }
                let array = Array::from_bytes(dtype, &shape, &data).unwrap();
                let bytes = encode(&array);
                assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00", "{dtype} {shape:?}");
                let start = 10 + u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
                assert_eq!(start % 64, 0, "{dtype} {shape:?}: data at {start}");
                assert_eq!(bytes[start - 1], b'\n');
                let back = decode("x.npy", &bytes, dtype).unwrap();
                assert_eq!((back.dtype(), back.shape(), back.bytes()), (dtype, &shape[..], &data[..]));
            }
        }
    }

    #[test]
    fn writes_headers_numpy_reads() {
        let text = |array: &Array| {
            let bytes = encode(array);
            let len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
            String::from_utf8(bytes[10..10 + len].to_vec()).unwrap()
        };
        let padded = |text: &str, dict: &str| {
            text.strip_prefix(dict).is_some_and(|rest| rest.ends_with('\n') && rest.trim_end_matches('\n').trim() == "")
        };
        let vector = text(&Array::zeros(DType::F32, &[7]));
        assert!(padded(&vector, "{'descr': '<f4', 'fortran_order': False, 'shape': (7,)}"), "{vector:?}");
        let matrix = text(&Array::zeros(DType::BF16, &[4, 1024]));
        assert!(padded(&matrix, "{'descr': '<u2', 'fortran_order': False, 'shape': (4, 1024)}"), "{matrix:?}");
        let scalar = text(&Array::zeros(DType::I1, &[]));
        assert!(padded(&scalar, "{'descr': '|b1', 'fortran_order': False, 'shape': ()}"), "{scalar:?}");
    }

    #[test]
    fn reads_what_numpy_writes() {
        // np.save of np.arange(6, dtype=np.float32).reshape(2, 3), byte for
        // byte: numpy sorts the keys, ends each entry with ", ", leaves 21
        // columns for the first dimension to grow (20 spaces after "2"),
        // then pads with 38 more so that the data starts at 128.
        let values: Vec<u8> = (0..6).flat_map(|v| (v as f32).to_le_bytes()).collect();
        let mut bytes = b"\x93NUMPY\x01\x00\x76\x00".to_vec();
        bytes.extend(b"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }");
        bytes.extend([b' '; 20 + 38]);
        bytes.push(b'\n');
        assert_eq!(bytes.len(), 128);
        bytes.extend(&values);
        let array = decode("x.npy", &bytes, DType::F32).unwrap();
        assert_eq!((array.shape(), array.to_f32().unwrap()), (&[2, 3][..], vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]));
        // uint32 data for an i32 memref, an int8 vector, a 0-d bool.
        let bytes =
            file(1, "{'descr': '<u4', 'fortran_order': False, 'shape': (2,), }", &[1, 0, 0, 0, 255, 255, 255, 255]);
        assert_eq!(decode("x.npy", &bytes, DType::I32).unwrap().to_i32().unwrap(), [1, -1]);
        let bytes = file(1, "{'descr': '|i1', 'fortran_order': False, 'shape': (3,), }", &[1, 2, 255]);
        assert_eq!(decode("x.npy", &bytes, DType::I8).unwrap().bytes(), [1, 2, 255]);
        let bytes = file(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (), }", &[1]);
        assert_eq!(decode("x.npy", &bytes, DType::I1).unwrap().shape(), &[] as &[usize]);
        // A 1-D array is the same in either order.
        let bytes = file(1, "{'descr': '<i2', 'fortran_order': True, 'shape': (2,), }", &[1, 0, 2, 0]);
        assert_eq!(decode("x.npy", &bytes, DType::I16).unwrap().bytes(), [1, 0, 2, 0]);
    }

    #[test]
    fn reads_versions_2_and_3() {
        let data = noise(2 * 3 * 2, 7);
        let bytes = file(2, "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 3), }", &data);
        assert_eq!(&bytes[..8], b"\x93NUMPY\x02\x00");
        assert_eq!(decode("x.npy", &bytes, DType::F16).unwrap().bytes(), data);
        // Version 3.0 is UTF-8 (for structured dtypes' field names).
        let bytes = file(3, "{'descr': '<u2', 'fortran_order': False, 'shape': (2, 3), 'π': 'π'}", &data);
        assert_eq!(decode("x.npy", &bytes, DType::BF16).unwrap().bytes(), data);
    }

    #[test]
    fn reads_what_tile_always_read() {
        let data = [1, 2, 3, 4];
        let read = |bytes: &[u8]| decode("x.npy", bytes, DType::I16).map(|a| (a.shape().to_vec(), a.bytes().to_vec()));
        let want = Ok((vec![2], data.to_vec()));
        // Python 2's longs; another key; no final newline; a minor version.
        let bytes = file(1, "{'descr': '<i2', 'fortran_order': False, 'shape': (2L,), }", &data);
        assert_eq!(read(&bytes).map_err(|e| e.to_string()), want);
        let bytes = file(1, "{'descr': '<i2', 'fortran_order': False, 'shape': (2,), 'note': 'x'}", &data);
        assert_eq!(read(&bytes).map_err(|e| e.to_string()), want);
        let dict = b"{'descr': '<i2', 'fortran_order': False, 'shape': (2,)}";
        let mut bytes = b"\x93NUMPY\x01\x01".to_vec();
        bytes.extend((dict.len() as u16).to_le_bytes());
        bytes.extend(dict);
        bytes.extend(data);
        assert_eq!(read(&bytes).map_err(|e| e.to_string()), want);
    }

    #[test]
    fn bad_files_are_clear_errors() {
        let header = |dict: &str| file(1, dict, &[0; 16]);
        let cases: Vec<(Vec<u8>, DType, &str)> = vec![
            (b"not numpy".to_vec(), DType::F32, "not a .npy file (no \\x93NUMPY magic)"),
            (b"\x93NUMPX\x01\x00\x00\x00".to_vec(), DType::F32, "not a .npy file (no \\x93NUMPY magic)"),
            (b"\x93NUMPY\x04\x00\x00\x00".to_vec(), DType::F32, "unsupported .npy format version 4"),
            (b"\x93NUMPY\x02\x00\x00\x00".to_vec(), DType::F32, "truncated header"),
            (b"\x93NUMPY\x01\x00\x40\x00{'descr'".to_vec(), DType::F32, "truncated header"),
            (b"\x93NUMPY\x01\x00\x02\x00\xff\xfe".to_vec(), DType::F32, "header is not text"),
            (header("{'fortran_order': False, 'shape': (4,), }"), DType::F32, "header has no 'descr'"),
            (header("{'descr': '<f4', 'shape': (4,), }"), DType::F32, "header has no 'fortran_order'"),
            (header("{'descr': '<f4', 'fortran_order': False, }"), DType::F32, "header has no 'shape'"),
            (
                header("{'descr' '<f4', 'fortran_order': False, 'shape': (4,), }"),
                DType::F32,
                "malformed 'descr' in header",
            ),
            (header("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (4,), }"), DType::F32, STRUCTURED),
            (header("{'descr': <f4, 'fortran_order': False, 'shape': (4,), }"), DType::F32, STRUCTURED),
            (
                header("{'descr': '<f4', 'fortran_order': 0, 'shape': (4,), }"),
                DType::F32,
                "malformed 'fortran_order' in header",
            ),
            (
                header("{'descr': '<f4', 'fortran_order': false, 'shape': (4,), }"),
                DType::F32,
                "malformed 'fortran_order' in header",
            ),
            (
                header("{'descr': '<f4', 'fortran_order': False, 'shape': [4], }"),
                DType::F32,
                "malformed 'shape' in header",
            ),
            (
                header("{'descr': '<f4', 'fortran_order': False, 'shape': (4, -1), }"),
                DType::F32,
                "bad dimension '-1' in shape",
            ),
            (
                header("{'descr': '<f4', 'fortran_order': False, 'shape': (4, 2.5), }"),
                DType::F32,
                "bad dimension '2.5' in shape",
            ),
            (
                header("{'descr': '<f4', 'fortran_order': False, 'shape': (4, x), }"),
                DType::F32,
                "bad dimension 'x' in shape",
            ),
            (
                header("{'descr': '<f2', 'fortran_order': False, 'shape': (4,), }"),
                DType::F32,
                "dtype '<f2' cannot hold f32: expected '<f4'",
            ),
            (
                header("{'descr': '<f2', 'fortran_order': False, 'shape': (4,), }"),
                DType::BF16,
                "dtype '<f2' cannot hold bf16: expected '<u2' (bf16 travels as its raw bits, '<u2')",
            ),
            (
                header("{'descr': '|i1', 'fortran_order': False, 'shape': (4,), }"),
                DType::F8E4M3FN,
                "dtype '|i1' cannot hold f8E4M3FN: expected '|u1' (f8 travels as its raw bits, '|u1')",
            ),
            (
                header("{'descr': '>f4', 'fortran_order': False, 'shape': (4,), }"),
                DType::F32,
                "dtype '>f4' cannot hold f32: expected '<f4'; big-endian arrays are not supported",
            ),
            (
                header("{'descr': '<u4', 'fortran_order': False, 'shape': (4,), }"),
                DType::F32,
                "dtype '<u4' cannot hold f32: expected '<f4'",
            ),
            (
                header("{'descr': '<f3', 'fortran_order': False, 'shape': (4,), }"),
                DType::F32,
                "dtype '<f3' cannot hold f32: expected '<f4'",
            ),
            (
                header("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }"),
                DType::F32,
                "Fortran-order arrays are not supported; save with np.ascontiguousarray",
            ),
            (
                header("{'descr': '<f4', 'fortran_order': False, 'shape': (4, 1024), }"),
                DType::F32,
                "shape [4, 1024] of f32 needs 16384 bytes of data, the file has 16",
            ),
            (
                header("{'descr': '<f4', 'fortran_order': False, 'shape': (18446744073709551615, 2), }"),
                DType::F32,
                "shape too large",
            ),
        ];
        for (bytes, dtype, expected) in cases {
            assert_eq!(reason(&bytes, dtype), expected);
        }
        // The message tile-run's users see for a truncated file.
        let mut bytes = encode(&Array::zeros(DType::F32, &[4, 1024]));
        bytes.truncate(bytes.len() - 4);
        assert_eq!(reason(&bytes, DType::F32), "shape [4, 1024] of f32 needs 16384 bytes of data, the file has 16380");
        // Every field right, but not a dict literal.
        let unclosed = header("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), ");
        assert_eq!(reason(&unclosed, DType::F32), "malformed header: not a Python dict");
    }

    #[test]
    fn reads_and_writes_files() {
        let dir = std::env::temp_dir().join(format!("tile-npy-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.npy");
        let array = Array::from_bytes(DType::I64, &[3], &noise(24, 3)).unwrap();
        write(&path, &array).unwrap();
        assert_eq!(read(&path, DType::I64).unwrap().bytes(), array.bytes());
        let missing = dir.join("missing.npy");
        assert!(
            matches!(read(&missing, DType::I64), Err(Error::Io { path, .. }) if path == missing.display().to_string())
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
