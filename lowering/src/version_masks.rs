//! `tile-version-masks`: a masked select in a loop skips its mask in the
//! iterations where the block can prove the mask all true.
//!
//! Summary: for an `arith.select %mask, %a, %b` on tiles inside an
//! `scf.for`, whose mask is built from `tile.iota`, `tile.splat`ted scalars
//! and integer constants by `arith.addi`/`subi`/`muli` (by a constant),
//! compared (`arith.cmpi`) and combined (`arith.andi`/`ori`), through
//! `tile.reshape`, `tile.broadcast` and `tile.permute`, the pass bounds
//! each integer tile by two scalars (its least and greatest element) and
//! from them builds one `i1` that holds only when every element of the
//! mask is true. The select becomes an `scf.if` on that scalar: its `then`
//! branch is `%a`, its `else` branch the select, and the ops that only
//! build the mask move into the `else` branch. Causal attention is the
//! case: its key tiles below the diagonal (all but one or two of a query
//! tile's) need neither the per-element compare nor the select, which cost
//! as much as a third of the softmax's arithmetic; so do the key tiles
//! inside the sequence of every attention program.
//!
//! Before:
//! ```mlir
//! scf.for %j = %c0 to %last step %c1 ... {
//!   %first = arith.muli %j, %c64 : index
//!   %f = arith.index_cast %first : index to i32
//!   %ft = tile.splat %f : i32 -> tensor<64xi32>
//!   %key = arith.addi %keys, %ft : tensor<64xi32>          // %keys = tile.iota
//!   %k1 = tile.reshape %key : tensor<64xi32> -> tensor<1x64xi32>
//!   %kb = tile.broadcast %k1 : tensor<1x64xi32> -> tensor<128x64xi32>
//!   %causal = arith.cmpi sle, %kb, %queryb : tensor<128x64xi32>
//!   %s = arith.select %causal, %scaled, %neg_inf : tensor<128x64xi1>, tensor<128x64xf32>
//! ```
//! After (the bounds are `i64`: `[f, f + 63]` for the keys, those of
//! `%queryb` likewise):
//! ```mlir
//!   %all = arith.cmpi sle, %key_greatest, %query_least : i64   // and no i32 overflow
//!   %s = scf.if %all -> (tensor<128x64xf32>) {
//!     scf.yield %scaled : tensor<128x64xf32>
//!   } else {
//!     %k1 = tile.reshape %key ...  %kb = tile.broadcast ...  %causal = arith.cmpi sle ...
//!     %s0 = arith.select %causal, %scaled, %neg_inf : tensor<128x64xi1>, tensor<128x64xf32>
//!     scf.yield %s0 : tensor<128x64xf32>
//!   }
//! ```
//!
//! Soundness: a tile's bounds are exact for `tile.iota` (`[0, n - 1]`),
//! splats and constants, and follow interval arithmetic through the sums,
//! differences and products by constants, computed in `i64` from elements
//! of at most 32 bits. Each such sum, difference or product is also checked
//! to stay inside its element type's range, so that the elements (which
//! wrap) equal the integers the bounds speak of; where a check fails the
//! `else` branch runs. An unsigned compare is taken only where both sides
//! are known non-negative. The `then` branch is taken only when the mask is
//! true everywhere, and there the select is its `%a`.
//!
//! Only ops the analysis understood (pure by construction) move; an `ori`
//! with one provable side keeps the other side's ops (a load, say) where
//! they are. The analysis of one mask visits at most 256 values (`BUDGET`), so
//! a long chain or a graph of shared values costs little.
//!
//! Caveats: a mask built any other way (a load, a division, a 64-bit
//! integer tile) is left alone, as is a select outside every loop (its mask
//! is computed once) and a select none of whose mask ops could move (two
//! selects sharing one mask: it is computed every iteration anyway). Ops
//! that build the mask but have other users stay where they are. The pass
//! says where it versions a select (a `tile` remark, `VersionedMask`).

use crate::{
    build::{At, CmpiPredicate, if_else_op, tile_type},
    pass::{PassInfo, TilePass},
    rewrite::{IrValue, Probe, defining_op, detach, in_loop, op_name, uses},
};
use melior::{
    Context, ContextRef,
    dialect::arith,
    ir::{
        Attribute, AttributeLike, BlockLike, OperationRef, RegionLike, Type, TypeLike, ValueLike,
        attribute::IntegerAttribute,
        operation::{OperationLike, WalkOrder, WalkResult},
        r#type::IntegerType,
    },
    pass::{ExternalPass, RunExternalPass},
};
use std::collections::{HashMap, HashSet};

