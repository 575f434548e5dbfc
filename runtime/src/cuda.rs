//! Launching bundles on an NVIDIA GPU through the CUDA driver (cudarc,
//! loaded at run time: machines without a driver get `Error::NoDriver`).
//!
//! A launch can be waited for with a deadline ([`Cuda::timed_within`]):
//! the end event is polled rather than synchronised on, so a kernel that
//! never finishes is reported instead of stalling the caller. Such a kernel
//! cannot be stopped short of destroying the context, so after one this
//! `Cuda` refuses further work, and its drop leaves the modules loaded
//! (unloading may wait for the kernel): the process should exit.
//!
//! Modules are cached by their PTX text. [`Cuda::preload`], which the
//! tuners call on hundreds of bundles, assembles them to cubins with
//! `ptxas` processes in parallel ([`crate::ptxas`]) and loads those, since
//! the driver's own PTX JIT serialises much of its work; a bundle falls
//! back to the JIT when there is no `ptxas`, its chip is not the device's
//! architecture, `ptxas` fails on it, or the driver refuses a cubin (after
//! one refusal, such as from a driver older than the `ptxas`, this `Cuda`
//! stops assembling). A module loaded on first launch is JIT-compiled.

use crate::{
    Arg, Array, Bundle, Error, Grid, GridSlice, Param, Result, Retiled, StreamK, TmaDescriptor, Variant, memref_slots,
    ptxas::{Arch, Ptxas},
    tma,
};
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, result, sys};
use std::{
    collections::HashMap,
    ffi::{CString, c_void},
    sync::{
        Arc, Mutex, OnceLock,
        atomic::{AtomicBool, AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

/// At most this many threads load modules in [`Cuda::preload`] (each
/// running one `ptxas` at a time, or the driver's JIT).
const PRELOAD_THREADS: usize = 16;

/// The flags a stream-K workspace holds at least (one a launched block).
const STREAM_K_FLAGS: u64 = 1024;

/// A GPU with a module cache: each bundle's PTX is loaded once.
pub struct Cuda {
    context: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    modules: Mutex<HashMap<String, Module>>,
    variants: bool,
    /// Variants passed over by name: those whose name holds one of these.
    skipped: Vec<String>,
    scratch: Mutex<Option<CudaSlice<u8>>>,
    /// Stream-K variants' workspace and how many flags it starts with
    /// (zero when allocated; the kernels leave them zero), then partial
    /// tiles. Grown, never shrunk; launches on the one stream use it in
    /// turn.
    workspace: Mutex<Option<(Arc<CudaSlice<u8>>, u64)>>,
    /// Set once a launch did not finish within its deadline: the kernel
    /// may still be running, and anything that waits on the stream would
    /// wait for ever.
    hung: AtomicBool,
    /// The `ptxas` that `preload` assembles with, looked for once.
    ptxas: OnceLock<Option<Ptxas>>,
    /// Set once the driver refused a cubin: it would likely refuse the
    /// others too, and each would cost a `ptxas` run before its JIT.
    cubins_refused: AtomicBool,
}

/// How [`Cuda::preload`] loaded the modules it was asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Preloaded {
    /// Loaded from cubins [`Cuda::assembler`] wrote.
    pub assembled: usize,
    /// Compiled by the driver's JIT.
    pub jit: usize,
    /// Not loaded either way: their launches report why.
    pub failed: usize,
}

impl Preloaded {
    /// How the modules were loaded, for a tool's report: "assembled with
    /// ptxas (VERSION)" (and how many the JIT compiled, if any) when any
    /// was assembled, given the [`Cuda::assembler`]'s version, else
    /// "JIT-loaded".
    pub fn describe(&self, ptxas_version: Option<&str>) -> String {
        match ptxas_version {
            Some(version) if self.assembled > 0 && self.jit == 0 => format!("assembled with ptxas ({version})"),
            Some(version) if self.assembled > 0 => {
                format!("assembled with ptxas ({version}; {} of them JIT-loaded)", self.jit)
            }
            _ => "JIT-loaded".to_string(),
        }
    }
}

/// The route a module took into the driver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Route {
    Assembled,
    Jit,
}

/// Loads one module of `ptx` for `chip`: from the cubin `ptxas` assembles
/// where there is a `ptxas`, the chip is `device`'s architecture and no
/// cubin was refused yet, else (also when either of those steps fails) by
/// `jit`. A refused cubin sets `refused`. Generic over the loaders so that
/// the fallback is testable without a GPU.
fn load_module<M>(
    ptx: &str,
    chip: &str,
    ptxas: Option<&Ptxas>,
    device: Option<(u32, u32)>,
    refused: &AtomicBool,
    cubin: impl FnOnce(&[u8]) -> Option<M>,
    jit: impl FnOnce(&str) -> Option<M>,
) -> Option<(M, Route)> {
    let native = Arch::parse(chip).is_some_and(|arch| Some(arch.capability()) == device);
    if let Some(ptxas) = ptxas
        && native
        && !refused.load(Ordering::Relaxed)
        && let Ok(image) = ptxas.assemble(ptx, chip)
    {
        match cubin(&image) {
            Some(module) => return Some((module, Route::Assembled)),
            None => refused.store(true, Ordering::Relaxed),
        }
    }
    jit(ptx).map(|module| (module, Route::Jit))
}

/// Why a kernel cannot be launched on this device, found without
/// launching it ([`Cuda::try_prepare`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("@{entry} cannot launch: {reason}")]
pub struct CannotLaunch {
    /// The entry that would have run (the kernel or a variant).
    pub entry: String,
    pub reason: String,
}

/// How a waited-for launch ended ([`Cuda::timed_within`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Timing {
    /// It finished; the device's milliseconds.
    Done(f64),
    /// It had not finished after `waited`; it may still be running.
    Hung { waited: Duration },
}

/// What a launch asks of a block, as `prepare` reads it from the bundle and
/// the loaded function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchShape {
    pub block: [u32; 3],
    /// Dynamic shared memory, bytes (the bundle's figure).
    pub dynamic_shared: u32,
    /// Static shared memory of the function, bytes.
    pub static_shared: u32,
    /// The most threads a block of this function may have (its registers
    /// can make it fewer than the device's limit).
    pub function_threads: u32,
    /// Blocks per cluster (1: no clusters).
    pub cluster: u32,
}

/// The device's limits a launch must respect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceLimits {
    pub threads: u32,
    pub block: [u32; 3],
    /// Shared memory a block may opt in to, bytes (static and dynamic).
    pub shared_optin: u32,
    /// The largest portable cluster.
    pub cluster: u32,
}

/// Why `shape` cannot launch within `limits`, if it cannot; a pure check
/// of what the driver would refuse (or hang on) before anything launches.
pub fn launch_problem(shape: &LaunchShape, limits: &DeviceLimits) -> Option<String> {
    let threads = shape.block.iter().fold(1u64, |n, &d| n.saturating_mul(u64::from(d)));
    if threads == 0 {
        return Some(format!("block {:?} has no thread", shape.block));
    }
    if threads > u64::from(limits.threads) {
        return Some(format!("{threads} threads per block exceed the device's {}", limits.threads));
    }
    for (axis, (&dim, &most)) in ["x", "y", "z"].iter().zip(shape.block.iter().zip(&limits.block)) {
        if dim > most {
            return Some(format!("a block of {dim} threads along {axis} exceeds the device's {most}"));
        }
    }
    if threads > u64::from(shape.function_threads) {
        return Some(format!(
            "{threads} threads per block, but the kernel's registers allow at most {}",
            shape.function_threads
        ));
    }
    let shared = u64::from(shape.dynamic_shared) + u64::from(shape.static_shared);
    if shared > u64::from(limits.shared_optin) {
        let static_part = match shape.static_shared {
            0 => String::new(),
            bytes => format!(" (and {bytes} static)"),
        };
        return Some(format!(
            "{} bytes of shared memory{static_part} do not fit (at most {} per block on this device)",
            shape.dynamic_shared, limits.shared_optin
        ));
    }
    if shape.cluster > limits.cluster {
        return Some(format!("clusters of {} blocks exceed the portable size {}", shape.cluster, limits.cluster));
    }
    None
}

/// Calls `done` until it says yes or `limit` has passed, sleeping a little
/// longer between calls each time (up to a millisecond, so a short wait
/// stays short); the time it took, or `None` if `limit` passed first.
fn poll_until(limit: Duration, mut done: impl FnMut() -> Result<bool>) -> Result<Option<Duration>> {
    let start = Instant::now();
    let mut pause = Duration::from_micros(5);
    loop {
        if done()? {
            return Ok(Some(start.elapsed()));
        }
        let elapsed = start.elapsed();
        if elapsed >= limit {
            return Ok(None);
        }
        std::thread::sleep(pause.min(limit - elapsed));
        pause = (pause * 2).min(Duration::from_millis(1));
    }
}

/// A launch's arrays on the device, in argument order ([`Cuda::upload`]).
pub struct DeviceArgs {
    buffers: Vec<Option<CudaSlice<u8>>>,
}

