//! Expressions: names, types and syntax.

use super::*;

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

// ---- messages that say what the rule is (the user audit's finding 15) ------

#[test]
fn a_decimal_number_is_named_as_one() {
    let r = run_model("decimal", |m| guard(m, "x == 1.5"), &[]);
    assert_expr_error(
        &r,
        GUARD,
        "x == 1.5",
        5,
        &["`1.5` is a decimal number", "integers"],
    );
}

#[test]
fn any_inside_an_expression_names_the_rule() {
    for (text, at) in [("x := any + 1", 9), ("x := 1 + any", 9)] {
        let r = run_model("anyplus", |m| action(m, text), &[]);
        assert_expr_error(
            &r,
            ACTION,
            text,
            at,
            &["`any` is only allowed as the whole right-hand side"],
        );
    }
}

#[test]
fn a_shift_count_out_of_range_is_named_as_one() {
    let text = "(1 << 63) == 0";
    let r = run_model("shift63", |m| guard(m, text), &[]);
    assert_expr_error(&r, GUARD, text, 0, &["shift count 63 outside 0..62"]);
}

#[test]
fn an_array_of_arrays_is_refused_as_such() {
    let grid = json!({"type": "array", "len": 2,
        "of": {"type": "array", "len": 2, "of": {"type": "bool"}}});
    let r = run_model("grid", |m| set(m, "/globals/g", grid), &[]);
    assert_error(
        &r,
        "globals.g.of.type",
        &["no arrays of arrays", "a[i * n + j]"],
    );
}
