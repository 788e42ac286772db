"""Every finding's message is a message id with parameters, said in English and in Spanish from the catalogues.

Two nets: a static one reads the engine's and the pipeline's source and checks every message id they can make
(each literal variant, each branch of a conditional, every key a prefix can build) against both catalogues, and
every name a template puts in against the parameters the call passes; a dynamic one says every finding of
every fixture, shared case and real hand in both languages.
"""

from __future__ import annotations

import ast
import fnmatch
import random
import string
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from audit.errors import AuditError
from audit.findings import Finding
from audit.pipeline import audit_blocks, audit_file, audit_text
from audit.profile import load_profile
from audit.read import read_text_blocks
from audit.rules import Rule
from audit.words import LANGS, catalogue, finding_message

from conftest import FIXTURES, ROOT, SHARED, needs_shared

SOURCES = sorted((ROOT / "audit" / "engine").glob("*.py")) + [ROOT / "audit" / "pipeline.py",
                                                               ROOT / "audit" / "findings.py"]
# (function name, index of the rule argument, index of the variant or key argument, index of the parameters)
CALLS = {"finding": (1, 3, 4), "_add": (1, 4, 5), "said_finding": (0, 1, 2)}


def names_in(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def template_names(key: str, lang: str) -> set[str]:
    entry = catalogue(lang)[key]
    texts = entry.values() if isinstance(entry, dict) else [entry]
    return {n for text in texts for n in names_in(text)}


def strings(node: ast.expr, scope: ast.AST | None = None, module: ast.Module | None = None) -> list[str] | None:
    """The strings an expression can be, when the source says (``None``: it depends on the data): literals,
    either branch of a conditional, any item of a literal tuple, what a local is assigned, what a function of
    the module returns."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        body, other = strings(node.body, scope, module), strings(node.orelse, scope, module)
        return body + other if body is not None and other is not None else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):  # built from data: a pattern
        left = strings(node.left, scope, module) or ["*"]
        right = strings(node.right, scope, module) or ["*"]
        return [a + b for a in left for b in right]
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Tuple):
        found = [strings(e, scope, module) for e in node.value.elts]
        return [s for f in found if f for s in f] if all(f is not None for f in found) else None
    if isinstance(node, ast.Name) and isinstance(scope, ast.FunctionDef) \
            and node.id in [arg.arg for arg in scope.args.args]:
        return passed(scope, node.id)
    if isinstance(node, ast.Name) and scope is not None:
        values = [n.value for n in ast.walk(scope) if isinstance(n, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == node.id for t in n.targets)]
        found = [strings(v, scope, module) for v in values]
        if not values or any(f is None for f in found):
            return None
        return [x for f in found if f for x in f if x]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and module is not None:
        for d in module.body:
            if isinstance(d, ast.FunctionDef) and d.name == node.func.id:
                found = [strings(r.value, d, module) for r in ast.walk(d) if isinstance(r, ast.Return) and r.value]
                if any(f is None for f in found):
                    return None
                return [x for f in found if f for x in f if x]
    return None


def trees() -> list[ast.Module]:
    return [ast.parse(path.read_text(encoding="utf-8")) for path in SOURCES]


def passed(func: ast.FunctionDef, name: str) -> list[str] | None:
    """What the callers of ``func`` (anywhere in the sources) pass as its argument ``name``."""
    index = [arg.arg for arg in func.args.args].index(name)
    found: list[str] = []
    for module in trees():
        for caller in ast.walk(module):
            if not isinstance(caller, ast.FunctionDef):
                continue
            for call in ast.walk(caller):
                if isinstance(call, ast.Call) and getattr(call.func, "id", None) == func.name:
                    arg = call.args[index] if index < len(call.args) else None
                    if arg is None:
                        continue
                    values = strings(arg, caller, module)
                    if values is None:
                        return None
                    found += values
    return found or None


def param_names(node: ast.expr | None, scope: ast.AST) -> set[str] | None:
    """The parameter names a call passes (``None``: not known from the source)."""
    if node is None:
        return set()
    if isinstance(node, ast.Tuple):
        out: set[str] = set()
        for e in node.elts:
            if not (isinstance(e, ast.Tuple) and isinstance(e.elts[0], ast.Constant)):
                return None
            out.add(str(e.elts[0].value))
        return out
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = param_names(node.left, scope), param_names(node.right, scope)
        return left | right if left is not None and right is not None else None
    if isinstance(node, ast.Name):  # a local: every tuple assigned or added to it
        found: set[str] = set()
        for n in ast.walk(scope):
            value = None
            if isinstance(n, (ast.Assign, ast.AnnAssign)):
                targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                if any(isinstance(t, ast.Name) and t.id == node.id for t in targets):
                    value = n.value
            elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id == node.id:
                value = n.value
            if value is not None:
                names = param_names(value, scope)
                if names is None:
                    return None
                found |= names
        return found
    return None


def rules_of(node: ast.expr, scope: ast.AST) -> list[str]:
    """``Rule.X`` (or ``a if c else b``, or a local assigned one of those): the rule names."""
    if isinstance(node, ast.Attribute):
        return [node.attr]
    if isinstance(node, ast.IfExp):
        return rules_of(node.body, scope) + rules_of(node.orelse, scope)
    if isinstance(node, ast.Name):
        return [r for n in ast.walk(scope) if isinstance(n, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == node.id for t in n.targets)
                for r in rules_of(n.value, scope)]
    return []


def message_calls() -> Iterator[tuple[str, str, list[str], set[str] | None]]:
    """(where, rule, the message ids the call can make, the parameter names it passes)."""
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for call in ast.walk(func):
                if not isinstance(call, ast.Call):
                    continue
                name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
                if name not in CALLS or func.name in CALLS:
                    continue
                rule_at, variant_at, params_at = CALLS[name]
                variant = call.args[variant_at]
                params = call.args[params_at] if len(call.args) > params_at else None
                where = f"{path.name}:{call.lineno}"
                if name == "said_finding" and isinstance(variant, ast.JoinedStr):
                    continue  # the session's own makers, checked where they are called
                rules = rules_of(call.args[rule_at], func) or (["any"] if name == "said_finding" else [])
                assert rules, f"{where}: the rule is not readable from the source"
                for rule in rules:
                    literal = strings(variant, func, tree)
                    assert literal is not None, f"{where}: the message id is not readable from the source"
                    keys: list[str] = []
                    for v in literal:
                        key = v if name == "said_finding" else f"finding.{rule}.{v}"
                        if "*" not in key:
                            keys.append(key)
                            continue
                        matched = [k for k in catalogue("en") if fnmatch.fnmatchcase(k, key)]
                        assert matched, f"{where}: no message is {key}"
                        keys += matched
                    yield where, rule, keys, param_names(params, func)


def test_the_source_makes_messages_in_many_places() -> None:
    calls = list(message_calls())
    assert len(calls) > 120
    assert {rule for _, rule, _, _ in calls} >= {r.name for r in Rule}


@pytest.mark.parametrize("lang", LANGS)
def test_every_message_id_the_engine_makes_has_a_template_with_the_parameters_it_passes(lang: str) -> None:
    missing: list[str] = []
    unpassed: list[str] = []
    for where, _, keys, params in message_calls():
        for key in keys:
            if key not in catalogue(lang):
                missing.append(f"{where} {key}")
                continue
            if params is not None:
                extra = template_names(key, lang) - params
                if extra:
                    unpassed.append(f"{where} {key}: {sorted(extra)}")
    assert not missing, f"{lang}.toml lacks {missing}"
    assert not unpassed, f"templates name parameters the engine does not pass: {unpassed}"


def corpus() -> list[Path]:
    paths = sorted(FIXTURES.rglob("*.txt"))
    if SHARED.is_dir():
        paths += sorted(SHARED.glob("cases/**/*.txt")) + sorted(SHARED.glob("real-hands/**/*.txt"))
    return paths


def all_findings() -> list[Finding]:
    """Every finding of the fixtures, the shared cases and the real hands, and of 3,000 of the fuzzer's
    mutations of them (which break rules no fixture breaks)."""
    out: list[Finding] = []
    for path in corpus():
        try:
            for audited in audit_file(str(path)):
                out.extend(audited.findings)
        except AuditError:  # a file that cannot run at all (a bad profile line) has no findings to say
            continue
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import fuzz
    finally:
        sys.path.remove(str(ROOT / "bench"))
    mutator = fuzz.Mutator(fuzz.load_seeds(), random.Random(2031))
    for i in range(3000):
        text = mutator.text()
        if len(text) > 100_000:
            continue
        try:
            for audited in audit_blocks(read_text_blocks(text, "<fuzz>"), load_profile(fuzz.OWN_PROFILES[i % 3])):
                out.extend(audited.findings)
        except AuditError:
            continue
    return out


@needs_shared
def test_every_finding_of_the_corpus_is_a_message_id_said_in_both_languages() -> None:
    findings = all_findings()
    assert len(findings) > 10_000
    said: dict[str, set[str]] = {}
    for f in findings:
        assert f.msg_id is not None, f
        assert f.msg_id.startswith(f"finding.{f.rule}.") or f.msg_id == "finding.more" \
            or f.msg_id.startswith("finding.PARSE_ERROR."), f
        assert finding_message(f.msg_id, "en", f.params) == f.message
        spanish = finding_message(f.msg_id, "es", f.params)
        assert spanish and spanish != f.message and "{" not in spanish, f
        said.setdefault(f.rule, set()).add(f.msg_id)
    assert len(said) >= 40, sorted(said)


def test_amounts_are_money_in_a_currency_hand_and_chips_otherwise() -> None:
    params = (("player", "Ana"), ("put_amount", 152), ("had_chips", 1))
    assert finding_message("finding.BET_OVER_STACK.call", "en", params) == \
        "Ana put in 152 (a call) but had only 1 chip left; there are no loans."
    assert finding_message("finding.BET_OVER_STACK.call", "en", params + (("unit", "USD"),)) == \
        "Ana put in $1.52 (a call) but had only $0.01 left; there are no loans."
    spanish = finding_message("finding.BET_OVER_STACK.call", "es", params + (("unit", "EUR"),))
    assert spanish.replace("\u00a0", " ") == "Ana puso 1,52 € (para igualar), pero solo le quedaban 0,01 €; no se presta."
    assert finding_message("finding.BET_OVER_STACK.call", "es", params).endswith("le quedaban 1 ficha; no se presta.")


def test_words_pots_lists_and_hands_are_said_in_the_language() -> None:
    params = (("player", "Ana"), ("got_amount", 5), ("the_pot", "side-2"), ("winners_and", "Beto\nCarla"),
              ("eligible", "Ana, Beto, Carla"))
    assert finding_message("finding.POT_WINNER.not_winner", "en", params) == (
        "Ana collected 5 from side pot 2, but Ana did not win it: Beto and Carla had the best hand shown.")
    assert "del bote lateral 2" in finding_message("finding.POT_WINNER.not_winner", "es", params)
    assert "Beto y Carla" in finding_message("finding.POT_WINNER.not_winner", "es", params)
    total = (("the_pot", "main"), ("pot_amount", 9), ("collected_amount", 8))
    assert finding_message("finding.POT_AMOUNT.total", "en", total) == "The main pot was 9, but 8 was collected from it."
    hand = (("player", "Ana"), ("cards", "6s 7h 8d 9c Ts"), ("is_hand", "a straight, Six to Ten"),
            ("stated_hand", "a flush, Ten high"))
    assert "escalera, del seis al diez" in finding_message("finding.HAND_DESCRIPTION.wrong", "es", hand)
    assert finding_message("finding.PARSE_ERROR.unreadable", "es", (("detail_en", "line 3: cannot read"),)) \
        .endswith("no se entiende.")


def test_seats_off_the_table_are_said_in_both_languages() -> None:
    from enginehands import deal3, house

    text = house(deal3(), button=0).replace("Seat 3: Carla", "Seat 11: Carla")
    findings = [f for a in audit_text(text) for f in a.findings if f.rule == "SEAT_COUNT"]
    assert [(f.msg_id, f.player, f.actual) for f in findings] == [
        ("finding.SEAT_COUNT.button_off_table", None, "0"), ("finding.SEAT_COUNT.seat_off_table", "Carla", "11")]
    assert [f.message for f in findings] == [
        "The button is at seat 0; a table's seats are numbered 1 to 10.",
        "Carla sits in seat 11; a table's seats are numbered 1 to 10."]
    assert [finding_message(f.msg_id or "", "es", f.params) for f in findings] == [
        "El botón está en el asiento 0; los asientos de una mesa van del 1 al 10.",
        "Carla se sienta en el asiento 11; los asientos de una mesa van del 1 al 10."]