impl DeviceArgs {
    /// Bytes of argument `index`'s device array (`None` for a scalar or
    /// an index out of range).
    pub fn bytes(&self, index: usize) -> Option<usize> {
        self.buffers.get(index).and_then(Option::as_ref).map(|b| b.len())
    }
}

/// A kernel ready to launch on uploaded arrays ([`Cuda::prepare`]); it
/// borrows them, so they outlive every launch of it.
pub struct Prepared<'d> {
    /// The PTX entry it launches: the kernel or one of its variants.
    pub entry: String,
    /// Why no variant was taken, for each variant passed over.
    pub passed_over: Vec<String>,
    function: sys::CUfunction,
    grid: [u32; 3],
    block: [u32; 3],
    shared_memory: u32,
    /// Blocks per cluster along x (1: none).
    cluster: u32,
    slots: Vec<u64>,
    _descriptors: Vec<Option<CudaSlice<u8>>>,
    /// A stream-K variant's workspace, which its parameters point into.
    _workspace: Option<Arc<CudaSlice<u8>>>,
    /// Blocks of the entry resident at once on a multiprocessor; for an
    /// entry in clusters, its clusters resident at once on the device.
    resident: u64,
    /// The entry's block order where it may run a slice of its grid.
    grid_slice: Option<GridSlice>,
    /// The launch after this one that runs the last wave's program tiles
    /// as the program's blocks (`tile-split-last-wave`), where this one
    /// runs the wide blocks before them.
    tail: Option<Box<Prepared<'d>>>,
    _device: std::marker::PhantomData<&'d DeviceArgs>,
}

impl Prepared<'_> {
    /// The blocks it launches along x, y and z (for a persistent variant,
    /// the resident blocks, not the program's grid; for a launch split
    /// before its last wave, the first launch's, see
    /// [`Prepared::last_wave`] for the second's).
    pub fn grid(&self) -> [u32; 3] {
        self.grid
    }

    /// Blocks per cluster (1: no clusters).
    pub fn cluster(&self) -> u32 {
        self.cluster
    }

    /// Where the launch ends its wide blocks before a partial last wave
    /// and runs the program tiles left as the program's own blocks: that
    /// entry and its blocks.
    pub fn last_wave(&self) -> Option<(&str, u32)> {
        self.tail.as_deref().map(|tail| (tail.entry.as_str(), tail.grid[0]))
    }
}

/// What a launch ran.
#[derive(Clone, Debug)]
pub struct Launched {
    /// The PTX entry that ran: the kernel or one of its variants.
    pub entry: String,
    /// Milliseconds per launch.
    pub times: Vec<f32>,
    /// Why no variant ran, for each variant passed over.
    pub passed_over: Vec<String>,
    /// The entry that ran the last wave's program tiles, and its blocks
    /// ([`Prepared::last_wave`]).
    pub last_wave: Option<(String, u32)>,
}

struct Module {
    raw: sys::CUmodule,
}

// SAFETY: a CUmodule handle may be used from any thread of its context.
unsafe impl Send for Module {}

fn driver(error: result::DriverError) -> Error {
    Error::Launch(error.to_string())
}

