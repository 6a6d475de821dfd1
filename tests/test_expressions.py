"""Safe parsing of untrusted model strings, and the helpers other modules use.

The complexity procedure itself (workers, time limits, cache, exactness against
the organisers' code) is tested in test_complexity.py.
"""

from __future__ import annotations

import math
import operator
import re
import time
from functools import reduce

import numpy as np
import pytest
import sympy
from sympy.parsing.sympy_parser import parse_expr

from srdash.errors import ModelRejected
from srdash.expressions import (
    ALLOWED_FUNCTIONS,
    evaluate_model,
    latex_of,
    parse_model,
    simplicity_from_components,
)

FEATURES = ["x1", "x2", "x3"]


def reference_parse(text: str):
    """What SRBench did (trusted test strings only: parse_expr runs code)."""
    return parse_expr(text, local_dict={f: sympy.Symbol(f) for f in FEATURES})


# --------------------------------------------------------------------------- safety


def hostile_models(target):
    """Strings that run code (here: create ``target``) if evaluated by eval/parse_expr."""
    return [
        (f"__import__('os').system('touch {target}')", r"Attribute access \('\.system'\)"),
        (f"__import__('pathlib').Path('{target}').touch()", r"Attribute access \('\.touch'\)"),
        ("().__class__.__bases__[0].__subclasses__()", r"Attribute access \('\.__subclasses__'\)"),
        (f"open('{target}', 'w')", r"Unknown function 'open'\. Allowed functions: abs, Abs, acos"),
        (f"exec(\"open('{target}', 'w')\")", r"Unknown function 'exec'"),
        (f"eval(\"open('{target}', 'w')\")", r"Unknown function 'eval'"),
        (f"(lambda: __import__('os').system('touch {target}'))()", r"Lambda functions are not allowed"),
        ("lambda: 1", r"Lambda functions are not allowed"),
        ("x1.__class__", r"Attribute access \('\.__class__'\)"),
        ("sin.__globals__", r"Attribute access \('\.__globals__'\)"),
        ("[x for x in ()]", r"Comprehensions are not allowed"),
        ("sum(x for x in (1, 2))", r"Unknown function 'sum'"),
        ("__import__('os')", r"Names starting with '_' are not allowed in a model: '__import__'"),
        ("getattr(x1, '__class__')", r"Unknown function 'getattr'"),
        ("_x + 1", r"Names starting with '_' are not allowed in a model: '_x'"),
    ]


def test_hostile_strings_are_rejected_and_never_executed(tmp_path):
    target = tmp_path / "pwned"
    for text, message in hostile_models(target):
        with pytest.raises(ModelRejected, match=message) as info:
            parse_model(text)
        assert info.value.status == "rejected"
    assert not target.exists()


def test_the_hostile_string_is_real(tmp_path):
    # Positive control: sympy's own parser runs the first string's code.
    target = tmp_path / "pwned"
    text, _ = hostile_models(target)[0]
    try:
        parse_expr(text)
    except Exception:  # noqa: BLE001 - the result (0, the exit status) is not an expression
        pass
    assert target.exists()


