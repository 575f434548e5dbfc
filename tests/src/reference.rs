//! Independent references for the example kernels, in plain Rust over `f64`
//! (never through the compiler), and the random, poisoned data they run on.

use tile_runtime::{Array, DType};

/// A small deterministic generator (splitmix64): tests are repeatable
/// without a dependency.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[-1, 1)`.
    pub fn uniform(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }

    /// Uniform in `[low, high)`.
    pub fn int(&mut self, low: i32, high: i32) -> i32 {
        low + (self.next_u64() % (high - low) as u64) as i32
    }
}

/// A float array of random values in `[-scale, scale)`, rounded to `dtype`.
pub fn random_float(rng: &mut Rng, dtype: DType, shape: &[usize], scale: f32) -> Array {
    let n = shape.iter().product();
    let values: Vec<f32> = (0..n).map(|_| rng.uniform() * scale).collect();
    Array::from_f32(dtype, shape, &values).expect("a float dtype")
}

/// An f8 array of random bit patterns that are not NaN.
pub fn random_f8(rng: &mut Rng, dtype: DType, shape: &[usize]) -> Array {
    let n: usize = shape.iter().product();
    let bytes: Vec<u8> = (0..n)
        .map(|_| {
            loop {
                let b = rng.next_u64() as u8;
                if f8_value(dtype, b).is_finite() {
                    break b;
                }
            }
        })
        .collect();
    Array::from_bytes(dtype, shape, &bytes).expect("sizes match")
}

/// The value of an f8 bit pattern, from the formats' definitions.
pub fn f8_value(dtype: DType, bits: u8) -> f64 {
    let sign = if bits & 0x80 != 0 { -1.0 } else { 1.0 };
    let (exponent_bits, mantissa_bits, bias) = match dtype {
        DType::F8E4M3FN => (4, 3, 7),
        DType::F8E5M2 => (5, 2, 15),
        _ => panic!("not an f8 type"),
    };
    let exponent = ((bits & 0x7F) >> mantissa_bits) as i32;
    let mantissa = (bits & ((1 << mantissa_bits) - 1)) as f64;
    let max_exponent = (1 << exponent_bits) - 1;
    let fraction = mantissa / (1 << mantissa_bits) as f64;
    match dtype {
        DType::F8E4M3FN if exponent == max_exponent && mantissa as u8 == 7 => f64::NAN,
        DType::F8E5M2 if exponent == max_exponent => {
            if mantissa == 0.0 {
                sign * f64::INFINITY
            } else {
                f64::NAN
            }
        }
        _ if exponent == 0 => sign * fraction * 2f64.powi(1 - bias),
        _ => sign * (1.0 + fraction) * 2f64.powi(exponent - bias),
    }
}

/// Every element of a float array (f32, f16, bf16, f8) as `f64`.
pub fn values(array: &Array) -> Vec<f64> {
    match array.dtype() {
        DType::F8E4M3FN | DType::F8E5M2 => array.bytes().iter().map(|&b| f8_value(array.dtype(), b)).collect(),
        DType::I32 => array.to_i32().expect("i32").into_iter().map(f64::from).collect(),
        _ => array.to_f32().expect("a float array").into_iter().map(f64::from).collect(),
    }
}

/// An output array poisoned with NaN (floats: all-ones bytes) or a large
/// value (integers), so that an element the kernel does not write fails.
pub fn poisoned(dtype: DType, shape: &[usize]) -> Array {
    Array::filled_bytes(
        dtype,
        shape,
        if matches!(dtype, DType::I32 | DType::I64 | DType::I16 | DType::I8) { 0x5A } else { 0xFF },
    )
}

/// `C = A x B` for row-major `A: m x k`, `B: k x n`; with `sum |a||b|` per
/// element, the scale of its rounding error.
pub fn matmul(a: &[f64], b: &[f64], m: usize, n: usize, k: usize) -> (Vec<f64>, Vec<f64>) {
    let mut c = vec![0.0; m * n];
    let mut magnitude = vec![0.0; m * n];
    for i in 0..m {
        for p in 0..k {
            let x = a[i * k + p];
            for j in 0..n {
                c[i * n + j] += x * b[p * n + j];
                magnitude[i * n + j] += (x * b[p * n + j]).abs();
            }
        }
    }
    (c, magnitude)
}

/// Row softmax of `rows x cols`.
pub fn softmax(x: &[f64], cols: usize) -> Vec<f64> {
    x.chunks(cols)
        .flat_map(|row| {
            let max = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let exps: Vec<f64> = row.iter().map(|v| (v - max).exp()).collect();
            let sum: f64 = exps.iter().sum();
            exps.into_iter().map(move |e| e / sum)
        })
        .collect()
}

/// Row layer norm of `rows x n` with weights `w` and biases `b`.
pub fn layernorm(x: &[f64], w: &[f64], b: &[f64], n: usize, eps: f64) -> Vec<f64> {
    x.chunks(n)
        .flat_map(|row| {
            let mean = row.iter().sum::<f64>() / n as f64;
            let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n as f64;
            let rstd = 1.0 / (var + eps).sqrt();
            row.iter().enumerate().map(move |(j, v)| (v - mean) * rstd * w[j] + b[j]).collect::<Vec<_>>()
        })
        .collect()
}

/// `f16(leaky_relu(alpha * x + y))`, before the rounding to f16.
pub fn fused_elementwise(x: &[f64], y: &[f64], alpha: f64) -> Vec<f64> {
    x.iter()
        .zip(y)
        .map(|(x, y)| {
            let t = alpha as f32 as f64 * x + y;
            if t > 0.0 { t } else { t * 0.01 }
        })
        .collect()
}

