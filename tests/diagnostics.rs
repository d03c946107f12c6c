//! Bad input, as a new user writes it, through the real `weft` binary: every
//! mistake must exit with code 2 and print, on stderr only, the file, the
//! JSON path, what is wrong (with a did-you-mean where one helps) and, for
//! expressions, the expression with a caret under the culprit. Never a panic.

use assert_cmd::Command;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A valid model that each test breaks in one place.
fn base() -> Value {
    json!({
        "format": "weft/1",
        "name": "diag",
        "params": {"n": 3},
        "globals": {
            "lck": {"type": "int", "min": 0, "max": 1, "init": 0},
            "b": {"type": "bool"},
            "x": {"type": "int", "min": 0, "max": 3},
            "turn": {"type": "int", "min": 0, "max": 1}
        },
        "threads": [{
            "name": "p",
            "count": "n",
            "start": "l1",
            "groups": {"crit": ["l2", "l3"]},
            "transitions": [
                {"from": "l1", "to": "l2", "when": "lck == 0", "do": "lck := 1", "label": "acquire"},
                {"from": "l2", "to": "l3", "label": "work"},
                {"from": "l3", "to": "done", "do": "lck := 0", "label": "release"}
            ]
        }],
        "properties": [{"name": "mutex", "error": "count(p: @crit) >= 2"}]
    })
}

struct Run {
    /// The model file's name, unique per run.
    file: String,
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn temp_path(tag: &str) -> PathBuf {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let k = COUNTER.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("weft-diag-{}-{k}-{tag}.json", std::process::id()))
}

/// Runs `weft check FILE ARGS…` on `text` written to a fresh temp file.
fn run_text(tag: &str, text: &str, args: &[&str]) -> Run {
    let path = temp_path(tag);
    std::fs::write(&path, text).unwrap();
    let out = Command::cargo_bin("weft")
        .unwrap()
        .arg("check")
        .arg(&path)
        .args(args)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&path);
    Run {
        file: path.file_name().unwrap().to_string_lossy().into_owned(),
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The base model after `change`.
fn run_model(tag: &str, change: impl FnOnce(&mut Value), args: &[&str]) -> Run {
    let mut m = base();
    change(&mut m);
    run_text(tag, &serde_json::to_string_pretty(&m).unwrap(), args)
}

/// Exit code 2, nothing on stdout, no panic, and stderr naming the file.
fn assert_refused(r: &Run) {
    assert_eq!(
        r.code,
        Some(2),
        "exit code\nstderr:\n{}\nstdout:\n{}",
        r.stderr,
        r.stdout
    );
    assert!(
        r.stdout.is_empty(),
        "stdout must be empty, got:\n{}",
        r.stdout
    );
    assert!(!r.stderr.contains("panicked"), "panic:\n{}", r.stderr);
    assert!(
        r.stderr.contains(&r.file),
        "stderr must name the file `{}`:\n{}",
        r.file,
        r.stderr
    );
}

/// A refusal at JSON path `path` whose message contains every one of `words`.
fn assert_error(r: &Run, path: &str, words: &[&str]) {
    assert_refused(r);
    assert!(
        r.stderr.contains(&format!("{}: {path}", r.file)),
        "stderr must name the JSON path `{path}` after the file:\n{}",
        r.stderr
    );
    for w in words {
        assert!(
            r.stderr.contains(w),
            "stderr must contain `{w}`:\n{}",
            r.stderr
        );
    }
}

/// An expression error: as `assert_error`, plus the expression shown with a
/// caret `^` under byte `offset` of it.
fn assert_expr_error(r: &Run, path: &str, expr: &str, offset: usize, words: &[&str]) {
    assert_error(r, path, words);
    let lines: Vec<&str> = r.stderr.lines().collect();
    let i = lines
        .iter()
        .position(|l| l.contains('│') && l.ends_with(expr))
        .unwrap_or_else(|| panic!("the expression `{expr}` must be shown:\n{}", r.stderr));
    let start = lines[i].chars().count() - expr.chars().count();
    let caret = lines
        .get(i + 1)
        .and_then(|l| l.chars().position(|c| c == '^'))
        .unwrap_or_else(|| panic!("a caret `^` must follow the expression:\n{}", r.stderr));
    assert_eq!(
        caret,
        start + offset,
        "caret position under `{expr}`:\n{}",
        r.stderr
    );
}

/// Sets the value at a JSON pointer such as `/threads/0/transitions/1/do`,
/// creating the last key if needed.
fn set(m: &mut Value, ptr: &str, v: Value) {
    let mut cur = m;
    for seg in ptr.split('/').skip(1) {
        cur = match seg.parse::<usize>() {
            Ok(i) if cur.is_array() => &mut cur[i],
            _ => &mut cur[seg],
        };
    }
    *cur = v;
}

fn guard(m: &mut Value, text: &str) {
    set(m, "/threads/0/transitions/0/when", json!(text));
}

fn action(m: &mut Value, text: &str) {
    set(m, "/threads/0/transitions/1/do", json!(text));
}

fn property(m: &mut Value, text: &str) {
    set(m, "/properties/0/error", json!(text));
}

const GUARD: &str = "threads[0].transitions[0].when";
const ACTION: &str = "threads[0].transitions[1].do";
const PROPERTY: &str = "properties[0].error";

#[test]
fn the_base_model_is_valid() {
    let r = run_model("base", |_| {}, &[]);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("mutex: safe"), "{}", r.stdout);
}

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
    assert_error(&r, "properties", &["at least one property"]);
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

