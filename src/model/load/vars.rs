//! Variables: layouts, domains, initial values, numbers over params.

use super::*;

impl<'a> Loader<'a> {
    /// A number: an integer, or a string expression over params.
    pub(super) fn number(&self, node: &Node<'a>, what: &str) -> LResult<i64> {
        match node.value {
            Value::Number(n) => n
                .as_i64()
                .ok_or_else(|| node.err(format!("{what} must be an integer, found {n}"))),
            Value::String(s) => {
                let e = self.parse(node, s, expr::parse_expr)?;
                let r = self.resolver(node, s);
                match r.compile_ty(&e, &Scope::Const, Ty::Int, what)? {
                    CExpr::Const(v) => Ok(v),
                    _ => Err(node.err(format!("{what} must be a constant over params"))),
                }
            }
            other => Err(node.err(format!(
                "{what} must be an integer or an expression over params, found {other}"
            ))),
        }
    }

    /// Lays out variables from `first_slot`; returns per-slot initial values.
    pub(super) fn layout(
        &self,
        node: &Node<'a>,
        first_slot: u32,
        what: &str,
    ) -> LResult<(Layout, SlotInit)> {
        let mut layout = Layout::starting_at(first_slot);
        let mut init = Vec::new();
        for (name, spec) in node.entries(&format!("{what} (name -> variable spec)"))? {
            super::budget::check(self.file)?;
            check_ident(&spec, name, "variable")?;
            let (domain, len, slot_init) = self.var_spec(&spec)?;
            let lock = self.lock_flag(&spec, what, len, &slot_init)?;
            layout.push(name.to_string(), domain, len);
            if lock {
                layout.mark_last_lock();
            }
            init.extend(slot_init);
        }
        Ok((layout, init))
    }

    /// `"lock": true` on a scalar global that starts free (0 or `false`):
    /// a lock in the sense of `program/locks.rs`.
    fn lock_flag(
        &self,
        spec: &Node<'a>,
        what: &str,
        len: Option<u32>,
        init: &SlotInit,
    ) -> LResult<bool> {
        let Some(n) = spec.get("lock") else {
            return Ok(false);
        };
        let lock = n
            .value
            .as_bool()
            .ok_or_else(|| n.err("`lock` must be true or false"))?;
        if !lock {
            return Ok(false);
        }
        if what != "globals" {
            return Err(n.err("a lock must be a global: threads share it"));
        }
        if len.is_some() || init.iter().any(|vals| vals[..] != [0]) {
            return Err(n.err(
                "a lock starts free: its `init` must be 0 (or `false`), one value, not `any`",
            ));
        }
        Ok(true)
    }

    pub(super) fn var_spec(&self, spec: &Node<'a>) -> LResult<(Domain, Option<u32>, SlotInit)> {
        spec.object(
            "a variable spec like {\"type\": \"int\", \"min\": 0, \"max\": 3, \"init\": 0}",
        )?;
        let ty = spec.req("type", "\"bool\", \"int\" or \"array\"")?;
        let ty_s = ty.str("the variable type")?;
        match ty_s {
            "bool" | "int" => {
                spec.check_keys(&["type", "min", "max", "init", "lock"], "a variable spec")?;
                let d = self.scalar_domain(spec, ty_s)?;
                let init = self.init_values(spec, spec.get("init"), d, None)?;
                Ok((d, None, init))
            }
            "array" => {
                if let Some(n) = spec.get("lock") {
                    return Err(n.err(
                        "a lock is a scalar global (`bool` or `int`), not an array: declare one global per lock",
                    ));
                }
                spec.check_keys(&["type", "len", "of", "init"], "an array spec")?;
                let len_node = spec.req("len", "the array length")?;
                let len = self.number(&len_node, "the array length")?;
                if !(1..=1_000_000).contains(&len) {
                    return Err(len_node.err(format!(
                        "array length must be between 1 and 1000000, found {len}"
                    )));
                }
                let of = spec.req(
                    "of",
                    "the element type, e.g. {\"type\": \"int\", \"min\": 0, \"max\": 1}",
                )?;
                of.object("an element spec")?;
                if let Some(t) = of.get("type")
                    && t.value.as_str() == Some("array")
                {
                    return Err(t.err(
                        "an array's elements are \"bool\" or \"int\": weft has no arrays of arrays (use one array of `m * n` cells, cell `[i][j]` at `a[i * n + j]`)",
                    ));
                }
                of.check_keys(&["type", "min", "max", "init"], "an element spec")?;
                let et = of.req("type", "\"bool\" or \"int\"")?;
                let et_s = et.str("the element type")?;
                if et_s != "bool" && et_s != "int" {
                    return Err(et.err(format!(
                        "array elements must be \"bool\" or \"int\", found \"{et_s}\""
                    )));
                }
                let d = self.scalar_domain(&of, et_s)?;
                let init_node = spec.get("init").or_else(|| of.get("init"));
                let init = self.init_values(spec, init_node, d, Some(len as u32))?;
                Ok((d, Some(len as u32), init))
            }
            other => {
                let hint = did_you_mean(other, ["bool", "int", "array"])
                    .map(|s| format!(" (did you mean \"{s}\"?)"))
                    .unwrap_or_default();
                Err(ty.err(format!("unknown variable type \"{other}\"{hint}: expected \"bool\", \"int\" or \"array\"")))
            }
        }
    }

