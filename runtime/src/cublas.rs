//! cuBLAS as the reference that kernels are checked and timed against
//! (feature `cublas`): the library is loaded at run time, like the driver,
//! and runs on the same stream and device arrays as the kernels.

use crate::{
    DType, Error, Result,
    cuda::{Cuda, DeviceArgs},
};
use cudarc::cublas::{result, safe::CudaBlas, sys};
use std::ffi::c_void;

/// A cuBLAS handle on a [`Cuda`]'s stream.
pub struct Cublas {
    blas: CudaBlas,
}

/// Whether the cuBLAS library can be loaded.
pub fn present() -> bool {
    // SAFETY: only tries to open the library.
    unsafe { sys::is_culib_present() }
}

impl Cublas {
    /// A handle on `cuda`'s stream, or why there is none.
    pub fn new(cuda: &Cuda) -> Result<Cublas> {
        if !present() {
            return Err(Error::Blas("libcublas.so could not be loaded (is it on LD_LIBRARY_PATH?)".into()));
        }
        let blas = CudaBlas::new(cuda.stream().clone()).map_err(|e| Error::Blas(e.to_string()))?;
        Ok(Cublas { blas })
    }

    /// Queues `C = A B` for row-major `A` (`m x k`), `B` (`k x n`) and `C`
    /// (`m x n`), each an uploaded array given as (arrays, argument index),
    /// all of `dtype` (f16 or bf16), accumulated in f32: what
    /// `torch.matmul` asks of cuBLAS. An array smaller than its shape needs
    /// is an error, never an out-of-bounds access.
    #[allow(clippy::too_many_arguments)]
    pub fn gemm(
        &self,
        cuda: &Cuda,
        dtype: DType,
        [m, n, k]: [usize; 3],
        a: (&DeviceArgs, usize),
        b: (&DeviceArgs, usize),
        c: (&DeviceArgs, usize),
    ) -> Result<()> {
        let data = match dtype {
            DType::F16 => sys::cudaDataType::CUDA_R_16F,
            DType::BF16 => sys::cudaDataType::CUDA_R_16BF,
            other => return Err(Error::Blas(format!("no {other} GEMM here (f16 and bf16 only)"))),
        };
        let mut addresses = [0u64; 3];
        for (slot, ((arrays, index), (rows, cols), name)) in
            addresses.iter_mut().zip([(a, (m, k), "A"), (b, (k, n), "B"), (c, (m, n), "C")])
        {
            let needed = rows.checked_mul(cols).and_then(|e| e.checked_mul(dtype.size()));
            match (arrays.bytes(index), needed) {
                (Some(have), Some(need)) if have >= need => *slot = cuda.address(arrays, index),
                _ => return Err(Error::Blas(format!("{name} is not a device array of {rows}x{cols} {dtype}"))),
            }
        }
        let [a, b, c] = addresses;
        let dim = |d: usize| i32::try_from(d).map_err(|_| Error::Blas(format!("dimension {d} exceeds cuBLAS's int")));
        let (m, n, k) = (dim(m)?, dim(n)?, dim(k)?);
        let (alpha, beta) = (1.0f32, 0.0f32);
        // Row-major C = A B is column-major C^T = B^T A^T: cuBLAS sees
        // B (n x k, leading dim n) times A (k x m, leading dim k).
        // SAFETY: the addresses are device arrays of at least the stated
        // shapes' sizes (checked above) on this handle's context, alpha and
        // beta are f32 as CUBLAS_COMPUTE_32F requires, and they outlive the
        // call (cuBLAS reads host scalars before it returns).
        unsafe {
            result::gemm_ex(
                *self.blas.handle(),
                sys::cublasOperation_t::CUBLAS_OP_N,
                sys::cublasOperation_t::CUBLAS_OP_N,
                n,
                m,
                k,
                (&alpha as *const f32).cast::<c_void>(),
                b as *const c_void,
                data,
                n,
                a as *const c_void,
                data,
                k,
                (&beta as *const f32).cast::<c_void>(),
                c as *mut c_void,
                data,
                n,
                sys::cublasComputeType_t::CUBLAS_COMPUTE_32F,
                sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
            )
        }
        .map_err(|e| Error::Blas(e.to_string()))
    }
}
