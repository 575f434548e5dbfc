//! Diagnostics as text, for APIs that return them as errors rather than
//! printing them.

use melior::{
    Context,
    diagnostic::{Diagnostic, DiagnosticSeverity},
    ir::Location,
};

/// `file:line:col` of a location, as compilers print it; MLIR's own form
/// for locations without a file position.
pub fn location_text(location: Location) -> String {
    let raw = location.to_raw();
    // SAFETY: the location is live; the getters are only called on a
    // file-line-col location.
    unsafe {
        if mlir_sys::mlirLocationIsAFileLineColRange(raw) {
            let file = mlir_sys::mlirIdentifierStr(mlir_sys::mlirLocationFileLineColRangeGetFilename(raw));
            let file = crate::string_ref_text(file);
            let line = mlir_sys::mlirLocationFileLineColRangeGetStartLine(raw);
            let column = mlir_sys::mlirLocationFileLineColRangeGetStartColumn(raw);
            return format!("{file}:{line}:{column}");
        }
    }
    location.to_string()
}

/// `location: severity: message`, with the diagnostic's notes on their own
/// lines.
pub fn diagnostic_text(diagnostic: &Diagnostic) -> String {
    let severity = match diagnostic.severity() {
        DiagnosticSeverity::Error => "error",
        DiagnosticSeverity::Warning => "warning",
        DiagnosticSeverity::Note => "note",
        DiagnosticSeverity::Remark => "remark",
    };
    let mut text = format!("{}: {severity}: {diagnostic}", location_text(diagnostic.location()));
    for note in (0..diagnostic.note_count()).filter_map(|i| diagnostic.note(i).ok()) {
        text.push('\n');
        text.push_str(&diagnostic_text(&note));
    }
    text
}

/// Runs `f` with a diagnostic handler that collects every diagnostic as
/// text (instead of MLIR printing it to stderr); returns `f`'s value and the
/// text, one diagnostic per line.
pub fn capture<T>(context: &Context, f: impl FnOnce() -> T) -> (T, String) {
    capture_as(context, f, diagnostic_text)
}

/// [`capture`], keeping each diagnostic's message alone: for diagnostics
/// at an unknown location (a checked type constructor's), whose text goes
/// into an error that a located diagnostic then reports, so that it does
/// not read `loc(unknown): error:` inside another `error:`.
pub fn capture_messages<T>(context: &Context, f: impl FnOnce() -> T) -> (T, String) {
    capture_as(context, f, |diagnostic| diagnostic.to_string())
}

fn capture_as<T>(context: &Context, f: impl FnOnce() -> T, text_of: fn(&Diagnostic) -> String) -> (T, String) {
    use std::{cell::RefCell, rc::Rc};
    let text = Rc::new(RefCell::new(String::new()));
    let sink = text.clone();
    let id = context.attach_diagnostic_handler(move |diagnostic| {
        // Remarks (which show only when asked for) pass on to the handler
        // that asked for them, such as `tile-run -v`'s.
        if matches!(diagnostic.severity(), DiagnosticSeverity::Remark) {
            return false;
        }
        let mut sink = sink.borrow_mut();
        if !sink.is_empty() {
            sink.push('\n');
        }
        sink.push_str(&text_of(&diagnostic));
        true
    });
    let value = f();
    context.detach_diagnostic_handler(id);
    let text = text.borrow().clone();
    (value, text)
}