fn no_array(index: usize) -> Error {
    Error::Launch(format!("argument #{index} has no device array"))
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
        Ok(Cuda {
            context,
            stream,
            modules: Mutex::new(HashMap::new()),
            variants: true,
            skipped: Vec::new(),
            scratch: Mutex::new(None),
            workspace: Mutex::new(None),
            hung: AtomicBool::new(false),
            ptxas: OnceLock::new(),
            cubins_refused: AtomicBool::new(false),
        })
    }

    /// Whether launches may take a kernel's specialised variants (the
    /// default); without them every launch runs the general kernel, which
    /// lets a test compare the two on the same data.
    pub fn use_variants(mut self, on: bool) -> Cuda {
        self.variants = on;
        self
    }

    /// Variants whose names hold any of `parts` (such as `__tma`) are
    /// passed over, so that two variants of one bundle can be compared on
    /// the same data in one process.
    pub fn skip_variants(mut self, parts: Vec<String>) -> Cuda {
        self.skipped = parts;
        self
    }

    /// The device's name.
    pub fn name(&self) -> String {
        self.context.name().unwrap_or_default()
    }

    /// The `ptxas` that [`Cuda::preload`] assembles with (see
    /// [`crate::ptxas`] for where it is looked for), or `None` where there
    /// is none and the driver's JIT compiles every module. Whether a given
    /// preload used it is in its [`Preloaded`].
    pub fn assembler(&self) -> Option<&Ptxas> {
        self.ptxas.get_or_init(Ptxas::find).as_ref()
    }

    /// Loads the PTX of each of `bundles` not loaded yet, on up to one
    /// thread a core (at most 16), so that their launches find them in the
    /// cache: a tuner loads hundreds of bundles, and compiling PTX to
    /// machine code is most of a first tuning's time. Each thread assembles
    /// a cubin with a `ptxas` process and loads that; where it cannot, the
    /// driver's JIT compiles the PTX (see the module docs). A bundle that
    /// does not load either way is left for its launch to report.
    pub fn preload(&self, bundles: &[&Bundle]) -> Preloaded {
        // After a hang the context may never be usable again.
        if self.hung() {
            return Preloaded::default();
        }
        let mut wanted: Vec<(&str, &str)> = match self.modules.lock() {
            Ok(modules) => bundles
                .iter()
                .map(|b| (b.ptx.as_str(), b.chip.as_str()))
                .filter(|(ptx, _)| !modules.contains_key(*ptx))
                .collect(),
            Err(_) => return Preloaded::default(),
        };
        wanted.sort_unstable();
        wanted.dedup_by_key(|(ptx, _)| *ptx);
        if wanted.is_empty() {
            return Preloaded::default();
        }
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(PRELOAD_THREADS);
        let ptxas = self.assembler();
        let device = self
            .context
            .compute_capability()
            .ok()
            .and_then(|(major, minor)| Some((u32::try_from(major).ok()?, u32::try_from(minor).ok()?)));
        let next = AtomicUsize::new(0);
        let context = &self.context;
        let refused = &self.cubins_refused;
        let loader = || {
            let mut loaded = Vec::new();
            if context.bind_to_thread().is_err() {
                return loaded;
            }
            loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(ptx, chip)) = wanted.get(index) else { break };
                let cubin = |image: &[u8]| {
                    // Copied to whole words, so that the image is 8-byte
                    // aligned like the ELF structures the driver reads
                    // from it.
                    let words: Vec<u64> = image
                        .chunks(8)
                        .map(|chunk| {
                            let mut word = [0u8; 8];
                            word[..chunk.len()].copy_from_slice(chunk);
                            u64::from_ne_bytes(word)
                        })
                        .collect();
                    // SAFETY: the driver takes every size it reads from
                    // the image's ELF headers, and `words` holds the whole
                    // file a successful ptxas wrote, alive for the call;
                    // the context is current on this thread.
                    unsafe { result::module::load_data(words.as_ptr().cast()) }.ok()
                };
                let jit = |ptx: &str| {
                    let text = CString::new(ptx).ok()?;
                    // SAFETY: `text` is a NUL-terminated PTX image, alive
                    // for the call; the context is current on this thread.
                    unsafe { result::module::load_data(text.as_ptr().cast()) }.ok()
                };
                match load_module(ptx, chip, ptxas, device, refused, cubin, jit) {
                    Some((raw, route)) => loaded.push((ptx.to_string(), Some((Module { raw }, route)))),
                    None => loaded.push((ptx.to_string(), None)),
                }
            }
            loaded
        };
        let loaded: Vec<(String, Option<(Module, Route)>)> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads.min(wanted.len()))
                .filter_map(|_| std::thread::Builder::new().spawn_scoped(scope, loader).ok())
                .collect();
            handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
        });
        let mut report = Preloaded::default();
        let Ok(mut modules) = self.modules.lock() else {
            for (_, module) in loaded {
                if let Some((module, _)) = module {
                    // SAFETY: loaded above and in no map: unloaded once.
                    let _ = unsafe { result::module::unload(module.raw) };
                }
            }
            return report;
        };
        for (ptx, module) in loaded {
            let Some((module, route)) = module else {
                report.failed += 1;
                continue;
            };
            match route {
                Route::Assembled => report.assembled += 1,
                Route::Jit => report.jit += 1,
            }
            match modules.entry(ptx) {
                std::collections::hash_map::Entry::Vacant(slot) => {
                    slot.insert(module);
                }
                // SAFETY: loaded above and in no map: unloaded once.
                std::collections::hash_map::Entry::Occupied(_) => {
                    let _ = unsafe { result::module::unload(module.raw) };
                }
            }
        }
        report
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
        self.launch_report(bundle, name, args, grid, repeat).map(|l| l.times)
    }

    /// [`Cuda::launch`], saying which entry ran.
    pub fn launch_report(
        &self,
        bundle: &Bundle,
        name: &str,
        args: &mut [Arg],
        grid: Grid,
        repeat: usize,
    ) -> Result<Launched> {
        self.launch_report_warm(bundle, name, args, grid, repeat, Duration::ZERO)
    }

    /// [`Cuda::launch_report`], the timed launches after launches of the
    /// same kernel, untimed, for at least `warm_up` of wall time. A GPU
    /// that has idled runs its first launches at a boost its power limit
    /// soon takes back (BENCHMARKS.md, session 50, run 8); after a warm-up
    /// the times are those of a sustained load.
    pub fn launch_report_warm(
        &self,
        bundle: &Bundle,
        name: &str,
        args: &mut [Arg],
        grid: Grid,
        repeat: usize,
        warm_up: Duration,
    ) -> Result<Launched> {
        let device = self.upload(args)?;
        let mut prepared = self.prepare(bundle, name, args, &device, grid)?;
        let start = Instant::now();
        while start.elapsed() < warm_up {
            self.timed(|| self.enqueue(&mut prepared))?;
        }
        let mut times = Vec::new();
        for _ in 0..repeat.max(1) {
            times.push(self.timed(|| self.enqueue(&mut prepared))?);
        }
        self.download(&device, args)?;
        let last_wave = prepared.last_wave().map(|(entry, blocks)| (entry.to_string(), blocks));
        Ok(Launched { entry: prepared.entry, times, passed_over: prepared.passed_over, last_wave })
    }

    /// Device copies of the arrays among `args`.
    pub fn upload(&self, args: &[Arg]) -> Result<DeviceArgs> {
        self.usable()?;
        self.context.bind_to_thread().map_err(driver)?;
        let mut buffers = Vec::new();
        for arg in args {
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
        Ok(DeviceArgs { buffers })
    }

    /// Copies the device arrays back into `args` (the arrays `upload` got).
    pub fn download(&self, device: &DeviceArgs, args: &mut [Arg]) -> Result<()> {
        self.usable()?;
        for (arg, buffer) in args.iter_mut().zip(&device.buffers) {
            if let (Arg::Array(array), Some(buffer)) = (arg, buffer) {
                let bytes = self.stream.clone_dtoh(buffer).map_err(driver)?;
                let n = array.bytes().len();
                if bytes.len() < n {
                    return Err(Error::Launch("a device array is smaller than its host array".into()));
                }
                array.bytes_mut().copy_from_slice(&bytes[..n]);
            }
        }
        Ok(())
    }

    /// The device address of argument `index`'s array (0 for a scalar).
    pub fn address(&self, device: &DeviceArgs, index: usize) -> u64 {
        device.buffers.get(index).and_then(Option::as_ref).map_or(0, |b| b.device_ptr(&self.stream).0)
    }

    /// Readies kernel `name` of `bundle` for launches on `device` (the
    /// upload of `args`): picks the entry (the first variant whose TMA
    /// descriptors all encode, else the kernel), encodes its descriptors
    /// and lays out its parameters. A kernel that cannot launch on this
    /// device is an `Error::Launch` saying why ([`Cuda::try_prepare`]); a
    /// deferred kernel (`KernelInfo::deferred`) that no variant takes is
    /// `Error::Deferred`.
    pub fn prepare<'d>(
        &self,
        bundle: &Bundle,
        name: &str,
        args: &[Arg],
        device: &'d DeviceArgs,
        grid: Grid,
    ) -> Result<Prepared<'d>> {
        self.try_prepare(bundle, name, args, device, grid)?.map_err(|refused| Error::Launch(refused.to_string()))
    }

    /// [`Cuda::prepare`], telling apart a kernel that cannot launch on this
    /// device (the inner error: its block has too many threads, or too much
    /// shared memory, or none of its blocks or clusters fit on the device),
    /// found without launching anything, from every other failure.
    pub fn try_prepare<'d>(
        &self,
        bundle: &Bundle,
        name: &str,
        args: &[Arg],
        device: &'d DeviceArgs,
        grid: Grid,
    ) -> Result<std::result::Result<Prepared<'d>, CannotLaunch>> {
        self.prepare_entry(bundle, name, args, device, grid, None)
    }

    /// [`Cuda::try_prepare`]; for the last wave of a split launch
    /// (`last_wave`, [`Cuda::split_last_wave`]), only variants that run a
    /// slice of their grid in that block order.
    fn prepare_entry<'d>(
        &self,
        bundle: &Bundle,
        name: &str,
        args: &[Arg],
        device: &'d DeviceArgs,
        grid: Grid,
        last_wave: Option<GridSlice>,
    ) -> Result<std::result::Result<Prepared<'d>, CannotLaunch>> {
        let info = bundle.kernel(name).ok_or_else(|| Error::NoKernel(name.into()))?;
        info.signature.check(args)?;
        // The device arrays must be (at least as large as) these arguments'
        // arrays, or the kernel would read past them.
        let fits = device.buffers.len() == args.len()
            && args.iter().enumerate().all(|(i, arg)| match arg {
                Arg::Array(array) => device.bytes(i).is_some_and(|n| n >= array.bytes().len()),
                Arg::Scalar(_) => true,
            });
        if !fits {
            return Err(Error::Launch("the device arrays are not those of these arguments".into()));
        }
        // CUDA's limits; an empty grid passes, and `enqueue` launches
        // nothing for it.
        let grid = Grid::new(grid.0)?;
        let [gx, gy, gz] = grid.0;
        self.context.bind_to_thread().map_err(driver)?;
        let address = |i: usize| self.address(device, i);

        let sms = self
            .context
            .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(driver)?;
        let mut passed_over = Vec::new();
        // The variant, its descriptors and its grid along x.
        type Chosen<'a> = (&'a Variant, Vec<Option<CudaSlice<u8>>>, u64);
        let mut chosen: Option<Chosen> = None;
        for variant in info.variants.iter().filter(|_| self.variants) {
            if last_wave.is_some() && (variant.retiled.is_some() || variant.grid_slice != last_wave) {
                continue;
            }
            if let Some(part) = self.skipped.iter().find(|p| variant.name.contains(p.as_str())) {
                passed_over.push(format!("@{}: skipped (its name holds '{part}')", variant.name));
                continue;
            }
            if variant.persistent && (gy, gz) != (1, 1) {
                passed_over.push(format!("@{}: persistent blocks need a one-dimensional grid", variant.name));
                continue;
            }
            let program_x = match &variant.retiled {
                None => gx,
                Some(retiled) => match retiled_grid(retiled, args, [gx, gy, gz], sms) {
                    Ok(x) => x,
                    Err(why) => {
                        passed_over.push(format!("@{}: {why}", variant.name));
                        continue;
                    }
                },
            };
            match self.encode_all(&variant.tma, args, &address) {
                Ok(descriptors) => {
                    chosen = Some((variant, descriptors, program_x));
                    break;
                }
                Err(why @ (Error::Launch(_) | Error::Tma(_))) => passed_over.push(format!("@{}: {why}", variant.name)),
                Err(other) => return Err(other),
            }
        }
        if chosen.is_none() && info.deferred {
            return Err(Error::Deferred { kernel: name.to_string(), passed_over });
        }
        let chosen_variant = chosen.as_ref().map(|(variant, _, _)| *variant);
        let (entry, block, shared_memory, descriptors, persistent, cluster, gx, stream_k, grid_slice) = match chosen {
            Some((v, descriptors, x)) => (
                v.name.as_str(),
                v.block,
                v.shared_memory,
                descriptors,
                v.persistent,
                v.cluster.max(1),
                x,
                v.stream_k,
                v.grid_slice,
            ),
            None => (name, info.block, info.shared_memory, Vec::new(), false, info.cluster.max(1), gx, None, None),
        };
        let refuse = |reason: String| Ok(Err(CannotLaunch { entry: entry.to_string(), reason }));
        let function = self.function(bundle, entry)?;
        // What the driver would refuse at the launch, asked first: a
        // refused launch would otherwise surface only when timed, and an
        // attribute set past the limit fails with a bare "invalid value".
        let shape = self.launch_shape(function, block, shared_memory, cluster)?;
        if let Some(reason) = launch_problem(&shape, &self.limits()?) {
            return refuse(reason);
        }
        if shared_memory > 48 * 1024 {
            // SAFETY: a live function of a loaded module.
            let set = unsafe {
                result::function::set_function_attribute(
                    function,
                    sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    shared_memory as i32,
                )
            };
            if let Err(e) = set {
                return refuse(format!("{shared_memory} bytes of shared memory do not fit: {e}"));
            }
        }
        let threads = block.iter().product::<u32>() as i32;
        // Resident blocks (or clusters): none means a launch that fails, or
        // for a persistent kernel one that waits for ever.
        let resident = if cluster > 1 {
            self.resident_clusters(function, block, shared_memory, cluster, sms)?
        } else {
            // SAFETY: a live function of a loaded module.
            unsafe { result::occupancy::max_active_block_per_multiprocessor(function, threads, shared_memory as usize) }
                .map_err(|e| Error::Launch(format!("occupancy of @{entry}: {e}")))?
        };
        if resident < 1 {
            return refuse(if cluster > 1 {
                format!("no cluster of {cluster} blocks fits on the device")
            } else {
                "no block fits on a multiprocessor (registers or shared memory)".into()
            });
        }

        // The flattened parameters.
        let mut slots: Vec<u64> = Vec::new();
        for (i, (param, arg)) in info.signature.params.iter().zip(args.iter()).enumerate() {
            match (param, arg, &device.buffers[i]) {
                (Param::Memref { .. }, Arg::Array(array), Some(_)) => slots.extend(memref_slots(address(i), array)),
                (_, Arg::Scalar(scalar), _) => slots.push(scalar.slot()),
                _ => return Err(Error::Launch("argument does not match its parameter".into())),
            }
        }
        for descriptor in &descriptors {
            // An optional descriptor the array could not have is a null
            // pointer, which the kernel checks.
            slots.push(descriptor.as_ref().map_or(0, |d| d.device_ptr(&self.stream).0));
        }
        if grid_slice.is_some() {
            // The whole grid: its first block, and its size along x.
            slots.extend([0, gx]);
        }
        let mut launched = gx;
        let mut held_workspace = None;
        if persistent {
            // The program's grid, which the blocks share out; as many
            // blocks as are resident at once, and no more than the grid.
            slots.push(gx);
            let blocks = if cluster > 1 {
                // Clusters must fit in one GPC each, which leaves fewer
                // resident blocks than the per-SM count says.
                clustered_grid(gx.saturating_mul(u64::from(cluster)), resident, cluster)
            } else {
                resident_grid(gx, resident, sms)
            };
            match blocks {
                Some(blocks) => launched = blocks,
                None => return refuse("no block fits on a multiprocessor".into()),
            }
            if let Some(stream_k) = stream_k {
                // Before the grid (the variant's arguments: ..., descriptors,
                // workspace, flags, schedule, grid).
                let grid = slots.pop();
                let shape = match args.get(stream_k.arg) {
                    Some(Arg::Array(array)) => array.shape().to_vec(),
                    _ => {
                        return Err(Error::Launch(format!(
                            "@{entry}: stream-K's argument #{} is not an array",
                            stream_k.arg
                        )));
                    }
                };
                let trips = stream_k.trips(&shape).ok_or_else(|| {
                    Error::Launch(format!(
                        "@{entry}: stream-K's argument #{} has no dim {}",
                        stream_k.arg, stream_k.dim
                    ))
                })?;
                let (workspace, flags, buffer) = self.stream_k_workspace(launched, stream_k.elements)?;
                held_workspace = Some(buffer);
                slots.extend([workspace, workspace, 0, launched * stream_k.elements, 1]);
                slots.extend([flags, flags, 0, launched, 1]);
                // Whole waves shared beside the last partial one (0 by
                // default; TILE_STREAM_K_WAVES for experiments).
                let waves = match std::env::var("TILE_STREAM_K_WAVES") {
                    Err(_) => 0,
                    Ok(text) => text.parse().map_err(|_| {
                        Error::Launch(format!(
                            "TILE_STREAM_K_WAVES='{text}': expected a count of whole waves (0, 1, ...)"
                        ))
                    })?,
                };
                slots.extend(StreamK::schedule(gx, trips, launched, waves));
                slots.extend(grid);
            }
        } else if cluster > 1 {
            // Each program block runs as a cluster of `cluster` blocks (a
            // sliced or split-K kernel or variant).
            match cluster_grid(gx, cluster) {
                Some(blocks) => launched = blocks,
                None => {
                    return refuse(format!(
                        "grid {gx} in clusters of {cluster} blocks does not fit a CUDA launch (x < 2^31)"
                    ));
                }
            }
        }
        let mut prepared = Prepared {
            entry: entry.to_string(),
            function,
            grid: [launched as u32, gy as u32, gz as u32],
            block,
            shared_memory,
            cluster,
            slots,
            _descriptors: descriptors,
            _workspace: held_workspace,
            resident: u64::try_from(resident).unwrap_or(0),
            grid_slice,
            tail: None,
            passed_over,
            _device: std::marker::PhantomData,
        };
        if let Some(variant) = chosen_variant.filter(|_| last_wave.is_none()) {
            self.split_last_wave(&mut prepared, variant, bundle, name, args, device, [gy, gz], sms);
        }
        Ok(Ok(prepared))
    }

    /// Splits the launch of a wide variant (`prepared`, of `variant`)
    /// whose last wave is less than half full: its blocks stop at a whole
    /// wave (`GridSlice::last_wave_split`), and a second launch runs the
    /// program tiles left on a variant of the program's tiles, one wave of
    /// blocks each half a wide tile (docs/tail-wave.md). Only where both
    /// take a slice of their grid (`Variant::grid_slice`, with the same
    /// block order) on a one-dimensional grid; where the second launch
    /// cannot be prepared, the launch stays whole and `passed_over` says
    /// why. `TILE_NO_WAVE_SPLIT=1` keeps the one launch (for comparisons).
    #[allow(clippy::too_many_arguments)]
    fn split_last_wave<'d>(
        &self,
        prepared: &mut Prepared<'d>,
        variant: &Variant,
        bundle: &Bundle,
        name: &str,
        args: &[Arg],
        device: &'d DeviceArgs,
        [gy, gz]: [u64; 2],
        sms: i32,
    ) {
        let (Some(slice), Some(retiled)) = (variant.grid_slice, variant.retiled.as_ref()) else { return };
        if !retiled.doubles_columns()
            || (gy, gz) != (1, 1)
            || std::env::var("TILE_NO_WAVE_SPLIT").is_ok_and(|v| v == "1")
        {
            return;
        }
        let Some(Arg::Array(array)) = args.get(retiled.arg) else { return };
        let (Some([rows, columns]), Some([_, wide_columns])) =
            (retiled.counts(array.shape(), retiled.program_tile), retiled.counts(array.shape(), retiled.tile))
        else {
            return;
        };
        let sms = u64::try_from(sms).unwrap_or(0);
        let wide_wave = prepared.resident * sms;
        // The wide blocks alone first: only a last wave less than half full
        // is worth a second launch, whatever runs it.
        let wide = rows.saturating_mul(wide_columns);
        let Some(worth) = slice.last_wave_split(rows, wide_columns, wide_wave, u64::MAX) else { return };
        if columns != 2 * wide_columns {
            return;
        }
        let mut kept = |why: String| prepared.passed_over.push(format!("the split of the last wave: {why}"));
        let program = rows * columns;
        let grid = match Grid::new([program, 1, 1]) {
            Ok(grid) => grid,
            Err(error) => return kept(error.to_string()),
        };
        let mut tail = match self.prepare_entry(bundle, name, args, device, grid, Some(slice)) {
            Ok(Ok(tail)) if tail.grid_slice == Some(slice) => tail,
            Ok(Ok(tail)) => {
                return kept(format!("no variant of the program's tiles takes a slice (@{} would run)", tail.entry));
            }
            Ok(Err(refused)) => return kept(refused.to_string()),
            Err(error) => return kept(error.to_string()),
        };
        let program_wave = tail.resident * sms * u64::from(tail.cluster == 1);
        let Some(split) = slice.last_wave_split(rows, wide_columns, wide_wave, program_wave) else {
            return kept(format!(
                "the {} program tiles left would not run in one wave of @{} ({program_wave} blocks)",
                2 * (wide - worth),
                tail.entry
            ));
        };
        // The wide launch: its first `split` blocks of the whole grid
        // (whose first block and size its slots already hold).
        prepared.grid[0] = split as u32;
        // The program's blocks from `2 split` on, of its whole grid.
        let n = tail.slots.len();
        tail.slots[n - 2] = 2 * split;
        tail.grid[0] = (program - 2 * split) as u32;
        prepared.tail = Some(Box::new(tail));
    }

    /// The device addresses of a stream-K variant's workspace for
    /// `blocks` blocks of partial tiles of `elements` f32 elements, and of
    /// its flags (zero). The buffer held for them starts with its flags,
    /// always the same bytes whatever the launch's blocks, so that no
    /// launch takes another's partial tiles for set flags; it is
    /// reallocated (zeroed) where it is too small. The buffer comes back
    /// too, for the launch to hold: a launch prepared before another grew
    /// it still has its own (whose flags its kernels left zero).
    fn stream_k_workspace(&self, blocks: u64, elements: u64) -> Result<(u64, u64, Arc<CudaSlice<u8>>)> {
        let too_big = || Error::Launch(format!("a stream-K workspace for {blocks} blocks of {elements} elements"));
        let partials = blocks.checked_mul(elements).and_then(|n| n.checked_mul(4)).ok_or_else(too_big)?;
        let mut held = self.workspace.lock().map_err(|_| Error::Launch("stream-K workspace poisoned".into()))?;
        let fits = |(buffer, flags): &(Arc<CudaSlice<u8>>, u64)| {
            *flags >= blocks && (buffer.len() as u64).saturating_sub(flags * 4) >= partials
        };
        if !held.as_ref().is_some_and(fits) {
            let flags = blocks.max(STREAM_K_FLAGS).next_multiple_of(4);
            let bytes = flags.checked_mul(4).and_then(|f| f.checked_add(partials)).ok_or_else(too_big)?;
            let bytes = usize::try_from(bytes).map_err(|_| too_big())?;
            // The old buffer is freed in the stream's order, after the
            // launches that use it.
            *held = Some((Arc::new(self.stream.alloc_zeros::<u8>(bytes).map_err(driver)?), flags));
        }
        let (buffer, flags) = held.as_ref().ok_or_else(too_big)?;
        let (start, _) = buffer.device_ptr(&self.stream);
        Ok((start + flags * 4, start, Arc::clone(buffer)))
    }

    /// What a launch of `function` asks of a block.
    fn launch_shape(
        &self,
        function: sys::CUfunction,
        block: [u32; 3],
        shared: u32,
        cluster: u32,
    ) -> Result<LaunchShape> {
        let attribute = |which| {
            // SAFETY: a live function of a loaded module.
            unsafe { result::function::get_function_attribute(function, which) }
                .map_err(driver)
                .map(|v| u32::try_from(v).unwrap_or(0))
        };
        use sys::CUfunction_attribute::{CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES};
        Ok(LaunchShape {
            block,
            dynamic_shared: shared,
            static_shared: attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?,
            function_threads: attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            cluster,
        })
    }

    /// This device's launch limits.
    pub fn limits(&self) -> Result<DeviceLimits> {
        use sys::CUdevice_attribute::*;
        let attribute = |which| self.context.attribute(which).map_err(driver).map(|v| u32::try_from(v).unwrap_or(0));
        Ok(DeviceLimits {
            threads: attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            block: [
                attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
                attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
                attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
            ],
            shared_optin: attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?,
            // CUDA's portable cluster size; larger ones need an opt-in the
            // runtime never asks for.
            cluster: 8,
        })
    }

    /// A launch on this stream with one attribute, which must outlive the
    /// configuration's use.
    fn launch_config(
        &self,
        grid: [u32; 3],
        block: [u32; 3],
        shared_memory: u32,
        attribute: &mut sys::CUlaunchAttribute,
    ) -> sys::CUlaunchConfig {
        sys::CUlaunchConfig {
            gridDimX: grid[0],
            gridDimY: grid[1],
            gridDimZ: grid[2],
            blockDimX: block[0],
            blockDimY: block[1],
            blockDimZ: block[2],
            sharedMemBytes: shared_memory,
            hStream: self.stream.cu_stream(),
            attrs: attribute,
            numAttrs: 1,
        }
    }

    /// How many clusters of `cluster` blocks of `function` are resident at
    /// once (`cuOccupancyMaxActiveClusters`).
    fn resident_clusters(
        &self,
        function: sys::CUfunction,
        block: [u32; 3],
        shared_memory: u32,
        cluster: u32,
        sms: i32,
    ) -> Result<i32> {
        let mut attribute = cluster_attribute(cluster);
        let config = self.launch_config([cluster * sms.max(1) as u32, 1, 1], block, shared_memory, &mut attribute);
        let mut clusters = 0;
        // SAFETY: `config` and the attribute it points to live across the
        // call; `function` is a live function of a loaded module.
        let status = unsafe { sys::cuOccupancyMaxActiveClusters(&mut clusters, function, &config) };
        status.result().map_err(|e| Error::Launch(format!("cluster occupancy: {e}")))?;
        Ok(clusters)
    }

    /// Queues one launch of a prepared kernel on the stream (two where it
    /// runs its last wave as the program's blocks, [`Prepared::last_wave`]).
    ///
    /// A kernel in clusters goes through `cuLaunchKernelEx` with its
    /// cluster dimension; any other through `cuLaunchKernel`.
    pub fn enqueue(&self, prepared: &mut Prepared) -> Result<()> {
        self.enqueue_one(prepared)?;
        match prepared.tail.as_deref_mut() {
            Some(tail) => self.enqueue_one(tail),
            None => Ok(()),
        }
    }

    /// Queues `prepared`'s own launch ([`Cuda::enqueue`]).
    fn enqueue_one(&self, prepared: &mut Prepared) -> Result<()> {
        // An empty grid runs no block; CUDA would refuse a launch of it.
        if prepared.grid.contains(&0) {
            return Ok(());
        }
        let mut params: Vec<*mut c_void> = prepared.slots.iter_mut().map(|s| (s as *mut u64).cast()).collect();
        if prepared.cluster > 1 {
            let mut attribute = cluster_attribute(prepared.cluster);
            let config = self.launch_config(prepared.grid, prepared.block, prepared.shared_memory, &mut attribute);
            // SAFETY: as for `launch_kernel` below; `config` and its
            // attribute live across the call, and `prepare` made the grid
            // a whole number of clusters.
            let status =
                unsafe { sys::cuLaunchKernelEx(&config, prepared.function, params.as_mut_ptr(), std::ptr::null_mut()) };
            return status.result().map_err(|e| Error::Launch(format!("launch of @{} failed: {e}", prepared.entry)));
        }
        // SAFETY: `prepare` checked every argument against its parameter;
        // `params` holds one pointer per kernel parameter in the order of
        // the compiled function, each to an 8-byte slot (4-byte parameters
        // read its low bytes); the device arrays and descriptors they point
        // to outlive `prepared` (its lifetime is the arrays' borrow, and it
        // owns the descriptors).
        unsafe {
            result::launch_kernel(
                prepared.function,
                (prepared.grid[0], prepared.grid[1], prepared.grid[2]),
                (prepared.block[0], prepared.block[1], prepared.block[2]),
                prepared.shared_memory,
                self.stream.cu_stream(),
                &mut params,
            )
        }
        .map_err(|e| Error::Launch(format!("launch of @{} failed: {e}", prepared.entry)))
    }

    /// Milliseconds the device spent on what `work` queues (events around
    /// it, then a synchronisation, which also reports a failed kernel).
    pub fn timed(&self, work: impl FnOnce() -> Result<()>) -> Result<f32> {
        self.usable()?;
        let start = self.context.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT)).map_err(driver)?;
        let end = self.context.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT)).map_err(driver)?;
        start.record(&self.stream).map_err(driver)?;
        work()?;
        end.record(&self.stream).map_err(driver)?;
        self.stream.synchronize().map_err(|e| Error::Launch(format!("a kernel failed while running: {e}")))?;
        start.elapsed_ms(&end).map_err(driver)
    }

    /// [`Cuda::timed`], waiting at most `limit` (wall clock, from when the
    /// work is queued) for the work to finish: the end event is polled, so
    /// a kernel that never ends gives `Timing::Hung` instead of a wait for
    /// ever. After that, this `Cuda` refuses all work (see the module docs).
    pub fn timed_within(&self, limit: Duration, work: impl FnOnce() -> Result<()>) -> Result<Timing> {
        self.usable()?;
        let start = self.context.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT)).map_err(driver)?;
        let end = self.context.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT)).map_err(driver)?;
        start.record(&self.stream).map_err(driver)?;
        work()?;
        end.record(&self.stream).map_err(driver)?;
        let finished = poll_until(limit, || {
            end.try_is_complete().map_err(|e| Error::Launch(format!("a kernel failed while running: {e}")))
        })?;
        if finished.is_none() {
            self.hung.store(true, Ordering::SeqCst);
            return Ok(Timing::Hung { waited: limit });
        }
        Ok(Timing::Done(f64::from(start.elapsed_ms(&end).map_err(driver)?)))
    }

    /// An error once a launch has hung: the stream may never drain.
    fn usable(&self) -> Result<()> {
        if self.hung.load(Ordering::SeqCst) {
            return Err(Error::Launch(
                "a kernel launched earlier did not finish and cannot be stopped; this GPU context is unusable".into(),
            ));
        }
        Ok(())
    }

    /// Whether a launch waited for with a deadline did not finish.
    pub fn hung(&self) -> bool {
        self.hung.load(Ordering::SeqCst)
    }

    /// The median milliseconds of `runs` launches of `prepared` after
    /// `warmup` untimed ones, each after an L2 flush when `flush` is set
    /// (the flush itself is not timed).
    pub fn median_ms(&self, prepared: &mut Prepared, warmup: usize, runs: usize, flush: bool) -> Result<f64> {
        for _ in 0..warmup {
            self.timed(|| self.enqueue(prepared))?;
        }
        let mut times = Vec::with_capacity(runs.max(1));
        for _ in 0..runs.max(1) {
            if flush {
                self.flush_l2()?;
            }
            times.push(f64::from(self.timed(|| self.enqueue(prepared))?));
        }
        times.sort_by(f64::total_cmp);
        Ok(times[times.len() / 2])
    }

    /// [`Cuda::median_ms`] with each launch waited for at most `limit`:
    /// `Timing::Hung` as soon as one does not finish in time.
    pub fn median_ms_within(
        &self,
        prepared: &mut Prepared,
        warmup: usize,
        runs: usize,
        flush: bool,
        limit: Duration,
    ) -> Result<Timing> {
        let mut times = Vec::with_capacity(runs.max(1));
        for run in 0..warmup + runs.max(1) {
            if flush && run >= warmup {
                self.flush_l2()?;
            }
            match self.timed_within(limit, || self.enqueue(prepared))? {
                Timing::Done(ms) if run >= warmup => times.push(ms),
                Timing::Done(_) => {}
                hung @ Timing::Hung { .. } => return Ok(hung),
            }
        }
        times.sort_by(f64::total_cmp);
        Ok(Timing::Done(times[times.len() / 2]))
    }

    /// Overwrites the start of argument `index`'s device array with
    /// `bytes` (to restore an input between launches).
    pub fn write(&self, device: &mut DeviceArgs, index: usize, bytes: &[u8]) -> Result<()> {
        self.usable()?;
        let buffer = device.buffers.get_mut(index).and_then(Option::as_mut).ok_or_else(|| no_array(index))?;
        if bytes.len() > buffer.len() {
            return Err(Error::Launch(format!("{} bytes do not fit device array #{index}", bytes.len())));
        }
        self.stream.memcpy_htod(bytes, &mut buffer.slice_mut(..bytes.len())).map_err(driver)
    }

    /// Sets every byte of argument `index`'s device array to `byte` (to
    /// poison an output, so that an element no launch writes shows).
    pub fn fill(&self, device: &mut DeviceArgs, index: usize, byte: u8) -> Result<()> {
        self.usable()?;
        let buffer = device.buffers.get_mut(index).and_then(Option::as_mut).ok_or_else(|| no_array(index))?;
        let bytes = buffer.len();
        let (pointer, _record) = buffer.device_ptr_mut(&self.stream);
        // SAFETY: `pointer` addresses the `bytes` bytes of this buffer, which
        // the unique borrow of `device` keeps alive and unaliased by any
        // host reference; the memset is ordered on the stream every launch
        // and copy of this runtime uses.
        unsafe { result::memset_d8_async(pointer, byte, bytes, self.stream.cu_stream()) }.map_err(driver)
    }

    /// Copies argument `index`'s device array into `array` (which has its
    /// shape and dtype), leaving the other arguments alone.
    pub fn read_into(&self, device: &DeviceArgs, index: usize, array: &mut Array) -> Result<()> {
        self.usable()?;
        let buffer = device.buffers.get(index).and_then(Option::as_ref).ok_or_else(|| no_array(index))?;
        let n = array.bytes().len();
        if buffer.len() < n {
            return Err(Error::Launch("a device array is smaller than its host array".into()));
        }
        self.stream.memcpy_dtoh(&buffer.slice(..n), array.bytes_mut()).map_err(driver)
    }

    /// Evicts the L2 cache's contents by writing a buffer larger than it
    /// (256 MiB, allocated on first use), so that a timed launch finds
    /// its operands in memory, as a cold call would.
    pub fn flush_l2(&self) -> Result<()> {
        let mut scratch = self.scratch.lock().map_err(|_| Error::Launch("scratch buffer poisoned".into()))?;
        if scratch.is_none() {
            *scratch = Some(self.stream.alloc_zeros::<u8>(256 << 20).map_err(driver)?);
        }
        if let Some(buffer) = scratch.as_mut() {
            self.stream.memset_zeros(buffer).map_err(driver)?;
        }
        Ok(())
    }

    /// The stream every launch of this GPU goes to.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// Device copies of `descriptors` encoded for `args` (`None` for an
    /// optional one that cannot be); `Error::Tma` or `Error::Launch` says
    /// why a required one cannot be (the variant is then passed over).
    fn encode_all(
        &self,
        descriptors: &[TmaDescriptor],
        args: &[Arg],
        address: &dyn Fn(usize) -> u64,
    ) -> Result<Vec<Option<CudaSlice<u8>>>> {
        let mut encoded = Vec::new();
        for descriptor in descriptors {
            match self.encode(descriptor, args, address) {
                Ok(map) => encoded.push(Some(map)),
                Err(Error::Launch(_) | Error::Tma(_)) if descriptor.optional => encoded.push(None),
                Err(other) => return Err(other),
            }
        }
        Ok(encoded)
    }

    /// A device copy of `descriptor` encoded for `args`.
    fn encode(
        &self,
        descriptor: &TmaDescriptor,
        args: &[Arg],
        address: &dyn Fn(usize) -> u64,
    ) -> Result<CudaSlice<u8>> {
        let Some(Arg::Array(array)) = args.get(descriptor.arg) else {
            return Err(Error::Launch(format!("TMA descriptor of argument #{} which is no array", descriptor.arg)));
        };
        let base = address(descriptor.arg);
        let layout = tma::layout(descriptor, array, base)?;
        let data_type = tma::tma_data_type(array.dtype()).ok_or_else(|| Error::Launch("no TMA data type".into()))?;
        let rank = layout.dims.len();
        let element_strides = vec![1u32; rank];
        let swizzle = match descriptor.swizzle {
            0 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE,
            32 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_32B,
            64 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_64B,
            _ => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
        };
        let mut map = sys::CUtensorMap { opaque: [0; 16] };
        // SAFETY: `data_type` is one of the driver's CUtensorMapDataType
        // values (tma_data_type lists them), so the transmute yields a
        // valid variant of the repr(u32) enum.
        let data_type: sys::CUtensorMapDataType = unsafe { std::mem::transmute(data_type) };
        // SAFETY: the arrays hold `rank` (dims, box, element strides) and
        // `rank - 1` (strides) entries as the driver reads them, and
        // `tma::layout` checked every rule the driver states; the driver
        // only writes the 128-byte map.
        let status = unsafe {
            sys::cuTensorMapEncodeTiled(
                &mut map,
                data_type,
                rank as u32,
                base as *mut c_void,
                layout.dims.as_ptr(),
                layout.strides.as_ptr(),
                layout.box_dims.as_ptr(),
                element_strides.as_ptr(),
                sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
                swizzle,
                sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
            )
        };
        if status != sys::CUresult::CUDA_SUCCESS {
            return Err(Error::Launch(format!(
                "cuTensorMapEncodeTiled refused argument #{}: {status:?}",
                descriptor.arg
            )));
        }
        // SAFETY: CUtensorMap is 16 plain u64 words.
        let bytes: [u8; 128] = unsafe { std::mem::transmute(map.opaque) };
        self.stream.clone_htod(&bytes).map_err(driver)
    }
}