    pub(super) fn scalar_domain(&self, spec: &Node<'a>, ty: &str) -> LResult<Domain> {
        if ty == "bool" {
            for k in ["min", "max"] {
                if let Some(n) = spec.get(k) {
                    return Err(n.err(format!("a bool has no `{k}`")));
                }
            }
            return Ok(Domain {
                min: 0,
                max: 1,
                is_bool: true,
            });
        }
        let min_n = spec.req("min", "the smallest value of the int")?;
        let max_n = spec.req("max", "the largest value of the int")?;
        let min = self.number(&min_n, "`min`")?;
        let max = self.number(&max_n, "`max`")?;
        if min > max {
            return Err(spec.err(format!("empty range: min {min} is greater than max {max}")));
        }
        if min < i32::MIN as i64 || max > i32::MAX as i64 {
            return Err(spec.err(format!("range {min}..{max} does not fit in 32 bits")));
        }
        Ok(Domain {
            min,
            max,
            is_bool: false,
        })
    }

    /// Initial values of a scalar (`len` None) or of an array's cells.
    pub(super) fn init_values(
        &self,
        spec: &Node<'a>,
        node: Option<Node<'a>>,
        d: Domain,
        len: Option<u32>,
    ) -> LResult<SlotInit> {
        let cells = len.unwrap_or(1);
        // `sharing`: how many cells take this value spec (all of them for
        // one `init` of an array; one for an item of a list).
        let one = |n: &Node<'a>, sharing: u32| -> LResult<Vec<Val>> {
            match n.value {
                Value::String(s) if s == "any" => {
                    // Refused before the values are built: a 32-bit range
                    // would take 16 GiB (found by fuzzing). The cells that
                    // share it take their own values, so they multiply;
                    // a list's items are multiplied by `product` later.
                    let values = (d.max - d.min + 1) as f64;
                    let stores = values.powi(sharing as i32);
                    if stores > super::MAX_INIT_STORES as f64 {
                        let count = match sharing {
                            1 => format!("{values:.0}"),
                            _ => format!("{values:.0}^{sharing}"),
                        };
                        return Err(n.err(format!("`init: \"any\"` gives {count} initial stores here; at most {} are supported", super::MAX_INIT_STORES)));
                    }
                    Ok((d.min..=d.max).map(|v| v as Val).collect())
                }
                Value::Bool(b) if d.is_bool => Ok(vec![*b as Val]),
                Value::Number(_) if !d.is_bool => {
                    let v = self.number(n, "the initial value")?;
                    if !d.contains(v) {
                        return Err(n.err(format!(
                            "initial value {v} is outside the range {}",
                            d.describe()
                        )));
                    }
                    Ok(vec![v as Val])
                }
                Value::String(s) if !d.is_bool => {
                    let v = self.number(n, "the initial value")?;
                    if !d.contains(v) {
                        return Err(n.err(format!(
                            "initial value {v} (`{s}`) is outside the range {}",
                            d.describe()
                        )));
                    }
                    Ok(vec![v as Val])
                }
                other => Err(n.err(format!(
                    "initial value must be {} or \"any\", found {other}",
                    if d.is_bool {
                        "true/false"
                    } else {
                        "an integer"
                    }
                ))),
            }
        };
        let Some(node) = node else {
            // Zero-initialised, as in SPIN and DVE.
            if !d.contains(0) {
                return Err(spec.err(format!("a variable with range {} needs an `init`: the default initial value 0 is not in its range", d.describe())));
            }
            return Ok(vec![vec![0]; cells as usize]);
        };
        match node.value {
            Value::Array(_) if len.is_none() => Err(node.err(
                "this variable is not an array: its `init` must be one value or \"any\", not a list (for an array use {\"type\": \"array\", \"len\": …, \"of\": …})",
            )),
            Value::Array(_) => {
                let items = node.array("initial values")?;
                if items.len() != cells as usize {
                    return Err(node.err(format!("{} initial values given for an array of length {cells}", items.len())));
                }
                items.iter().map(|n| one(n, 1)).collect()
            }
            _ => {
                let v = one(&node, cells)?;
                Ok(vec![v; cells as usize])
            }
        }
    }
}
