//! Optimization remarks: where the compiler cannot take the fast way (the
//! register path, a prefetch, the tensor cores), it says so at the op, and
//! where it takes a transformation worth knowing about, it says that too.
//!
//! Remarks go through MLIR's remark engine (`mlir/IR/Remarks.h`), category
//! `tile`, subcategory the pass's name: nothing is printed unless a filter
//! enables them, `tile-opt --remarks-filter=tile` (MLIR's own option), or
//! `tile-run -v` ([`enable`]). They print as `remark:` diagnostics at the
//! op's location, so lit tests check them with `-verify-diagnostics`.

use melior::{Context, ir::Location};

unsafe extern "C" {
    fn tileEmitRemark(
        location: mlir_sys::MlirLocation,
        kind: i32,
        name: mlir_sys::MlirStringRef,
        subcategory: mlir_sys::MlirStringRef,
        reason: mlir_sys::MlirStringRef,
    );
    fn tileEnableRemarks(context: mlir_sys::MlirContext, filter: mlir_sys::MlirStringRef) -> bool;
}

/// What a remark reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The fast way was not taken (and why).
    Missed,
    /// A transformation was applied.
    Passed,
    /// A fact about the code, neither.
    Analysis,
}

fn string_ref(text: &str) -> mlir_sys::MlirStringRef {
    mlir_sys::MlirStringRef { data: text.as_ptr().cast(), length: text.len() }
}

/// Emits a remark of `kind` named `name` from pass `pass` at `location`.
pub fn emit(location: Location, kind: Kind, pass: &str, name: &str, reason: &str) {
    let kind = match kind {
        Kind::Missed => 0,
        Kind::Passed => 1,
        Kind::Analysis => 2,
    };
    // SAFETY: the location is live, and the strings outlive the call (the
    // engine copies what it keeps).
    unsafe { tileEmitRemark(location.to_raw(), kind, string_ref(name), string_ref(pass), string_ref(reason)) }
}

/// A missed remark: `pass` could not take the fast way at `location`.
pub fn missed(location: Location, pass: &str, name: &str, reason: &str) {
    emit(location, Kind::Missed, pass, name, reason);
}

/// A passed remark: `pass` transformed the op at `location`.
pub fn passed(location: Location, pass: &str, name: &str, reason: &str) {
    emit(location, Kind::Passed, pass, name, reason);
}

/// Shows the remarks of `context` whose category matches the regular
/// expression `filter` (`tile` for every remark of this compiler) as
/// `remark:` diagnostics; false if MLIR's engine could not start.
pub fn enable(context: &Context, filter: &str) -> bool {
    // SAFETY: the context is live; the filter is copied by the call.
    unsafe { tileEnableRemarks(context.to_raw(), string_ref(filter)) }
}