impl Drop for Cuda {
    fn drop(&mut self) {
        // Unloading a module a hung kernel still runs may wait for it.
        if self.hung() {
            return;
        }
        if let Ok(modules) = self.modules.lock() {
            for module in modules.values() {
                // SAFETY: loaded by `function`, unloaded once.
                let _ = unsafe { result::module::unload(module.raw) };
            }
        }
    }
}

/// The launch attribute of clusters of `blocks` blocks along x.
fn cluster_attribute(blocks: u32) -> sys::CUlaunchAttribute {
    // SAFETY: the attribute is plain data; all zeros is a valid value of
    // every field, and the cluster dimensions are then set.
    let mut attribute: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
    attribute.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attribute.value.clusterDim = sys::CUlaunchAttributeValue_union__bindgen_ty_1 { x: blocks, y: 1, z: 1 };
    attribute
}

/// The blocks to launch for a program grid of `grid` blocks each run as a
/// cluster of `cluster` blocks (sliced or split K); `None` past a launch's
/// 2^31 - 1.
fn cluster_grid(grid: u64, cluster: u32) -> Option<u64> {
    grid.checked_mul(u64::from(cluster)).filter(|&blocks| blocks <= i32::MAX as u64)
}

/// The grid along x of a variant with other tiles than the program's
/// (`retiled`), for a launch of `grid`: the variant's tiles' count, where
/// the launch has one block per program tile of the array along x and,
/// for wider tiles, these still give every one of the `sms`
/// multiprocessors a block; for narrower ones, the program's blocks leave
/// some idle and the narrower blocks take at most two waves of them (where
/// they measured faster than the program's: BENCHMARKS.md, session 43); else why
/// not. A kernel that walks its tiles itself (`walk`: narrower tiles only)
/// runs on any one-dimensional grid with more blocks than program tiles,
/// where the narrower tiles are no more than its blocks and the
/// multiprocessors: on one block a narrower tile.
fn retiled_grid(retiled: &Retiled, args: &[Arg], grid: [u64; 3], sms: i32) -> std::result::Result<u64, String> {
    let Some(Arg::Array(array)) = args.get(retiled.arg) else {
        return Err(format!("argument #{} is not an array", retiled.arg));
    };
    let program = retiled.count(array.shape(), retiled.program_tile);
    if retiled.walk {
        return walk_grid(retiled, array.shape(), program, grid, sms);
    }
    if program != Some(grid[0]) {
        return Err(format!(
            "the grid's x ({}) is not the program's tile count of argument #{} ({})",
            grid[0],
            retiled.arg,
            program.map_or("none".to_string(), |p| p.to_string())
        ));
    }
    let sms = u64::try_from(sms).unwrap_or(0);
    let tiles = retiled.count(array.shape(), retiled.tile).ok_or("the variant's tiles cannot be counted")?;
    let blocks = tiles.saturating_mul(grid[1]).saturating_mul(grid[2]);
    if retiled.narrows() {
        let program = grid.iter().fold(1u64, |n, &g| n.saturating_mul(g));
        if program >= sms {
            return Err(format!("the program's {program} blocks fill the multiprocessors ({sms})"));
        }
        if blocks > 2 * sms {
            return Err(format!("its {blocks} narrower blocks would take more than two waves ({sms} multiprocessors)"));
        }
    } else if blocks < sms {
        return Err(format!("its {blocks} wider blocks would leave multiprocessors idle ({sms})"));
    }
    Ok(tiles)
}

