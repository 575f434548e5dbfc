//! Independent references for the memory-bound and attention programs of
//! the benchmark suite (`bench/norms`, `bench/attention`,
//! `bench/elementwise`), in plain Rust over `f64`. Softmax, layer norm and
//! column sums are `crate::reference`'s.

/// Row RMS norm of `rows x n`: `x / sqrt(mean(x^2) + eps) * w`.
pub fn rmsnorm(x: &[f64], w: &[f64], n: usize, eps: f64) -> Vec<f64> {
    x.chunks(n)
        .flat_map(|row| {
            let mean_square = row.iter().map(|v| v * v).sum::<f64>() / n as f64;
            let scale = 1.0 / (mean_square + eps).sqrt();
            row.iter().zip(w).map(move |(v, w)| v * scale * w)
        })
        .collect()
}

/// `gelu(a x + y)` in the erf form, `t / 2 (1 + erf(t / sqrt 2))`.
pub fn axpy_gelu(x: &[f64], y: &[f64], a: f64) -> Vec<f64> {
    x.iter()
        .zip(y)
        .map(|(x, y)| {
            let t = a * x + y;
            t / 2.0 * (1.0 + crate::suite::erf(t / std::f64::consts::SQRT_2))
        })
        .collect()
}

/// Attention over `heads` heads of `s x d` row-major `q`, `k`, `v` (each
/// `heads x s x d`): `softmax(q k^T * scale) v` per head; with `causal`,
/// query `i` sees keys `0..=i` only.
pub fn multi_head_attention(
    q: &[f64],
    k: &[f64],
    v: &[f64],
    (heads, s, d): (usize, usize, usize),
    scale: f64,
    causal: bool,
) -> Vec<f64> {
    let mut out = vec![0.0; heads * s * d];
    for h in 0..heads {
        let at = |i: usize, t: usize| (h * s + i) * d + t;
        for i in 0..s {
            let keys = if causal { i + 1 } else { s };
            let scores: Vec<f64> =
                (0..keys).map(|j| scale * (0..d).map(|t| q[at(i, t)] * k[at(j, t)]).sum::<f64>()).collect();
            let max = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let weights: Vec<f64> = scores.iter().map(|s| (s - max).exp()).collect();
            let sum: f64 = weights.iter().sum();
            for (j, w) in weights.iter().enumerate() {
                for t in 0..d {
                    out[at(i, t)] += w / sum * v[at(j, t)];
                }
            }
        }
    }
    out
}
