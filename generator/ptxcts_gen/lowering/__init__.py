"""Lowering rules: what the SASS of each form's instruction under test must look like, derived from the form.

The rules are data (rules.RULES): each names the families it concerns, the form fields it reads (the `quals` of
generated/manifest/forms.jsonl, never re-parsed from the instruction text), what it demands of the SASS that ptxas
produced for the instruction under test, and what it rests on: a sentence of the chapter (quoted verbatim from
shared/spec/000_*.txt, checked by the lowering tier's tests) and the lowering observed with ptxas 13.0 and 13.5 on
sm_90a and sm_100a. The lowering tier (harness/lower) reads the SASS and judges it by these rules.

    from ptxcts_gen.lowering import rules_for
    for rule, demand in rules_for(form_record):   # form_record: one line of forms.jsonl, as a dict
        ...
"""
from .rules import (KNOWN_MODIFIERS, MEANINGFUL_ELSEWHERE, NOT_LOWERED, RULES, SOFTWARE_CALL, Demand, Rule,  # noqa: F401
                    rules_for)
