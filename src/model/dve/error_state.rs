//! `--divine-errors`: DiVinE's error state in the translation
//! (program/error_state.rs). The first process gets one more location,
//! which no transition leaves (DiVinE's `go_to_error` puts it at the index
//! one past its states), and the model an `"error-state"` naming it.

use serde_json::{Value, json};

/// Adds the error state to a translated model.
pub(crate) fn add_error_state(model: &mut Value) {
    let Some(first) = model["threads"].get_mut(0) else {
        return;
    };
    let taken: Vec<String> = first["locations"]
        .as_array()
        .map(|ls| {
            ls.iter()
                .filter_map(|l| l.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let mut location = "error".to_string();
    while taken.contains(&location) {
        location.push('_');
    }
    if let Some(ls) = first["locations"].as_array_mut() {
        ls.push(json!(location));
    }
    let thread = first["name"].clone();
    model["error-state"] = json!({"thread": thread, "location": location});
}