// ---- expressions: names and types ------------------------------------------

#[test]
fn unknown_name_in_guard_suggests_the_global() {
    let r = run_model("lk", |m| guard(m, "lk == 0"), &[]);
    assert_expr_error(
        &r,
        GUARD,
        "lk == 0",
        0,
        &["unknown name `lk`", "did you mean `lck`?"],
    );
    assert!(
        r.stderr.contains("^^ did you mean"),
        "the caret spans the name:\n{}",
        r.stderr
    );
}

#[test]
fn swapped_letters_still_get_a_suggestion() {
    let r = run_model("trun", |m| guard(m, "trun == 1"), &[]);
    assert_expr_error(
        &r,
        GUARD,
        "trun == 1",
        0,
        &["unknown name `trun`", "did you mean `turn`?"],
    );
}

#[test]
fn int_assigned_to_bool_is_a_type_error() {
    let r = run_model("boolint", |m| action(m, "b := 1"), &[]);
    assert_expr_error(
        &r,
        ACTION,
        "b := 1",
        5,
        &["type error", "`b` is a bool", "assigned value is an int"],
    );
}

#[test]
fn bool_in_arithmetic_in_guard_is_a_type_error() {
    let r = run_model("boolplus", |m| guard(m, "b + 1 > 1"), &[]);
    assert_expr_error(
        &r,
        GUARD,
        "b + 1 > 1",
        0,
        &["type error", "`+` needs ints", "found a bool"],
    );
}

#[test]
fn and_on_ints_is_a_type_error() {
    let r = run_model("andints", |m| guard(m, "lck && x"), &[]);
    assert_expr_error(
        &r,
        GUARD,
        "lck && x",
        0,
        &["type error", "`&&` needs bools", "found an int", "x != 0"],
    );
}

#[test]
fn property_that_is_an_int_is_a_type_error() {
    let r = run_model("intprop", |m| property(m, "count(p: @crit)"), &[]);
    assert_expr_error(
        &r,
        PROPERTY,
        "count(p: @crit)",
        0,
        &["a property must be a bool", "found an int"],
    );
}

#[test]
fn constant_assignment_out_of_range() {
    let r = run_model("assignrange", |m| action(m, "x := 5"), &[]);
    assert_expr_error(
        &r,
        ACTION,
        "x := 5",
        5,
        &["assignment out of range", "`x` gets 5", "0..3"],
    );
}

#[test]
fn tid_in_a_property_outside_count() {
    let r = run_model(
        "tid",
        |m| property(m, "count(p: @crit) >= 1 && tid == 2"),
        &[],
    );
    assert_expr_error(
        &r,
        PROPERTY,
        "count(p: @crit) >= 1 && tid == 2",
        24,
        &["`tid` is only defined inside", "count"],
    );
}

