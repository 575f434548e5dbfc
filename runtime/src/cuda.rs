//! Launching bundles on an NVIDIA GPU through the CUDA driver (cudarc,
//! loaded at run time: machines without a driver get `Error::NoDriver`).

use crate::{Arg, Bundle, Error, Grid, Param, Result, memref_slots};
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr, result, sys};
use std::{
    collections::HashMap,
    ffi::{CString, c_void},
    sync::{Arc, Mutex},
};

/// A GPU with a module cache: each bundle's PTX is JIT-loaded once.
pub struct Cuda {
    context: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    modules: Mutex<HashMap<String, Module>>,
}

struct Module {
    raw: sys::CUmodule,
}

// SAFETY: a CUmodule handle may be used from any thread of its context.
unsafe impl Send for Module {}

fn driver(error: result::DriverError) -> Error {
    Error::Launch(error.to_string())
}

/// Whether a CUDA driver library can be loaded.
pub fn driver_present() -> bool {
    // SAFETY: only tries to open the library.
    unsafe { sys::is_culib_present() }
}

impl Cuda {
    /// The first GPU, or why there is none.
    pub fn new() -> Result<Cuda> {
        if !driver_present() {
            return Err(Error::NoDriver);
        }
        let count = CudaContext::device_count().map_err(|e| Error::NoGpu(e.to_string()))?;
        if count < 1 {
            return Err(Error::NoGpu("the driver sees no device".into()));
        }
        let context = CudaContext::new(0).map_err(|e| Error::NoGpu(e.to_string()))?;
        let stream = context.default_stream();
        Ok(Cuda { context, stream, modules: Mutex::new(HashMap::new()) })
    }

    /// The device's name.
    pub fn name(&self) -> String {
        self.context.name().unwrap_or_default()
    }

    fn function(&self, bundle: &Bundle, name: &str) -> Result<sys::CUfunction> {
        let mut modules = self.modules.lock().map_err(|_| Error::Launch("module cache poisoned".into()))?;
        if !modules.contains_key(&bundle.ptx) {
            let ptx = CString::new(bundle.ptx.as_str()).map_err(|_| Error::Launch("PTX contains a NUL byte".into()))?;
            self.context.bind_to_thread().map_err(driver)?;
            // SAFETY: `ptx` is a NUL-terminated PTX image, alive for the call.
            let raw = unsafe { result::module::load_data(ptx.as_ptr().cast()) }.map_err(driver)?;
            modules.insert(bundle.ptx.clone(), Module { raw });
        }
        let module = &modules[&bundle.ptx];
        let c_name = CString::new(name).map_err(|_| Error::NoKernel(name.into()))?;
        // SAFETY: the module is loaded in this context and stays loaded.
        unsafe { result::module::get_function(module.raw, c_name) }.map_err(|_| Error::NoKernel(name.into()))
    }

    /// Runs kernel `name` of `bundle` on `grid`: copies the arrays to the
    /// device, launches, copies them back. Returns the kernel's time in
    /// milliseconds for each of `repeat` launches (at least one).
    pub fn launch(&self, bundle: &Bundle, name: &str, args: &mut [Arg], grid: Grid, repeat: usize) -> Result<Vec<f32>> {
        let info = bundle.kernel(name).ok_or_else(|| Error::NoKernel(name.into()))?;
        info.signature.check(args)?;
        let grid = Grid::new(grid.0)?;
        let [gx, gy, gz] = grid.0;
        if gx > i32::MAX as u64 || gy > 65535 || gz > 65535 {
            return Err(Error::Launch(format!(
                "grid {:?} does not fit a CUDA launch (x < 2^31, y and z <= 65535)",
                grid.0
            )));
        }
        let function = self.function(bundle, name)?;
        self.context.bind_to_thread().map_err(driver)?;
        if info.shared_memory > 48 * 1024 {
            // SAFETY: a live function of a loaded module.
            unsafe {
                result::function::set_function_attribute(
                    function,
                    sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    info.shared_memory as i32,
                )
            }
            .map_err(|e| Error::Launch(format!("{} bytes of shared memory do not fit: {e}", info.shared_memory)))?;
        }

        // Device copies of the arrays, and the flattened parameters.
        let mut buffers: Vec<Option<CudaSlice<u8>>> = Vec::new();
        for arg in args.iter() {
            buffers.push(match arg {
                Arg::Array(array) => {
                    // One byte more than needed, so that an empty array
                    // still gets a valid allocation.
                    let mut bytes = array.bytes().to_vec();
                    bytes.push(0);
                    Some(self.stream.clone_htod(&bytes).map_err(driver)?)
                }
                Arg::Scalar(_) => None,
            });
        }
        let mut slots: Vec<u64> = Vec::new();
        for ((param, arg), buffer) in info.signature.params.iter().zip(args.iter()).zip(&buffers) {
            match (param, arg, buffer) {
                (Param::Memref { .. }, Arg::Array(array), Some(buffer)) => {
                    let (address, _sync) = buffer.device_ptr(&self.stream);
                    slots.extend(memref_slots(address, array));
                }
                (_, Arg::Scalar(scalar), _) => slots.push(scalar.slot()),
                _ => return Err(Error::Launch("argument does not match its parameter".into())),
            }
        }
        let mut params: Vec<*mut c_void> = slots.iter_mut().map(|s| (s as *mut u64).cast()).collect();

        let mut times = Vec::new();
        for _ in 0..repeat.max(1) {
            let start = self.context.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT)).map_err(driver)?;
            let end = self.context.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT)).map_err(driver)?;
            start.record(&self.stream).map_err(driver)?;
            // SAFETY: `Signature::check` matched every argument with its
            // parameter; `params` holds one pointer per kernel parameter in
            // the order of the compiled function, each to an 8-byte slot
            // (4-byte parameters read its low bytes); the buffers they point
            // to live until after the synchronisation below.
            unsafe {
                result::launch_kernel(
                    function,
                    (gx as u32, gy as u32, gz as u32),
                    (info.block[0], info.block[1], info.block[2]),
                    info.shared_memory,
                    self.stream.cu_stream(),
                    &mut params,
                )
            }
            .map_err(|e| Error::Launch(format!("launch of @{name} failed: {e}")))?;
            end.record(&self.stream).map_err(driver)?;
            self.stream.synchronize().map_err(|e| Error::Launch(format!("@{name} failed while running: {e}")))?;
            times.push(start.elapsed_ms(&end).map_err(driver)?);
        }

        for (arg, buffer) in args.iter_mut().zip(&buffers) {
            if let (Arg::Array(array), Some(buffer)) = (arg, buffer) {
                let bytes = self.stream.clone_dtoh(buffer).map_err(driver)?;
                let n = array.bytes().len();
                array.bytes_mut().copy_from_slice(&bytes[..n]);
            }
        }
        Ok(times)
    }
}

impl Drop for Cuda {
    fn drop(&mut self) {
        if let Ok(modules) = self.modules.lock() {
            for module in modules.values() {
                // SAFETY: loaded by `function`, unloaded once.
                let _ = unsafe { result::module::unload(module.raw) };
            }
        }
    }
}
