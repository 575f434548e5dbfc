//! Autotuning: pick the fastest of a kernel's configurations once, and
//! remember the choice.
//!
//! The compiler turns a kernel's tuning space into [`Config`]s and compiles
//! each (this crate never compiles); [`Tuner::tune_checked`] tries them
//! through a caller's [`Trials`], exhaustively, measures the fastest few
//! again (a single measurement's noise is about what separates them), and
//! keeps the one with the best median under a
//! [`TuneKey`]: the kernel (name and a hash of its source), the argument
//! shapes and dtypes, the device and the compiler version. The choice is
//! cached in memory and on disk, so a key is tuned once per machine.
//!
//! The environment steers it ([`Tuner::from_env`]):
//!
//! * `TILE_TUNE=0` (or `off`, `false`): never tune; every kernel runs its
//!   default configuration (the first of the list, the kernel as written).
//! * `TILE_TUNE_CACHE=DIR`: keep the on-disk cache in `DIR` (`off`: in
//!   memory only). The default is `$XDG_CACHE_HOME/tile/tune`, else
//!   `$HOME/.cache/tile/tune`. One JSON file per key, named by a hash of
//!   the key, holding the key itself (a file whose key differs is ignored)
//!   and the chosen configuration. Deleting the directory forgets every
//!   choice.
//!
//! While tuning, a progress bar goes to standard error when it is a
//! terminal; otherwise one line reports the choice.
//!
//! A configuration is never trusted because it compiled. Before anything
//! is timed, each is checked against the device's launch limits
//! ([`Trials::check`]; threads, shared memory, clusters), and one that
//! cannot launch is dropped unmeasured ([`TrialError::CannotLaunch`]).
//! Then the kernel as written (the first configuration that can launch,
//! normally the default) runs once on the tuning data, and every other
//! configuration's first run is compared with it ([`Trials::compare`], see
//! [`disagreement`]): one whose outputs disagree is dropped
//! ([`TrialError::Disagrees`]), however fast. Every launch is waited for
//! with a deadline ([`Limits`]: a minute for the reference, then 20 times
//! its time, at least a second); a launch that misses it stops the tuning
//! with [`TuneError::Hung`], naming the configuration. It cannot be
//! skipped instead: a running kernel cannot be stopped without destroying
//! the GPU context, so nothing else can run in this process, which should
//! exit (see `cuda`'s module docs).

use crate::{Error, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::{Deserialize, Serialize};
use std::{
    collections::HashMap,
    fmt::Display,
    io::IsTerminal,
    path::{Path, PathBuf},
    sync::Mutex,
    time::Duration,
};
use tile_abi::{Array, DType};

pub use tile_abi::config::{Config, distinct};

/// Why one configuration has no time: why it was dropped.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TrialError {
    /// The caller's measurement failed (it did not compile, say); its
    /// message.
    #[error("{0}")]
    Failed(String),
    /// The measurement was not a positive finite time.
    #[error("measured {0} ms")]
    NotATime(f64),
    /// It cannot launch on this device (too many threads or too much
    /// shared memory for a block, no cluster of it fits), found without
    /// launching it; it was not measured.
    #[error("cannot launch: {0}")]
    CannotLaunch(String),
    /// Its outputs disagree with the kernel as written's on the tuning
    /// data: `elements` elements of argument `arg`, by up to `max_error`
    /// (infinite where one is NaN or infinite and the other is not).
    #[error(
        "disagrees with the kernel as written: {elements} elements of argument #{arg} differ, by up to {max_error:.3e}"
    )]
    Disagrees { arg: usize, elements: usize, max_error: f64 },
    /// A launch of it did not finish within `seconds`.
    #[error("hung: a launch did not finish within {seconds:.1} s")]
    Hung { seconds: f64 },
}

/// Why [`Tuner::tune_checked`] chose nothing.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TuneError {
    #[error("tuning @{kernel}: no configuration to run")]
    Empty { kernel: String },
    /// Every configuration was dropped; each with why.
    #[error("tuning @{kernel}: no configuration ran ({})", reasons(.tried))]
    NoneRan { kernel: String, tried: Vec<(Config, TrialError)> },
    /// A launch of `config` did not finish within `seconds`. Tuning stopped
    /// there: the kernel may run for ever, and it cannot be stopped without
    /// destroying the GPU context, so the process should exit. `tried`: the
    /// configurations tried before it.
    #[error(
        "tuning @{kernel}: configuration {config} hung (a launch did not finish within {seconds:.1} s); tuning stopped, \
         since a running kernel cannot be stopped without losing the GPU context"
    )]
    Hung { kernel: String, config: Config, seconds: f64, tried: Vec<(Config, std::result::Result<f64, TrialError>)> },
}

fn reasons(tried: &[(Config, TrialError)]) -> String {
    tried.iter().map(|(config, why)| format!("{config}: {why}")).collect::<Vec<_>>().join("; ")
}

impl From<TuneError> for Error {
    fn from(error: TuneError) -> Error {
        let text = error.to_string();
        Error::Tune(text.strip_prefix("tuning ").unwrap_or(&text).to_string())
    }
}

/// What [`Tuner::tune_checked`] asks of a kernel to try its
/// configurations. The implementor keeps what the steps share (compiled
/// kernels, device arrays); each step gets a configuration of the list.
pub trait Trials {
    /// What one run leaves to compare: the arrays the kernel writes.
    type Outputs;
    /// Whether `config` can launch, told without launching it:
    /// [`TrialError::CannotLaunch`] (threads, shared memory, clusters) or
    /// [`TrialError::Failed`] (it did not compile, say) if not.
    fn check(&mut self, config: &Config) -> std::result::Result<(), TrialError>;
    /// One launch of `config` on the inputs as given and freshly poisoned
    /// outputs, waited for at most `limit`: the outputs and the launch's
    /// milliseconds, or [`TrialError::Hung`] if it did not finish in time.
    fn run(&mut self, config: &Config, limit: Duration) -> std::result::Result<(Self::Outputs, f64), TrialError>;
    /// Whether `got` agrees with `reference` (the kernel as written's):
    /// [`TrialError::Disagrees`] if not ([`disagreement`] compares arrays).
    fn compare(&self, reference: &Self::Outputs, got: &Self::Outputs) -> std::result::Result<(), TrialError>;
    /// The milliseconds of `config` (a median of a few launches), each
    /// launch waited for at most `limit` ([`TrialError::Hung`]).
    fn time(&mut self, config: &Config, limit: Duration) -> std::result::Result<f64, TrialError>;
}