@pytest.mark.parametrize(
    "text, message",
    [
        ("x1[0]", r"Subscripts \('\[\.\.\.\]'\) are not allowed in a model: x1\[0\]"),
        ("'abc'", r"Strings are not allowed in a model \(found 'abc'\)"),
        ("f'{x1}'", r"Strings are not allowed in a model"),
        ("x1 < x2", r"The model is a condition \(x1 < x2\), not a value; conditions are only allowed inside"),
        ("x1 < x2 < 3", r"Comparisons are not allowed in a model: x1 < x2 < 3"),
        ("(x1 > 0) + 1", r"'x1 > 0' is a condition, not a number"),
        ("x1 and x2", r"Boolean operators \('and', 'or'\) are not allowed"),
        ("x1 if x2 else x3", r"Conditional expressions"),
        ("(x1, x2)", r"A model must be one expression, not a tuple; tuples are only allowed as the "
                     r"\(value, condition\) pairs of Piecewise"),
        ("(x1, 2)*3", r"Tuples are only allowed as the \(value, condition\) pairs of Piecewise; found \(x1, 2\)"),
        ("Piecewise(x1)", r"Each argument of Piecewise must be a pair \(value, condition\); got x1"),
        ("[x1, x2]", r"Lists, tuples, sets and dictionaries are not allowed"),
        ("x1 # + x2", r"Comments \('#'\) are not allowed in a model"),
        ("{'a': x1}", r"Lists, tuples, sets and dictionaries are not allowed"),
        ("(y := 2)", r"Assignments \(':='\) are not allowed"),
        ("sin(*[x1])", r"Starred arguments"),
        ("log(x1, base=2)", r"Keyword arguments \('base=\.\.\.'\) are not allowed"),
        ("sin(x1)(x2)", r"Only the allowed functions may be called, by name"),
        ("x1 % 2", r"The operator '%' is not allowed in a model; allowed operators: \+ - \* / \*\* \^"),
        ("x1 // 2", r"The operator '//' is not allowed"),
        ("~x1", r"The model is a condition \(~x1\), not a value"),
        ("not x1", r"The operator 'not' is not allowed"),
        ("True + x1", r"'True' is a condition, not a number"),
        ("None", r"'None' is not a number"),
        ("2j*x1", r"Complex literals are not allowed in a model \(found 2j\); write I"),
        ("foo(x1)", r"Unknown function 'foo'\. Allowed functions: abs, Abs, acos, .*, tanh\."),
        ("sin + x1", r"'sin' is a function and cannot be used as a variable; call it as sin\(\.\.\.\)"),
        ("sin(x1, x2)", r"sin\(\) takes 1 argument; got 2 in sin\(x1, x2\)"),
        ("log(x1, 2, 3)", r"log\(\) takes 1 to 2 arguments; got 3"),
        ("min(x1)", r"min\(\) takes at least 2 arguments; got 1"),
        ("pow(x1, 2, 3)", r"pow\(\) takes 2 arguments; got 3"),
    ],
)
def test_outside_the_whitelist_is_rejected_with_a_reason(text, message):
    with pytest.raises(ModelRejected, match=message) as info:
        parse_model(text)
    assert info.value.status == "rejected"
    assert info.value.reason == str(info.value)


def test_unknown_variable_names_the_features():
    with pytest.raises(ModelRejected, match=r"Unknown variable 'x9'\. The features of this dataset are: "
                                            r"x1, x2, x3\.") as info:
        parse_model("x1 + x9", features=FEATURES)
    assert info.value.status == "rejected"


def test_without_features_any_name_is_a_variable():
    assert parse_model("alpha*x9") == sympy.Symbol("alpha") * sympy.Symbol("x9")


def test_long_feature_lists_are_shortened_in_messages():
    features = [f"x{i}" for i in range(100)]
    with pytest.raises(ModelRejected, match=r"are: x0, x1, x10, .*\.\.\. \(100 in all\)\.$"):
        parse_model("y", features=features)


@pytest.mark.parametrize(
    "text, message",
    [
        ("", r"^empty model$"),
        ("   \n ", r"^empty model$"),
        ("x1 +", r"The model is not valid syntax: invalid syntax at the end of the model\."),
        ("sin(x1", r"The model is not valid syntax: '\(' was never closed \(line 1, column 4\)\."),
        ("x1 x2", r"The model is not valid syntax: invalid syntax \(line 1, column 4\)\."),
        ("x1\x00", r"The model is not valid syntax: source code string cannot contain null bytes\.$"),
    ],
)
def test_syntax_errors_and_empty_strings_are_parse_errors(text, message):
    with pytest.raises(ModelRejected, match=message) as info:
        parse_model(text)
    assert info.value.status == "parse_error"


def test_features_given_as_a_string_is_a_type_error():
    with pytest.raises(TypeError, match=r"features must be a collection of names such as \['x1', 'x2'\], "
                                        r"not the string 'x1 x2'"):
        parse_model("x1", features="x1 x2")


def test_a_model_must_be_a_string():
    with pytest.raises(TypeError, match=r"A model must be a string\. Got float\."):
        parse_model(1.5)


# --------------------------------------------------------------------------- what is accepted


