//! Locations, groups, instances, duplicates, properties, exceptions and `expect`.

use super::*;

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

/// The base model with its location `l2` renamed `l.2`, property `error`.
fn dotted_location(tag: &str, error: &str) -> Run {
    let mut m = base();
    property(&mut m, error);
    let text = serde_json::to_string_pretty(&m)
        .unwrap()
        .replace("\"l2\"", "\"l.2\"");
    run_text(tag, &text, &[])
}

#[test]
fn a_location_that_is_not_an_identifier_is_named_quoted() {
    let r = dotted_location("dotted-ok", "count(p: @'l.2') >= 2");
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    let r = dotted_location("dotted", "count(p: @l.2) >= 2");
    assert_expr_error(
        &r,
        PROPERTY,
        "count(p: @l.2) >= 2",
        10,
        &["`l.2` is not an identifier", "write `@'l.2'`"],
    );
    let r = dotted_location("dotted-typo", "count(p: @'l 2') >= 2");
    assert_expr_error(
        &r,
        PROPERTY,
        "count(p: @'l 2') >= 2",
        10,
        &["no location or group `l 2` in `p`", "did you mean `'l.2'`?"],
    );
    let r = dotted_location("dotted-open", "count(p: @'l.2) >= 2");
    assert_expr_error(
        &r,
        PROPERTY,
        "count(p: @'l.2) >= 2",
        10,
        &[
            "the quoted name is not closed",
            "write `''` for a quote inside",
        ],
    );
}

/// Whatever error an unquoted location name that is no identifier causes
/// (here the parser's, at `for`), the message says how to write it.
#[test]
fn any_error_at_an_unquoted_location_name_says_how_to_quote_it() {
    let mut m = base();
    property(&mut m, "count(p: @wait for l.2) >= 2");
    let text = serde_json::to_string_pretty(&m)
        .unwrap()
        .replace("\"l2\"", "\"wait for l.2\"");
    let r = run_text("spaced", &text, &[]);
    assert_expr_error(
        &r,
        PROPERTY,
        "count(p: @wait for l.2) >= 2",
        15,
        &["write it `@'wait for l.2'`"],
    );
}
