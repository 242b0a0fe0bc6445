"""Why a question cannot be answered, in domain terms; HTTP maps each class to a status.

QuestionError            base: names the parameter to blame and why
├── InvalidQuestion      the parameters contradict each other (HTTP 400)
├── UnknownName          no such accelerator or source; closest ids suggested (HTTP 404)
└── Unanswerable         well-formed, but nothing to compare or measure (HTTP 422)
"""

from __future__ import annotations

from collections.abc import Sequence


class QuestionError(Exception):
    """``slug`` is the stable problem type; ``detail`` is for a person. ``errors`` names
    every parameter to blame, ``parameter`` first: filters may leave no offer only together
    (market=secure with providers=aws), and each is one to change."""

    def __init__(
        self,
        slug: str,
        detail: str,
        parameter: str,
        reason: str,
        suggestions: Sequence[str] = (),
        also: Sequence[tuple[str, str]] = (),
    ) -> None:
        super().__init__(detail)
        self.slug = slug
        self.detail = detail
        self.parameter = parameter
        self.reason = reason
        self.suggestions = list(suggestions)
        self.errors = [
            {"parameter": name, "reason": why} for name, why in ((parameter, reason), *also)
        ]


class InvalidQuestion(QuestionError):
    def __init__(self, parameter: str, reason: str) -> None:
        super().__init__("invalid-parameters", f"{parameter}: {reason}", parameter, reason)


class UnknownName(QuestionError):
    pass


class Unanswerable(QuestionError):
    pass