/// How long a launch may take while tuning before it counts as hung.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// The first run, the reference's, when no time is known yet.
    pub reference: Duration,
    /// The least any other launch is given.
    pub floor: Duration,
    /// Any other launch is given this many times the reference's run.
    pub factor: f64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { reference: Duration::from_secs(60), floor: Duration::from_secs(1), factor: 20.0 }
    }
}

impl Limits {
    /// The limit of a launch once the reference ran in `reference_ms`
    /// (never capped: a slow configuration is not a hung one).
    pub fn after(&self, reference_ms: f64) -> Duration {
        Duration::try_from_secs_f64(reference_ms * self.factor / 1e3).unwrap_or(self.reference).max(self.floor)
    }
}

/// How far outputs of two configurations may differ: `ulps` units in the
/// last place of the output type at the reference's magnitude, plus a
/// `floor` that is this fraction of the array's largest finite magnitude.
/// The floor is for elements near zero, where f32 sums in another order
/// (another tile shape, split K) differ by a fraction of the terms'
/// magnitude that output ulps at the element cannot cover.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    pub ulps: f64,
    pub floor: f64,
}

impl Tolerance {
    /// Two output ulps, and a floor of 2^-14 of the largest magnitude,
    /// growing with `sqrt(k / 4096)` for sums of `k` terms. The reordering
    /// error of f32 sums of random terms is about 2^-18 of the largest
    /// result at K = 4096 (it grows as sqrt(K)); a wrong configuration's
    /// errors are of the order of the values themselves.
    pub fn new(k: Option<usize>) -> Tolerance {
        let growth = k.map_or(1.0, |k| (k as f64 / 4096.0).sqrt().max(1.0));
        Tolerance { ulps: 2.0, floor: growth / 16384.0 }
    }
}

impl Default for Tolerance {
    fn default() -> Self {
        Tolerance::new(None)
    }
}

/// The byte every element of a poisoned output is filled with: a NaN in
/// every float type (0xFF..: negative, every payload bit set, which no
/// arithmetic produces), and an unlikely value (0x5A..) in integer types.
pub fn poison_byte(dtype: DType) -> u8 {
    match dtype {
        DType::I8 | DType::I16 | DType::I32 | DType::I64 | DType::I1 => 0x5A,
        DType::F16 | DType::BF16 | DType::F32 | DType::F8E4M3FN | DType::F8E5M2 => 0xFF,
    }
}

/// Whether `got` (argument `arg` after a configuration's run) agrees with
/// `reference` (after the kernel as written's), as [`TrialError::Disagrees`]
/// if not. Elements with the same bits agree (integers must; so do
/// elements both runs left poisoned). Other float elements agree when both
/// are finite and within `tolerance`; so a NaN agrees with nothing but the
/// same NaN, which an output left unwritten, poisoned, never matches.
pub fn disagreement(
    arg: usize,
    reference: &Array,
    got: &Array,
    tolerance: Tolerance,
) -> std::result::Result<(), TrialError> {
    if reference.dtype() != got.dtype() || reference.shape() != got.shape() {
        return Err(TrialError::Failed(format!("argument #{arg}: the outputs to compare differ in type or shape")));
    }
    // The common case, and one memcmp.
    if reference.bytes() == got.bytes() {
        return Ok(());
    }
    let size = reference.dtype().size();
    let pairs = || reference.bytes().chunks_exact(size).zip(got.bytes().chunks_exact(size));
    let Some(epsilon) = epsilon(reference.dtype()) else {
        let elements = pairs().filter(|(r, g)| r != g).count();
        return if elements == 0 {
            Ok(())
        } else {
            Err(TrialError::Disagrees { arg, elements, max_error: integer_error(pairs()) })
        };
    };
    let decode = |bits: &[u8]| float_value(reference.dtype(), bits);
    let scale =
        reference.bytes().chunks_exact(size).map(decode).filter(|v| v.is_finite()).fold(0.0f64, |m, v| m.max(v.abs()));
    let floor = tolerance.floor * scale;
    let (mut elements, mut max_error) = (0usize, 0.0f64);
    for (r, g) in pairs().filter(|(r, g)| r != g) {
        let (r, g) = (decode(r), decode(g));
        // Bits that differ where either is NaN or infinite never agree.
        let error = if r.is_finite() && g.is_finite() { (g - r).abs() } else { f64::INFINITY };
        let within = r.is_finite() && error <= tolerance.ulps * epsilon * r.abs() + floor;
        if !within {
            elements += 1;
            max_error = max_error.max(error);
        }
    }
    if elements == 0 { Ok(()) } else { Err(TrialError::Disagrees { arg, elements, max_error }) }
}

/// The gap between consecutive values at 1.0 in a float type (`None`: an
/// integer type, compared exactly).
fn epsilon(dtype: DType) -> Option<f64> {
    Some(match dtype {
        DType::F32 => f64::from(f32::EPSILON),
        DType::F16 => 1.0 / 1024.0,
        DType::BF16 => 1.0 / 128.0,
        DType::F8E4M3FN => 1.0 / 8.0,
        DType::F8E5M2 => 1.0 / 4.0,
        DType::I1 | DType::I8 | DType::I16 | DType::I32 | DType::I64 => return None,
    })
}