/// [`retiled_grid`] of a kernel that walks its tiles (`program` of them).
fn walk_grid(
    retiled: &Retiled,
    shape: &[usize],
    program: Option<u64>,
    grid: [u64; 3],
    sms: i32,
) -> std::result::Result<u64, String> {
    if !retiled.narrows() {
        return Err("a walk over the tiles is retiled only to narrower tiles".into());
    }
    if (grid[1], grid[2]) != (1, 1) {
        return Err("the walk needs a one-dimensional grid".into());
    }
    let program = program.ok_or("the program's tiles cannot be counted")?;
    let room = grid[0].min(u64::try_from(sms).unwrap_or(0));
    if program >= room {
        return Err(format!(
            "the program's {program} tiles fill its {} blocks or the multiprocessors ({sms})",
            grid[0]
        ));
    }
    let tiles = retiled.count(shape, retiled.tile).ok_or("the variant's tiles cannot be counted")?;
    if tiles == 0 || tiles > room {
        return Err(format!("its {tiles} narrower tiles would not run at once on {room} blocks"));
    }
    Ok(tiles)
}

/// The blocks to launch for a persistent variant in clusters of `cluster`
/// blocks whose program has `grid` blocks: every resident cluster, but no
/// more clusters than it takes to cover the grid (the kernel gives a block
/// past the grid nothing to do); `None` if no cluster fits.
fn clustered_grid(grid: u64, clusters: i32, cluster: u32) -> Option<u64> {
    let clusters = u64::try_from(clusters).ok().filter(|&n| n >= 1)?;
    let cluster = u64::from(cluster.max(1));
    Some(grid.div_ceil(cluster).min(clusters) * cluster)
}

