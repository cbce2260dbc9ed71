"""The rule on the operator and auditor keys that `serve` checks before it starts
(docs/CONTRACT.md: at least 16 characters each, and the two keys differ). A one-character key
is guessed at once, and an auditor key equal to the operator key would make every auditor an
operator."""

from __future__ import annotations

from infrastructure.settings import Settings

MIN_KEY_LENGTH = 16


def key_problems(settings: Settings) -> list[str]:
    """What is wrong with the configured keys; empty when `serve` may start."""
    operator = settings.operator_key.get_secret_value()
    auditor = settings.auditor_key.get_secret_value()
    problems = [
        f"PUMPKIN_{name}_KEY is shorter than {MIN_KEY_LENGTH} characters"
        for name, key in (("OPERATOR", operator), ("AUDITOR", auditor))
        if len(key) < MIN_KEY_LENGTH
    ]
    if operator == auditor:
        problems.append("PUMPKIN_OPERATOR_KEY and PUMPKIN_AUDITOR_KEY are the same key")
    return problems