@pytest.mark.parametrize(
    "text",
    [
        "0.4*x1*x2 - 1.5*x1 + 2.5*x2 + 1",
        "(0.4*x1*x2 - 1.5*x1 + 2.5*x2 + 1)/(1 + 0.2*(x1**2 + x2**2))",
        "-x1 + +x2 - -x3",
        "1/2*x1 + 1/3",
        "2*(x1 + 1)*x2/3",  # (2x + 2)*y/3: sympy distributes the 2 first
        "exp(-x1**2/2.0)/sqrt(2*pi)",
        "log(x1, 10) + log(E) + abs(-x2) + Abs(x3)",
        "pow(x1, 2) + sign(x2) + tanh(x3)",
        "1.0 + 2.0 + 3.0 + x1 + 0.1 + 0.2",  # floats summed in Python's order
        "E + 7 + 0.0",  # 0 + 0.0 is sympy's exact 0, 7 + 0.0 is 7.0: order matters
        "(x1 - 1.5) + (x1 - 2.5) + (x1 + 3.25) + 0.1*x1 + 0.2*x1 + 0.3*x1",
        "x1 + 0.1 + (x2 + 0.2) + 0.3 + (x3 - 0.6)",
        "1_000.5*x1 + 0x1F + 1e-3 + 2.5E2",
        "0.12345678901234567890123*x1",  # more digits than a double: sympy keeps them
        "x1*oo + zoo + nan*x2 + I",
        "1/0 + x1",
        "sqrt(x1)*sqrt(x1)",
        "(x1 + 2)**-1.5",
    ],
)
def test_builds_what_parse_expr_builds(text):
    assert sympy.srepr(parse_model(text, features=FEATURES)) == sympy.srepr(reference_parse(text))


def test_caret_is_a_power_with_the_precedence_of_double_star():
    # Python's ^ (xor) binds looser than +; x^2 + 1 must be (x**2) + 1 as in sympy's convert_xor.
    assert parse_model("x1^2 + 1") == reference_parse("x1**2 + 1")
    assert parse_model("2^3^2") == 512  # right-associative like **


def test_min_max_are_sympy_min_max():
    # Python's min/max (what parse_expr calls) cannot order symbols.
    x1, x2 = sympy.symbols("x1 x2")
    assert parse_model("max(x1, 0) + min(x1, x2, 1)") == sympy.Max(x1, 0) + sympy.Min(x1, x2, 1)


def test_aliases_of_numpy_names():
    x = sympy.Symbol("x")
    assert parse_model("arcsin(x) + arccos(x) + arctan(x)") == sympy.asin(x) + sympy.acos(x) + sympy.atan(x)


def test_features_take_priority_over_constants():
    assert parse_model("E*x1", features=["E", "x1"]) == sympy.Symbol("E") * sympy.Symbol("x1")
    assert parse_model("E*x1") == sympy.E * sympy.Symbol("x1")


def test_float_literals_keep_their_written_text():
    # auto_number builds Float('0.1'), not Float(0.1) (the double 0.1000000000000000055...).
    assert parse_model("0.1") == sympy.Float("0.1")
    assert parse_model("0.1")._prec == sympy.Float("0.1")._prec


def test_allowed_functions_are_listed():
    assert {"sin", "cos", "exp", "log", "sqrt", "abs", "min", "max", "pow"} <= set(ALLOWED_FUNCTIONS)


# --------------------------------------------------------------------------- pathological inputs


def test_deep_unary_nesting_parses():
    assert parse_model("-" * 300 + "x1") == sympy.Symbol("x1")  # an even number of minus signs
    assert parse_model("-(" * 150 + "x1" + ")" * 150) == sympy.Symbol("x1")


def test_too_many_parentheses_is_a_parse_error():
    with pytest.raises(ModelRejected, match=r"too many nested parentheses") as info:
        parse_model("(" * 300 + "x1" + ")" * 300)
    assert info.value.status == "parse_error"


def test_nesting_too_deep_for_python_is_a_parse_error():
    with pytest.raises(ModelRejected, match=r"The model is nested too deeply for Python's parser\.") as info:
        parse_model("-" * 19_000 + "x1")
    assert info.value.status == "parse_error"


def test_a_2000_term_sum_is_built_at_once():
    text = " + ".join(f"x{i}" for i in range(2000))
    start = time.perf_counter()
    expression = parse_model(text)
    elapsed = time.perf_counter() - start
    assert len(expression.args) == 2000
    # Left to right it would take minutes (each + re-sorts the whole sum).
    assert elapsed < 60


def test_sums_past_the_work_budget_are_still_the_left_to_right_sum():
    # 300 terms with float coefficients: built at once, equal to Python's left fold.
    symbols = sympy.symbols("y0:300")
    coefficients = [sympy.Float(f"{i}.25") for i in range(300)]
    text = " + ".join(f"{c}*{s}" for c, s in zip(coefficients, symbols))
    expected = reduce(operator.add, [c * s for c, s in zip(coefficients, symbols)])
    assert sympy.srepr(parse_model(text)) == sympy.srepr(expected)


