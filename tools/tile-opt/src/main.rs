//! `tile-opt`: MLIR's own `mlir-opt` driver (`MlirOptMain`) with the tile
//! dialect and every tile pass registered. All `mlir-opt` flags behave as
//! users know them; see `tile-opt --help`.

use std::{
    ffi::{CString, c_char, c_int},
    process::ExitCode,
};

unsafe extern "C" {
    fn tileOptMain(argc: c_int, argv: *mut *mut c_char, registry: mlir_sys::MlirDialectRegistry) -> c_int;
}

fn main() -> ExitCode {
    let args: Vec<CString> = std::env::args_os()
        .map(|arg| {
            use std::os::unix::ffi::OsStrExt;
            // An argument with a NUL byte cannot reach a C main; MLIR would
            // see it cut at the NUL, which is what a shell would do too.
            let bytes = arg.as_bytes();
            let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
            CString::new(&bytes[..end]).unwrap_or_default()
        })
        .collect();
    // The compiler's LLVM options (MLIR's driver parses LLVM's options, so
    // they go in with the user's), after the program name.
    let llvm: Vec<CString> =
        tile_dialect::registry::LLVM_OPTIONS.iter().filter_map(|o| CString::new(*o).ok()).collect();
    let mut argv: Vec<*mut c_char> = args.iter().take(1).map(|arg| arg.as_ptr().cast_mut()).collect();
    argv.extend(llvm.iter().map(|o| o.as_ptr().cast_mut()));
    argv.extend(args.iter().skip(1).map(|arg| arg.as_ptr().cast_mut()));
    argv.push(std::ptr::null_mut());

    tile_lowering::register_passes();
    if let Err(why) = tile_dialect::registry::llvm_options_status() {
        eprintln!("tile-opt: {why}");
        return ExitCode::from(1);
    }
    let registry = tile_dialect::registry();
    // SAFETY: argv holds argc valid NUL-terminated strings (kept alive by
    // `args`) followed by a null pointer, as a C main expects; the registry
    // outlives the call.
    let code = unsafe { tileOptMain((argv.len() - 1) as c_int, argv.as_mut_ptr(), registry.to_raw()) };
    ExitCode::from(if code == 0 { 0 } else { 1 })
}
