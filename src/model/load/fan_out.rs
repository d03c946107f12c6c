//! How many successors one step may have: the `any` choices of a
//! rendezvous, whose step runs two `do`s (each `do` alone is bounded where
//! it is compiled, `templates.rs`).

use super::templates::MAX_ANY_VALUES;
use crate::program::{Program, SyncOp, Transition};

/// A rendezvous runs the sender's `do` and then the receiver's in one step:
/// their `any` choices multiply, past the limit each `do` keeps alone
/// (`MAX_ANY_VALUES`; found in review: 11 `any` bools on each
/// side gave 4,194,304 successors in one step). The path and message of
/// the first channel whose widest pair passes it.
pub(super) fn rendezvous_fan_out(prog: &Program) -> Result<(), (String, String)> {
    let fan = |tr: &Transition| {
        tr.actions
            .iter()
            .filter(|a| a.rhs.is_none())
            .map(|a| a.domain.max as i128 - a.domain.min as i128 + 1)
            .product::<i128>()
    };
    // Per channel: the widest send and receive, with the send's path.
    let n = prog.channels.len();
    let mut send: Vec<(i128, String)> = vec![(0, String::new()); n];
    let mut recv: Vec<i128> = vec![0; n];
    for tr in prog.templates.iter().flat_map(|t| &t.transitions) {
        match &tr.sync {
            Some(SyncOp::Send { channel, .. }) => {
                let (c, f) = (*channel as usize, fan(tr));
                if f > send[c].0 {
                    send[c] = (f, tr.path.clone());
                }
            }
            Some(SyncOp::Recv { channel, .. }) => {
                let c = *channel as usize;
                recv[c] = recv[c].max(fan(tr));
            }
            None => {}
        }
    }
    for c in 0..n {
        let both = send[c].0.saturating_mul(recv[c]);
        if both > MAX_ANY_VALUES {
            return Err((
                format!("{}.do", send[c].1),
                format!(
                    "a rendezvous on `{}` runs this `do` and a receiver's together: their `any` assignments give {both} successors in one step; at most {} are supported",
                    prog.channels[c], MAX_ANY_VALUES
                ),
            ));
        }
    }
    Ok(())
}
