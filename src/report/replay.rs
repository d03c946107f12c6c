//! The text of `weft replay`: the confirmed steps as a `weft check` trace,
//! then the step that failed, or the error states the last state is in.

use crate::engine::MODEL_ERRORS;
use crate::engine::result::ReplayReport;

impl ReplayReport {
    /// What `weft replay` prints: a header, the steps that re-executed
    /// (as `weft check` prints a trace), then the first step that did not,
    /// or which error states the last state is in.
    pub fn to_text(&self) -> String {
        let of = match &self.property {
            Some(p) => format!(" of property `{p}`"),
            None => String::new(),
        };
        let mut out = format!(
            "weft: replay of a trace{of} ({}) on model {}\n",
            crate::words::count(self.steps, "step"),
            self.model
        );
        if let Some(t) = &self.replayed {
            out.push_str(&super::text::trace(t));
        }
        if let Some(stop) = self.stopped.as_ref().filter(|s| s.step.is_some()) {
            let k = stop.step.unwrap_or(0);
            out.push_str(&format!("  step {k}: not re-executed: {}\n", stop.reason));
            out.push_str(&format!(
                "  replay STOPPED at step {k} of {} (unknown: {} re-executed)\n",
                self.steps,
                crate::words::count(k - 1, "step")
            ));
            out.push_str(&format!("    next: {}\n", stop.next_step));
            return out;
        }
        if let Some(f) = &self.failure {
            out.push_str(&format!("  step {}: {}\n", f.step, f.reason));
            out.push_str(&format!(
                "  replay FAILED at step {} of {}\n",
                f.step, self.steps
            ));
            return out;
        }
        out.push_str(&format!(
            "  all {} replayed\n",
            crate::words::count(self.steps, "step")
        ));
        let props: Vec<String> = self
            .error_properties
            .iter()
            .map(|p| format!("`{p}`"))
            .collect();
        let expected = self.property.as_deref();
        if !props.is_empty() {
            let plural = if props.len() > 1 { "ies" } else { "y" };
            out.push_str(&format!(
                "  the trace ends in an error state of propert{plural} {}",
                props.join(", ")
            ));
            match expected {
                Some(p) if p != MODEL_ERRORS && !self.error_properties.iter().any(|e| e == p) => {
                    out.push_str(&format!(", not of `{p}`, the property it was saved for\n"));
                }
                _ => out.push('\n'),
            }
        }
        match (&self.model_error, expected) {
            (Some(m), _) => {
                out.push_str(&format!("  the trace ends in a run-time error: {m}\n"));
            }
            (None, _) if self.stopped.is_some() => {}
            (None, Some(MODEL_ERRORS)) => {
                out.push_str("  the trace ends in no run-time error");
                if let Some(f) = &self.recorded_failure {
                    out.push_str(&format!(" (it says: {f})"));
                }
                out.push('\n');
            }
            (None, _) if props.is_empty() => {
                out.push_str("  the trace ends in no error state\n");
            }
            (None, _) => {}
        }
        if let Some(stop) = &self.stopped {
            out.push_str(&format!(
                "  whether the last state has a run-time error is not known: {}\n",
                stop.reason
            ));
            out.push_str(&format!("    next: {}\n", stop.next_step));
        }
        out
    }
}
