"""The client's exceptions: the API's RFC 9457 problems, and a wait that ran out of time."""

from __future__ import annotations

from typing import Any, Mapping

from ._types import Problem, ProblemErrorsItem


class SceneStudioError(Exception):
    """A non-2xx answer of the API, carrying its RFC 9457 problem.

    Branch on ``code`` (stable, one of ``PROBLEM_CODES``), show ``detail``, quote ``request_id``
    to support. ``retry_after_seconds`` is the answer's ``Retry-After`` (429, 503), else None.
    """

    def __init__(self, status: int, problem: Problem, retry_after_seconds: int | None = None) -> None:
        super().__init__(f"{status} {problem['code']}: {problem['detail']}")
        self.status = status
        self.problem = problem
        self.retry_after_seconds = retry_after_seconds

    @property
    def code(self) -> str:
        return self.problem["code"]

    @property
    def detail(self) -> str:
        return self.problem["detail"]

    @property
    def title(self) -> str:
        return self.problem["title"]

    @property
    def request_id(self) -> str:
        return self.problem["requestId"]

    @property
    def errors(self) -> list[ProblemErrorsItem]:
        """Field problems of a ``validation_failed`` answer (empty otherwise)."""
        return list(self.problem.get("errors") or [])


class OperationTimeoutError(Exception):
    """``wait_for_operation`` ran out of time; the operation may still finish (poll it again later)."""

    def __init__(self, operation_id: str, timeout_seconds: float) -> None:
        super().__init__(f"operation {operation_id} still processing after {timeout_seconds} s")
        self.operation_id = operation_id
        self.timeout_seconds = timeout_seconds


def to_problem(status: int, body: Any, request_id: str | None) -> Problem:
    """The answer's problem document; a body that is not one (a proxy's HTML page, say) becomes a
    synthetic problem, so callers catch one exception type whatever answered."""
    if isinstance(body, Mapping) and isinstance(body.get("code"), str):
        return body  # type: ignore[return-value]
    return {
        "type": "about:blank",
        "title": "Unexpected response",
        "status": status,
        "code": "internal_error" if status >= 500 else "bad_request",
        "detail": f"The server answered {status} without a problem document.",
        "requestId": request_id or "",
    }