/// The `tile-version-masks` pass.
#[derive(Clone, Default)]
pub struct VersionMasks;

impl TilePass for VersionMasks {
    const INFO: PassInfo = PassInfo {
        argument: "tile-version-masks",
        name: "TileVersionMasks",
        summary: "Skip a select's mask in the loop iterations where the mask is provably all true (from the bounds \
                  of its iota, splat and constant tiles), as causal attention's key tiles below the diagonal",
        op_name: "func.func",
    };
    crate::pass_type_id!();

    fn dependent_dialects() -> Vec<melior::dialect::DialectHandle> {
        vec![melior::dialect::DialectHandle::arith(), melior::dialect::DialectHandle::scf()]
    }
}

impl<'c> RunExternalPass<'c> for VersionMasks {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, _pass: ExternalPass<'_>) {
        let context = operation.context();
        // SAFETY: the context outlives the pass run.
        let context = unsafe { context.to_ref() };
        if !operation.has_attribute("tile.kernel") {
            return;
        }
        let mut selects = Vec::new();
        operation.walk(WalkOrder::PreOrder, |op| {
            if op_name(op) == "arith.select" && in_loop(op) {
                selects.push(op.to_raw());
            }
            WalkResult::Advance
        });
        let remark = !operation.has_attribute("tile.variant_of");
        for raw in selects {
            // SAFETY: each select is live: versioning one moves it and the
            // ops building its mask, and erases none.
            let select = unsafe { OperationRef::from_raw(raw) };
            if version(context, select).is_some() && remark {
                crate::remarks::passed(
                    select.location(),
                    VersionMasks::INFO.argument,
                    "VersionedMask",
                    "this select's mask is computed only in the iterations where the block cannot prove it all \
                     true from its index bounds",
                );
            }
        }
    }
}

/// What the pass can prove about a mask, before any IR is built.
enum Proof<'c> {
    /// The mask is all true when every compare holds and every bound check
    /// passes.
    Compare(CmpiPredicate, Bounds<'c>, Bounds<'c>),
    All(Vec<Proof<'c>>),
    Any(Vec<Proof<'c>>),
    True,
}

/// The least and greatest element of an integer tile (as `i64`
/// expressions), valid where its `checks` hold.
struct Bounds<'c> {
    least: Expr<'c>,
    greatest: Expr<'c>,
    /// Intermediate sums that must stay inside their element type: the
    /// bounds of each and the type's width.
    checks: Vec<(Expr<'c>, Expr<'c>, u32)>,
}

#[derive(Clone)]
enum Expr<'c> {
    Constant(i64),
    /// A scalar integer or index, sign-extended to `i64`.
    Scalar(IrValue<'c>),
    Add(Box<Expr<'c>>, Box<Expr<'c>>),
    Sub(Box<Expr<'c>>, Box<Expr<'c>>),
    Mul(Box<Expr<'c>>, i64),
}

impl<'c> Expr<'c> {
    fn add(a: Expr<'c>, b: Expr<'c>) -> Expr<'c> {
        match (&a, &b) {
            (Expr::Constant(x), Expr::Constant(y)) => Expr::Constant(x.saturating_add(*y)),
            (Expr::Constant(0), _) => b,
            (_, Expr::Constant(0)) => a,
            _ => Expr::Add(Box::new(a), Box::new(b)),
        }
    }

    fn sub(a: Expr<'c>, b: Expr<'c>) -> Expr<'c> {
        match (&a, &b) {
            (Expr::Constant(x), Expr::Constant(y)) => Expr::Constant(x.saturating_sub(*y)),
            (_, Expr::Constant(0)) => a,
            _ => Expr::Sub(Box::new(a), Box::new(b)),
        }
    }

    fn mul(a: Expr<'c>, c: i64) -> Expr<'c> {
        match a {
            Expr::Constant(x) => Expr::Constant(x.saturating_mul(c)),
            a if c == 1 => a,
            a => Expr::Mul(Box::new(a), c),
        }
    }

    /// A key that equal expressions share (scalars by identity).
    fn key(&self) -> String {
        match self {
            Expr::Constant(c) => c.to_string(),
            Expr::Scalar(v) => format!("v{:?}", v.to_raw().ptr),
            Expr::Add(a, b) => format!("({}+{})", a.key(), b.key()),
            Expr::Sub(a, b) => format!("({}-{})", a.key(), b.key()),
            Expr::Mul(a, c) => format!("({}*{c})", a.key()),
        }
    }
}