/// An element of a float type, from its little-endian bytes.
fn float_value(dtype: DType, bits: &[u8]) -> f64 {
    match (dtype, bits) {
        (DType::F32, &[a, b, c, d]) => f64::from(f32::from_le_bytes([a, b, c, d])),
        (DType::F16, &[a, b]) => f64::from(half::f16::from_le_bytes([a, b]).to_f32()),
        (DType::BF16, &[a, b]) => f64::from(half::bf16::from_le_bytes([a, b]).to_f32()),
        // E5M2 is the high byte of an f16.
        (DType::F8E5M2, &[a]) => f64::from(half::f16::from_bits(u16::from(a) << 8).to_f32()),
        (DType::F8E4M3FN, &[a]) => {
            let sign = if a & 0x80 != 0 { -1.0 } else { 1.0 };
            let (exponent, mantissa) = (i32::from((a >> 3) & 0xF), f64::from(a & 0x7));
            sign * match (exponent, a & 0x7F) {
                // The one NaN of each sign; E4M3FN has no infinity.
                (_, 0x7F) => f64::NAN,
                (0, _) => mantissa / 8.0 * 2f64.powi(-6),
                _ => (1.0 + mantissa / 8.0) * 2f64.powi(exponent - 7),
            }
        }
        _ => f64::NAN,
    }
}

/// The largest difference between integer elements (little-endian,
/// signed).
fn integer_error<'a>(pairs: impl Iterator<Item = (&'a [u8], &'a [u8])>) -> f64 {
    let value = |bits: &[u8]| {
        let mut wide = [0u8; 8];
        wide[..bits.len()].copy_from_slice(bits);
        let shift = 64 - 8 * bits.len() as u32;
        // Sign-extends the element's width (i1 travels as a byte).
        (i64::from_le_bytes(wide) << shift) >> shift
    };
    pairs.map(|(r, g)| (value(g) as f64 - value(r) as f64).abs()).fold(0.0, f64::max)
}

/// Why a choice could not be written to the disk cache.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{path}: {reason}")]
pub struct CacheError {
    pub path: PathBuf,
    pub reason: String,
}

/// What a tuning choice depends on.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TuneKey {
    /// The kernel's name.
    pub kernel: String,
    /// A hash of the program's text (see [`hash`]).
    pub source: String,
    /// The arguments: dtypes and shapes of arrays, types of scalars.
    pub args: String,
    /// The device (name and compute capability).
    pub device: String,
    /// The compiler's version.
    pub compiler: String,
}

impl TuneKey {
    fn text(&self) -> String {
        format!("{}|{}|{}|{}|{}", self.kernel, self.source, self.args, self.device, self.compiler)
    }
}

/// A stable 64-bit FNV-1a hash, in hex: the same on every machine and
/// Rust version, unlike `std`'s hasher, so it can name cache files.
pub fn hash(text: &str) -> String {
    let mut value: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        value ^= u64::from(byte);
        value = value.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{value:016x}")
}

/// The result of [`Tuner::tune_checked`] (and [`Tuner::tune`]).
#[derive(Clone, Debug)]
pub struct Tuned {
    /// The configuration to run.
    pub config: Config,
    /// Its measured time, when it was measured (now or when cached).
    pub ms: Option<f64>,
    /// Where the choice came from.
    pub source: Source,
    /// Each configuration tried now, with its time or why it was dropped.
    pub tried: Vec<(Config, std::result::Result<f64, TrialError>)>,
    /// The configuration the others' outputs were compared with: the
    /// kernel as written, unless it could not run (`None` when nothing was
    /// tried now).
    pub reference: Option<Config>,
    /// Why the choice could not be written to the disk cache, if it could not.
    pub cache_error: Option<CacheError>,
}

impl Tuned {
    /// The configurations tried now and dropped, each with why.
    pub fn dropped(&self) -> impl Iterator<Item = (&Config, &TrialError)> {
        self.tried.iter().filter_map(|(config, result)| result.as_ref().err().map(|why| (config, why)))
    }
}

/// Where a [`Tuned`] choice came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Measured now.
    Tuned,
    /// The in-memory cache.
    Memory,
    /// The on-disk cache.
    Disk,
    /// Tuning is off (or there was one configuration): the default.
    Default,
}

#[derive(Serialize, Deserialize)]
struct Entry {
    key: TuneKey,
    config: Config,
    ms: f64,
}

/// Chooses and remembers configurations.
pub struct Tuner {
    enabled: bool,
    dir: Option<PathBuf>,
    memory: Mutex<HashMap<TuneKey, (Config, f64)>>,
    progress: bool,
    limits: Limits,
}

impl Tuner {
    /// A tuner that measures, caching in `dir` (and in memory).
    pub fn new(dir: Option<PathBuf>) -> Self {
        Self { enabled: true, dir, memory: Mutex::new(HashMap::new()), progress: true, limits: Limits::default() }
    }

    /// How long launches may take before they count as hung.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// A tuner that always picks the default configuration.
    pub fn disabled() -> Self {
        Self { enabled: false, ..Self::new(None) }
    }

    /// Whether to draw the progress bar (on a terminal).
    pub fn with_progress(mut self, progress: bool) -> Self {
        self.progress = progress;
        self
    }

    /// The tuner the environment asks for (see the module docs).
    pub fn from_env() -> Self {
        let off = |v: &str| matches!(v.trim().to_ascii_lowercase().as_str(), "0" | "off" | "false" | "no");
        if std::env::var("TILE_TUNE").is_ok_and(|v| off(&v)) {
            return Self::disabled();
        }
        let dir = match std::env::var_os("TILE_TUNE_CACHE") {
            Some(dir) if off(&dir.to_string_lossy()) => None,
            Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
            _ => default_dir(),
        };
        Self::new(dir)
    }

    /// Whether this tuner measures.
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// The on-disk cache directory, if there is one.
    pub fn cache_dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// The cached choice for `key`, if any.
    pub fn cached(&self, key: &TuneKey) -> Option<Tuned> {
        let found = |config: Config, ms: f64, source| Tuned {
            config,
            ms: Some(ms),
            source,
            tried: Vec::new(),
            reference: None,
            cache_error: None,
        };
        if let Some((config, ms)) = self.memory.lock().ok()?.get(key).cloned() {
            return Some(found(config, ms, Source::Memory));
        }
        let entry = self.read(key)?;
        if let Ok(mut memory) = self.memory.lock() {
            memory.insert(key.clone(), (entry.config.clone(), entry.ms));
        }
        Some(found(entry.config, entry.ms, Source::Disk))
    }

