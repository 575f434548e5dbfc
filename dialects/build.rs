//! Generates the tile dialect's C++ from `td/Tile.td` with `mlir-tblgen` and
//! compiles it, with the hand-written `cpp/TileDialect.cpp`, into a static
//! library that links beside mlir-sys's static MLIR (one registry).

use std::{
    env,
    path::{Path, PathBuf},
    process::Command,
};

fn main() {
    if let Err(error) = run() {
        eprintln!("tile-dialect build: {error}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?);
    let out = PathBuf::from(env::var("OUT_DIR").map_err(|e| e.to_string())?);
    let prefix = PathBuf::from(
        env::var("MLIR_SYS_220_PREFIX")
            .map_err(|_| "MLIR_SYS_220_PREFIX is not set (see .cargo/config.toml)".to_string())?,
    );
    let include = prefix.join("include");
    let tblgen = prefix.join("bin").join("mlir-tblgen");
    let td = manifest.join("td").join("Tile.td");

    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
    println!("cargo:rerun-if-changed={}", td.display());
    println!("cargo:rerun-if-changed=cpp");
    // melior's dialect! macro reads the .td through this variable.
    println!("cargo:rustc-env=TILE_TD_DIR={}", manifest.join("td").display());

    let generators: &[(&str, &[&str])] = &[
        ("TileDialect.h.inc", &["-gen-dialect-decls", "-dialect=tile"]),
        ("TileDialect.cpp.inc", &["-gen-dialect-defs", "-dialect=tile"]),
        ("TileOps.h.inc", &["-gen-op-decls"]),
        ("TileOps.cpp.inc", &["-gen-op-defs"]),
        ("TileTypes.h.inc", &["-gen-typedef-decls", "-typedefs-dialect=tile"]),
        ("TileTypes.cpp.inc", &["-gen-typedef-defs", "-typedefs-dialect=tile"]),
        ("TileAttrs.h.inc", &["-gen-attrdef-decls", "-attrdefs-dialect=tile"]),
        ("TileAttrs.cpp.inc", &["-gen-attrdef-defs", "-attrdefs-dialect=tile"]),
        ("TileEnums.h.inc", &["-gen-enum-decls"]),
        ("TileEnums.cpp.inc", &["-gen-enum-defs"]),
        ("TileDialect.md", &["-gen-dialect-doc", "-dialect=tile"]),
    ];
    for (output, args) in generators {
        tablegen(&tblgen, &include, &td, args, &out.join(output))?;
    }

    cc::Build::new()
        .cpp(true)
        .std("c++17")
        // The file is mostly generated template code: -O1 keeps its build
        // short on 2 cores; nobody steps through it in a debugger.
        .opt_level(1)
        .debug(false)
        // Debian builds MLIR with assertions off; headers must agree.
        .define("NDEBUG", None)
        .file(manifest.join("cpp").join("TileDialect.cpp"))
        .file(manifest.join("cpp").join("CAPI.cpp"))
        .include(&out)
        .include(manifest.join("cpp"))
        .include(&include)
        // MLIR is built without RTTI and exceptions; match it.
        .flag("-fno-rtti")
        .flag("-fno-exceptions")
        .flag_if_supported("-Wno-unused-parameter")
        .flag_if_supported("-Wno-comment")
        .warnings(false)
        .compile("tile_dialect_cpp");
    Ok(())
}

fn tablegen(tblgen: &Path, include: &Path, td: &Path, args: &[&str], output: &Path) -> Result<(), String> {
    let status = Command::new(tblgen)
        .args(args)
        .arg("-I")
        .arg(include)
        .arg(td)
        .arg("-o")
        .arg(output)
        .status()
        .map_err(|e| format!("cannot run {}: {e}", tblgen.display()))?;
    if !status.success() {
        return Err(format!("{} {} failed", tblgen.display(), args.join(" ")));
    }
    Ok(())
}