/// Builds the `i64` scalars of a proof at one place, each expression once.
struct Builder<'c, 'a> {
    at: &'a At<'c, 'c>,
    built: HashMap<String, IrValue<'c>>,
}

impl<'c> Builder<'c, '_> {
    fn i64_type(&self) -> Type<'c> {
        IntegerType::new(self.at.context, 64).into()
    }

    fn constant(&mut self, c: i64) -> Option<IrValue<'c>> {
        self.expr(&Expr::Constant(c))
    }

    fn expr(&mut self, expr: &Expr<'c>) -> Option<IrValue<'c>> {
        let key = expr.key();
        if let Some(value) = self.built.get(&key) {
            return Some(*value);
        }
        let at = self.at;
        let value = match expr {
            Expr::Constant(c) => at.int(self.i64_type(), *c)?,
            Expr::Scalar(v) => self.widen(*v)?,
            Expr::Add(a, b) => {
                let (a, b) = (self.expr(a)?, self.expr(b)?);
                at.addi(a, b)?
            }
            Expr::Sub(a, b) => {
                let (a, b) = (self.expr(a)?, self.expr(b)?);
                at.subi(a, b)?
            }
            Expr::Mul(a, c) => {
                let (a, c) = (self.expr(a)?, self.constant(*c)?);
                at.muli(a, c)?
            }
        };
        self.built.insert(key, value);
        Some(value)
    }

    /// A scalar integer or index as `i64`.
    fn widen(&self, value: IrValue<'c>) -> Option<IrValue<'c>> {
        let at = self.at;
        let r#type = value.r#type();
        if r#type.is_index() {
            return at.add(arith::index_cast(value, self.i64_type(), at.location));
        }
        match IntegerType::try_from(r#type).ok()?.width() {
            64 => Some(value),
            w if w < 64 => at.add(arith::extsi(value, self.i64_type(), at.location)),
            _ => None,
        }
    }
}

/// The value of a splat integer constant tile, or of an integer constant.
fn integer_constant(value: IrValue) -> Option<i64> {
    let def = defining_op(value)?;
    if op_name(def) != "arith.constant" {
        return None;
    }
    let attribute = def.attribute("value").ok()?;
    // SAFETY: a live attribute, checked to be a dense splat before its
    // splat element is read.
    let element = unsafe {
        if mlir_sys::mlirAttributeIsADenseElements(attribute.to_raw()) {
            if !mlir_sys::mlirDenseElementsAttrIsSplat(attribute.to_raw()) {
                return None;
            }
            Attribute::from_raw(mlir_sys::mlirDenseElementsAttrGetSplatValue(attribute.to_raw()))
        } else {
            attribute
        }
    };
    IntegerAttribute::try_from(element).ok().map(|a| a.value())
}

