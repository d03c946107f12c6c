//! The stores of a saved trace read back against the program's layouts:
//! names, types and domains checked, for messages that name what does not
//! fit; and stores shown and compared as `name=value`.

use crate::engine::result::Store;
use crate::program::{Layout, Template, Val};
use serde_json::Value;

pub(super) fn show(store: &Store) -> String {
    store
        .iter()
        .map(|(k, v)| format!("{k}={}", plain(v)))
        .collect::<Vec<_>>()
        .join(" ")
}

fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The variables whose values differ: (prefixed name, got, wanted).
pub(super) fn differences(
    got: &Store,
    want: &Store,
    prefix: &str,
) -> Vec<(String, String, String)> {
    got.iter()
        .zip(want)
        .filter(|((_, a), (_, b))| a != b)
        .map(|((n, a), (_, b))| (format!("{prefix}{n}"), plain(a), plain(b)))
        .collect()
}

/// Why a recorded store is not among the model's initial ones: the
/// differences from the closest.
pub(super) fn not_initial(
    inits: &[Box<[Val]>],
    got: &[Val],
    render: impl Fn(&[Val]) -> Store,
    prefix: &str,
) -> String {
    let mine = render(got);
    let closest = inits
        .iter()
        .map(|i| differences(&mine, &render(i), prefix))
        .min_by_key(Vec::len)
        .unwrap_or_default();
    let has: Vec<String> = closest.iter().map(|(n, g, _)| format!("{n}={g}")).collect();
    let model: Vec<String> = closest.iter().map(|(n, _, w)| format!("{n}={w}")).collect();
    format!(
        "it has {}, the model starts with {}",
        has.join(", "),
        model.join(", ")
    )
}

/// A recorded global store as slot values.
pub(super) fn globals(layout: &Layout, store: &Store) -> Result<Vec<Val>, String> {
    let mut out = vec![0; layout.slots as usize];
    fill(layout, store, &mut out, "global", &[])?;
    Ok(out)
}

/// A recorded local store (`pc` first) of thread `name` as slot values.
pub(super) fn locals(tpl: &Template, name: &str, store: &Store) -> Result<Vec<Val>, String> {
    let mut out = vec![0; tpl.locals.slots as usize];
    let pc = store.iter().find(|(k, _)| k == "pc").map(|(_, v)| v);
    let Some(pc) = pc else {
        return Err(format!("the trace gives no location (`pc`) for {name}"));
    };
    let at = pc
        .as_str()
        .and_then(|p| tpl.locations.iter().position(|l| l == p));
    let Some(at) = at else {
        return Err(format!(
            "{name} is at {} in the trace, which is not one of its locations ({})",
            pc,
            tpl.locations.join(", ")
        ));
    };
    out[0] = at as Val;
    let what = format!("local of {name}");
    fill(&tpl.locals, store, &mut out, &what, &["pc"])?;
    Ok(out)
}

/// Writes the store's values into `out` by the layout, checking names,
/// types and domains; `skip` names keys handled by the caller.
fn fill(
    layout: &Layout,
    store: &Store,
    out: &mut [Val],
    what: &str,
    skip: &[&str],
) -> Result<(), String> {
    for (name, _) in store {
        if !skip.contains(&name.as_str()) && layout.find(name).is_none() {
            let known: Vec<&str> = layout.vars.iter().map(|v| v.name.as_str()).collect();
            return Err(format!(
                "the trace has a {what} `{name}` that the model does not have (it has: {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ));
        }
    }
    for var in &layout.vars {
        let Some((_, v)) = store.iter().find(|(k, _)| *k == var.name) else {
            return Err(format!(
                "the trace gives no value for the {what} `{}`",
                var.name
            ));
        };
        let cells: Vec<&Value> = match (var.len, v) {
            (None, v) => vec![v],
            (Some(n), Value::Array(a)) if a.len() == n as usize => a.iter().collect(),
            (Some(n), _) => {
                return Err(format!(
                    "the {what} `{}` is {v} in the trace, not an array of {n} values",
                    var.name
                ));
            }
        };
        for (i, cell) in cells.into_iter().enumerate() {
            let x = match (var.domain.is_bool, cell) {
                (true, Value::Bool(b)) => Some(i64::from(*b)),
                (false, Value::Number(n)) => n.as_i64(),
                _ => None,
            };
            let x = x.filter(|x| var.domain.contains(*x));
            let Some(x) = x else {
                return Err(format!(
                    "the {what} `{}` is {cell} in the trace, not a value of its type {}",
                    var.name,
                    var.domain.describe()
                ));
            };
            out[(var.slot as usize) + i] = x as Val;
        }
    }
    Ok(())
}