def test_repeated_float_terms_are_summed_in_python_order():
    # Three floats collected on x1: the at-once sum could round differently, so this is folded.
    text = " + ".join(f"0.{i + 1}*x1 + x{i + 2}" for i in range(40))
    assert sympy.srepr(parse_model(text)) == sympy.srepr(parse_expr(text))


def test_very_long_products_are_refused():
    with pytest.raises(ModelRejected, match=r"products are too long to evaluate left to right like Python "
                                            r"\(one has 2000 factors\)"):
        parse_model("*".join(f"x{i}" for i in range(2000)))


def test_integer_powers_of_a_variable_up_to_a_thousand_are_kept_and_beyond_refused():
    # sympy turns x**k and exp(a + k) into dense polynomials of degree k when it asks about them (is cosh's
    # argument zero? a gcd of degree k): cosh(tanh(x1**509477 + 1) + 1) took 10 s of CPU, stopped by the
    # backstop, in each of parsing, LaTeX and evaluation. Degree 1,000 costs milliseconds.
    x = sympy.Symbol("x")
    assert parse_model("x**1000") == x ** 1000
    assert parse_model("x**2.5e6") == x ** sympy.Float(2.5e6)  # not a polynomial degree: kept
    assert parse_model("exp(x - 1000)") == sympy.exp(x - 1000)
    for model, power, degree in [("x**10**10", "x**10000000000", "10,000,000,000"),
                                 ("cosh(tanh(x**509477 + 1) + 1)", "x**509477", "509,477"),
                                 ("x**600*x**600", "x**1200", "1,200"),  # combined by the product
                                 ("(x**40)**40", "x**1600", "1,600"),
                                 ("exp(erf(x*509478556) + 509478556)", "exp(erf(509478556*x) + 509478556)",
                                  "509,478,556"),
                                 ("exp(1001*x)", "exp(1001*x)", "1,001")]:
        with pytest.raises(ModelRejected, match=rf"has {re.escape(power)}, an integer power of {degree} .*the "
                                                rf"limit is 1,000"):
            parse_model(model)


@pytest.mark.parametrize(
    "text, message",
    [
        ("9**9**9", r"The power 9\*\*387420489 would be a number with about 3\.7e\+08 digits; numeric powers "
                    r"are limited to 10,000 digits\."),
        ("2**10**10", r"The power 2\*\*10000000000 would be a number with about 3e\+09 digits"),
        ("2**10**400", r"The power 2\*\*1000000.* would be a number with more than 1e300 digits"),
        ("pow(10, -10**5)", r"would be a number with about 1e\+05 digits"),
        ("2.0**1e301", r"The power 2\.0+\*\*1000.*\.\.\. would have more than 1e300 digits; sympy would "
                       r"take too long to evaluate it\."),
        ("sin(10.0**400)", r"sin\(\) is applied to .*, a number beyond the float64 range"),
        ("exp(exp(exp(exp(10.0))))", r"exp\(\) is applied to .*, a number beyond the float64 range"),
        ("sqrt(10**400 + 1)", r"sqrt\(\) is applied to 1000.*, a number beyond the float64 range"),
        ("(10**400 + 1)**0.5", r"has a number beyond the float64 range .* and a fractional exponent"),
        ("*".join(["10**9999"] * 3), r"The model computes a number with more than 10,000 digits\."),
    ],
)
def test_numbers_too_costly_to_compute_are_refused_at_once(text, message):
    start = time.perf_counter()
    with pytest.raises(ModelRejected, match=message):
        parse_model(text)
    assert time.perf_counter() - start < 10


def test_numbers_beyond_float64_that_are_cheap_are_accepted():
    # abs/log of a huge number and 10**400 itself are cheap (SRBench accepted them).
    assert parse_model("log(10**400)") == sympy.log(sympy.Integer(10) ** 400)
    assert parse_model("abs(-1e400)") == sympy.Float("1e400")


def test_strings_and_trees_over_the_limits_are_rejected():
    with pytest.raises(ModelRejected, match=r"The model is 20,001 characters long; the limit is 20,000\."):
        parse_model("x" * 20_001)
    with pytest.raises(ModelRejected, match=r"The model has more than 100 nodes; it is too large to score\."):
        parse_model(" + ".join(["x1"] * 60), max_nodes=100)
    assert parse_model(" + ".join(["x1"] * 40), max_nodes=100) == 40 * sympy.Symbol("x1")


# --------------------------------------------------------------------------- simplicity