#[test]
fn local_in_an_exception_when() {
    let r = run_model(
        "exclocal",
        |m| {
            m["threads"][0]["locals"] = json!({"k": {"type": "bool"}});
            m["exceptions"] = json!([{"when": "k", "one": "@crit", "others": "!@crit"}]);
        },
        &[],
    );
    assert_expr_error(
        &r,
        "exceptions[0].when",
        "k",
        0,
        &["`k` is a thread-local variable", "only globals and params"],
    );
}

// ---- expressions: syntax ------------------------------------------------------

#[test]
fn missing_operand_points_at_the_end() {
    let r = run_model("eqend", |m| guard(m, "lck =="), &[]);
    assert_expr_error(
        &r,
        GUARD,
        "lck ==",
        6,
        &[
            "syntax error",
            "expected a value",
            "found end of expression",
        ],
    );
}

#[test]
fn chained_comparison_is_refused() {
    let r = run_model("chain", |m| guard(m, "0 < x < 2"), &[]);
    assert_expr_error(
        &r,
        GUARD,
        "0 < x < 2",
        6,
        &["comparisons do not chain", "&&"],
    );
}

#[test]
fn double_equals_in_do() {
    let r = run_model("eqdo", |m| action(m, "x == 1"), &[]);
    assert_expr_error(
        &r,
        ACTION,
        "x == 1",
        2,
        &["expected `:=`", "conditions belong in `when`"],
    );
}

#[test]
fn single_equals_in_guard() {
    let r = run_model("eq1", |m| guard(m, "lck = 0"), &[]);
    assert_expr_error(
        &r,
        GUARD,
        "lck = 0",
        4,
        &["`=` is not an operator", "`==`", "`:=`"],
    );
}

#[test]
fn assignment_in_guard() {
    let r = run_model("assignwhen", |m| guard(m, "lck := 0"), &[]);
    assert_expr_error(
        &r,
        GUARD,
        "lck := 0",
        4,
        &["unexpected `:=`", "assignments belong in `do`"],
    );
}

#[test]
fn unicode_operator_gets_its_ascii_spelling() {
    let r = run_model("unicode", |m| guard(m, "x ≤ 1"), &[]);
    assert_expr_error(
        &r,
        GUARD,
        "x ≤ 1",
        2,
        &["unexpected character `≤`", "write `<=`"],
    );
}

#[test]
fn huge_number_literal() {
    let r = run_model("bignum", |m| guard(m, "x == 99999999999999999999"), &[]);
    assert_expr_error(
        &r,
        GUARD,
        "x == 99999999999999999999",
        5,
        &["too large", "64-bit"],
    );
}

#[test]
fn guard_written_as_a_json_boolean() {
    let r = run_model(
        "jsonbool",
        |m| set(m, "/threads/0/transitions/0/when", json!(true)),
        &[],
    );
    assert_error(
        &r,
        GUARD,
        &["written as a string expression", "write \"true\""],
    );
}

#[test]
fn absurdly_nested_expression_is_refused_not_a_crash() {
    let deep = format!("{}lck == 0{}", "(".repeat(5000), ")".repeat(5000));
    let r = run_model("deep", |m| guard(m, &deep), &[]);
    assert_error(&r, GUARD, &["nested too deeply"]);
    // A very long disjunction is fine: it is built balanced.
    let long = (0..5000)
        .map(|i| format!("x == {}", i % 4))
        .collect::<Vec<_>>()
        .join(" || ");
    let r = run_model("long", |m| guard(m, &long), &[]);
    assert!(matches!(r.code, Some(0 | 1)), "{}", r.stderr);
}

// ---- locations, groups, instances ------------------------------------------------

#[test]
fn unknown_location_in_count_suggests_the_group() {
    let r = run_model("crt", |m| property(m, "count(p: @crt) >= 2"), &[]);
    assert_expr_error(
        &r,
        PROPERTY,
        "count(p: @crt) >= 2",
        10,
        &["no location or group `crt` in `p`", "did you mean `crit`?"],
    );
}

