//! JSON syntax, the top level and variables.

use super::*;

// ---- JSON and the top level -------------------------------------------

#[test]
fn json_syntax_error_gives_line_and_column() {
    let text = "{\"name\": \"t\",\n  \"threads\": [\n    {\"name\": \"p\",}\n  ]\n}\n";
    let r = run_text("syntax", text, &[]);
    assert_refused(&r);
    for w in [
        "invalid JSON",
        "trailing comma",
        "line 3, column 18",
        "{\"name\": \"p\",}",
        "^",
    ] {
        assert!(
            r.stderr.contains(w),
            "stderr must contain `{w}`:\n{}",
            r.stderr
        );
    }
}

#[test]
fn empty_file_is_reported_as_empty() {
    let r = run_text("empty", "  \n", &[]);
    assert_refused(&r);
    assert!(r.stderr.contains("file is empty"), "{}", r.stderr);
}

#[test]
fn comment_in_json_gets_a_hint() {
    let text = "{\"name\": \"t\", // my model\n \"threads\": []}";
    let r = run_text("comment", text, &[]);
    assert_refused(&r);
    for w in ["line 1, column 15", "JSON has no comments", "description"] {
        assert!(
            r.stderr.contains(w),
            "stderr must contain `{w}`:\n{}",
            r.stderr
        );
    }
}

#[test]
fn duplicate_json_key_is_not_silently_dropped() {
    let text = "{\"name\": \"t\",\n \"globals\": {\"x\": {\"type\": \"bool\"},\n   \"x\": {\"type\": \"int\", \"min\": 0, \"max\": 1}}}";
    let r = run_text("dupkey", text, &[]);
    assert_refused(&r);
    for w in ["duplicate key `x`", "line 3"] {
        assert!(
            r.stderr.contains(w),
            "stderr must contain `{w}`:\n{}",
            r.stderr
        );
    }
}

#[test]
fn missing_name() {
    let r = run_model(
        "noname",
        |m| drop(m.as_object_mut().unwrap().remove("name")),
        &[],
    );
    assert_error(&r, "(top level)", &["missing required key `name`"]);
}

#[test]
fn missing_threads() {
    let r = run_model(
        "nothreads",
        |m| drop(m.as_object_mut().unwrap().remove("threads")),
        &[],
    );
    assert_error(
        &r,
        "(top level)",
        &["missing required key `threads`", "thread templates"],
    );
}

#[test]
fn empty_properties() {
    let r = run_model("noprops", |m| set(m, "/properties", json!([])), &[]);
    assert_error(&r, "properties", &["at least one property", "`assert`"]);
}

#[test]
fn no_properties_key_and_no_assert() {
    let r = run_model(
        "nopropskey",
        |m| {
            m.as_object_mut().unwrap().remove("properties");
        },
        &[],
    );
    assert_error(&r, "(top level)", &["at least one property", "`assert`"]);
}

#[test]
fn an_assert_is_property_enough() {
    // As in SPIN: the transitions' `assert`s are a property by themselves.
    for (props, tag) in [(None, "assertonly"), (Some(json!([])), "assertempty")] {
        let r = run_model(
            tag,
            |m| {
                match &props {
                    None => drop(m.as_object_mut().unwrap().remove("properties")),
                    Some(p) => set(m, "/properties", p.clone()),
                }
                set(m, "/threads/0/transitions/0/assert", json!("false"));
            },
            &[],
        );
        assert_eq!(r.code, Some(1), "{}{}", r.stdout, r.stderr);
        assert!(r.stdout.contains("  assertions: UNSAFE"), "{}", r.stdout);
    }
}

#[test]
fn unknown_top_level_key_suggests_the_right_one() {
    let r = run_model(
        "thread",
        |m| {
            let t = m.as_object_mut().unwrap().remove("threads").unwrap();
            m["thread"] = t;
        },
        &[],
    );
    assert_error(
        &r,
        "thread",
        &["unknown key `thread`", "did you mean `threads`?"],
    );
}

#[test]
fn key_from_another_tool_suggests_the_weft_name() {
    let r = run_model(
        "guardkey",
        |m| {
            let t = m["threads"][0]["transitions"][0].as_object_mut().unwrap();
            let w = t.remove("when").unwrap();
            t.insert("guard".into(), w);
        },
        &[],
    );
    assert_error(
        &r,
        "threads[0].transitions[0].guard",
        &["unknown key `guard`", "did you mean `when`?"],
    );
}

#[test]
fn wrong_format_version() {
    let r = run_model("format", |m| set(m, "/format", json!("weft/2")), &[]);
    assert_error(&r, "format", &["unsupported format `weft/2`", "weft/1"]);
}

// ---- variables ------------------------------------------------------------

#[test]
fn unknown_variable_type() {
    let r = run_model(
        "vartype",
        |m| set(m, "/globals/x/type", json!("integer")),
        &[],
    );
    assert_error(
        &r,
        "globals.x.type",
        &[
            "unknown variable type \"integer\"",
            "\"bool\", \"int\" or \"array\"",
        ],
    );
}

#[test]
fn int_with_min_above_max_is_an_empty_range() {
    let r = run_model("range", |m| set(m, "/globals/x/min", json!(5)), &[]);
    assert_error(&r, "globals.x", &["empty range", "min 5", "max 3"]);
}

#[test]
fn init_out_of_range() {
    let r = run_model("initrange", |m| set(m, "/globals/x/init", json!(7)), &[]);
    assert_error(
        &r,
        "globals.x.init",
        &["initial value 7", "outside the range 0..3"],
    );
}

#[test]
fn missing_init_when_zero_is_outside_the_range() {
    let r = run_model("noinit", |m| set(m, "/globals/x/min", json!(1)), &[]);
    assert_error(
        &r,
        "globals.x",
        &["needs an `init`", "1..3", "0 is not in its range"],
    );
}

#[test]
fn array_init_of_wrong_length() {
    let r = run_model(
        "arrinit",
        |m| {
            m["globals"]["a"] = json!({"type": "array", "len": 3, "of": {"type": "int", "min": 0, "max": 1}, "init": [0, 1]});
        },
        &[],
    );
    assert_error(
        &r,
        "globals.a.init",
        &["2 initial values", "array of length 3"],
    );
}

#[test]
fn list_init_on_a_scalar() {
    let r = run_model("listinit", |m| set(m, "/globals/x/init", json!([0])), &[]);
    assert_error(
        &r,
        "globals.x.init",
        &["not an array", "one value or \"any\""],
    );
}