/// The blocks to launch for a persistent variant whose program has `grid`
/// blocks: as many as are resident at once (`per_sm` on each of `sms`
/// multiprocessors) and never more than the grid, since the kernel gives
/// every block at least one tile; `None` if none fits.
fn resident_grid(grid: u64, per_sm: i32, sms: i32) -> Option<u64> {
    let per_sm = u64::try_from(per_sm).ok().filter(|&n| n >= 1)?;
    let sms = u64::try_from(sms).unwrap_or(1).max(1);
    Some(grid.min(per_sm * sms))
}

#[cfg(test)]
mod tests {
    use super::{
        Arg, Array, DeviceLimits, LaunchShape, Preloaded, Route, cluster_grid, clustered_grid, launch_problem,
        load_module, poll_until, resident_grid, retiled_grid,
    };
    use crate::ptxas::{TEST_KERNEL, is_cuda_elf, test_ptxas};
    use std::{
        cell::Cell,
        sync::atomic::{AtomicBool, Ordering},
        time::Duration,
    };

    /// An H100's limits (227 KiB of opt-in shared memory).
    const H100: DeviceLimits =
        DeviceLimits { threads: 1024, block: [1024, 1024, 64], shared_optin: 232_448, cluster: 8 };

    fn shape(block: [u32; 3], dynamic_shared: u32) -> LaunchShape {
        LaunchShape { block, dynamic_shared, static_shared: 0, function_threads: 1024, cluster: 1 }
    }