/// The element width of an integer tile, if it is one of at most 32 bits.
fn narrow_integer_tile(value: IrValue) -> Option<u32> {
    let (_, element) = tile_type(value.r#type())?;
    let width = IntegerType::try_from(element).ok()?.width();
    (width <= 32).then_some(width)
}

/// How many values the analysis of one mask may visit: it gives up beyond,
/// so that a long chain or a graph of shared values (whose trees grow
/// exponentially) costs little time and no deep recursion.
const BUDGET: usize = 256;

/// The analysis of one select's mask: the ops it understood (pure, so they
/// may move into the `else` branch), and what it may still visit.
struct Analysis {
    understood: HashSet<usize>,
    budget: usize,
}

impl Analysis {
    /// Counts one visit; false once the budget is spent.
    fn visit(&mut self) -> bool {
        self.budget = self.budget.saturating_sub(1);
        self.budget > 0
    }

    /// Notes that `value`'s op was understood (and returns `found`).
    fn understood<T>(&mut self, value: IrValue, found: Option<T>) -> Option<T> {
        if found.is_some()
            && let Some(def) = defining_op(value)
        {
            self.understood.insert(def.to_raw().ptr as usize);
        }
        found
    }

    /// The bounds of an integer tile (or of a scalar integer constant).
    fn bounds<'c>(&mut self, value: IrValue<'c>) -> Option<Bounds<'c>> {
        if !self.visit() {
            return None;
        }
        let found = self.bounds_of(value);
        self.understood(value, found)
    }

    /// What makes mask `value` all true, if the pass can say.
    fn proof<'c>(&mut self, value: IrValue<'c>) -> Option<Proof<'c>> {
        if !self.visit() {
            return None;
        }
        let found = self.proof_of(value);
        self.understood(value, found)
    }

    /// [`Analysis::bounds`], one op.
    fn bounds_of<'c>(&mut self, value: IrValue<'c>) -> Option<Bounds<'c>> {
        if let Some(c) = integer_constant(value) {
            return Some(Bounds { least: Expr::Constant(c), greatest: Expr::Constant(c), checks: vec![] });
        }
        let width = narrow_integer_tile(value)?;
        let def = defining_op(value)?;
        let operand = |i: usize| def.operand_at(i).map(detach);
        match op_name(def).as_str() {
            "tile.iota" => {
                let (shape, _) = tile_type(value.r#type())?;
                let n: i64 = shape.iter().product();
                // The verifier holds an iota's last element representable; the
                // bounds do not rest on that.
                (n - 1 < 1i64 << (width - 1)).then_some(Bounds {
                    least: Expr::Constant(0),
                    greatest: Expr::Constant(n - 1),
                    checks: vec![],
                })
            }
            "tile.splat" => {
                let scalar = operand(0)?;
                Some(Bounds { least: Expr::Scalar(scalar), greatest: Expr::Scalar(scalar), checks: vec![] })
            }
            "tile.reshape" | "tile.broadcast" | "tile.permute" => self.bounds(operand(0)?),
            "arith.addi" | "arith.subi" | "arith.muli" => {
                let (mut a, mut b) = (self.bounds(operand(0)?)?, self.bounds(operand(1)?)?);
                let (least, greatest) = match op_name(def).as_str() {
                    "arith.addi" => (Expr::add(a.least.clone(), b.least.clone()), Expr::add(a.greatest, b.greatest)),
                    "arith.subi" => (Expr::sub(a.least.clone(), b.greatest), Expr::sub(a.greatest, b.least.clone())),
                    _ => {
                        // Only a product by a non-negative constant keeps the order.
                        let by = |x: &Bounds| match (&x.least, &x.greatest) {
                            (Expr::Constant(l), Expr::Constant(g)) if l == g && *l >= 0 => Some(*l),
                            _ => None,
                        };
                        if let Some(c) = by(&b) {
                            (Expr::mul(a.least.clone(), c), Expr::mul(a.greatest.clone(), c))
                        } else {
                            let c = by(&a)?;
                            (Expr::mul(b.least.clone(), c), Expr::mul(b.greatest.clone(), c))
                        }
                    }
                };
                let mut checks = std::mem::take(&mut a.checks);
                checks.append(&mut b.checks);
                checks.push((least.clone(), greatest.clone(), width));
                Some(Bounds { least, greatest, checks })
            }
            _ => None,
        }
    }

    /// [`Analysis::proof`], one op.
    fn proof_of<'c>(&mut self, value: IrValue<'c>) -> Option<Proof<'c>> {
        if integer_constant(value).is_some_and(|c| c != 0) {
            return Some(Proof::True);
        }
        let def = defining_op(value)?;
        let operand = |i: usize| def.operand_at(i).map(detach);
        match op_name(def).as_str() {
            "tile.reshape" | "tile.broadcast" | "tile.permute" => self.proof(operand(0)?),
            "arith.andi" => Some(Proof::All(vec![self.proof(operand(0)?)?, self.proof(operand(1)?)?])),
            "arith.ori" => {
                let parts: Vec<Proof> = [operand(0)?, operand(1)?].into_iter().filter_map(|o| self.proof(o)).collect();
                (!parts.is_empty()).then_some(Proof::Any(parts))
            }
            "arith.cmpi" => {
                let predicate = IntegerAttribute::try_from(def.attribute("predicate").ok()?).ok()?.value();
                let predicate = match predicate {
                    0 => CmpiPredicate::Eq,
                    1 => CmpiPredicate::Ne,
                    2 => CmpiPredicate::Slt,
                    3 => CmpiPredicate::Sle,
                    4 => CmpiPredicate::Sgt,
                    5 => CmpiPredicate::Sge,
                    6 => CmpiPredicate::Ult,
                    7 => CmpiPredicate::Ule,
                    8 => CmpiPredicate::Ugt,
                    9 => CmpiPredicate::Uge,
                    _ => return None,
                };
                narrow_integer_tile(operand(0)?)?;
                Some(Proof::Compare(predicate, self.bounds(operand(0)?)?, self.bounds(operand(1)?)?))
            }
            _ => None,
        }
    }
}

