//! A cursor over a parsed JSON document that knows its own JSON path, so
//! every schema error names exactly where it is (`threads[0].transitions[3].when`).

use super::diag::{Diagnostic, did_you_mean};
use serde_json::{Map, Value};

#[derive(Clone)]
pub struct Node<'a> {
    pub value: &'a Value,
    pub path: String,
    pub file: &'a str,
}

pub type LResult<T> = Result<T, Box<Diagnostic>>;

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
    pub fn root(value: &'a Value, file: &'a str) -> Node<'a> {
        Node {
            value,
            path: String::new(),
            file,
        }
    }

    pub fn err(&self, message: impl Into<String>) -> Box<Diagnostic> {
        Box::new(Diagnostic::new(self.file, &self.path, message))
    }

    fn key_path(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    pub fn object(&self, what: &str) -> LResult<&'a Map<String, Value>> {
        self.value
            .as_object()
            .ok_or_else(|| self.err(format!("expected {what} (a JSON object), found {}", kind(self.value))))
    }

    pub fn array(&self, what: &str) -> LResult<Vec<Node<'a>>> {
        let arr = self
            .value
            .as_array()
            .ok_or_else(|| self.err(format!("expected {what} (a JSON array), found {}", kind(self.value))))?;
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

    pub fn str(&self, what: &str) -> LResult<&'a str> {
        self.value
            .as_str()
            .ok_or_else(|| self.err(format!("expected {what} (a string), found {}", kind(self.value))))
    }

    /// Child by key, if present.
    pub fn get(&self, key: &str) -> Option<Node<'a>> {
        self.value.get(key).map(|v| Node {
            value: v,
            path: self.key_path(key),
            file: self.file,
        })
    }

    /// Required child; a missing key is an error naming the key.
    pub fn req(&self, key: &str, what: &str) -> LResult<Node<'a>> {
        self.get(key).ok_or_else(|| {
            let mut d = self.err(format!("missing required key `{key}` ({what})"));
            if self.path.is_empty() {
                d.path = "(top level)".into();
            }
            d
        })
    }

    /// Object entries as child nodes, in document order.
    pub fn entries(&self, what: &str) -> LResult<Vec<(&'a str, Node<'a>)>> {
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
    pub fn check_keys(&self, allowed: &[&str], what: &str) -> LResult<()> {
        let map = self.object(what)?;
        for k in map.keys() {
            if !allowed.contains(&k.as_str()) {
                let mut d = Diagnostic::new(self.file, &self.key_path(k), format!("unknown key `{k}` in {what}"));
                d = match did_you_mean(k, allowed.iter().copied()) {
                    Some(s) => d.note(format!("did you mean `{s}`?")),
                    None => d.note(format!("allowed keys: {}", allowed.join(", "))),
                };
                return Err(Box::new(d));
            }
        }
        Ok(())
    }
}