    #[test]
    fn launch_shapes_the_device_refuses_are_named_before_launching() {
        // The general kernel of 128x256 tiles (the case of issue 18).
        let why = launch_problem(&shape([256, 1, 1], 245_760), &H100).unwrap();
        assert_eq!(why, "245760 bytes of shared memory do not fit (at most 232448 per block on this device)");
        // Static shared memory counts too.
        let mixed = LaunchShape { static_shared: 1024, ..shape([256, 1, 1], 232_448) };
        assert_eq!(
            launch_problem(&mixed, &H100).as_deref(),
            Some(
                "232448 bytes of shared memory (and 1024 static) do not fit (at most 232448 per block on this device)"
            )
        );
        assert_eq!(launch_problem(&shape([384, 1, 1], 232_448), &H100), None);
        assert_eq!(
            launch_problem(&shape([2048, 1, 1], 0), &H100).as_deref(),
            Some("2048 threads per block exceed the device's 1024")
        );
        assert_eq!(
            launch_problem(&shape([1, 1, 128], 0), &H100).as_deref(),
            Some("a block of 128 threads along z exceeds the device's 64")
        );
        assert_eq!(launch_problem(&shape([0, 1, 1], 0), &H100).as_deref(), Some("block [0, 1, 1] has no thread"));
        let registers = LaunchShape { function_threads: 256, ..shape([384, 1, 1], 0) };
        assert_eq!(
            launch_problem(&registers, &H100).as_deref(),
            Some("384 threads per block, but the kernel's registers allow at most 256")
        );
        let cluster = LaunchShape { cluster: 16, ..shape([128, 1, 1], 0) };
        assert_eq!(
            launch_problem(&cluster, &H100).as_deref(),
            Some("clusters of 16 blocks exceed the portable size 8")
        );
        // Products past u32 do not wrap into a small count.
        assert!(launch_problem(&shape([u32::MAX, u32::MAX, 2], 0), &H100).is_some());
    }

    #[test]
    fn polling_stops_when_done_or_at_the_deadline() {
        let mut calls = 0;
        let waited = poll_until(Duration::from_secs(5), || {
            calls += 1;
            Ok(calls == 3)
        })
        .unwrap();
        assert!(waited.is_some_and(|w| w < Duration::from_secs(1)), "{waited:?}");
        assert_eq!(calls, 3);
        // Never done: gives up after the limit, having asked more than once.
        let mut asked = 0;
        let start = std::time::Instant::now();
        let never = poll_until(Duration::from_millis(30), || {
            asked += 1;
            Ok(false)
        })
        .unwrap();
        assert_eq!(never, None);
        assert!(start.elapsed() >= Duration::from_millis(30) && start.elapsed() < Duration::from_secs(2));
        assert!(asked > 1);
        // A failure while polling (a kernel that faulted) is the error.
        let failed = poll_until(Duration::from_secs(5), || Err(crate::Error::Launch("fault".into())));
        assert!(matches!(failed, Err(crate::Error::Launch(_))));
    }

    #[test]
    fn empty_program_grids_launch_no_block() {
        // `enqueue` then returns without a launch (CUDA refuses a 0 dim).
        assert_eq!(cluster_grid(0, 2), Some(0));
        assert_eq!(clustered_grid(0, 66, 2), Some(0));
        assert_eq!(resident_grid(0, 2, 132), Some(0));
    }

    #[test]
    fn retiled_variants_take_only_a_grid_of_program_tiles_that_still_fills_the_gpu() {
        use crate::{DType, Retiled, Scalar};
        let retiled = Retiled { arg: 1, dims: [0, 1], program_tile: [128, 128], tile: [128, 256], walk: false };
        // 2200 x 1800: 18 x 15 program tiles, 18 x 8 wide ones (the last
        // half outside the array).
        let mut c = Array::zeros(DType::F16, &[2200, 1800]);
        let mut flat = Array::zeros(DType::F16, &[2200]);
        let args = [Arg::Scalar(Scalar::I32(0)), Arg::Array(&mut c)];
        assert_eq!(retiled_grid(&retiled, &args, [270, 1, 1], 132), Ok(144));
        // Another grid (one block too many or too few) keeps the program's.
        assert!(retiled_grid(&retiled, &args, [271, 1, 1], 132).is_err());
        assert!(retiled_grid(&retiled, &args, [269, 1, 1], 132).is_err());
        // Too few wide blocks for the multiprocessors, unless y adds some.
        assert!(retiled_grid(&retiled, &args, [270, 1, 1], 145).is_err());
        assert_eq!(retiled_grid(&retiled, &args, [270, 2, 1], 145), Ok(144));
        // The counted argument must be an array with the dims.
        assert!(retiled_grid(&retiled, &args[..1], [270, 1, 1], 132).is_err());
        let flat = [Arg::Scalar(Scalar::I32(0)), Arg::Array(&mut flat)];
        assert!(retiled_grid(&retiled, &flat, [18, 1, 1], 1).is_err());
    }

