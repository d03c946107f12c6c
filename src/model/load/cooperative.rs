//! `"scheduling": "cooperative"` (program/cooperative.rs): the `events`, the
//! scheduler's global `waiting` (one cell per thread, 0 while runnable, the
//! event's id while waiting), and each transition's `wait`, `notify` and
//! `yield`.

use super::{Loader, check_ident, did_you_mean};
use crate::model::json::{LResult, Node};
use crate::program::{Coop, Domain, Layout, Release, Scheduler, Val};
use serde_json::Value;

/// The scheduler's global.
const WAITING: &str = "waiting";

impl<'a> Loader<'a> {
    /// Reads `scheduling` and `events`; for a cooperative model, adds the
    /// global `waiting` (after the model's own globals, all 0 initially).
    pub(super) fn scheduling(
        &mut self,
        root: &Node<'a>,
        globals: &mut Layout,
        init: &mut [Box<[Val]>],
    ) -> LResult<Option<Scheduler>> {
        let cooperative = match root.get("scheduling") {
            None => false,
            Some(n) => match n.str("the scheduling")? {
                "cooperative" => true,
                "preemptive" => false,
                other => {
                    return Err(n.err(format!(
                        "unknown scheduling `{other}`: write \"cooperative\" or \"preemptive\" (the default)"
                    )));
                }
            },
        };
        let events = root.get("events");
        if !cooperative {
            if let Some(e) = events {
                return Err(e.err(
                    "`events` belong to a cooperative model: add \"scheduling\": \"cooperative\"",
                ));
            }
            return Ok(None);
        }
        let mut names: Vec<String> = Vec::new();
        for item in events
            .map(|e| e.array("event names"))
            .transpose()?
            .unwrap_or_default()
        {
            let name = item.str("an event name")?;
            check_ident(&item, name, "event")?;
            if names.iter().any(|x| x == name) {
                return Err(item.err(format!("event `{name}` is declared twice")));
            }
            names.push(name.to_string());
        }
        if !self.names.channels.is_empty() {
            return Err(root.err(
                "a cooperative model cannot have channels (rendezvous move two threads at once)",
            ));
        }
        if globals.find(WAITING).is_some() {
            return Err(root.err(format!(
                "a cooperative model keeps its scheduler state in the global `{WAITING}`: rename the model's own `{WAITING}`"
            )));
        }
        let threads: u32 = self.names.templates.iter().map(|t| t.count).sum();
        let slot = globals.slots;
        let domain = Domain {
            min: 0,
            max: names.len() as i64,
            is_bool: false,
        };
        globals.push(WAITING.into(), domain, Some(threads));
        for store in init.iter_mut() {
            let mut v = store.to_vec();
            v.resize(v.len() + threads as usize, 0);
            *store = v.into();
        }
        self.names.globals = globals.clone();
        self.names.events = names;
        self.names.cooperative = true;
        Ok(Some(Scheduler { waiting: slot }))
    }

    /// A transition's `wait`, `notify` and `yield`.
    pub(super) fn coop(&self, t: &Node<'a>) -> LResult<Coop> {
        let mut coop = Coop::default();
        let keys = ["wait", "notify", "yield"];
        if !self.names.cooperative {
            if let Some(k) = keys.iter().find_map(|k| t.get(k)) {
                return Err(k.err(
                    "`wait`, `notify` and `yield` need a cooperative model: add \"scheduling\": \"cooperative\" (and its \"events\")",
                ));
            }
            return Ok(coop);
        }
        if let Some(n) = t.get("notify") {
            let items = match n.value {
                Value::Array(_) => n.array("events to notify")?,
                _ => vec![n.clone()],
            };
            for item in items {
                coop.notify.push(self.event(&item)?);
            }
        }
        match (t.get("wait"), t.get("yield")) {
            (Some(w), None) => coop.release = Some(Release::Wait(self.event(&w)?)),
            (None, Some(y)) => match y.value {
                Value::Bool(true) => coop.release = Some(Release::Yield),
                Value::Bool(false) => {}
                _ => return Err(y.err("`yield` is true or false")),
            },
            (Some(w), Some(_)) => {
                return Err(w.err("a transition either waits or yields, not both"));
            }
            (None, None) => {}
        }
        Ok(coop)
    }

    /// An event's 1-based id.
    fn event(&self, node: &Node<'a>) -> LResult<u32> {
        let name = node.str("an event name")?;
        match self.names.events.iter().position(|e| e == name) {
            Some(i) => Ok(i as u32 + 1),
            None => {
                let d = node.err(format!("unknown event `{name}`"));
                let known = self.names.events.iter().map(String::as_str);
                Err(match did_you_mean(name, known) {
                    Some(h) => Box::new(d.note(format!("did you mean `{h}`?"))),
                    None => d,
                })
            }
        }
    }
}
