"""The Scene Studio partner API for Python backends, on the standard library alone.

Each method is one partner task, with the retries a partner would otherwise write (the same
rules as the TypeScript client, docs/api.md): failed connections and 429/502/503/504 answers are
retried, waiting the answer's ``Retry-After`` (else an exponential backoff with jitter); scene
creation sends one ``Idempotency-Key`` on all its attempts, so a retry never makes a twin. Any
other non-2xx answer raises SceneStudioError with the RFC 9457 problem.
"""

from __future__ import annotations

import json
import os
import random
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from http.client import HTTPResponse
from typing import Any, Callable, Literal, Mapping, cast

from ._types import (
    CreateEmbedSessionDto,
    CreateSceneDto,
    CreateWebhookEndpointDto,
    EmbedSessionResponse,
    EmbedThemeDto,
    ExtendedEmbedSessionResponse,
    ImageAssetResponse,
    OperationAcceptedResponse,
    OperationResponse,
    SceneResponse,
    WebhookEndpointListResponse,
    WebhookEndpointResponse,
    WebhookEndpointWithSecretResponse,
    WebhookEventType,
    WebhookTestResponse,
)
from .errors import OperationTimeoutError, SceneStudioError, to_problem

__all__ = ["CreatedScene", "OperationPoll", "RetryPolicy", "SceneStudioClient", "MAX_UPLOAD_BYTES"]

#: The API's upload limit (20 MiB, docs/api.md); a bigger file is refused before it is sent.
MAX_UPLOAD_BYTES = 20 * 1024 * 1024

#: Statuses that say "not decided, try again": the server did not act on the request.
RETRYABLE_STATUSES = frozenset({429, 502, 503, 504})

_VERSION = "0.1.0"
EmbedMode = Literal["edit", "perform", "edit_and_perform"]


@dataclass(frozen=True)
class RetryPolicy:
    """How requests that got no decision are retried."""

    #: Attempts in all, the first included.
    max_attempts: int = 5
    #: First backoff (seconds) when the answer has no Retry-After; doubles per attempt, full jitter.
    base_delay: float = 0.25
    #: Upper bound of any single wait (seconds), Retry-After included.
    max_delay: float = 30.0


@dataclass(frozen=True)
class CreatedScene:
    """The accepted creation, with the key that made it (store it to retry after a crash)."""

    operation: OperationAcceptedResponse
    idempotency_key: str
    #: True when the API replayed the answer to an earlier request with this key.
    replayed: bool

    @property
    def operation_id(self) -> str:
        return self.operation["operationId"]


@dataclass(frozen=True)
class OperationPoll:
    operation: OperationResponse
    #: The answer's Retry-After while processing (whole seconds), else None.
    retry_after_seconds: int | None


@dataclass
class _Answer:
    status: int
    headers: Mapping[str, str]
    body: Any


# What an answer's status allows: retry it (True) or hand it to the caller.
_Retryable = Callable[[int, Any], bool]


def _transient(status: int, _body: Any) -> bool:
    return status in RETRYABLE_STATUSES


def _scene_create_retry(status: int, body: Any) -> bool:
    # The create also waits out a concurrent twin, but not a spent daily quota: its Retry-After
    # runs to midnight UTC, and the caller decides whether to wait that long.
    code = body.get("code") if isinstance(body, dict) else None
    return (status in RETRYABLE_STATUSES and code != "quota_exceeded") or (
        status == 409 and code == "idempotency_request_in_progress"
    )


def _never(_status: int, _body: Any) -> bool:
    return False


