//! The generated references in `docs/` are what their sources give today.
//! (`docs/tile-dialect.md` is checked by `lit/dialects/tile/docs.mlir`.)

use crate::support::root;

/// `docs/kernel-attributes.md` is `tile_dialect::attrs::markdown()`. With
/// `TILE_UPDATE_DOCS=1` the test rewrites the page instead
/// (`scripts/gen-docs.sh` does the same without building this binary).
#[test]
fn kernel_attributes_reference_is_current() {
    let path = root().join("docs").join("kernel-attributes.md");
    let expected = tile_dialect::attrs::markdown();
    if std::env::var_os("TILE_UPDATE_DOCS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &expected).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    // A plain assert: the page is long, and a diff tool shows it better.
    assert!(
        committed == expected,
        "{} is stale: run scripts/gen-docs.sh (or this test with TILE_UPDATE_DOCS=1)",
        path.display()
    );
}