    /// The fastest of `configs` for `key`: the cached choice if there is
    /// one, else each configuration measured by `measure` (its time in
    /// ms, or why it cannot run), the fastest kept. `configs[0]` is the
    /// default, chosen without measuring when tuning is off or it is the
    /// only one. An error only when every configuration failed.
    ///
    /// Nothing is checked here but the times: a caller that launches
    /// kernels wants [`Tuner::tune_checked`].
    pub fn tune<E: Display>(
        &self,
        key: &TuneKey,
        configs: &[Config],
        measure: impl FnMut(&Config) -> std::result::Result<f64, E>,
    ) -> Result<Tuned> {
        let mut measured = Measured { measure: checked(measure), first: HashMap::new() };
        self.tune_checked(key, configs, &mut measured).map_err(Error::from)
    }

    /// The fastest of `configs` for `key` that can launch and agrees with
    /// the kernel as written: the cached choice if there is one, else the
    /// one `trials` finds (see the module docs for the steps, and
    /// [`Tuned::tried`] for what was dropped and why). `configs[0]` is the
    /// default, chosen without trying anything when tuning is off or it is
    /// the only one. An error when every configuration was dropped, or at
    /// the first that hung ([`TuneError::Hung`]; nothing may run on the GPU
    /// after it).
    pub fn tune_checked<T: Trials>(
        &self,
        key: &TuneKey,
        configs: &[Config],
        trials: &mut T,
    ) -> std::result::Result<Tuned, TuneError> {
        let kernel = || key.kernel.clone();
        let default = configs.first().ok_or_else(|| TuneError::Empty { kernel: kernel() })?;
        if !self.enabled || configs.len() == 1 {
            return Ok(Tuned {
                config: default.clone(),
                ms: None,
                source: Source::Default,
                tried: Vec::new(),
                reference: None,
                cache_error: None,
            });
        }
        if let Some(cached) = self.cached(key).filter(|c| configs.contains(&c.config)) {
            return Ok(cached);
        }
        let bar = Progress::new(self.progress && std::io::stderr().is_terminal(), &key.kernel, configs.len());
        let mut tried: Vec<(Config, std::result::Result<f64, TrialError>)> = Vec::new();
        let mut best: Option<(Config, f64)> = None;
        // Launch limits first, for all: what cannot launch is never run.
        let mut launchable = Vec::new();
        for config in configs {
            match trials.check(config) {
                Ok(()) => launchable.push(config),
                Err(why) => tried.push((config.clone(), Err(why))),
            }
        }
        bar.draw(tried.len(), None);
        let hung = |config: &Config, seconds: f64, tried: &[(Config, std::result::Result<f64, TrialError>)]| {
            TuneError::Hung { kernel: kernel(), config: config.clone(), seconds, tried: tried.to_vec() }
        };
        // The reference's outputs and the limit its run sets for the rest.
        let mut reference: Option<(Config, T::Outputs, Duration)> = None;
        for config in launchable {
            let limit = reference.as_ref().map_or(self.limits.reference, |(_, _, limit)| *limit);
            let ran = match trials.run(config, limit) {
                Ok((outputs, ms)) => match &reference {
                    Some((_, expected, _)) => trials.compare(expected, &outputs),
                    None => {
                        reference = Some((config.clone(), outputs, self.limits.after(ms)));
                        Ok(())
                    }
                },
                Err(why) => Err(why),
            };
            let limit = reference.as_ref().map_or(self.limits.reference, |(_, _, limit)| *limit);
            let result = ran.and_then(|()| positive(trials.time(config, limit)));
            if let Err(TrialError::Hung { seconds }) = result {
                bar.finish();
                return Err(hung(config, seconds, &tried));
            }
            if let Ok(ms) = result
                && best.as_ref().is_none_or(|(_, fastest)| ms < *fastest)
            {
                best = Some((config.clone(), ms));
            }
            tried.push((config.clone(), result));
            bar.draw(tried.len(), best.as_ref());
        }
        if best.is_none() {
            bar.finish();
            let tried = tried.into_iter().filter_map(|(c, r)| r.err().map(|why| (c, why))).collect();
            return Err(TuneError::NoneRan { kernel: kernel(), tried });
        }
        let limit = reference.as_ref().map_or(self.limits.reference, |(_, _, limit)| *limit);
        let finished = final_round(&tried, &mut |config| positive(trials.time(config, limit)));
        bar.finish();
        let (config, ms) = match finished {
            Ok(chosen) => chosen.or(best).ok_or_else(|| TuneError::NoneRan { kernel: kernel(), tried: Vec::new() })?,
            Err((config, seconds)) => return Err(hung(&config, seconds, &tried)),
        };
        if self.progress {
            eprintln!("tile: tuned @{} over {} configurations: {config} ({ms:.4} ms)", key.kernel, configs.len());
        }
        if let Ok(mut memory) = self.memory.lock() {
            memory.insert(key.clone(), (config.clone(), ms));
        }
        let cache_error = self.write(key, &config, ms).err();
        let reference = reference.map(|(config, _, _)| config);
        Ok(Tuned { config, ms: Some(ms), source: Source::Tuned, tried, reference, cache_error })
    }

    fn path(&self, key: &TuneKey) -> Option<PathBuf> {
        Some(self.dir.as_ref()?.join(format!("{}.json", hash(&key.text()))))
    }

    /// The disk entry for `key`; a missing, unreadable or foreign file is
    /// no entry.
    fn read(&self, key: &TuneKey) -> Option<Entry> {
        let text = std::fs::read_to_string(self.path(key)?).ok()?;
        let entry: Entry = serde_json::from_str(&text).ok()?;
        (entry.key == *key && entry.ms.is_finite()).then_some(entry)
    }