/// Builds the `i1` that holds when `proof`'s mask is all true.
fn build_proof<'c>(b: &mut Builder<'c, '_>, proof: &Proof<'c>) -> Option<IrValue<'c>> {
    let at = b.at;
    let i1: Type<'c> = IntegerType::new(at.context, 1).into();
    let combine = |parts: Vec<IrValue<'c>>, any: bool| -> Option<IrValue<'c>> {
        let mut parts = parts.into_iter();
        let first = parts.next()?;
        parts.try_fold(first, |x, y| if any { at.add(arith::ori(x, y, at.location)) } else { at.andi(x, y) })
    };
    match proof {
        Proof::True => at.int(i1, 1),
        Proof::All(parts) | Proof::Any(parts) => {
            let built = parts.iter().map(|p| build_proof(b, p)).collect::<Option<Vec<_>>>()?;
            combine(built, matches!(proof, Proof::Any(_)))
        }
        Proof::Compare(predicate, x, y) => {
            let mut holds = Vec::new();
            // Every intermediate sum stays inside its element type.
            let mut checked = std::collections::HashSet::new();
            for (least, greatest, width) in x.checks.iter().chain(&y.checks) {
                if !checked.insert((least.key(), greatest.key(), *width)) {
                    continue;
                }
                let (low, high) = (b.expr(least)?, b.expr(greatest)?);
                let min = b.constant(-(1i64 << (width - 1)))?;
                let max = b.constant((1i64 << (width - 1)) - 1)?;
                holds.push(at.cmpi(CmpiPredicate::Sge, low, min)?);
                holds.push(at.cmpi(CmpiPredicate::Sle, high, max)?);
            }
            let (x_least, x_greatest) = (b.expr(&x.least)?, b.expr(&x.greatest)?);
            let (y_least, y_greatest) = (b.expr(&y.least)?, b.expr(&y.greatest)?);
            use CmpiPredicate::*;
            if matches!(predicate, Ult | Ule | Ugt | Uge) {
                let zero = b.constant(0)?;
                holds.push(at.cmpi(Sge, x_least, zero)?);
                holds.push(at.cmpi(Sge, y_least, zero)?);
            }
            match predicate {
                Slt | Ult => holds.push(at.cmpi(Slt, x_greatest, y_least)?),
                Sle | Ule => holds.push(at.cmpi(Sle, x_greatest, y_least)?),
                Sgt | Ugt => holds.push(at.cmpi(Sgt, x_least, y_greatest)?),
                Sge | Uge => holds.push(at.cmpi(Sge, x_least, y_greatest)?),
                Ne => {
                    let below = at.cmpi(Slt, x_greatest, y_least)?;
                    let above = at.cmpi(Sgt, x_least, y_greatest)?;
                    holds.push(at.add(arith::ori(below, above, at.location))?);
                }
                Eq => {
                    holds.push(at.cmpi(Eq, x_least, x_greatest)?);
                    holds.push(at.cmpi(Eq, y_least, y_greatest)?);
                    holds.push(at.cmpi(Eq, x_least, y_least)?);
                }
            }
            combine(holds, false)
        }
    }
}

