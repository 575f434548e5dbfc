//! Independent references for the benchmark suite's programs
//! (`bench/`, see `bench/README.md`), in plain Rust over `f64`: what each
//! program computes, written from its definition, never through the
//! compiler.

/// The transpose of row-major `rows x cols` (`cols x rows`, row-major).
pub fn transpose(x: &[f64], rows: usize, cols: usize) -> Vec<f64> {
    assert_eq!(x.len(), rows * cols, "transpose: {rows}x{cols}");
    let mut t = vec![0.0; rows * cols];
    for i in 0..rows {
        for j in 0..cols {
            t[j * rows + i] = x[i * cols + j];
        }
    }
    t
}

/// `C[l] = A[l] B[l]` for `l` row-major matrices `A: m x k`, `B: k x n`
/// stored back to back; with `sum |a||b|` per element, as
/// [`crate::reference::matmul`].
pub fn batched_matmul(a: &[f64], b: &[f64], l: usize, m: usize, n: usize, k: usize) -> (Vec<f64>, Vec<f64>) {
    let (mut c, mut magnitude) = (Vec::with_capacity(l * m * n), Vec::with_capacity(l * m * n));
    for (a, b) in a.chunks(m * k).zip(b.chunks(k * n)).take(l) {
        let (cl, ml) = crate::reference::matmul(a, b, m, n, k);
        c.extend(cl);
        magnitude.extend(ml);
    }
    (c, magnitude)
}

/// `x + bias` with `bias` (length `n`) added to every row of `rows x n`.
pub fn add_bias(x: &[f64], bias: &[f64]) -> Vec<f64> {
    x.chunks(bias.len()).flat_map(|row| row.iter().zip(bias).map(|(x, b)| x + b)).collect()
}

pub fn relu(x: f64) -> f64 {
    x.max(0.0)
}

/// GELU in its exact form, `x/2 (1 + erf(x / sqrt 2))`.
pub fn gelu(x: f64) -> f64 {
    0.5 * x * (1.0 + erf(x / std::f64::consts::SQRT_2))
}

/// The error function to about 1e-14 (Rust's std has none): its Maclaurin
/// series below 2.5, where the alternating terms lose at most three digits,
/// and above, `1 - erfc` with erfc's continued fraction, which converges
/// quickly there.
pub fn erf(x: f64) -> f64 {
    let a = x.abs();
    let value = if a < 2.5 {
        // 2/sqrt(pi) * sum_n (-1)^n a^(2n+1) / (n! (2n+1)); 60 terms leave
        // less than 6.25^60 / 60! (about 1e-34) at a = 2.5.
        let (mut sum, mut term) = (0.0, a);
        for n in 0..60 {
            sum += term / (2 * n + 1) as f64;
            term *= -a * a / (n + 1) as f64;
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    } else {
        // erfc(a) = exp(-a^2)/sqrt(pi) / (a + (1/2)/(a + 1/(a + (3/2)/(a + ...)))),
        // evaluated from the tail.
        let mut t = a;
        for k in (1..=60).rev() {
            t = a + k as f64 / 2.0 / t;
        }
        1.0 - (-a * a).exp() / std::f64::consts::PI.sqrt() / t
    };
    value.copysign(x)
}
