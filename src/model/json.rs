//! A cursor over a parsed JSON document that knows its own JSON path, so
//! every schema error names exactly where it is (`threads[0].transitions[3].when`).

use super::diag::{Diagnostic, did_you_mean};
use serde_json::{Map, Value};

#[derive(Clone)]
pub(crate) struct Node<'a> {
    pub(crate) value: &'a Value,
    pub(crate) path: String,
    pub(crate) file: &'a str,
}

pub(crate) type LResult<T> = Result<T, Box<Diagnostic>>;

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl<'a> Node<'a> {
    pub(crate) fn root(value: &'a Value, file: &'a str) -> Node<'a> {
        Node {
            value,
            path: String::new(),
            file,
        }
    }

    /// An error at this node; the document's root is named `(top level)`.
    pub(crate) fn err(&self, message: impl Into<String>) -> Box<Diagnostic> {
        let path = if self.path.is_empty() {
            "(top level)"
        } else {
            &self.path
        };
        Box::new(Diagnostic::new(self.file, path, message))
    }

    fn key_path(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    pub(crate) fn object(&self, what: &str) -> LResult<&'a Map<String, Value>> {
        self.value.as_object().ok_or_else(|| {
            self.err(format!(
                "expected {what} (a JSON object), found {}",
                kind(self.value)
            ))
        })
    }

    pub(crate) fn array(&self, what: &str) -> LResult<Vec<Node<'a>>> {
        let arr = self.value.as_array().ok_or_else(|| {
            self.err(format!(
                "expected {what} (a JSON array), found {}",
                kind(self.value)
            ))
        })?;
        Ok(arr
            .iter()
            .enumerate()
            .map(|(i, v)| Node {
                value: v,
                path: format!("{}[{i}]", self.path),
                file: self.file,
            })
            .collect())
    }

    pub(crate) fn str(&self, what: &str) -> LResult<&'a str> {
        self.value.as_str().ok_or_else(|| {
            self.err(format!(
                "expected {what} (a string), found {}",
                kind(self.value)
            ))
        })
    }

    /// Child by key, if present.
    pub(crate) fn get(&self, key: &str) -> Option<Node<'a>> {
        self.value.get(key).map(|v| Node {
            value: v,
            path: self.key_path(key),
            file: self.file,
        })
    }

    /// Required child; a missing key is an error naming the key.
    pub(crate) fn req(&self, key: &str, what: &str) -> LResult<Node<'a>> {
        self.get(key)
            .ok_or_else(|| self.err(format!("missing required key `{key}` ({what})")))
    }

    /// Object entries as child nodes, in document order.
    pub(crate) fn entries(&self, what: &str) -> LResult<Vec<(&'a str, Node<'a>)>> {
        let map = self.object(what)?;
        Ok(map
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str(),
                    Node {
                        value: v,
                        path: self.key_path(k),
                        file: self.file,
                    },
                )
            })
            .collect())
    }

    /// Rejects keys outside `allowed`, suggesting the closest one.
    pub(crate) fn check_keys(&self, allowed: &[&str], what: &str) -> LResult<()> {
        let map = self.object(what)?;
        for k in map.keys() {
            if !allowed.contains(&k.as_str()) {
                let mut d = Diagnostic::new(
                    self.file,
                    &self.key_path(k),
                    format!("unknown key `{k}` in {what}"),
                );
                let alias = synonyms(k)
                    .iter()
                    .find(|s| allowed.contains(s))
                    .map(|s| s.to_string());
                d = match alias.or_else(|| did_you_mean(k, allowed.iter().copied())) {
                    Some(s) => d.note(format!("did you mean `{s}`?")),
                    None => d.note(format!("allowed keys: {}", allowed.join(", "))),
                };
                return Err(Box::new(d));
            }
        }
        Ok(())
    }
}

/// What users of other model checkers (UPPAAL, SPIN, TLA+) may call a key;
/// the first one allowed where the key was found is suggested.
fn synonyms(key: &str) -> &'static [&'static str] {
    match key.to_ascii_lowercase().as_str() {
        "guard" | "if" | "condition" | "enabled" => &["when"],
        "action" | "actions" | "update" | "updates" | "effect" | "assign" | "assignment"
        | "assignments" => &["do"],
        "source" | "src" => &["from"],
        "target" | "dest" | "destination" => &["to"],
        "initial" | "initial_value" | "initial_location" | "init" => &["start", "init"],
        "value" | "default" => &["init"],
        "instances" | "copies" | "replicas" => &["count"],
        "vars" | "variables" | "shared" => &["globals", "locals"],
        "local" | "local_vars" => &["locals"],
        "templates" | "processes" | "process" | "proctypes" | "thread" => &["threads"],
        "props" | "specs" | "property" | "spec" => &["properties"],
        "parameters" | "constants" | "consts" => &["params"],
        "length" | "size" => &["len"],
        "element" | "elem" | "elements" => &["of"],
        "bad" => &["error"],
        "inv" | "safety" => &["invariant"],
        "expected" | "expects" => &["expect"],
        "exception" => &["exceptions"],
        _ => &[],
    }
}

/// Parses JSON text like `serde_json::from_str`, but refuses an object that
/// has the same key twice: serde_json would silently keep the last one, so a
/// copy-pasted global or a second `do` on one transition would vanish.
pub(crate) fn parse_strict(text: &str) -> Result<Value, serde_json::Error> {
    use serde::de::DeserializeSeed;
    let mut de = serde_json::Deserializer::from_str(text);
    let v = Strict.deserialize(&mut de)?;
    de.end()?;
    Ok(v)
}

/// The scalar methods of a `serde::de::Visitor` that builds a
/// `serde_json::Value` as serde_json's own does: shared by the strict
/// model reader here and the budgeted trace reader
/// (`report/trace_values.rs`), which differ only in arrays and objects.
macro_rules! scalar_value_visits {
    () => {
        fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
            Ok(Value::Bool(v))
        }
        fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
            Ok(Value::from(v))
        }
        fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
            Ok(Value::from(v))
        }
        fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
            Ok(Value::from(v))
        }
        fn visit_str<E>(self, v: &str) -> Result<Value, E> {
            Ok(Value::String(v.to_string()))
        }
        fn visit_string<E>(self, v: String) -> Result<Value, E> {
            Ok(Value::String(v))
        }
        fn visit_unit<E>(self) -> Result<Value, E> {
            Ok(Value::Null)
        }
        fn visit_none<E>(self) -> Result<Value, E> {
            Ok(Value::Null)
        }
    };
}
pub(crate) use scalar_value_visits;

/// A `serde_json::Value` builder that rejects duplicate keys.
#[derive(Clone, Copy)]
struct Strict;

impl<'de> serde::de::DeserializeSeed<'de> for Strict {
    type Value = Value;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Strict {
    type Value = Value;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    scalar_value_visits!();
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(Strict)? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(k) = map.next_key::<String>()? {
            if out.contains_key(&k) {
                return Err(serde::de::Error::custom(format!(
                    "duplicate key `{k}` in one object (only one of them would be used)"
                )));
            }
            let v = map.next_value_seed(Strict)?;
            out.insert(k, v);
        }
        Ok(Value::Object(out))
    }
}