/// The ops (in block order) that build `select`'s mask, that the analysis
/// understood (pure ops: a load or anything else with effects stays in
/// place) and that have no user but the select and each other: they can
/// move into the `else` branch.
fn mask_slice<'c>(select: OperationRef<'c, 'c>, understood: &HashSet<usize>) -> Vec<OperationRef<'c, 'c>> {
    let block = select.block();
    let chosen = select.operand_at(1).map(detach);
    let same_block = |op: OperationRef| op.block().map(|b| b.to_raw().ptr) == block.map(|b| b.to_raw().ptr);
    // Every op of the block the mask is built from.
    let mut slice: Vec<OperationRef<'c, 'c>> = Vec::new();
    let mut work = vec![select.operand_at(0).map(detach)];
    while let Some(Some(value)) = work.pop() {
        let Some(def) = defining_op(value) else { continue };
        if !same_block(def)
            || !understood.contains(&(def.to_raw().ptr as usize))
            || def.region_count() > 0
            || def.result_count() != 1
            || slice.iter().any(|s| s.to_raw().ptr == def.to_raw().ptr)
        {
            continue;
        }
        // SAFETY: an op of the kernel, alive for the pass.
        slice.push(unsafe { OperationRef::from_raw(def.to_raw()) });
        work.extend(def.operands().map(|o| Some(detach(o))));
    }
    // Drop those with a user outside, until none is left.
    loop {
        let inside = |user: OperationRef, slice: &[OperationRef]| {
            user.to_raw().ptr == select.to_raw().ptr || slice.iter().any(|s| s.to_raw().ptr == user.to_raw().ptr)
        };
        let before = slice.len();
        let kept: Vec<_> = slice
            .iter()
            .copied()
            .filter(|op| {
                op.result_at(0).is_some_and(|r| {
                    // The value the then branch yields stays outside it.
                    Some(detach(r.into())) != chosen
                        && tile_type(r.r#type()).is_some()
                        && uses(r.into()).iter().all(|(user, _)| inside(*user, &slice))
                })
            })
            .collect();
        slice = kept;
        if slice.len() == before {
            break;
        }
    }
    // In block order, which the moves keep.
    let mut ordered = Vec::new();
    let mut next = block.and_then(|b| b.first_operation());
    while let Some(op) = next {
        next = op.next_in_block();
        if slice.iter().any(|s| s.to_raw().ptr == op.to_raw().ptr) {
            // SAFETY: an op of the kernel, alive for the pass.
            ordered.push(unsafe { OperationRef::from_raw(op.to_raw()) });
        }
    }
    ordered
}

/// Versions `select`; `None` (IR unchanged) where its mask is not one the
/// pass can bound, or where none of the mask's ops could move (the mask
/// has other users, as when two selects share it): the mask would then be
/// computed every iteration anyway.
fn version<'c>(context: &'c Context, select: OperationRef<'c, 'c>) -> Option<()> {
    let mask = detach(select.operand_at(0)?);
    tile_type(mask.r#type())?;
    let mut analysis = Analysis { understood: HashSet::new(), budget: BUDGET };
    let proof = analysis.proof(mask)?;
    let result = detach(select.result_at(0)?.into());
    let chosen = detach(select.operand_at(1)?);
    let slice = mask_slice(select, &analysis.understood);
    if slice.is_empty() {
        return None;
    }
    let at = At::before(context, select)?;
    let all = build_proof(&mut Builder { at: &at, built: HashMap::new() }, &proof)?;
    let branch = if_else_op(&at, all, &[result.r#type()], |_| Some(vec![chosen]), |_| Some(vec![chosen]))?;
    let branch_result = detach(branch.result_at(0)?.into());
    // SAFETY: both values are live, and the scf.if's result has the
    // select's type; the scf.if stands where the select stood, so it
    // dominates every user of the select's result (its yields use `chosen`,
    // not that result). The select moves into the else branch next, whose
    // yield then takes its result.
    unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(result.to_raw(), branch_result.to_raw()) };
    let else_block = branch.region_at(1)?.first_block()?;
    let terminator = else_block.terminator()?;
    for op in slice.iter().chain(std::iter::once(&select)) {
        // SAFETY: live ops of the kernel, moved in block order before the
        // else branch's yield; each one's operands are defined before the
        // scf.if (which stands where the select stood) or are moved ahead
        // of it.
        unsafe { mlir_sys::mlirOperationMoveBefore(op.to_raw(), terminator.to_raw()) };
    }
    // SAFETY: a live yield of the new scf.if; its one operand becomes the
    // select's result, now defined just before it.
    unsafe { mlir_sys::mlirOperationSetOperand(terminator.to_raw(), 0, result.to_raw()) };
    Some(())
}