#[test]
fn group_naming_a_missing_location() {
    let r = run_model(
        "group",
        |m| set(m, "/threads/0/groups/crit/1", json!("l9")),
        &[],
    );
    assert_error(
        &r,
        "threads[0].groups.crit[1]",
        &[
            "the group `crit` names `l9`",
            "not a location of `p`",
            "l1, l2, l3, done",
        ],
    );
}

#[test]
fn location_written_as_a_number() {
    let r = run_model(
        "numloc",
        |m| set(m, "/threads/0/transitions/1/to", json!(3)),
        &[],
    );
    assert_error(
        &r,
        "threads[0].transitions[1].to",
        &["must be a string", "write \"3\""],
    );
}

#[test]
fn replicated_template_used_as_one_instance() {
    let r = run_model("pcrit", |m| property(m, "p@crit"), &[]);
    assert_expr_error(
        &r,
        PROPERTY,
        "p@crit",
        0,
        &["`p` has 3 instances", "name one instance", "p[1]"],
    );
}

#[test]
fn instance_number_out_of_range() {
    let r = run_model("p7", |m| property(m, "p[7]@l1"), &[]);
    assert_expr_error(
        &r,
        PROPERTY,
        "p[7]@l1",
        2,
        &["`p` has instances 1..3, not 7", "1-based"],
    );
}

// ---- duplicates and shadowing ---------------------------------------------------

#[test]
fn duplicate_template_name() {
    let r = run_model(
        "duptpl",
        |m| {
            let t = m["threads"][0].clone();
            m["threads"].as_array_mut().unwrap().push(t);
        },
        &[],
    );
    assert_error(
        &r,
        "threads[1].name",
        &["duplicate thread template name `p`"],
    );
}

#[test]
fn duplicate_property_name() {
    let r = run_model(
        "dupprop",
        |m| {
            m["properties"]
                .as_array_mut()
                .unwrap()
                .push(json!({"name": "mutex", "error": "x == 3"}))
        },
        &[],
    );
    assert_error(
        &r,
        "properties[1].name",
        &["duplicate property name `mutex`"],
    );
}

#[test]
fn local_with_the_name_of_a_global() {
    let r = run_model(
        "shadowg",
        |m| m["threads"][0]["locals"] = json!({"lck": {"type": "bool"}}),
        &[],
    );
    assert_error(
        &r,
        "threads[0].locals.lck",
        &["the local `lck` has the same name as a global"],
    );
}

#[test]
fn local_with_the_name_of_a_param() {
    let r = run_model(
        "shadowp",
        |m| m["threads"][0]["locals"] = json!({"n": {"type": "bool"}}),
        &[],
    );
    assert_error(
        &r,
        "threads[0].locals.n",
        &["the local `n` has the same name as a parameter"],
    );
}

// ---- properties, exceptions, expect ------------------------------------------------

#[test]
fn property_named_like_an_implicit_one() {
    let r = run_model(
        "reserved",
        |m| set(m, "/properties/0/name", json!("assertions")),
        &[],
    );
    assert_error(&r, "properties[0].name", &["`assertions` is reserved"]);
}

#[test]
fn constant_overflow_is_refused_at_load_time() {
    let text = "-(0 - 9223372036854775807 - 1) == 0";
    let r = run_model("negovf", |m| guard(m, text), &[]);
    assert_expr_error(&r, GUARD, text, 0, &["arithmetic overflow"]);
}

#[test]
fn property_with_both_error_and_invariant() {
    let r = run_model(
        "both",
        |m| m["properties"][0]["invariant"] = json!("x == 0"),
        &[],
    );
    assert_error(
        &r,
        "properties[0]",
        &["either `error` or `invariant`, not both"],
    );
}

#[test]
fn exception_with_one_but_no_others() {
    let r = run_model(
        "oneonly",
        |m| m["exceptions"] = json!([{"when": "lck != 0", "one": "@crit"}]),
        &[],
    );
    assert_error(&r, "exceptions[0]", &["`one` needs `others`"]);
}

#[test]
fn unknown_mode_in_expect() {
    let r = run_model(
        "expectmode",
        |m| m["expect"] = json!({"standrd": "safe"}),
        &[],
    );
    assert_error(
        &r,
        "expect.standrd",
        &["unknown mode `standrd`", "did you mean `standard`?"],
    );
}

