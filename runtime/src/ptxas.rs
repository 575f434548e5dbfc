//! Assembling PTX to a cubin with NVIDIA's `ptxas`, run as a process.
//!
//! The driver compiles PTX as it loads it (`cuModuleLoadData`), but it
//! serialises much of that work inside the process, so a tuner that loads
//! hundreds of modules spends most of its time waiting on it. Separate
//! `ptxas` processes run truly in parallel, and the driver loads the
//! cubins they write through the same call without compiling anything.
//! [`crate::cuda::Cuda::preload`] assembles this way where it can and falls
//! back to the driver's JIT where it cannot.
//!
//! Which `ptxas` ([`Ptxas::find`]): the path in `TILE_PTXAS` if that is set
//! and not empty (and only it: a path that does not exist means no
//! `ptxas`, which forces the driver's JIT), else `$CUDA_HOME/bin/ptxas`,
//! else `ptxas` on `PATH`, else `/usr/local/cuda/bin/ptxas`, the toolkit's
//! default place; the first that answers `--version`.
//!
//! A cubin runs only on the architecture it was assembled for, so the
//! architecture comes from the bundle's chip (`sm_90a`) and must be the
//! device's own ([`Arch::parse`], [`Arch::capability`]); `ptxas` runs at
//! `-O3`, its default and the driver JIT's, so that either route gives the
//! same optimisation level.

use std::{
    ffi::OsString,
    fmt, fs, io,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    sync::atomic::{AtomicU64, Ordering},
};

/// The environment variable that names the `ptxas` to use.
pub const PTXAS_VAR: &str = "TILE_PTXAS";

/// ELF's machine number for CUDA code (`EM_CUDA`).
const EM_CUDA: u16 = 190;

/// Why a PTX image was not assembled.
#[derive(Debug, thiserror::Error)]
pub enum AssembleError {
    /// The chip names no architecture `ptxas` knows how to target.
    #[error("'{0}' is not an architecture ptxas can assemble for (such as sm_90a)")]
    Chip(String),
    /// Temporary files or the process itself.
    #[error("{what}: {source}")]
    Io { what: String, source: io::Error },
    /// `ptxas` ran and refused the PTX; its messages.
    #[error("ptxas -arch={arch} failed ({status}): {log}")]
    Rejected { arch: String, status: String, log: String },
    /// `ptxas` claimed success but wrote no CUDA ELF image.
    #[error("ptxas -arch={0} wrote no CUDA ELF image")]
    NotCubin(String),
}

/// A target architecture as `ptxas -arch` spells it: `sm_`, the compute
/// capability's digits, and an optional `a` (architecture-specific
/// features, such as wgmma) or `f` (family) suffix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arch {
    name: String,
    major: u32,
    minor: u32,
}

impl Arch {
    /// The architecture a bundle's chip names, if it names one.
    pub fn parse(chip: &str) -> Option<Arch> {
        let rest = chip.strip_prefix("sm_")?;
        let digits = rest.strip_suffix(['a', 'f']).unwrap_or(rest);
        if !(2..=3).contains(&digits.len()) || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let number: u32 = digits.parse().ok()?;
        Some(Arch { name: chip.to_string(), major: number / 10, minor: number % 10 })
    }

    /// The `-arch` value.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The compute capability (major, minor) whose devices run it.
    pub fn capability(&self) -> (u32, u32) {
        (self.major, self.minor)
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

/// A `ptxas` that answered `--version`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ptxas {
    path: PathBuf,
    version: String,
}

impl Ptxas {
    /// The `ptxas` the environment names (see the module docs), or `None`.
    pub fn find() -> Option<Ptxas> {
        let candidates =
            candidates(std::env::var_os(PTXAS_VAR), std::env::var_os("CUDA_HOME"), std::env::var_os("PATH"));
        candidates.iter().find_map(|path| Ptxas::at(path))
    }