    #[test]
    fn narrower_variants_take_only_a_grid_that_leaves_multiprocessors_idle_and_at_most_two_waves() {
        use crate::{DType, Retiled, Scalar};
        let narrow = Retiled { arg: 2, dims: [0, 1], program_tile: [128, 128], tile: [64, 64], walk: false };
        assert!(narrow.narrows() && !Retiled { tile: [128, 256], ..narrow.clone() }.narrows());
        // The decode step, 16 x 4096: 32 program tiles, 64 narrow ones (one
        // row of them: none lies wholly past the array).
        let mut c = Array::zeros(DType::F16, &[16, 4096]);
        let args = [Arg::Scalar(Scalar::I32(0)), Arg::Scalar(Scalar::I32(0)), Arg::Array(&mut c)];
        assert_eq!(retiled_grid(&narrow, &args, [32, 1, 1], 132), Ok(64));
        // Not for another grid than the program's tile count.
        assert!(retiled_grid(&narrow, &args, [33, 1, 1], 132).is_err());
        // Not where the program's blocks fill the multiprocessors already
        // (y counts).
        assert!(retiled_grid(&narrow, &args, [32, 1, 1], 32).is_err());
        assert!(retiled_grid(&narrow, &args, [32, 5, 1], 132).is_err());
        assert_eq!(retiled_grid(&narrow, &args, [32, 2, 1], 132), Ok(64));
        // 256 x 4096: 64 program tiles, 256 narrow ones, at most two waves
        // on 128 multiprocessors, three on 100.
        let mut tall = Array::zeros(DType::F16, &[256, 4096]);
        let tall = [Arg::Scalar(Scalar::I32(0)), Arg::Scalar(Scalar::I32(0)), Arg::Array(&mut tall)];
        assert_eq!(retiled_grid(&narrow, &tall, [64, 1, 1], 128), Ok(256));
        assert!(retiled_grid(&narrow, &tall, [64, 1, 1], 100).is_err());
        // A walk (a hand-written persistent loop) on 132 blocks: one block
        // a narrow tile; not on too few blocks for the narrow tiles, nor on
        // as few as the program's tiles, nor a 2-D grid.
        let walk = Retiled { walk: true, ..narrow.clone() };
        assert_eq!(retiled_grid(&walk, &args, [132, 1, 1], 132), Ok(64));
        assert_eq!(retiled_grid(&walk, &args, [64, 1, 1], 132), Ok(64));
        assert!(retiled_grid(&walk, &args, [63, 1, 1], 132).is_err());
        assert!(retiled_grid(&walk, &args, [132, 1, 1], 63).is_err());
        assert!(retiled_grid(&walk, &args, [32, 1, 1], 132).is_err());
        assert!(retiled_grid(&walk, &args, [66, 2, 1], 132).is_err());
        let mut empty = Array::zeros(DType::F16, &[0, 4096]);
        let none = [Arg::Scalar(Scalar::I32(0)), Arg::Scalar(Scalar::I32(0)), Arg::Array(&mut empty)];
        assert!(retiled_grid(&walk, &none, [132, 1, 1], 132).is_err());
        assert!(retiled_grid(&Retiled { tile: [128, 256], ..walk }, &args, [132, 1, 1], 132).is_err());
    }

    #[test]
    fn cluster_grids_are_whole_clusters_within_a_launch() {
        assert_eq!(cluster_grid(64, 2), Some(128));
        assert_eq!(cluster_grid(1, 2), Some(2));
        assert_eq!(cluster_grid(i32::MAX as u64 / 2, 2), Some(i32::MAX as u64 - 1));
        assert_eq!(cluster_grid(i32::MAX as u64 / 2 + 1, 2), None);
        assert_eq!(cluster_grid(u64::MAX, 2), None);
    }

    #[test]
    fn clustered_grids_are_whole_resident_clusters() {
        // 66 pairs resident on 132 SMs: all of them for a large grid.
        assert_eq!(clustered_grid(512, 66, 2), Some(132));
        // GPCs of odd size leave fewer pairs than half the SMs.
        assert_eq!(clustered_grid(512, 60, 2), Some(120));
        // An odd grid rounds up to a whole cluster (one idle block).
        assert_eq!(clustered_grid(101, 66, 2), Some(102));
        assert_eq!(clustered_grid(1, 66, 2), Some(2));
        assert_eq!(clustered_grid(512, 0, 2), None);
        assert_eq!(clustered_grid(512, -3, 2), None);
    }

    #[test]
    fn persistent_grids_are_the_resident_blocks_at_most() {
        // 4096^2 in 128x256 tiles on an H100/H200: 512 tiles, 132 SMs.
        assert_eq!(resident_grid(512, 1, 132), Some(132));
        assert_eq!(resident_grid(512, 2, 132), Some(264));
        // Fewer tiles than resident blocks: one block per tile.
        assert_eq!(resident_grid(100, 1, 132), Some(100));
        assert_eq!(resident_grid(1, 3, 132), Some(1));
        // Nothing resident: the launch would fail (or hang waiting).
        assert_eq!(resident_grid(512, 0, 132), None);
        assert_eq!(resident_grid(512, -1, 132), None);
        // An unreadable SM count counts as one.
        assert_eq!(resident_grid(512, 2, 0), Some(2));
    }

    /// What a preload's loaders were handed, standing in for the driver:
    /// the cubin loader accepts CUDA ELF images unless told to refuse.
    struct Driver {
        cubins: Cell<usize>,
        jits: Cell<usize>,
        refuse_cubins: bool,
        refuse_ptx: bool,
    }

    impl Driver {
        fn new(refuse_cubins: bool, refuse_ptx: bool) -> Driver {
            Driver { cubins: Cell::new(0), jits: Cell::new(0), refuse_cubins, refuse_ptx }
        }

        fn load(
            &self,
            ptx: &str,
            chip: &str,
            ptxas: Option<&crate::ptxas::Ptxas>,
            refused: &AtomicBool,
        ) -> Option<Route> {
            let cubin = |image: &[u8]| {
                self.cubins.set(self.cubins.get() + 1);
                assert!(is_cuda_elf(image), "the driver was handed something else than a cubin");
                (!self.refuse_cubins).then_some(())
            };
            let jit = |text: &str| {
                self.jits.set(self.jits.get() + 1);
                assert_eq!(text, ptx, "the JIT gets the PTX");
                (!self.refuse_ptx).then_some(())
            };
            load_module(ptx, chip, ptxas, Some((9, 0)), refused, cubin, jit).map(|((), route)| route)
        }
    }

    #[test]
    fn preloads_say_how_they_loaded() {
        let version = Some("release 12.9, V12.9.86");
        let all = Preloaded { assembled: 3, jit: 0, failed: 1 };
        assert_eq!(all.describe(version), "assembled with ptxas (release 12.9, V12.9.86)");
        let some = Preloaded { assembled: 3, jit: 2, failed: 0 };
        assert_eq!(some.describe(version), "assembled with ptxas (release 12.9, V12.9.86; 2 of them JIT-loaded)");
        let none = Preloaded { assembled: 0, jit: 5, failed: 0 };
        assert_eq!(none.describe(version), "JIT-loaded");
        assert_eq!(some.describe(None), "JIT-loaded");
        assert_eq!(Preloaded::default().describe(None), "JIT-loaded");
    }

    #[test]
    fn without_ptxas_modules_are_jit_loaded() {
        let driver = Driver::new(false, false);
        let refused = AtomicBool::new(false);
        assert_eq!(driver.load(TEST_KERNEL, "sm_90a", None, &refused), Some(Route::Jit));
        assert_eq!((driver.cubins.get(), driver.jits.get()), (0, 1));
        // Neither way: nothing, and no panic.
        let driver = Driver::new(false, true);
        assert_eq!(driver.load(TEST_KERNEL, "sm_90a", None, &refused), None);
    }

    #[test]
    fn preloading_assembles_with_ptxas_and_falls_back_to_the_jit() {
        let Some(ptxas) = test_ptxas() else { return };
        let ptxas = Some(&ptxas);
        let refused = AtomicBool::new(false);
        let driver = Driver::new(false, false);
        assert_eq!(driver.load(TEST_KERNEL, "sm_90a", ptxas, &refused), Some(Route::Assembled));
        assert_eq!((driver.cubins.get(), driver.jits.get()), (1, 0));

        // PTX that ptxas refuses goes to the JIT (which reports it at launch).
        let broken = TEST_KERNEL.replacen("ret;", "ret_not_an_instruction;", 1);
        let driver = Driver::new(false, false);
        assert_eq!(driver.load(&broken, "sm_90a", ptxas, &refused), Some(Route::Jit));
        assert_eq!((driver.cubins.get(), driver.jits.get()), (0, 1));
        let driver = Driver::new(false, true);
        assert_eq!(driver.load(&broken, "sm_90a", ptxas, &refused), None);

        // Not the device's architecture, or none: not assembled.
        for chip in ["sm_80", "sm_100a", "compute_90", ""] {
            let driver = Driver::new(false, false);
            assert_eq!(driver.load(TEST_KERNEL, chip, ptxas, &refused), Some(Route::Jit), "{chip}");
            assert_eq!(driver.cubins.get(), 0, "{chip}");
        }
        assert!(!refused.load(Ordering::Relaxed));

        // A driver that refuses a cubin: the JIT, and no cubin after it.
        let driver = Driver::new(true, false);
        assert_eq!(driver.load(TEST_KERNEL, "sm_90a", ptxas, &refused), Some(Route::Jit));
        assert!(refused.load(Ordering::Relaxed));
        assert_eq!(driver.load(TEST_KERNEL, "sm_90a", ptxas, &refused), Some(Route::Jit));
        assert_eq!((driver.cubins.get(), driver.jits.get()), (1, 2));
    }
}