#[test]
fn unknown_verdict_in_expect() {
    let r = run_model(
        "expectverdict",
        |m| m["expect"] = json!({"standard": "ok"}),
        &[],
    );
    assert_error(
        &r,
        "expect.standard",
        &["unknown verdict `ok`", "safe, unsafe or unknown"],
    );
}

// ---- the command line ----------------------------------------------------------

#[test]
fn unknown_param_override() {
    let r = run_model(
        "param",
        |m| m["params"]["threads"] = json!(2),
        &["--param", "thread=4"],
    );
    assert_error(
        &r,
        "params",
        &[
            "unknown parameter `thread`",
            "--param",
            "did you mean `threads`?",
        ],
    );
}

#[test]
fn non_integer_param_value_is_a_usage_error() {
    let r = run_model("paramval", |_| {}, &["--param", "n=abc"]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    for w in ["--param", "`n` must be an integer", "`abc`"] {
        assert!(
            r.stderr.contains(w),
            "stderr must contain `{w}`:\n{}",
            r.stderr
        );
    }
}

#[test]
fn nonexistent_model_file() {
    let path = temp_path("missing");
    let out = Command::cargo_bin("weft")
        .unwrap()
        .arg("check")
        .arg(&path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(out.stdout.is_empty());
    assert!(!stderr.contains("panicked"), "{stderr}");
    let name = path.file_name().unwrap().to_string_lossy();
    assert!(stderr.contains(&*name), "{stderr}");
    assert!(stderr.contains("cannot read the model file"), "{stderr}");
}

#[test]
fn bad_exceptions_file_is_named() {
    let epath = temp_path("exc");
    std::fs::write(
        &epath,
        r#"{"exceptions": [{"when": "lck != 0", "one": "@crt", "others": "!@crit"}]}"#,
    )
    .unwrap();
    let r = run_model(
        "withexc",
        |_| {},
        &["--exceptions", epath.to_str().unwrap()],
    );
    let _ = std::fs::remove_file(&epath);
    let ename = epath.file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    for w in [
        format!("{ename}: exceptions[0].one"),
        "did you mean `crit`?".into(),
        "^^^".into(),
    ] {
        assert!(
            r.stderr.contains(&w),
            "stderr must contain `{w}`:\n{}",
            r.stderr
        );
    }
}

#[test]
fn a_start_location_that_no_transition_leaves_is_warned_about() {
    // Legal (a terminal start), but almost always a typo: the run goes on.
    let r = run_model("start", |m| set(m, "/threads/0/start", json!("l9")), &[]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(
        r.stderr.contains("warning: ")
            && r.stderr.contains(&r.file)
            && r.stderr.contains("threads[0].start")
            && r.stderr
                .contains("`p` starts at `l9`, which no transition leaves"),
        "{}",
        r.stderr
    );
    // The base model starts where a transition leaves: no warning.
    let r = run_model("start-ok", |_| {}, &[]);
    assert!(!r.stderr.contains("warning"), "{}", r.stderr);
}

#[test]
fn error_and_exceptions_options_go_together() {
    let dir = std::env::temp_dir().join(format!("weft-diag-exc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let exc = dir.join("e.json");
    std::fs::write(&exc, r#"{"exceptions": []}"#).unwrap();
    let models = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    // --error replaces the model's properties, with or without --exceptions.
    let lock = models.join("models/lock.json");
    let out = Command::cargo_bin("weft")
        .unwrap()
        .args([
            "check",
            lock.to_str().unwrap(),
            "--exceptions",
            exc.to_str().unwrap(),
            "--error",
            "lck == 1",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("error: UNSAFE") && !text.contains("mutex"),
        "{text}"
    );
    // Only cartesian-exc reads an exception set: other modes say so.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "warning: --exceptions is used by cartesian-exc only; mode standard ignores it"
        ),
        "{stderr}"
    );
    // A DVE model takes an exception file too.
    let dve = models.join("tests/data/beem/dve/fischer.1.dve");
    let out = Command::cargo_bin("weft")
        .unwrap()
        .args([
            "check",
            dve.to_str().unwrap(),
            "--mode",
            "thread-modular",
            "--exceptions",
            exc.to_str().unwrap(),
            "--error",
            "count(*: @CS) >= 2",
        ])
        .output()
        .unwrap();
    assert_ne!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Found by fuzzing (2026-11-28): refusals outside the loader that did not
/// name the file they are about — the Promela export of a model with
/// rendezvous, and a failing predicate of an `--exceptions` file (which
/// named the model instead).
#[test]
fn refusals_after_loading_name_their_file() {
    let dve = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/beem/dve/lann.1.dve"
    );
    let out = Command::cargo_bin("weft")
        .unwrap()
        .args(["convert", dve, "--to", "promela"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("lann.1.dve: threads["), "{err}");

    let exceptions = temp_path("exceptions");
    std::fs::write(
        &exceptions,
        r#"[{"threads": {"p[1]": "1 / (x - x) == 0"}}]"#,
    )
    .unwrap();
    let r = run_model(
        "exceptions-file",
        |_| {},
        &[
            "--mode",
            "cartesian-exc",
            "--exceptions",
            exceptions.to_str().unwrap(),
        ],
    );
    let _ = std::fs::remove_file(&exceptions);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    let name = exceptions
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert!(
        r.stderr
            .contains(&format!("{name}: evaluating the exception set")),
        "{}",
        r.stderr
    );
}

/// `weft gen` refuses sizes it could not print (found by fuzzing: `gen p1
/// --stmts 4000000000` asked for 288 GB and aborted).
#[test]
fn gen_refuses_sizes_beyond_its_maximum() {
    for args in [
        &["gen", "p1", "--stmts", "4000000000"][..],
        &["gen", "token-ring", "--threads", "1000000000"],
        &["gen", "lock", "--threads", "100000", "--sections", "100000"],
    ] {
        let out = Command::cargo_bin("weft")
            .unwrap()
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("at most"), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

/// `x := any` over more than a million values is refused where it is
/// written (found by fuzzing: `simulate` and `replay` built its 2^31
/// successors and aborted).
#[test]
fn any_over_a_wide_range_is_refused_where_it_is_written() {
    let r = run_model(
        "wide-any",
        |m| {
            m["globals"]["w"] = json!({"type": "int", "min": 0, "max": 2147483647i64});
            m["threads"][0]["transitions"][1]["do"] = json!("w := any");
        },
        &[],
    );
    assert_refused(&r);
    assert!(
        r.stderr.contains("`w := any` gives 2147483648 successors"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("transitions[1].do"), "{}", r.stderr);
}

/// A mistake in `--error EXPR` is placed in `--error`, the user's own
/// text, as for a DVE model; it was placed at the model's
/// `properties[0].error`, which holds another expression (found in an
/// audit, 2026-11-28).
#[test]
fn an_error_option_mistake_is_placed_in_the_option() {
    let r = run_model("error-option", |_| {}, &["--error", "lck == 1 && nope"]);
    assert_expr_error(&r, "--error:1:13", "lck == 1 && nope", 12, &["nope"]);
    assert!(!r.stderr.contains("properties[0]"), "{}", r.stderr);
}

/// Found in an audit (2026-11-28): `--max-memory 0` was accepted (and ended
/// `unknown`) where `--max-states 0` and `--timeout 0` are usage errors;
/// `--show invariant` in mode standard was ignored without a word.
#[test]
fn a_zero_memory_budget_is_refused_and_an_ignored_show_is_said() {
    let r = run_model("zero-memory", |_| {}, &["--max-memory", "0"]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(r.stderr.contains("--max-memory"), "{}", r.stderr);
    // 2^44 MiB is 2^64 bytes: it wrapped to a budget of 0 (found in review).
    let r = run_model("huge-memory", |_| {}, &["--max-memory", "17592186044416"]);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    let r = run_model("show-standard", |_| {}, &["--show", "invariant"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("warning: --show invariant shows the abstract modes' fixpoint"),
        "{}",
        r.stderr
    );
    let r = run_model(
        "show-cartesian",
        |_| {},
        &["--show", "invariant", "--mode", "cartesian-exc"],
    );
    assert!(!r.stderr.contains("warning"), "{}", r.stderr);
}
