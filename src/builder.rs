//! Building a model in Rust. The builder writes the same weft/1 document a
//! person would write (docs/model-format.md) and loads it through the same
//! loader, so a built model compiles to exactly the program the JSON file
//! would, with the same diagnostics when something is wrong.

use crate::model::{Diagnostic, Model};
use serde_json::{Map, Value, json};

/// A weft/1 model under construction.
///
/// ```
/// use weft::{CheckOptions, Mode, ModelBuilder, TemplateBuilder, Verdict};
/// let model = ModelBuilder::new("lock")
///     .param("n", 3)
///     .int_global("lck", 0, 1, 0)
///     .template(
///         TemplateBuilder::new("p", "idle")
///             .count("n")
///             .group("crit", &["cs"])
///             .transition("idle", "cs", Some("lck == 0"), Some("lck := 1"), "acquire")
///             .transition("cs", "idle", None, Some("lck := 0"), "release"),
///     )
///     .error("mutex", "count(p: @crit) >= 2")
///     .build()
///     .unwrap();
/// let report = model.check(Mode::Standard, &CheckOptions::default()).unwrap();
/// assert_eq!(report.verdict(), Verdict::Safe);
/// ```
#[derive(Clone, Debug)]
pub struct ModelBuilder {
    doc: Map<String, Value>,
    params: Map<String, Value>,
    globals: Map<String, Value>,
    templates: Vec<Value>,
    properties: Vec<Value>,
    exceptions: Vec<Value>,
    /// Names declared twice, as JSON paths (`globals.x`): a file with a
    /// duplicate key is refused, and so is a built model.
    duplicates: Vec<String>,
}

/// Inserts `name` into `map` unless it is there already, in which case its
/// path (`at.name`) joins `duplicates` and the first declaration stays.
fn insert_once(
    map: &mut Map<String, Value>,
    at: &str,
    name: &str,
    value: Value,
    duplicates: &mut Vec<String>,
) {
    if map.contains_key(name) {
        duplicates.push(format!("{at}.{name}"));
    } else {
        map.insert(name.into(), value);
    }
}

impl ModelBuilder {
    /// A model named `name`, with nothing in it yet.
    pub fn new(name: &str) -> ModelBuilder {
        let mut doc = Map::new();
        doc.insert("name".into(), json!(name));
        ModelBuilder {
            doc,
            params: Map::new(),
            globals: Map::new(),
            templates: Vec::new(),
            properties: Vec::new(),
            exceptions: Vec::new(),
            duplicates: Vec::new(),
        }
    }

    /// A one-line description.
    pub fn description(mut self, text: &str) -> Self {
        self.doc.insert("description".into(), json!(text));
        self
    }

    /// A parameter and its default value (usable in counts and bounds).
    pub fn param(mut self, name: &str, value: i64) -> Self {
        insert_once(
            &mut self.params,
            "params",
            name,
            json!(value),
            &mut self.duplicates,
        );
        self
    }

    /// A shared integer variable ranging over `min..=max`.
    pub fn int_global(self, name: &str, min: i64, max: i64, init: i64) -> Self {
        self.global_json(
            name,
            json!({"type": "int", "min": min, "max": max, "init": init}),
        )
    }

    /// A shared boolean variable.
    pub fn bool_global(self, name: &str, init: bool) -> Self {
        self.global_json(name, json!({"type": "bool", "init": init}))
    }

    /// A shared variable declared as weft/1 JSON (arrays, `"init": "any"`,
    /// bounds given by parameters).
    pub fn global_json(mut self, name: &str, declaration: Value) -> Self {
        insert_once(
            &mut self.globals,
            "globals",
            name,
            declaration,
            &mut self.duplicates,
        );
        self
    }

    /// The verdict `mode` should give (the model's `expect`, which `weft
    /// test` checks).
    pub fn expect(mut self, mode: crate::Mode, verdict: crate::Verdict) -> Self {
        let expect = self
            .doc
            .entry("expect")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(e) = expect {
            e.insert(mode.name().into(), json!(verdict.name()));
        }
        self
    }

    /// A thread template.
    pub fn template(mut self, template: TemplateBuilder) -> Self {
        let at = format!("threads[{}]", self.templates.len());
        self.duplicates
            .extend(template.duplicates.iter().map(|d| format!("{at}.{d}")));
        self.templates.push(Value::Object(template.doc));
        self
    }

    /// A property named `name` whose error states satisfy `expr`.
    pub fn error(mut self, name: &str, expr: &str) -> Self {
        self.properties.push(json!({"name": name, "error": expr}));
        self
    }

    /// A property named `name` that must hold in every reachable state.
    pub fn invariant(mut self, name: &str, expr: &str) -> Self {
        self.properties
            .push(json!({"name": name, "invariant": expr}));
        self
    }

