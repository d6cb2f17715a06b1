"""verify_webhook on its own: Standard Webhooks' published example, and every way to fail."""

import base64
import json
import os
import time
import unittest

from scene_studio import WEBHOOK_TOLERANCE_SECONDS, WebhookVerificationError, verify_webhook
from scene_studio.webhooks import sign


def new_secret() -> str:
    return "whsec_" + base64.b64encode(os.urandom(32)).decode("ascii")


def signed(
    secret: str, body: str, *, msg_id: str = "msg_01JD3Z8Q4W6K2M9T5X7B1C0VHE", at: int | None = None
) -> dict[str, str]:
    at = int(time.time()) if at is None else at
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(at),
        "webhook-signature": "v1," + sign(secret, f"{msg_id}.{at}.{body}".encode("utf-8")),
    }


class VerifyWebhookTest(unittest.TestCase):
    body = json.dumps({"type": "scene.deleted", "timestamp": "2026-11-25T03:00:00.000Z", "data": {"sceneId": "scn_1"}})

    def test_matches_the_standard_webhooks_example(self) -> None:
        # The example of the Standard Webhooks specification and its reference libraries: the
        # same secret, id, timestamp and body sign to the same bytes here.
        secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
        headers = {
            "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
            "webhook-timestamp": "1614265330",
            "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
        }
        verified = verify_webhook('{"test": 2432232314}', headers, secret, now=1614265330)
        self.assertEqual(verified.event, {"test": 2432232314})
        self.assertEqual(verified.webhook_id, "msg_p5jXN8AQM9LWM0D4loKWxJek")
        self.assertEqual(int(verified.sent_at.timestamp()), 1614265330)

    def test_accepts_bytes_any_header_case_and_one_of_several_signatures_or_secrets(self) -> None:
        secret, other = new_secret(), new_secret()
        headers = signed(secret, self.body)
        self.assertEqual(verify_webhook(self.body.encode(), headers, secret).event["type"], "scene.deleted")
        upper = {k.upper(): v for k, v in headers.items()}
        self.assertEqual(verify_webhook(self.body, upper, secret).webhook_id, headers["webhook-id"])
        two = {
            **headers,
            "webhook-signature": "v1," + base64.b64encode(bytes(32)).decode() + " " + headers["webhook-signature"],
        }
        self.assertEqual(verify_webhook(self.body, two, secret).event["data"], {"sceneId": "scn_1"})
        self.assertEqual(verify_webhook(self.body, headers, [other, secret]).event["type"], "scene.deleted")

    def test_rejects_a_changed_body_id_or_secret_and_missing_headers(self) -> None:
        secret = new_secret()
        headers = signed(secret, self.body)
        for body, hdrs, key, message in [
            (self.body.replace("scn_1", "scn_2"), headers, secret, "No matching signature found"),
            (self.body, {**headers, "webhook-id": "msg_other"}, secret, "No matching signature found"),
            (self.body, headers, new_secret(), "No matching signature found"),
            (
                self.body,
                {**headers, "webhook-signature": "v2," + headers["webhook-signature"][3:]},
                secret,
                "No matching",
            ),
            (
                self.body,
                {k: v for k, v in headers.items() if k != "webhook-signature"},
                secret,
                "Missing required headers",
            ),
            (self.body, {**headers, "webhook-timestamp": "soon"}, secret, "Invalid Signature Headers"),
        ]:
            with self.subTest(message=message), self.assertRaisesRegex(WebhookVerificationError, message):
                verify_webhook(body, hdrs, key)
        with self.assertRaises(TypeError):
            verify_webhook(self.body, headers, [])

    def test_rejects_a_timestamp_beyond_five_minutes_either_way(self) -> None:
        secret = new_secret()
        now = int(time.time())
        at_edge = signed(secret, self.body, at=now - WEBHOOK_TOLERANCE_SECONDS)
        self.assertEqual(verify_webhook(self.body, at_edge, secret, now=now).event["type"], "scene.deleted")
        with self.assertRaisesRegex(WebhookVerificationError, "too old"):
            verify_webhook(
                self.body, signed(secret, self.body, at=now - WEBHOOK_TOLERANCE_SECONDS - 1), secret, now=now
            )
        with self.assertRaisesRegex(WebhookVerificationError, "too new"):
            verify_webhook(
                self.body, signed(secret, self.body, at=now + WEBHOOK_TOLERANCE_SECONDS + 1), secret, now=now
            )


if __name__ == "__main__":
    unittest.main()
