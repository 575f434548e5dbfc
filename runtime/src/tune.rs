//! Autotuning: pick the fastest of a kernel's configurations once, and
//! remember the choice.
//!
//! The compiler turns a kernel's tuning space into [`Config`]s and compiles
//! each (this crate never compiles); [`Tuner::tune`] measures them through
//! a caller's closure, exhaustively, measures the three fastest twice more
//! (a single measurement's noise is about what separates them), and keeps
//! the one with the best median under a
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

use crate::{Error, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::{Deserialize, Serialize};
use std::{
    collections::HashMap,
    fmt::Display,
    io::IsTerminal,
    path::{Path, PathBuf},
    sync::Mutex,
};

pub use tile_abi::config::{Config, distinct};

/// Why one configuration has no time.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TrialError {
    /// The caller's measurement failed (it did not compile, say, or did
    /// not fit the device); its message.
    #[error("{0}")]
    Failed(String),
    /// The measurement was not a positive finite time.
    #[error("measured {0} ms")]
    NotATime(f64),
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

/// The result of [`Tuner::tune`].
#[derive(Clone, Debug)]
pub struct Tuned {
    /// The configuration to run.
    pub config: Config,
    /// Its measured time, when it was measured (now or when cached).
    pub ms: Option<f64>,
    /// Where the choice came from.
    pub source: Source,
    /// Each configuration tried now, with its time or why it failed.
    pub tried: Vec<(Config, std::result::Result<f64, TrialError>)>,
    /// Why the choice could not be written to the disk cache, if it could not.
    pub cache_error: Option<CacheError>,
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
}

impl Tuner {
    /// A tuner that measures, caching in `dir` (and in memory).
    pub fn new(dir: Option<PathBuf>) -> Self {
        Self { enabled: true, dir, memory: Mutex::new(HashMap::new()), progress: true }
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
    pub fn tune<E: Display>(
        &self,
        key: &TuneKey,
        configs: &[Config],
        measure: impl FnMut(&Config) -> std::result::Result<f64, E>,
    ) -> Result<Tuned> {
        let mut measure = checked(measure);
        let default =
            configs.first().ok_or_else(|| Error::Tune(format!("@{}: no configuration to run", key.kernel)))?;
        if !self.enabled || configs.len() == 1 {
            return Ok(Tuned {
                config: default.clone(),
                ms: None,
                source: Source::Default,
                tried: Vec::new(),
                cache_error: None,
            });
        }
        if let Some(cached) = self.cached(key).filter(|c| configs.contains(&c.config)) {
            return Ok(cached);
        }
        let bar = Progress::new(self.progress && std::io::stderr().is_terminal(), &key.kernel, configs.len());
        let mut tried = Vec::new();
        let mut best: Option<(Config, f64)> = None;
        for (done, config) in configs.iter().enumerate() {
            let result = measure(config);
            if let Ok(ms) = result
                && best.as_ref().is_none_or(|(_, fastest)| ms < *fastest)
            {
                best = Some((config.clone(), ms));
            }
            tried.push((config.clone(), result));
            bar.draw(done + 1, best.as_ref());
        }
        bar.finish();
        if best.is_none() {
            let reasons: Vec<String> = tried
                .iter()
                .map(|(c, r)| format!("{c}: {}", r.as_ref().err().map_or(String::new(), ToString::to_string)))
                .collect();
            return Err(Error::Tune(format!("@{}: no configuration ran ({})", key.kernel, reasons.join("; "))));
        }
        let (config, ms) = final_round(&tried, &mut measure)
            .or(best)
            .ok_or_else(|| Error::Tune(format!("@{}: no configuration ran", key.kernel)))?;
        if self.progress {
            eprintln!("tile: tuned @{} over {} configurations: {config} ({ms:.4} ms)", key.kernel, configs.len());
        }
        if let Ok(mut memory) = self.memory.lock() {
            memory.insert(key.clone(), (config.clone(), ms));
        }
        let cache_error = self.write(key, &config, ms).err();
        Ok(Tuned { config, ms: Some(ms), source: Source::Tuned, tried, cache_error })
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
/// `None` if none ran.
fn final_round(
    tried: &[(Config, std::result::Result<f64, TrialError>)],
    measure: &mut impl FnMut(&Config) -> std::result::Result<f64, TrialError>,
) -> Option<(Config, f64)> {
    let mut ranked: Vec<(&Config, Vec<f64>)> =
        tried.iter().filter_map(|(c, r)| r.as_ref().ok().map(|&ms| (c, vec![ms]))).collect();
    ranked.sort_by(|a, b| a.1[0].total_cmp(&b.1[0]));
    ranked.truncate(FINALISTS);
    if ranked.len() > 1 {
        for _ in 0..ROUNDS {
            for (config, samples) in &mut ranked {
                if let Ok(ms) = measure(config) {
                    samples.push(ms);
                }
            }
        }
    }
    let median = |samples: &[f64]| {
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        sorted[sorted.len() / 2]
    };
    ranked.into_iter().map(|(c, samples)| (c.clone(), median(&samples))).min_by(|a, b| a.1.total_cmp(&b.1))
}

/// `measure` with its failures and non-times as [`TrialError`]s.
fn checked<E: Display>(
    mut measure: impl FnMut(&Config) -> std::result::Result<f64, E>,
) -> impl FnMut(&Config) -> std::result::Result<f64, TrialError> {
    move |config| match measure(config) {
        Ok(ms) if ms.is_finite() && ms > 0.0 => Ok(ms),
        Ok(ms) => Err(TrialError::NotATime(ms)),
        Err(e) => Err(TrialError::Failed(e.to_string())),
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
