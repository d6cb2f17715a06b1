"""scene_studio: the Python client of the Scene Studio partner API (standard library only).

Its types (``scene_studio.types``) are generated from the API's OpenAPI document, the same one
the TypeScript client is typed from; the repository's drift test fails when they part.
"""

from ._types import PROBLEM_CODES, WEBHOOK_EVENT_TYPES, ProblemCode, WebhookEventType
from .client import MAX_UPLOAD_BYTES, CreatedScene, OperationPoll, RetryPolicy, SceneStudioClient, parse_retry_after
from .errors import OperationTimeoutError, SceneStudioError
from .webhooks import WEBHOOK_TOLERANCE_SECONDS, VerifiedWebhook, WebhookVerificationError, verify_webhook

__version__ = "0.1.0"

__all__ = [
    "MAX_UPLOAD_BYTES",
    "PROBLEM_CODES",
    "WEBHOOK_EVENT_TYPES",
    "WEBHOOK_TOLERANCE_SECONDS",
    "CreatedScene",
    "OperationPoll",
    "OperationTimeoutError",
    "ProblemCode",
    "RetryPolicy",
    "SceneStudioClient",
    "SceneStudioError",
    "VerifiedWebhook",
    "WebhookEventType",
    "WebhookVerificationError",
    "parse_retry_after",
    "verify_webhook",
]