    /// Adds the property `deadlock`: no thread can move, and some thread
    /// rests at a location its template does not declare final
    /// (`TemplateBuilder::final_locations`; docs/model-format.md).
    pub fn check_deadlock(mut self) -> Self {
        self.doc.insert("check-deadlock".into(), json!(true));
        self
    }

    /// An exception entry for `cartesian-exc`, as weft/1 JSON.
    pub fn exception(mut self, entry: Value) -> Self {
        self.exceptions.push(entry);
        self
    }

    /// The weft/1 document built so far.
    pub fn to_json(&self) -> Value {
        let mut doc = self.doc.clone();
        if !self.params.is_empty() {
            doc.insert("params".into(), Value::Object(self.params.clone()));
        }
        doc.insert("globals".into(), Value::Object(self.globals.clone()));
        doc.insert("threads".into(), Value::Array(self.templates.clone()));
        doc.insert("properties".into(), Value::Array(self.properties.clone()));
        if !self.exceptions.is_empty() {
            doc.insert("exceptions".into(), Value::Array(self.exceptions.clone()));
        }
        Value::Object(doc)
    }

    /// Compiles the model; a mistake is reported as it would be in a file
    /// named `<name>.json`.
    pub fn build(&self) -> Result<Model, Box<Diagnostic>> {
        let file = format!(
            "{}.json",
            self.doc
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("model")
        );
        if let Some(path) = self.duplicates.first() {
            let name = path.rsplit('.').next().unwrap_or(path);
            return Err(Box::new(Diagnostic::new(
                &file,
                path,
                format!("duplicate key `{name}`: declared twice (a file with it is refused too)"),
            )));
        }
        crate::model::load_str(&self.to_json().to_string(), &file, &[])
    }
}

/// A thread template under construction: its locations, locals and
/// transitions.
#[derive(Clone, Debug)]
pub struct TemplateBuilder {
    doc: Map<String, Value>,
    /// Names declared twice in the template (`locals.x`, `groups.g`).
    duplicates: Vec<String>,
}

impl TemplateBuilder {
    /// A template named `name` whose threads start at location `start`.
    pub fn new(name: &str, start: &str) -> TemplateBuilder {
        let mut doc = Map::new();
        doc.insert("name".into(), json!(name));
        doc.insert("start".into(), json!(start));
        doc.insert("transitions".into(), json!([]));
        TemplateBuilder {
            doc,
            duplicates: Vec::new(),
        }
    }

    /// How many threads run this template: a number or a parameter name.
    pub fn count(mut self, count: impl Into<Value>) -> Self {
        self.doc.insert("count".into(), count.into());
        self
    }

    /// A named group of locations (`@crit` in expressions).
    pub fn group(mut self, name: &str, locations: &[&str]) -> Self {
        let groups = self
            .doc
            .entry("groups")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(g) = groups {
            insert_once(g, "groups", name, json!(locations), &mut self.duplicates);
        }
        self
    }

    /// The locations (or groups) where a thread may rest for ever without
    /// its rest being a deadlock; by default, those no transition leaves.
    pub fn final_locations(mut self, locations: &[&str]) -> Self {
        self.doc.insert("final".into(), json!(locations));
        self
    }

    /// A thread-local integer variable.
    pub fn int_local(self, name: &str, min: i64, max: i64, init: i64) -> Self {
        self.local_json(
            name,
            json!({"type": "int", "min": min, "max": max, "init": init}),
        )
    }

    /// A thread-local boolean variable.
    pub fn bool_local(self, name: &str, init: bool) -> Self {
        self.local_json(name, json!({"type": "bool", "init": init}))
    }

    /// A thread-local variable declared as weft/1 JSON.
    pub fn local_json(mut self, name: &str, declaration: Value) -> Self {
        let locals = self
            .doc
            .entry("locals")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(l) = locals {
            insert_once(l, "locals", name, declaration, &mut self.duplicates);
        }
        self
    }

    /// A transition from `from` to `to`, enabled when `when` holds (always
    /// if `None`), running the assignments `effect` (`x := 1; y := x`).
    pub fn transition(
        self,
        from: &str,
        to: &str,
        when: Option<&str>,
        effect: Option<&str>,
        label: &str,
    ) -> Self {
        let mut t = json!({"from": from, "to": to, "label": label});
        if let Some(w) = when {
            t["when"] = json!(w);
        }
        if let Some(e) = effect {
            t["do"] = json!(e);
        }
        self.transition_json(t)
    }

    /// A transition written as weft/1 JSON (for `assert`, several `from`
    /// locations, or DVE-style synchronisation).
    pub fn transition_json(mut self, transition: Value) -> Self {
        if let Some(Value::Array(ts)) = self.doc.get_mut("transitions") {
            ts.push(transition);
        }
        self
    }
}