def parse_retry_after(value: str | None, now: float | None = None) -> int | None:
    """``Retry-After`` in seconds: delta-seconds or an HTTP date; None when absent or unreadable."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return int(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    current = time.time() if now is None else now
    return max(0, int(-(-(when.timestamp() - current) // 1)))


class SceneStudioClient:
    """A client of the partner API for one organization's API key.

    ``api_key`` is ``sk_test_…`` or ``sk_live_…``: keep it on your server. ``base_url`` is the
    API's (default ``http://localhost:3000``). ``timeout`` bounds each attempt in seconds (an
    unanswered attempt is retried like a lost connection). ``sleep`` is how the client waits
    between attempts and polls (a test may pass its own).
    """

    def __init__(
        self,
        api_key: str,
        base_url: str = "http://localhost:3000",
        *,
        timeout: float = 60.0,
        retry: RetryPolicy = RetryPolicy(),
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not api_key:
            raise ValueError("SceneStudioClient needs an api_key")
        self._api_key = api_key
        self._base_url = base_url.rstrip("/")
        self._timeout = timeout
        self._retry = retry
        self._sleep = sleep

    # Image assets

    def upload_image(
        self,
        source: str | os.PathLike[str] | bytes,
        *,
        filename: str | None = None,
        content_type: str = "application/octet-stream",
    ) -> ImageAssetResponse:
        """POST /v1/image-assets from a file path or bytes (multipart, one part named ``file``).

        The API decides the format from the bytes alone, whatever ``filename`` and
        ``content_type`` say.
        """
        if isinstance(source, bytes):
            data, name = source, filename or "upload"
        else:
            with open(source, "rb") as f:
                data = f.read(MAX_UPLOAD_BYTES + 1)
            name = filename or os.path.basename(os.fspath(source))
        if len(data) > MAX_UPLOAD_BYTES:
            raise ValueError(f"the file exceeds {MAX_UPLOAD_BYTES} bytes, the API's upload limit")
        body, multipart_type = _multipart("file", name, content_type, data)
        answer = self._call("POST", "/v1/image-assets", _transient, raw_body=body, content_type=multipart_type)
        return cast(ImageAssetResponse, answer.body)

    def get_image_asset(self, image_asset_id: str) -> ImageAssetResponse:
        """GET /v1/image-assets/{id}: the asset (404 once expired)."""
        return cast(ImageAssetResponse, self._call("GET", f"/v1/image-assets/{_id(image_asset_id)}", _transient).body)

    # Scenes and operations

    def create_scene(
        self,
        prompt: str,
        *,
        source_asset_id: str | None = None,
        external_ref: str | None = None,
        idempotency_key: str | None = None,
    ) -> CreatedScene:
        """POST /v1/scenes with one Idempotency-Key for all its attempts.

        The key is a fresh UUID v4, or ``idempotency_key`` when you stored one before calling
        (to survive your own crash): a retried request replays the first answer instead of
        creating a second scene.
        """
        key = idempotency_key or str(uuid.uuid4())
        body: CreateSceneDto = {"prompt": prompt}
        if source_asset_id is not None:
            body["sourceAssetId"] = source_asset_id
        if external_ref is not None:
            body["externalRef"] = external_ref
        answer = self._call("POST", "/v1/scenes", _scene_create_retry, json_body=body, headers={"Idempotency-Key": key})
        return CreatedScene(
            operation=cast(OperationAcceptedResponse, answer.body),
            idempotency_key=key,
            replayed=answer.headers.get("idempotent-replayed") == "true",
        )

    def get_operation(self, operation_id: str) -> OperationPoll:
        """GET /v1/operations/{id}, with the answer's Retry-After (set while processing)."""
        answer = self._call("GET", f"/v1/operations/{_id(operation_id)}", _transient)
        return OperationPoll(
            operation=cast(OperationResponse, answer.body),
            retry_after_seconds=parse_retry_after(answer.headers.get("retry-after")),
        )

    def wait_for_operation(
        self,
        operation_id: str,
        *,
        timeout: float = 600.0,
        max_poll_interval: float = 10.0,
        on_progress: Callable[[OperationResponse], None] | None = None,
    ) -> OperationResponse:
        """Polls an operation until it succeeds or fails, waiting what each answer's Retry-After
        says (at most ``max_poll_interval`` seconds, 1 s without one).

        A failed operation is returned, not raised: its ``error.code`` and ``error.retryable``
        say what to do next. ``on_progress`` sees each processing state. Raises
        OperationTimeoutError after ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        while True:
            poll = self.get_operation(operation_id)
            if poll.operation["status"] != "processing":
                return poll.operation
            if on_progress is not None:
                on_progress(poll.operation)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise OperationTimeoutError(operation_id, timeout)
            wait = poll.retry_after_seconds if poll.retry_after_seconds is not None else 1
            self._sleep(min(wait, max_poll_interval, remaining))

    def cancel_operation(self, operation_id: str) -> OperationResponse:
        """POST /v1/operations/{id}:cancel: the operation as it stands after the call."""
        return cast(
            OperationResponse, self._call("POST", f"/v1/operations/{_id(operation_id)}:cancel", _transient).body
        )

    def find_scene_by_external_ref(self, external_ref: str) -> SceneResponse | None:
        """GET /v1/scenes?externalRef=…: the active scene with that reference, or None."""
        query = urllib.parse.urlencode({"externalRef": external_ref})
        try:
            return cast(SceneResponse, self._call("GET", f"/v1/scenes?{query}", _transient).body)
        except SceneStudioError as e:
            if e.code == "not_found":
                return None
            raise

    def get_scene(self, scene_id: str) -> SceneResponse:
        """GET /v1/scenes/{id}."""
        return cast(SceneResponse, self._call("GET", f"/v1/scenes/{_id(scene_id)}", _transient).body)

    def delete_scene(self, scene_id: str) -> None:
        """DELETE /v1/scenes/{id}: succeeds for any well-formed id, even an unknown one."""
        self._call("DELETE", f"/v1/scenes/{_id(scene_id)}", _transient)

    # Embed sessions

    def create_embed_session(
        self,
        scene_id: str,
        origin: str,
        mode: EmbedMode,
        *,
        expires_in_seconds: int | None = None,
        theme: EmbedThemeDto | None = None,
    ) -> EmbedSessionResponse:
        """POST /v1/embed-sessions.

        The answer's ``url`` is a bearer secret: hand it to the browser only in an authenticated
        ``Cache-Control: private, no-store`` response, and never log it. Not retried after a lost
        connection (a session is not idempotent); 429 and 503 are.
        """
        body: CreateEmbedSessionDto = {"sceneId": scene_id, "origin": origin, "mode": mode}
        if expires_in_seconds is not None:
            body["expiresInSeconds"] = expires_in_seconds
        if theme is not None:
            body["theme"] = theme
        answer = self._call("POST", "/v1/embed-sessions", _limited, json_body=body, retry_network_errors=False)
        return cast(EmbedSessionResponse, answer.body)

    def revoke_embed_session(self, embed_session_id: str) -> None:
        """DELETE /v1/embed-sessions/{id}: the URL stops working."""
        self._call("DELETE", f"/v1/embed-sessions/{_id(embed_session_id)}", _transient)

    def extend_embed_session(self, embed_session_id: str, expires_in_seconds: int) -> ExtendedEmbedSessionResponse:
        """POST /v1/embed-sessions/{id}:extend: a new expiry, counted from now (300 to 86400 s).

        SceneStudioError ``not_found`` means the session already ended: issue a new one.
        """
        answer = self._call(
            "POST",
            f"/v1/embed-sessions/{_id(embed_session_id)}:extend",
            _transient,
            json_body={"expiresInSeconds": expires_in_seconds},
        )
        return cast(ExtendedEmbedSessionResponse, answer.body)

    # Webhook endpoints

    def create_webhook_endpoint(self, url: str, events: list[WebhookEventType]) -> WebhookEndpointWithSecretResponse:
        """POST /v1/webhook-endpoints. The answer's ``secret`` is shown this once: store it
        (``verify_webhook`` needs it)."""
        body: CreateWebhookEndpointDto = {"url": url, "events": events}
        answer = self._call("POST", "/v1/webhook-endpoints", _limited, json_body=body, retry_network_errors=False)
        return cast(WebhookEndpointWithSecretResponse, answer.body)

    def list_webhook_endpoints(self) -> list[WebhookEndpointResponse]:
        """GET /v1/webhook-endpoints (no secrets): every endpoint, following ``nextCursor``."""
        endpoints: list[WebhookEndpointResponse] = []
        after: str | None = None
        while True:
            query = urllib.parse.urlencode({"limit": 100, **({"after": after} if after else {})})
            page = cast(
                WebhookEndpointListResponse, self._call("GET", f"/v1/webhook-endpoints?{query}", _transient).body
            )
            endpoints.extend(page["items"])
            after = page["nextCursor"]
            if not after:
                return endpoints

    def get_webhook_endpoint(self, webhook_endpoint_id: str) -> WebhookEndpointResponse:
        """GET /v1/webhook-endpoints/{id} (no secret)."""
        answer = self._call("GET", f"/v1/webhook-endpoints/{_id(webhook_endpoint_id)}", _transient)
        return cast(WebhookEndpointResponse, answer.body)

    def delete_webhook_endpoint(self, webhook_endpoint_id: str) -> None:
        """DELETE /v1/webhook-endpoints/{id}: its pending deliveries are dropped."""
        self._call("DELETE", f"/v1/webhook-endpoints/{_id(webhook_endpoint_id)}", _transient)

    def test_webhook_endpoint(self, webhook_endpoint_id: str) -> WebhookTestResponse:
        """POST /v1/webhook-endpoints/{id}:test (test organizations only): sends a signed
        ``webhook.test`` event now and answers with the attempt. Not retried: each call sends."""
        answer = self._call(
            "POST", f"/v1/webhook-endpoints/{_id(webhook_endpoint_id)}:test", _never, retry_network_errors=False
        )
        return cast(WebhookTestResponse, answer.body)

    # Transport

    def _call(
        self,
        method: str,
        path: str,
        retryable: _Retryable,
        *,
        json_body: Mapping[str, Any] | None = None,
        raw_body: bytes | None = None,
        content_type: str | None = None,
        headers: Mapping[str, str] | None = None,
        retry_network_errors: bool = True,
    ) -> _Answer:
        """Sends until a 2xx (returned), a status ``retryable`` refuses (SceneStudioError), or
        the attempts run out (the last error raised)."""
        data = raw_body
        all_headers = {
            "Authorization": f"Bearer {self._api_key}",
            "Accept": "application/json",
            "User-Agent": f"scene-studio-python/{_VERSION}",
            **(headers or {}),
        }
        if json_body is not None:
            data = json.dumps(json_body).encode("utf-8")
            all_headers["Content-Type"] = "application/json"
        elif content_type is not None:
            all_headers["Content-Type"] = content_type
        attempt = 0
        while True:
            attempt += 1
            request = urllib.request.Request(self._base_url + path, data=data, headers=all_headers, method=method)
            try:
                answer = self._send(request)
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                # No answer: the request may or may not have reached the API. Only calls that are
                # safe to repeat (idempotent, or carrying an Idempotency-Key) try again.
                if not retry_network_errors or attempt >= self._retry.max_attempts:
                    raise
                self._sleep(self._backoff(attempt, None))
                continue
            if 200 <= answer.status < 300:
                return answer
            retry_after = parse_retry_after(answer.headers.get("retry-after"))
            if attempt < self._retry.max_attempts and retryable(answer.status, answer.body):
                self._sleep(self._backoff(attempt, retry_after))
                continue
            problem = to_problem(answer.status, answer.body, answer.headers.get("x-request-id"))
            raise SceneStudioError(answer.status, problem, retry_after)

    def _send(self, request: urllib.request.Request) -> _Answer:
        try:
            response: HTTPResponse = urllib.request.urlopen(request, timeout=self._timeout)
        except urllib.error.HTTPError as e:
            # urllib raises for every non-2xx answer; it is still an answer, with a problem body.
            with e:
                return _Answer(e.code, _lower(e.headers.items()), _parse(e.read()))
        with response:
            return _Answer(response.status, _lower(response.getheaders()), _parse(response.read()))

    def _backoff(self, attempt: int, retry_after: int | None) -> float:
        if retry_after is not None:
            return min(float(retry_after), self._retry.max_delay)
        ceiling = min(self._retry.base_delay * 2 ** (attempt - 1), self._retry.max_delay)
        return random.uniform(0, ceiling)


def _limited(status: int, _body: Any) -> bool:
    # For calls that are not idempotent: only answers that say nothing was done are repeated.
    return status in (429, 503)


def _id(value: str) -> str:
    # An id goes into the path as one segment, whatever it holds (the API answers 400 invalid_id).
    return urllib.parse.quote(value, safe="")


def _lower(items: Any) -> dict[str, str]:
    return {k.lower(): v for k, v in items}


def _parse(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace")


def _multipart(field: str, filename: str, content_type: str, data: bytes) -> tuple[bytes, str]:
    boundary = f"scene-studio-{uuid.uuid4().hex}"
    # Quotes and line breaks would end the header early: they are not part of a file name anyway.
    safe_name = filename.replace("\\", "_").replace('"', "_").replace("\r", "_").replace("\n", "_")
    head = (
        f"--{boundary}\r\n"
        f'Content-Disposition: form-data; name="{field}"; filename="{safe_name}"\r\n'
        f"Content-Type: {content_type}\r\n\r\n"
    ).encode("utf-8")
    return head + data + f"\r\n--{boundary}--\r\n".encode("ascii"), f"multipart/form-data; boundary={boundary}"
