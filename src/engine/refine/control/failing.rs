//! A property whose evaluation fails at an error state of γ. The decision
//! procedure (`Decider::witness`) evaluates every term of the property
//! eagerly and stops at the first failure, so it names neither the local
//! stores that fail nor those where the property holds. Here the choices
//! of local stores at that global store are evaluated one by one as
//! `standard` does (`property::holds`: left to right, `&&` and `||`
//! short-circuit), so that refinement replays the states that matter: a
//! real run to a state where the evaluation fails is a model error (the
//! property is `unknown`), one to a state where it holds is a real
//! counterexample, and spurious paths to either are refined away.

use crate::program::{CExpr, Explorer};

/// Choices evaluated at most per error state; past that, refinement falls
/// back to one arbitrary choice (imprecise, never unsound: a failure that
/// a real run reaches is reported `unknown`).
const MAX_CHOICES: usize = 4096;

/// A choice of local stores (one per thread) and, when the property fails
/// to evaluate there, why.
pub(super) type Choice = (Vec<u32>, Option<String>);

/// The choices among `cands` (per thread) at global store `g` where
/// `error` holds or fails to evaluate, failures first; `None` when there
/// are more than `MAX_CHOICES` combinations.
pub(super) fn choices(
    exp: &Explorer,
    error: &CExpr,
    g: u32,
    cands: &[&[u32]],
) -> Option<Vec<Choice>> {
    let mut total: usize = 1;
    for c in cands {
        total = total.checked_mul(c.len()).filter(|&n| n <= MAX_CHOICES)?;
    }
    let (mut failing, mut holding) = (Vec::new(), Vec::new());
    // An odometer over the candidates.
    let mut at = vec![0usize; cands.len()];
    let mut choice: Vec<u32> = cands.iter().map(|c| c[0]).collect();
    for _ in 0..total {
        match crate::property::holds(error, exp, g, &choice) {
            Ok(true) => holding.push((choice.clone(), None)),
            Ok(false) => {}
            Err(e) => failing.push((choice.clone(), Some(*e.0))),
        }
        for t in 0..cands.len() {
            at[t] += 1;
            if at[t] < cands[t].len() {
                choice[t] = cands[t][at[t]];
                break;
            }
            at[t] = 0;
            choice[t] = cands[t][0];
        }
    }
    failing.extend(holding);
    Some(failing)
}
