"""Verification of Scene Studio's webhook deliveries (Standard Webhooks).

The same algorithm and tolerance as the TypeScript client's ``verifyWebhook`` and any Standard
Webhooks library (https://www.standardwebhooks.com): ``webhook-signature`` holds one or more
space-separated ``v1,<base64>`` signatures, each an HMAC-SHA256 of
``<webhook-id>.<webhook-timestamp>.<raw body>`` keyed with the base64-decoded part of the
endpoint's ``whsec_…`` secret; ``webhook-timestamp`` (Unix seconds) must be within five minutes
of now either way, so a captured delivery cannot be replayed later.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from email.message import Message
from typing import Any, Mapping, Sequence, Union

#: How far ``webhook-timestamp`` may be from now, either way, in seconds.
WEBHOOK_TOLERANCE_SECONDS = 5 * 60

_SECRET_PREFIX = "whsec_"

#: A dict or any mapping of header names to values, or http.server's ``self.headers``.
WebhookHeaders = Union[Mapping[str, str], "Message[str, str]"]


class WebhookVerificationError(Exception):
    """The delivery is not proven to come from Scene Studio, or not recently: answer it 400."""


@dataclass(frozen=True)
class VerifiedWebhook:
    #: ``webhook-id``: the same on every retry of one event, so the key to deduplicate on.
    webhook_id: str
    #: ``webhook-timestamp``, already checked to be within the tolerance of now.
    sent_at: datetime
    #: The parsed body: ``{"type", "timestamp", "data"}`` (docs/api.md, "Webhooks").
    event: dict[str, Any]


def verify_webhook(
    payload: bytes | str,
    headers: WebhookHeaders,
    secret: str | Sequence[str],
    *,
    now: float | None = None,
) -> VerifiedWebhook:
    """Verifies a delivery and returns its parsed event.

    ``payload`` must be the raw body exactly as received (re-serialized JSON has other bytes and
    fails). ``headers`` may be any mapping (``http.server``'s ``self.headers``, a dict, a WSGI
    framework's headers); names are matched in any case. ``secret`` is the endpoint's ``whsec_…``
    secret, or several during a rotation (any one may match). ``now`` (Unix seconds) is for tests.
    Raises WebhookVerificationError for a missing header, a timestamp out of tolerance, or no
    matching signature.
    """
    body = payload.decode("utf-8") if isinstance(payload, (bytes, bytearray, memoryview)) else payload
    secrets = [secret] if isinstance(secret, str) else list(secret)
    if not secrets:
        raise TypeError("verify_webhook needs at least one secret")
    msg_id = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    if not msg_id or not timestamp or not signatures:
        raise WebhookVerificationError("Missing required headers")
    try:
        sent_at = int(timestamp.strip())
    except ValueError:
        raise WebhookVerificationError("Invalid Signature Headers") from None
    current = int(time.time() if now is None else now)
    if current - sent_at > WEBHOOK_TOLERANCE_SECONDS:
        raise WebhookVerificationError("Message timestamp too old")
    if sent_at > current + WEBHOOK_TOLERANCE_SECONDS:
        raise WebhookVerificationError("Message timestamp too new")
    offered = [sig for version, _, sig in (s.partition(",") for s in signatures.split(" ")) if version == "v1"]
    signed_content = f"{msg_id}.{sent_at}.{body}".encode("utf-8")
    for s in secrets:
        expected = sign(s, signed_content)
        if any(hmac.compare_digest(candidate.encode("utf-8"), expected.encode("utf-8")) for candidate in offered):
            return VerifiedWebhook(
                webhook_id=msg_id,
                sent_at=datetime.fromtimestamp(sent_at, tz=timezone.utc),
                event=json.loads(body),
            )
    raise WebhookVerificationError("No matching signature found")


def sign(secret: str, content: bytes) -> str:
    """The base64 HMAC-SHA256 of ``content`` under a ``whsec_…`` secret (without the ``v1,``)."""
    raw = secret[len(_SECRET_PREFIX) :] if secret.startswith(_SECRET_PREFIX) else secret
    try:
        key = base64.b64decode(raw, validate=True)
    except binascii.Error:
        raise ValueError("the webhook secret is not whsec_ followed by base64") from None
    if not key:
        raise ValueError("the webhook secret is empty")
    return base64.b64encode(hmac.new(key, content, hashlib.sha256).digest()).decode("ascii")


def _header(headers: WebhookHeaders, name: str) -> str:
    if isinstance(headers, Message):
        # http.server's headers: repeated headers join like the spec's spaces.
        return " ".join(str(v) for v in headers.get_all(name) or [])
    for key, value in headers.items():
        if key.lower() == name:
            return " ".join(value) if isinstance(value, (list, tuple)) else str(value)
    return ""