    fn write(&self, key: &TuneKey, config: &Config, ms: f64) -> std::result::Result<(), CacheError> {
        let (Some(path), Some(dir)) = (self.path(key), self.dir.as_ref()) else { return Ok(()) };
        let failed =
            |at: &Path, reason: &dyn Display| CacheError { path: at.to_path_buf(), reason: reason.to_string() };
        let entry = Entry { key: key.clone(), config: config.clone(), ms };
        let text = serde_json::to_string_pretty(&entry).map_err(|e| failed(&path, &e))?;
        std::fs::create_dir_all(dir).map_err(|e| failed(dir, &e))?;
        // Written aside and renamed, so that a concurrent reader never sees
        // half a file.
        let partial = path.with_extension(format!("json.{}", std::process::id()));
        std::fs::write(&partial, text).map_err(|e| failed(&partial, &e))?;
        std::fs::rename(&partial, &path).map_err(|e| failed(&path, &e))
    }
}

/// How many of the fastest configurations are measured again, and how
/// many more times each.
const FINALISTS: usize = 4;
const ROUNDS: usize = 4;

/// The fastest of `tried` after a final round: one measurement can be off
/// by a few percent, which is about what separates the best
/// configurations, so the `FINALISTS` fastest are measured `ROUNDS` more
/// times, in turn, and compared by the median of their measurements. (With
/// three finalists and two more rounds, f16 4096^3 on the H100 once picked
/// a configuration 0.8% slower than the best: BENCHMARKS.md, session 8.)
/// `None` if none ran; the configuration and the seconds of a launch that
/// hung, as the error.
fn final_round(
    tried: &[(Config, std::result::Result<f64, TrialError>)],
    measure: &mut impl FnMut(&Config) -> std::result::Result<f64, TrialError>,
) -> std::result::Result<Option<(Config, f64)>, (Config, f64)> {
    let mut ranked: Vec<(&Config, Vec<f64>)> =
        tried.iter().filter_map(|(c, r)| r.as_ref().ok().map(|&ms| (c, vec![ms]))).collect();
    ranked.sort_by(|a, b| a.1[0].total_cmp(&b.1[0]));
    ranked.truncate(FINALISTS);
    if ranked.len() > 1 {
        for _ in 0..ROUNDS {
            for (config, samples) in &mut ranked {
                match measure(config) {
                    Ok(ms) => samples.push(ms),
                    Err(TrialError::Hung { seconds }) => return Err(((*config).clone(), seconds)),
                    Err(_) => {}
                }
            }
        }
    }
    let median = |samples: &[f64]| {
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        sorted[sorted.len() / 2]
    };
    Ok(ranked.into_iter().map(|(c, samples)| (c.clone(), median(&samples))).min_by(|a, b| a.1.total_cmp(&b.1)))
}

/// A time, if it is a positive finite one.
fn positive(time: std::result::Result<f64, TrialError>) -> std::result::Result<f64, TrialError> {
    match time {
        Ok(ms) if ms.is_finite() && ms > 0.0 => Ok(ms),
        Ok(ms) => Err(TrialError::NotATime(ms)),
        Err(why) => Err(why),
    }
}

/// `measure` with its failures and non-times as [`TrialError`]s.
fn checked<E: Display>(
    mut measure: impl FnMut(&Config) -> std::result::Result<f64, E>,
) -> impl FnMut(&Config) -> std::result::Result<f64, TrialError> {
    move |config| positive(measure(config).map_err(|e| TrialError::Failed(e.to_string())))
}

/// [`Trials`] of a closure that only measures times ([`Tuner::tune`]):
/// every configuration launches and agrees; a run is a measurement, and
/// the first time asked for is that measurement.
struct Measured<F> {
    measure: F,
    first: HashMap<Config, f64>,
}

impl<F: FnMut(&Config) -> std::result::Result<f64, TrialError>> Trials for Measured<F> {
    type Outputs = ();

    fn check(&mut self, _: &Config) -> std::result::Result<(), TrialError> {
        Ok(())
    }

    fn run(&mut self, config: &Config, _: Duration) -> std::result::Result<((), f64), TrialError> {
        let ms = (self.measure)(config)?;
        self.first.insert(config.clone(), ms);
        Ok(((), ms))
    }

    fn compare(&self, _: &(), _: &()) -> std::result::Result<(), TrialError> {
        Ok(())
    }

    fn time(&mut self, config: &Config, _: Duration) -> std::result::Result<f64, TrialError> {
        match self.first.remove(config) {
            Some(ms) => Ok(ms),
            None => (self.measure)(config),
        }
    }
}

/// `$XDG_CACHE_HOME/tile/tune`, else `$HOME/.cache/tile/tune`.
fn default_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").filter(|d| !d.is_empty()).map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("tile").join("tune"))
}

/// A one-line progress bar on standard error, when `on`: the kernel, how
/// many configurations were measured, and the fastest so far.
struct Progress(Option<ProgressBar>);

impl Progress {
    fn new(on: bool, kernel: &str, total: usize) -> Self {
        if !on {
            return Self(None);
        }
        Self::to(ProgressDrawTarget::stderr(), kernel, total)
    }

    fn to(target: ProgressDrawTarget, kernel: &str, total: usize) -> Self {
        let style = ProgressStyle::with_template("tuning @{prefix} [{bar:24}] {pos}/{len}{msg}")
            .expect("the template is valid")
            .progress_chars("#.");
        let bar =
            ProgressBar::with_draw_target(Some(total as u64), target).with_style(style).with_prefix(kernel.to_string());
        // Drawn at once, before the first (possibly long) measurement.
        bar.tick();
        Self(Some(bar))
    }