@pytest.mark.parametrize(
    "components, expected",
    [
        (1, 0.0),  # log5(1) = 0
        (3, -0.7),  # log5(3) = 0.683
        (5, -1.0),
        (12, -1.5),  # log5(12) = 1.544
        (25, -2.0),
        (100, -2.9),  # log5(100) = 2.861
    ],
)
def test_simplicity_from_components(components, expected):
    assert simplicity_from_components(components) == expected
    assert isinstance(simplicity_from_components(components), float)


def test_simplicity_of_arrays_keeps_nan():
    result = simplicity_from_components(np.array([1.0, np.nan, 5.0]))
    np.testing.assert_array_equal(result, [0.0, np.nan, -1.0])
    assert not np.signbit(result[0])  # 0.0, not -0.0


def test_simplicity_below_one_component_is_an_error():
    with pytest.raises(ValueError, match=r"components must be at least 1 \(a model has at least one node\)\. "
                                         r"Got 0\."):
        simplicity_from_components([3, 0])


# --------------------------------------------------------------------------- latex_of, evaluate_model


def test_latex_of_a_simplified_model():
    assert latex_of("0.4*x1*x2 + sqrt(x1)") == r"\sqrt{x_{1}} + 0.4 x_{1} x_{2}"


def test_latex_of_reads_sympys_piecewise_output():
    # simplify(sign(x1)*x2**2) prints as this Piecewise.
    text = "Piecewise((0, Eq(x1, 0)), (x1*x2**2/Abs(x1), True))"
    assert latex_of(text) == sympy.latex(parse_expr(text))


@pytest.mark.parametrize("text, features, expected", [
    # a name with underscores is written upright and whole, underscores escaped
    ("value_cases_14", ["value_cases_14"], r"\mathrm{value\_cases\_14}"),
    ("2*my_feature", ["my_feature"], r"2 \mathrm{my\_feature}"),
    # a single trailing _<digits> (or digits alone) stays a subscript, as sympy writes it
    ("3*x_1", ["x_1"], r"3 x_{1}"),
    ("x2", ["x2"], r"x_{2}"),
    ("alpha_2", ["alpha_2"], r"\alpha_{2}"),
])
def test_latex_of_feature_names_with_underscores(text, features, expected):
    assert latex_of(text, features=features) == expected


def test_erf_is_accepted_and_evaluated_numerically():
    assert "erf" in ALLOWED_FUNCTIONS
    assert parse_model("erf(0.22*x)", features=["x"]) == sympy.erf(0.22 * sympy.Symbol("x"))
    x = np.array([0.0, 1.0, -2.0, 100.0, np.inf, np.nan])
    # math.erf of each value (erf(inf) = 1; NaN stays NaN, like the other functions)
    expected = [0.0, math.erf(0.22), math.erf(-0.44), math.erf(22.0), 1.0, np.nan]
    np.testing.assert_allclose(evaluate_model("erf(0.22*x)", {"x": x}, features=["x"]), expected, rtol=1e-12)
    # the 2022 extrapolation truth at x = 1: erf(0.22) + 0.17*sin(5.5) = 0.12435405625...
    value = evaluate_model("erf(0.22*x) + 0.17*sin(5.5*x)", {"x": np.array([1.0])})
    np.testing.assert_allclose(value, [math.erf(0.22) + 0.17 * math.sin(5.5)], rtol=1e-12)
    assert latex_of("erf(x1)") == r"\operatorname{erf}{\left(x_{1} \right)}"
    with pytest.raises(ModelRejected, match=r"erf\(\) takes exactly 1 argument|erf.*argument"):
        parse_model("erf(x1, x2)")


def test_latex_of_refuses_hostile_strings(tmp_path):
    target = tmp_path / "pwned"
    with pytest.raises(ModelRejected, match=r"Attribute access"):
        latex_of(f"__import__('os').system('touch {target}')")
    assert not target.exists()


def test_evaluate_model_vectorised():
    columns = {"x1": np.array([1.0, 2.0, -1.0]), "x2": np.array([1.0, np.e, 1.0])}
    # 2*x1 + log(x2): 2 + 0, 4 + 1, -2 + 0; sqrt(-1) is NaN, not an error or a complex number.
    np.testing.assert_allclose(evaluate_model("2*x1 + log(x2)", columns), [2.0, 5.0, -2.0])
    np.testing.assert_array_equal(evaluate_model("sqrt(x1)", columns), [1.0, np.sqrt(2.0), np.nan])