    /// `path`, if it runs as a `ptxas` (answers `--version`).
    pub fn at(path: &Path) -> Option<Ptxas> {
        if !path.is_file() {
            return None;
        }
        let out = Command::new(path).arg("--version").stdin(Stdio::null()).output().ok()?;
        if !out.status.success() {
            return None;
        }
        let text = String::from_utf8_lossy(&out.stdout);
        Some(Ptxas { path: path.to_path_buf(), version: version_line(&text)? })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The release line of `--version` without its boilerplate (`release
    /// 12.9, V12.9.86`), else its last line.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// Assembles `ptx` for `chip` into a cubin, in a fresh temporary
    /// directory removed afterwards.
    pub fn assemble(&self, ptx: &str, chip: &str) -> Result<Vec<u8>, AssembleError> {
        let arch = Arch::parse(chip).ok_or_else(|| AssembleError::Chip(chip.to_string()))?;
        let io = |what: &str| {
            let what = what.to_string();
            move |source| AssembleError::Io { what, source }
        };
        let dir = TempDir::new().map_err(io("creating a temporary directory"))?;
        let input = dir.path().join("kernel.ptx");
        let output = dir.path().join("kernel.cubin");
        fs::write(&input, ptx).map_err(io(&format!("writing {}", input.display())))?;
        let out = Command::new(&self.path)
            .args(args(&arch, &input, &output))
            .stdin(Stdio::null())
            .output()
            .map_err(io(&format!("running {}", self.path.display())))?;
        if !out.status.success() {
            let mut log = String::from_utf8_lossy(&out.stderr).trim().to_string();
            if log.is_empty() {
                log = String::from_utf8_lossy(&out.stdout).trim().to_string();
            }
            return Err(AssembleError::Rejected { arch: arch.name, status: out.status.to_string(), log });
        }
        let cubin = fs::read(&output).map_err(io(&format!("reading {}", output.display())))?;
        if !is_cuda_elf(&cubin) {
            return Err(AssembleError::NotCubin(arch.name));
        }
        Ok(cubin)
    }
}

/// Where to look for `ptxas`, in order, given the values of `TILE_PTXAS`,
/// `CUDA_HOME` and `PATH`.
pub fn candidates(tile_ptxas: Option<OsString>, cuda_home: Option<OsString>, path: Option<OsString>) -> Vec<PathBuf> {
    let set = |value: Option<OsString>| value.filter(|v| !v.is_empty());
    if let Some(chosen) = set(tile_ptxas) {
        // Set means this one or none, so that a bad path turns assembly
        // off instead of quietly picking another toolkit.
        return vec![PathBuf::from(chosen)];
    }
    let mut found = Vec::new();
    if let Some(home) = set(cuda_home) {
        found.push(Path::new(&home).join("bin/ptxas"));
    }
    if let Some(path) = set(path) {
        found.extend(std::env::split_paths(&path).filter(|d| !d.as_os_str().is_empty()).map(|d| d.join("ptxas")));
    }
    found.push(PathBuf::from("/usr/local/cuda/bin/ptxas"));
    found
}

/// `ptxas`'s arguments to assemble `ptx` into `cubin` for `arch`.
pub fn args(arch: &Arch, ptx: &Path, cubin: &Path) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec![format!("-arch={}", arch.name).into(), "-O3".into(), "-o".into()];
    args.push(cubin.as_os_str().to_owned());
    args.push(ptx.as_os_str().to_owned());
    args
}

/// The release line of `ptxas --version`'s output, else its last line.
fn version_line(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let release = lines.iter().find_map(|l| l.strip_prefix("Cuda compilation tools, "));
    release.or(lines.last().copied()).map(str::to_string)
}

/// Whether `image` is an ELF file for CUDA (a cubin), as the driver needs
/// it to load it without compiling.
pub fn is_cuda_elf(image: &[u8]) -> bool {
    image.len() >= 20 && image.starts_with(b"\x7fELF") && u16::from_le_bytes([image[18], image[19]]) == EM_CUDA
}

/// A directory of this process's own, removed with everything in it when
/// dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> io::Result<TempDir> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let base = std::env::temp_dir();
        loop {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let path = base.join(format!("tile-ptxas-{}-{n}", std::process::id()));
            let mut builder = fs::DirBuilder::new();
            // Private, so that no other user can swap the files between
            // the writes and ptxas's reads.
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
            match builder.create(&path) {
                Ok(()) => return Ok(TempDir(path)),
                // Left by an earlier process of the same id: take another.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// A small kernel as `tile-run --emit-ptx` writes them (the
/// fused_elementwise example, for sm_90a).
#[cfg(test)]
pub(crate) const TEST_KERNEL: &str = include_str!("../testdata/fused_elementwise.ptx");

/// The `ptxas` the tests use: the one [`Ptxas::find`] finds, else the one
/// of the `nvidia-cuda-nvcc` Python package; `None` after saying why the
/// test skips.
#[cfg(test)]
pub(crate) fn test_ptxas() -> Option<Ptxas> {
    if let Some(found) = Ptxas::find() {
        return Some(found);
    }
    let out = Command::new("python3").args(["-c", "import nvidia.cuda_nvcc as m; print(list(m.__path__)[0])"]).output();
    let pip = out.ok().filter(|o| o.status.success()).map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    let found = pip.and_then(|dir| Ptxas::at(&Path::new(&dir).join("bin/ptxas")));
    if found.is_none() {
        println!("skipping: no ptxas (set TILE_PTXAS or CUDA_HOME, or install nvidia-cuda-nvcc-cu12)");
    }
    found
}

#[cfg(test)]
mod tests {
    use super::{
        Arch, AssembleError, Ptxas, TEST_KERNEL as KERNEL, TempDir, args, candidates, is_cuda_elf, test_ptxas as ptxas,
        version_line,
    };
    use std::path::{Path, PathBuf};

    /// The SM number in a cubin's ELF flags, for the ELF ABI version ptxas
    /// writes for Hopper (7: the low byte); `None` for another version.
    fn cubin_sm(cubin: &[u8]) -> Option<u32> {
        (cubin[8] == 7).then(|| u32::from_le_bytes(cubin[48..52].try_into().unwrap()) & 0xff)
    }

    #[test]
    fn chips_name_architectures_and_their_capability() {
        let arch = Arch::parse("sm_90a").unwrap();
        assert_eq!((arch.name(), arch.capability()), ("sm_90a", (9, 0)));
        assert_eq!(Arch::parse("sm_89").unwrap().capability(), (8, 9));
        assert_eq!(Arch::parse("sm_100f").unwrap().capability(), (10, 0));
        assert_eq!(Arch::parse("sm_120a").unwrap().capability(), (12, 0));
        for bad in ["", "sm_", "sm_9", "sm_9x", "compute_90", "sm_90b", "sm_1000", "90", "sm_90aa", "sm_-9"] {
            assert_eq!(Arch::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn ptxas_is_looked_for_in_the_variable_then_the_toolkit_then_path() {
        let os = |s: &str| Some(s.into());
        // TILE_PTXAS alone, even where others exist: a bad value means no ptxas.
        assert_eq!(candidates(os("/nonexistent"), os("/cuda"), os("/bin")), [PathBuf::from("/nonexistent")]);
        assert_eq!(
            candidates(os(""), os("/cuda"), os("/a:/b")),
            ["/cuda/bin/ptxas", "/a/ptxas", "/b/ptxas", "/usr/local/cuda/bin/ptxas"].map(PathBuf::from)
        );
        assert_eq!(candidates(None, None, None), [PathBuf::from("/usr/local/cuda/bin/ptxas")]);
        assert!(Ptxas::at(Path::new("/nonexistent/ptxas")).is_none());
    }

    #[test]
    fn ptxas_runs_at_the_default_level_for_the_chip() {
        let arch = Arch::parse("sm_90a").unwrap();
        let args = args(&arch, Path::new("/t/k.ptx"), Path::new("/t/k.cubin"));
        assert_eq!(args, ["-arch=sm_90a", "-O3", "-o", "/t/k.cubin", "/t/k.ptx"]);
        let version = "ptxas: NVIDIA (R) Ptx optimizing assembler\nCopyright (c) 2005-2025 NVIDIA Corporation\n\
                       Built on Tue_May_27_02:18:05_PDT_2025\nCuda compilation tools, release 12.9, V12.9.86\n\
                       Build cuda_12.9.r12.9/compiler.36037853_0\n";
        assert_eq!(version_line(version).as_deref(), Some("release 12.9, V12.9.86"));
        assert_eq!(version_line("ptxas 1.0\n\n").as_deref(), Some("ptxas 1.0"));
        assert_eq!(version_line(""), None);
    }

    #[test]
    fn ptx_assembles_to_a_cubin_for_its_chip() {
        let Some(ptxas) = ptxas() else { return };
        println!("ptxas: {} ({})", ptxas.path().display(), ptxas.version());
        let cubin = ptxas.assemble(KERNEL, "sm_90a").unwrap();
        assert!(is_cuda_elf(&cubin), "not a CUDA ELF image");
        match cubin_sm(&cubin) {
            Some(sm) => assert_eq!(sm, 90, "the cubin's architecture"),
            None => println!("ELF ABI version {}: architecture not checked", cubin[8]),
        }
        // Another chip: the -arch reached ptxas (the kernel needs nothing
        // of sm_90a's own).
        let sm80 = ptxas.assemble(&KERNEL.replace(".target sm_90a", ".target sm_80"), "sm_80").unwrap();
        assert!(is_cuda_elf(&sm80), "not a CUDA ELF image");
        if let Some(sm) = cubin_sm(&sm80) {
            assert_eq!(sm, 80, "the cubin's architecture");
        }
    }

    #[test]
    fn ptx_ptxas_refuses_is_a_typed_error() {
        let Some(ptxas) = ptxas() else { return };
        let broken = KERNEL.replacen("ret;", "ret_not_an_instruction;", 1);
        assert_ne!(broken, KERNEL);
        match ptxas.assemble(&broken, "sm_90a") {
            Err(AssembleError::Rejected { arch, log, .. }) => {
                assert_eq!(arch, "sm_90a");
                assert!(!log.is_empty(), "ptxas's messages");
            }
            other => panic!("expected Rejected, got {other:?}"),
        }
        assert!(matches!(ptxas.assemble(KERNEL, "compute_90"), Err(AssembleError::Chip(chip)) if chip == "compute_90"));
    }

    #[test]
    fn temporary_directories_are_fresh_and_removed() {
        let (first, second) = (TempDir::new().unwrap(), TempDir::new().unwrap());
        assert_ne!(first.path(), second.path());
        std::fs::write(first.path().join("kernel.ptx"), "x").unwrap();
        let path = first.path().to_path_buf();
        drop(first);
        assert!(!path.exists(), "{} left behind", path.display());
    }

    #[test]
    fn elf_images_for_other_machines_are_not_cubins() {
        let mut elf = vec![0u8; 64];
        elf[..4].copy_from_slice(b"\x7fELF");
        elf[18] = 62; // x86-64
        assert!(!is_cuda_elf(&elf));
        elf[18..20].copy_from_slice(&190u16.to_le_bytes());
        assert!(is_cuda_elf(&elf));
        assert!(!is_cuda_elf(b".version 8.0"));
    }
}