/// Column sums of `rows x cols`.
pub fn column_sum(x: &[f64], cols: usize) -> Vec<f64> {
    let mut sums = vec![0.0; cols];
    for row in x.chunks(cols) {
        for (s, v) in sums.iter_mut().zip(row) {
            *s += v;
        }
    }
    sums
}

/// `Y[b, j, i] = 2 X[b, i, j]` and `M[b, i] = max_j X[b, i, j]`.
pub fn transpose3d(x: &[i32], batch: usize, rows: usize, cols: usize) -> (Vec<i32>, Vec<i32>) {
    let mut y = vec![0; batch * rows * cols];
    let mut m = vec![i32::MIN; batch * rows];
    for b in 0..batch {
        for i in 0..rows {
            for j in 0..cols {
                let v = x[(b * rows + i) * cols + j];
                y[(b * cols + j) * rows + i] = v.wrapping_mul(2);
                m[b * rows + i] = m[b * rows + i].max(v);
            }
        }
    }
    (y, m)
}

/// Column sums of each tile of `tile_rows` rows of `rows x cols` (rows
/// past the end count as zero): `parts[i][j]` for row tile `i`.
pub fn row_tile_sums(x: &[f64], cols: usize, tile_rows: usize) -> Vec<Vec<f64>> {
    x.chunks(cols * tile_rows).map(|tile| column_sum(tile, cols)).collect()
}

/// The tiles `(a, b)` that kernel `name` of `tests/kernels/loops.mlir` ends
/// with, per column, from the row-tile sums `parts` (its header gives the
/// recurrences).
pub fn carried_tiles(name: &str, parts: &[Vec<f64>], cols: usize) -> (Vec<f64>, Vec<f64>) {
    let mut a = vec![0.0; cols];
    let mut b = vec![if matches!(name, "pure_swap" | "twice") { 1.0 } else { 0.0 }; cols];
    if name == "nested" {
        for pair in parts.chunks(2) {
            for j in 0..cols {
                let s: f64 = pair.iter().map(|p| p[j]).sum();
                (a[j], b[j]) = (b[j], s - b[j]);
            }
        }
        return (a, b);
    }
    for (i, p) in parts.iter().enumerate() {
        let even = i % 2 == 0;
        for j in 0..cols {
            let (x, y, p) = (a[j], b[j], p[j]);
            (a[j], b[j]) = match name {
                "commuted_add" => (p + x, y),
                "subtract" => (p - x, y),
                "fresh" => (p, y + x),
                "swap" => (y, x + p),
                "pure_swap" => (y, x),
                "twice" => (x + y + p, x + y + p),
                "if_choice" if even => (x + p, y),
                "if_choice" => (y, x - p),
                "select_choice" => (if p > x { p } else { x }, if even { y + p } else { x }),
                _ => panic!("no loop kernel @{name}"),
            };
        }
    }
    (a, b)
}

/// One attention head: `softmax(q k^T * scale) v` for `n x d` row-major
/// `q`, `k` and `v`.
pub fn attention(q: &[f64], k: &[f64], v: &[f64], n: usize, d: usize, scale: f64) -> Vec<f64> {
    let mut out = vec![0.0; n * d];
    for i in 0..n {
        let scores: Vec<f64> =
            (0..n).map(|j| scale * (0..d).map(|t| q[i * d + t] * k[j * d + t]).sum::<f64>()).collect();
        let max = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let weights: Vec<f64> = scores.iter().map(|s| (s - max).exp()).collect();
        let sum: f64 = weights.iter().sum();
        for (j, w) in weights.iter().enumerate() {
            for t in 0..d {
                out[i * d + t] += w / sum * v[j * d + t];
            }
        }
    }
    out
}

/// `x / d` and `x % d`, signed then unsigned, with the results both targets
/// define where the hardware would trap: `x / 0` is all ones, `x % 0` is
/// `x`, and `MIN / -1` wraps to `MIN` with a remainder of 0.
pub fn defined_division(x: i32, d: i32) -> [i32; 4] {
    if d == 0 {
        return [-1, x, -1, x];
    }
    let (ux, ud) = (x as u32, d as u32);
    [x.wrapping_div(d), x.wrapping_rem(d), (ux / ud) as i32, (ux % ud) as i32]
}

/// 64-bit [`defined_division`] of `m` by `k`: `[m / k, m % k, -m / k, -m % k]`
/// (unsigned, unsigned, signed, signed).
pub fn defined_index_division(m: i64, k: i64) -> [i64; 4] {
    if k == 0 {
        return [-1, m, -1, -m];
    }
    [((m as u64) / (k as u64)) as i64, ((m as u64) % (k as u64)) as i64, (-m).wrapping_div(k), (-m).wrapping_rem(k)]
}

/// Checks `got` against `want` element by element within `tolerance(i)`;
/// the first mismatches are reported with their index.
pub fn assert_close(what: &str, got: &[f64], want: &[f64], tolerance: impl Fn(usize) -> f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    // NaN (poison) fails the comparison.
    let within = |i: usize| (got[i] - want[i]).abs() <= tolerance(i);
    let bad: Vec<usize> = (0..got.len()).filter(|&i| !within(i)).collect();
    let first: Vec<String> = bad
        .iter()
        .take(5)
        .map(|&i| format!("[{i}] got {} want {} (tolerance {})", got[i], want[i], tolerance(i)))
        .collect();
    assert!(bad.is_empty(), "{what}: {} of {} elements differ, first: {}", bad.len(), got.len(), first.join("; "));
}