    fn draw(&self, done: usize, best: Option<&(Config, f64)>) {
        if let Some(bar) = &self.0 {
            bar.set_message(best.map_or(String::new(), |(config, ms)| format!(" best {ms:.4} ms ({config})")));
            bar.set_position(done as u64);
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn config(pairs: &[(&str, i64)]) -> Config {
        Config(pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect())
    }

    fn key(args: &str) -> TuneKey {
        TuneKey {
            kernel: "k".into(),
            source: hash("src"),
            args: args.into(),
            device: "dev".into(),
            compiler: "0".into(),
        }
    }

    #[test]
    fn distinct_keeps_the_first_of_each_kernel_and_what_did_not_compile() {
        let configs: Vec<Config> = (0..6).map(|i| config(&[("num_ctas", i)])).collect();
        // 0 and 2 compile alike, as do 1 and 5; 3 fails to compile.
        let kernel = |c: &Config| match c.get("num_ctas") {
            Some(0 | 2) => Some("a"),
            Some(1 | 5) => Some("b"),
            Some(4) => Some("c"),
            _ => None,
        };
        let kept: Vec<i64> = distinct(&configs, kernel).iter().filter_map(|c| c.get("num_ctas")).collect();
        assert_eq!(kept, [0, 1, 3, 4]);
    }

    #[test]
    fn product_puts_the_default_first_once() {
        let default = config(&[("tile_m", 128), ("num_stages", 4)]);
        let space: BTreeMap<String, Vec<i64>> =
            [("tile_m".to_string(), vec![64, 128]), ("num_stages".to_string(), vec![2, 4])].into();
        let configs = Config::product(&default, &space);
        assert_eq!(configs[0], default);
        assert_eq!(configs.len(), 4);
        assert!(configs.contains(&config(&[("tile_m", 64), ("num_stages", 2)])));
        assert_eq!(configs.iter().filter(|c| **c == default).count(), 1);
        assert_eq!(default.to_string().parse::<Config>().ok(), Some(default));
        assert!("tile_m".parse::<Config>().is_err() && "tile_m=x".parse::<Config>().is_err());
    }

    #[test]
    fn tunes_once_then_reads_the_cache() {
        let dir = std::env::temp_dir().join(format!("tile-tune-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let configs = vec![config(&[("n", 1)]), config(&[("n", 2)]), config(&[("n", 3)])];
        // Config n=2 is fastest; n=3 cannot run.
        let time = |c: &Config| match c.get("n") {
            Some(3) => Err("does not fit".to_string()),
            Some(n) => Ok([0.0, 5.0, 2.0][n as usize]),
            None => Err("no n".into()),
        };
        let tuner = Tuner::new(Some(dir.clone())).with_progress(false);
        let tuned = tuner.tune(&key("a"), &configs, time).unwrap();
        assert_eq!((tuned.config.get("n"), tuned.source, tuned.tried.len()), (Some(2), Source::Tuned, 3));
        assert!(tuned.cache_error.is_none());
        // In memory, then (in a new tuner) on disk: never measured again.
        let never = |_: &Config| -> std::result::Result<f64, String> { panic!("measured a cached key") };
        assert_eq!(tuner.tune(&key("a"), &configs, never).unwrap().source, Source::Memory);
        let again = Tuner::new(Some(dir.clone())).with_progress(false);
        let cached = again.tune(&key("a"), &configs, never).unwrap();
        assert_eq!((cached.config.get("n"), cached.source), (Some(2), Source::Disk));
        // Another key is tuned anew; a corrupt file is no entry.
        let other = again.tune(&key("b"), &configs, |c| Ok::<_, String>(c.get("n").unwrap_or(0) as f64)).unwrap();
        assert_eq!((other.config.get("n"), other.source), (Some(1), Source::Tuned));
        let file = dir.join(format!("{}.json", hash(&key("b").text())));
        std::fs::write(&file, "{ not json").unwrap();
        assert!(Tuner::new(Some(dir.clone())).cached(&key("b")).is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_lucky_first_measurement_does_not_win() {
        let configs: Vec<Config> = (1..=5).map(|n| config(&[("n", n)])).collect();
        // n=1 measures fast once, then as it is; n=2 is steadily faster;
        // n=5 is the slowest and not measured again.
        let mut calls: BTreeMap<i64, usize> = BTreeMap::new();
        let time = |c: &Config| {
            let n = c.get("n").unwrap();
            let call = calls.entry(n).or_default();
            *call += 1;
            assert!(!(n == 5 && *call > 1), "measured the slowest again");
            Ok::<_, String>(match (n, *call) {
                (1, 1) => 0.9,
                (1, _) => 1.2,
                (2, _) => 1.0,
                (3, _) => 1.1,
                (4, _) => 1.15,
                _ => 5.0,
            })
        };
        let tuned = Tuner::new(None).with_progress(false).tune(&key("a"), &configs, time).unwrap();
        assert_eq!((tuned.config.get("n"), tuned.ms), (Some(2), Some(1.0)));
        assert_eq!(tuned.tried.len(), 5);
    }

    /// A terminal that records what is drawn on it.
    #[derive(Debug, Default, Clone)]
    struct Screen(std::sync::Arc<Mutex<Vec<String>>>);

    impl indicatif::TermLike for Screen {
        fn width(&self) -> u16 {
            200
        }
        fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn write_line(&self, s: &str) -> std::io::Result<()> {
            self.write_str(s)
        }
        fn write_str(&self, s: &str) -> std::io::Result<()> {
            self.0.lock().unwrap().push(s.to_string());
            Ok(())
        }
        fn clear_line(&self) -> std::io::Result<()> {
            self.write_str("<clear>")
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_progress_bar_shows_the_kernel_the_count_and_the_best() {
        let screen = Screen::default();
        let bar = Progress::to(ProgressDrawTarget::term_like(Box::new(screen.clone())), "matmul", 3);
        bar.draw(1, Some(&(config(&[("n", 2)]), 1.5)));
        bar.draw(2, Some(&(config(&[("n", 2)]), 1.5)));
        bar.finish();
        let drawn = screen.0.lock().unwrap().clone();
        let shown = |line: &str| drawn.iter().any(|d| d == line);
        assert!(shown("tuning @matmul [........................] 0/3"), "{drawn:?}");
        assert!(shown("tuning @matmul [########................] 1/3 best 1.5000 ms (n=2)"), "{drawn:?}");
        assert!(shown("tuning @matmul [################........] 2/3 best 1.5000 ms (n=2)"), "{drawn:?}");
        assert_eq!(drawn.last().map(String::as_str), Some("<clear>"), "{drawn:?}");
        // Off, it draws nothing (and has nothing to draw on).
        assert!(Progress::new(false, "matmul", 3).0.is_none());
    }

    /// Fake [`Trials`]: config `n` runs in `ms[n]` (if listed), writes
    /// `out[n]` (else 1.0), cannot launch when in `cannot`, hangs when in
    /// `hangs`; every call is logged.
    #[derive(Default)]
    struct Fake {
        ms: BTreeMap<i64, f64>,
        out: BTreeMap<i64, f64>,
        cannot: Vec<i64>,
        hangs: Vec<i64>,
        log: Vec<(&'static str, i64)>,
        limits: Vec<(i64, Duration)>,
    }

    impl Trials for Fake {
        type Outputs = f64;

        fn check(&mut self, config: &Config) -> std::result::Result<(), TrialError> {
            let n = config.get("n").unwrap();
            self.log.push(("check", n));
            if self.cannot.contains(&n) {
                return Err(TrialError::CannotLaunch("245760 bytes of shared memory do not fit".into()));
            }
            Ok(())
        }

        fn run(&mut self, config: &Config, limit: Duration) -> std::result::Result<(f64, f64), TrialError> {
            let n = config.get("n").unwrap();
            self.log.push(("run", n));
            self.limits.push((n, limit));
            if self.hangs.contains(&n) {
                return Err(TrialError::Hung { seconds: limit.as_secs_f64() });
            }
            Ok((self.out.get(&n).copied().unwrap_or(1.0), self.ms[&n]))
        }

        fn compare(&self, reference: &f64, got: &f64) -> std::result::Result<(), TrialError> {
            let error = (got - reference).abs();
            if error <= 1e-3 { Ok(()) } else { Err(TrialError::Disagrees { arg: 2, elements: 1, max_error: error }) }
        }

        fn time(&mut self, config: &Config, _: Duration) -> std::result::Result<f64, TrialError> {
            let n = config.get("n").unwrap();
            self.log.push(("time", n));
            Ok(self.ms[&n])
        }
    }

    fn numbered(count: i64) -> Vec<Config> {
        (1..=count).map(|n| config(&[("n", n)])).collect()
    }

    fn tuner() -> Tuner {
        Tuner::new(None).with_progress(false)
    }

    #[test]
    fn a_disagreeing_configuration_is_never_chosen_even_if_fastest() {
        let mut fake = Fake {
            ms: [(1, 3.0), (2, 0.5), (3, 2.0), (4, 0.1)].into(),
            // 2 is off by far more than the tolerance; 4 leaves its output
            // poisoned (NaN), which agrees with nothing.
            out: [(2, 1.5), (3, 1.0005), (4, f64::NAN)].into(),
            ..Fake::default()
        };
        let tuned = tuner().tune_checked(&key("a"), &numbered(4), &mut fake).unwrap();
        assert_eq!(tuned.config.get("n"), Some(3));
        assert_eq!(tuned.reference.as_ref().and_then(|c| c.get("n")), Some(1));
        let dropped: Vec<(i64, &TrialError)> = tuned.dropped().map(|(c, why)| (c.get("n").unwrap(), why)).collect();
        assert_eq!(dropped.len(), 2, "{dropped:?}");
        assert!(
            matches!(dropped[0], (2, TrialError::Disagrees { arg: 2, elements: 1, max_error }) if *max_error == 0.5)
        );
        assert!(matches!(dropped[1], (4, TrialError::Disagrees { .. })), "{dropped:?}");
        // Neither was timed beyond its checking run.
        assert!(!fake.log.contains(&("time", 2)) && !fake.log.contains(&("time", 4)), "{:?}", fake.log);
        // Every run after the reference's is bounded by 20x its time,
        // at least a second.
        assert_eq!(fake.limits[0], (1, Limits::default().reference));
        assert!(fake.limits[1..].iter().all(|&(_, limit)| limit == Duration::from_secs(1)), "{:?}", fake.limits);
    }

    #[test]
    fn a_hung_configuration_stops_tuning_with_a_typed_error() {
        let mut fake =
            Fake { ms: [(1, 100.0), (2, 1.0), (3, 0.5), (4, 0.2)].into(), hangs: vec![3], ..Fake::default() };
        let error = tuner().tune_checked(&key("a"), &numbered(4), &mut fake).unwrap_err();
        let TuneError::Hung { kernel, config, seconds, tried } = &error else { panic!("not a hang: {error}") };
        assert_eq!((kernel.as_str(), config.get("n"), *seconds), ("k", Some(3), 2.0));
        assert_eq!(tried.iter().map(|(c, _)| c.get("n").unwrap()).collect::<Vec<_>>(), [1, 2]);
        let text = error.to_string();
        assert!(text.contains("configuration n=3 hung") && text.contains("within 2.0 s"), "{text}");
        // Nothing ran after it, and nothing was cached.
        assert!(!fake.log.contains(&("run", 4)), "{:?}", fake.log);
        assert_eq!(fake.log.last(), Some(&("run", 3)), "{:?}", fake.log);
        assert!(tuner().cached(&key("a")).is_none());
        // The reference hanging stops it as well, at its own (first) limit.
        let limits = Limits { reference: Duration::from_millis(50), ..Limits::default() };
        let mut fake = Fake { ms: [(1, 1.0), (2, 1.0)].into(), hangs: vec![1], ..Fake::default() };
        let error = tuner().with_limits(limits).tune_checked(&key("b"), &numbered(2), &mut fake).unwrap_err();
        assert!(matches!(error, TuneError::Hung { seconds, .. } if seconds == 0.05), "{error}");
    }

    #[test]
    fn configurations_that_cannot_launch_are_reported_and_never_measured() {
        // The default itself cannot launch: the next one is the reference.
        let mut fake = Fake { ms: [(2, 2.0), (4, 1.0)].into(), cannot: vec![1, 3], ..Fake::default() };
        let tuned = tuner().tune_checked(&key("a"), &numbered(4), &mut fake).unwrap();
        assert_eq!(tuned.config.get("n"), Some(4));
        assert_eq!(tuned.reference.as_ref().and_then(|c| c.get("n")), Some(2));
        let dropped: Vec<i64> = tuned.dropped().map(|(c, _)| c.get("n").unwrap()).collect();
        assert_eq!(dropped, [1, 3]);
        assert!(tuned.dropped().all(|(_, why)| why.to_string().starts_with("cannot launch: 245760 bytes")));
        // Every configuration was checked before anything ran, and those
        // that cannot launch were neither run nor timed.
        let first_run = fake.log.iter().position(|(step, _)| *step == "run").unwrap();
        assert!(fake.log[..first_run].iter().all(|(step, _)| *step == "check"));
        assert_eq!(first_run, 4);
        assert!(fake.log.iter().all(|&(step, n)| step == "check" || (n != 1 && n != 3)), "{:?}", fake.log);
        // None can: an error naming each with why.
        let mut fake = Fake { cannot: vec![1, 2], ..Fake::default() };
        let error = tuner().tune_checked(&key("b"), &numbered(2), &mut fake).unwrap_err();
        assert!(matches!(&error, TuneError::NoneRan { tried, .. } if tried.len() == 2), "{error}");
        assert!(error.to_string().contains("n=2: cannot launch"), "{error}");
        assert!(!fake.log.iter().any(|(step, _)| *step != "check"));
    }

    #[test]
    fn limits_scale_with_the_reference_and_are_never_below_the_floor() {
        let limits = Limits::default();
        assert_eq!(limits.after(0.01), Duration::from_secs(1));
        assert_eq!(limits.after(100.0), Duration::from_secs(2));
        // A slow reference is not capped at the first run's limit.
        assert_eq!(limits.after(10_000.0), Duration::from_secs(200));
        assert_eq!(limits.after(f64::NAN), limits.reference);
    }

    fn bf16(values: &[f32]) -> Array {
        Array::from_f32(DType::BF16, &[values.len()], values).unwrap()
    }

    #[test]
    fn outputs_agree_within_two_ulps_and_a_floor_and_never_through_nan() {
        let tolerance = Tolerance::default();
        let reference = bf16(&[100.0, -3.0, 0.0, 1e-3, 64.0]);
        // One bf16 ulp at 100 is 0.5; near zero the floor (2^-14 of 100)
        // covers a reordered sum.
        let close = bf16(&[100.5, -3.0234375, 0.005, 1e-3 + 0.004, 64.0]);
        assert_eq!(disagreement(2, &reference, &close, tolerance), Ok(()));
        let far = bf16(&[102.0, -3.0, 0.0, 1e-3, 64.0]);
        assert_eq!(
            disagreement(2, &reference, &far, tolerance),
            Err(TrialError::Disagrees { arg: 2, elements: 1, max_error: 2.0 })
        );
        // A poisoned (unwritten) element disagrees with a written one...
        let mut unwritten = reference.clone();
        unwritten.bytes_mut()[..2].fill(poison_byte(DType::BF16));
        assert!(matches!(
            disagreement(2, &reference, &unwritten, tolerance),
            Err(TrialError::Disagrees { elements: 1, max_error, .. }) if max_error == f64::INFINITY
        ));
        // ...but agrees where the kernel as written left it poisoned too.
        assert_eq!(disagreement(2, &unwritten, &unwritten.clone(), tolerance), Ok(()));
        let nan = bf16(&[f32::NAN, -3.0, 0.0, 1e-3, 64.0]);
        assert!(disagreement(2, &reference, &nan, tolerance).is_err());
        assert!(disagreement(2, &bf16(&[f32::INFINITY]), &bf16(&[3e38]), tolerance).is_err());
        // Integers agree only exactly.
        let ints = Array::from_i32(&[3], &[1, -2, 3]).unwrap();
        let off = Array::from_i32(&[3], &[1, -5, 3]).unwrap();
        assert_eq!(disagreement(0, &ints, &ints.clone(), tolerance), Ok(()));
        assert_eq!(
            disagreement(0, &ints, &off, tolerance),
            Err(TrialError::Disagrees { arg: 0, elements: 1, max_error: 3.0 })
        );
        // Arrays of another shape cannot be compared.
        assert!(matches!(disagreement(0, &ints, &bf16(&[1.0]), tolerance), Err(TrialError::Failed(_))));
    }

    #[test]
    fn the_floor_grows_with_k_and_f8_elements_decode() {
        assert_eq!(Tolerance::new(Some(1024)), Tolerance::default());
        assert_eq!(Tolerance::new(Some(16384)).floor, 2.0 / 16384.0);
        // E4M3FN: 0x38 is 1.0, 0x01 the smallest subnormal, 0x7E 448, 0x7F NaN.
        assert_eq!(float_value(DType::F8E4M3FN, &[0x38]), 1.0);
        assert_eq!(float_value(DType::F8E4M3FN, &[0x01]), 2f64.powi(-9));
        assert_eq!(float_value(DType::F8E4M3FN, &[0x7E]), 448.0);
        assert_eq!(float_value(DType::F8E4M3FN, &[0xC0]), -2.0);
        assert!(float_value(DType::F8E4M3FN, &[0xFF]).is_nan());
        // E5M2: 0x3C is 1.0, 0x7C infinity.
        assert_eq!(float_value(DType::F8E5M2, &[0x3C]), 1.0);
        assert_eq!(float_value(DType::F8E5M2, &[0x7C]), f64::INFINITY);
        assert!(float_value(DType::F8E5M2, &[poison_byte(DType::F8E5M2)]).is_nan());
        assert!(float_value(DType::F32, &[0xFF; 4]).is_nan() && float_value(DType::F16, &[0xFF; 2]).is_nan());
    }

    #[test]
    fn disabled_or_failed_tuning() {
        let configs = vec![config(&[("n", 1)]), config(&[("n", 2)])];
        let never = |_: &Config| -> std::result::Result<f64, String> { panic!("measured with tuning off") };
        let tuned = Tuner::disabled().tune(&key("a"), &configs, never).unwrap();
        assert_eq!((tuned.config.get("n"), tuned.source), (Some(1), Source::Default));
        let failed = Tuner::new(None).with_progress(false).tune(&key("a"), &configs, |_| Err::<f64, _>("no"));
        assert!(matches!(failed, Err(Error::Tune(_))));
        assert!(Tuner::new(None).tune(&key("a"), &[], never).is_err());
    }
}