def test_evaluate_model_broadcasts_constants_and_survives_huge_numbers():
    columns = {"x1": np.array([1.0, 2.0])}
    np.testing.assert_array_equal(evaluate_model("3", columns), [3.0, 3.0])
    # 10**400 does not fit a float: evaluated in floats, it overflows to inf.
    np.testing.assert_array_equal(evaluate_model("10**400*x1", columns), [np.inf, np.inf])
    # x1 + I has a non-zero imaginary part: NaN.
    np.testing.assert_array_equal(evaluate_model("x1 + I", columns), [np.nan, np.nan])


def test_evaluate_model_names_missing_columns():
    with pytest.raises(ModelRejected, match=r"The model uses 'x3' but the data has no such column\. "
                                            r"Columns: x1, x2\."):
        evaluate_model("x1 + x3", {"x1": np.ones(2), "x2": np.ones(2)})


def test_evaluate_model_checks_column_lengths():
    with pytest.raises(ValueError, match=r"All columns must have the same length\. Got lengths \[2, 3\]\."):
        evaluate_model("x1", {"x1": np.ones(2), "x2": np.ones(3)})


def test_evaluate_model_never_executes_the_string(tmp_path):
    target = tmp_path / "pwned"
    with pytest.raises(ModelRejected, match=r"Unknown function 'open'"):
        evaluate_model(f"open('{target}', 'w')", {"x1": np.ones(2)})
    assert not target.exists()


def test_evaluate_model_variable_named_like_the_numpy_module():
    np.testing.assert_array_equal(evaluate_model("numpy + 1", {"numpy": np.array([1.0, 2.0])}), [2.0, 3.0])


def test_numeric_first_look_settles_clearly_different_models_only():
    from srdash.expressions import equivalence_table

    f = "0.4*x1*x2 - 1.5*x1 + 2.5*x2 + 1"
    verdicts = equivalence_table([f"{f} + 0.02*x5", f"{f} + 2", f"3*({f})", f"({f})*x3/x3",
                                  "(0.4*x1 + 2.5)*(x2 - 3.75) + 10.375"], [f] * 5, timeout=30)
    # a spurious term 0.02*x5 survives the 3-decimal rounding: the difference varies at the
    # sample points, so the symbolic steps are skipped, with that reason
    assert verdicts[0][0] is False and "sample points" in verdicts[0][1]
    # constant difference, constant ratio, a cancelling factor, equal only after expanding:
    # the sample points cannot tell them apart, the symbolic steps decide (equivalent)
    assert [ok for ok, _ in verdicts[1:]] == [True, True, True, True]
    assert not any("sample points" in detail for _, detail in verdicts[1:])


# --------------------------------------------------------------------------- vocabulary of real SR packages (issue 14)


def test_gplearn_prefix_form_is_plain_arithmetic():
    x0, x1, x2 = sympy.symbols("X0 X1 X2")
    assert parse_model("add(mul(X0, X1), sub(X2, 0.5))") == x0 * x1 + x2 - sympy.Float("0.5")
    assert parse_model("div(neg(X0), inv(X1))") == -x0 * x1
    assert parse_model("square(X0) + cube(X1)") == x0**2 + x1**3


def test_conditions_are_read_inside_piecewise_and_ite_only():
    x1, x2 = sympy.symbols("x1 x2")
    assert parse_model("Piecewise((x1, ITE(x1 > 0, x2 < 1, x2 > 1)), (0, True))") == sympy.Piecewise(
        (x1, sympy.ITE(x1 > 0, x2 < 1, x2 > 1)), (0, True))
    assert parse_model("Piecewise((1, And(x1 > 0, Not(x2 > 0))), (2, True))") == sympy.Piecewise(
        (1, sympy.And(x1 > 0, sympy.Not(x2 > 0))), (2, True))
    with pytest.raises(ModelRejected, match=r"The model is a condition \(\(x1 > 0\) \| \(x2 < 0\)\), not a value"):
        parse_model("(x1 > 0) | (x2 < 0)")


def test_a_model_over_several_lines_is_one_expression():
    # A long rational function printed over lines, as one of the 2023 entries.
    assert parse_model("(x1 +\n  x2)/\n(x1 - x2)") == parse_model("(x1 + x2)/(x1 - x2)")


def test_undefined_models_parse_but_are_not_evaluated():
    assert parse_model("x1/0") == sympy.zoo * sympy.Symbol("x1")
    with pytest.raises(ModelRejected, match=r"The model's value is undefined or not finite: it contains zoo"):
        evaluate_model("x1/0", {"x1": np.ones(2)})
