"""The Python client against a running Scene Studio (api and worker), as a partner's backend uses it.

Needs SCENE_STUDIO_API_URL and SCENE_STUDIO_API_KEY (a test organization's key: the scenes use
test-mode directives, docs/api.md "Testing your integration"); test/client/python-client.e2e-spec.ts
starts the stack and runs this file. Every public method of SceneStudioClient must be called by
some test here (the last test checks), and the calls made are printed as one JSON line.
"""

import hashlib
import json
import os
import struct
import threading
import time
import unittest
import urllib.error
import urllib.request
import uuid
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, ClassVar

from scene_studio import (
    PROBLEM_CODES,
    OperationTimeoutError,
    SceneStudioClient,
    SceneStudioError,
    WebhookVerificationError,
    verify_webhook,
)
from scene_studio.types import OperationResponse

ID = {prefix: rf"^{prefix}_[0-9A-HJKMNP-TV-Z]{{26}}$" for prefix in ("img", "op", "scn", "es", "whe", "msg")}
EMBED_ORIGIN = "http://localhost:4000"


def env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise RuntimeError(f"{name} is not set: run this through test/client/python-client.e2e-spec.ts")
    return value


def png(width: int, height: int) -> bytes:
    """A solid-colour RGB PNG, written with zlib alone."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    row = b"\x00" + b"\x40\x80\xc0" * width
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(row * height, 6))
        + chunk(b"IEND", b"")
    )


def poll_until(probe: Callable[[], Any], accept: Callable[[Any], bool], what: str, timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if accept(value):
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}; last value: {value!r}")
        time.sleep(0.05)


class Receiver(ThreadingHTTPServer):
    """A partner's webhook endpoint: verifies each delivery with the client's verify_webhook,
    answers 204 when it holds and 400 when not, and records both."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), ReceiverHandler)
        self.secret: str | None = None
        self.lock = threading.Lock()
        self.verified: list[dict[str, Any]] = []
        self.rejected: list[str] = []
        self.raw: list[tuple[bytes, dict[str, str]]] = []

    @property
    def url(self) -> str:
        # A test organization may target http://localhost:<port> (docs/api.md, "Targets").
        return f"http://localhost:{self.server_address[1]}/hooks"

    def events(self, kind: str) -> list[dict[str, Any]]:
        with self.lock:
            return [e for e in self.verified if e["event"]["type"] == kind]


class ReceiverHandler(BaseHTTPRequestHandler):
    server: Receiver

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        try:
            verified = verify_webhook(body, self.headers, self.server.secret or "whsec_")
        except (WebhookVerificationError, ValueError) as e:
            with self.server.lock:
                self.server.rejected.append(str(e))
            self.send_response(400)
        else:
            with self.server.lock:
                self.server.verified.append({"id": verified.webhook_id, "event": verified.event})
                self.server.raw.append((body, {k.lower(): v for k, v in self.headers.items()}))
            self.send_response(204)
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (http.server's signature)
        pass


class AgainstStackTest(unittest.TestCase):
    client: ClassVar[SceneStudioClient]
    called: ClassVar[set[str]] = set()
    receiver: ClassVar[Receiver]

    @classmethod
    def setUpClass(cls) -> None:
        cls.client = cls.recorded_client()
        cls.receiver = Receiver()
        threading.Thread(target=cls.receiver.serve_forever, daemon=True).start()

    @classmethod
    def tearDownClass(cls) -> None:
        cls.receiver.shutdown()
        cls.receiver.server_close()
        print(json.dumps({"called": sorted(cls.called)}))

    @classmethod
    def recorded_client(cls, **options: Any) -> SceneStudioClient:
        """A client whose public methods record that they ran: the last test checks that none
        went untested."""
        client = SceneStudioClient(env("SCENE_STUDIO_API_KEY"), env("SCENE_STUDIO_API_URL"), timeout=30, **options)
        for name in dir(SceneStudioClient):
            method = getattr(client, name)
            if not name.startswith("_") and callable(method):
                setattr(client, name, cls._recorded(name, method))
        return client

    @classmethod
    def _recorded(cls, name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        def recorded(*args: Any, **kwargs: Any) -> Any:
            cls.called.add(name)
            return method(*args, **kwargs)

        return recorded

    def test_1_upload_create_poll_lookup_embed_delete(self) -> None:
        image = png(1920, 1080)
        asset = self.client.upload_image(image, filename="harbour.png", content_type="image/png")
        self.assertRegex(asset["imageAssetId"], ID["img"])
        self.assertEqual(
            (asset["format"], asset["width"], asset["height"], asset["sizeBytes"]), ("png", 1920, 1080, len(image))
        )
        self.assertEqual(asset["sha256"], hashlib.sha256(image).hexdigest())
        self.assertEqual((asset["status"], asset["usableAsSceneSource"]), ("unattached", True))
        self.assertEqual(self.client.get_image_asset(asset["imageAssetId"]), asset)

        ref = f"order-{uuid.uuid4()}"
        key = str(uuid.uuid4())
        # A few seconds of "generation", so the polls below see processing answers and their Retry-After.
        prompt = "test:duration:3 A harbour at dawn"
        created = self.client.create_scene(
            prompt, source_asset_id=asset["imageAssetId"], external_ref=ref, idempotency_key=key
        )
        self.assertRegex(created.operation_id, ID["op"])
        self.assertEqual(
            (created.operation["status"], created.idempotency_key, created.replayed), ("processing", key, False)
        )
        again = self.client.create_scene(
            prompt, source_asset_id=asset["imageAssetId"], external_ref=ref, idempotency_key=key
        )
        self.assertEqual((again.operation, again.replayed), (created.operation, True))
        with self.assertRaises(SceneStudioError) as reused:
            self.client.create_scene("Another prompt", idempotency_key=key)
        self.assertEqual((reused.exception.status, reused.exception.code), (422, "idempotency_key_reused"))

        # wait_for_operation sleeps what each processing answer's Retry-After says.
        advised: list[int | None] = []
        slept: list[float] = []

        def sleep(seconds: float) -> None:
            slept.append(seconds)
            time.sleep(seconds)

        waiter = self.recorded_client(sleep=sleep)
        get_operation = waiter.get_operation

        def observed(operation_id: str) -> Any:
            poll = get_operation(operation_id)
            if poll.operation["status"] == "processing":
                advised.append(poll.retry_after_seconds)
            return poll

        waiter.get_operation = observed  # type: ignore[method-assign]
        progress: list[OperationResponse] = []
        done = waiter.wait_for_operation(created.operation_id, timeout=120, on_progress=progress.append)
        self.assertEqual(done["status"], "succeeded", done)
        self.assertRegex(done["sceneId"], ID["scn"])
        self.assertEqual((done["version"], done["externalRef"]), (1, ref))
        self.assertGreater(len(advised), 0, "the operation was never seen processing")
        self.assertTrue(all(a is not None and 1 <= a <= 10 for a in advised), advised)
        self.assertEqual(slept, advised)
        self.assertEqual(len(progress), len(advised))

        scene = self.client.find_scene_by_external_ref(ref)
        self.assertIsNotNone(scene)
        assert scene is not None
        self.assertEqual(
            (scene["sceneId"], scene["status"], scene["operationId"], scene["externalRef"]),
            (done["sceneId"], "ready", created.operation_id, ref),
        )
        self.assertEqual(self.client.get_scene(done["sceneId"]), scene)
        self.assertIsNone(self.client.find_scene_by_external_ref(f"nobody-{uuid.uuid4()}"))
        self.assertEqual(self.client.get_image_asset(asset["imageAssetId"])["status"], "attached")

        session = self.client.create_embed_session(
            done["sceneId"],
            EMBED_ORIGIN,
            "edit",
            expires_in_seconds=600,
            theme={"partnerName": "Acme", "colorScheme": "dark"},
        )
        self.assertRegex(session["embedSessionId"], ID["es"])
        self.assertEqual(
            (session["mode"], session["origin"], session["sceneId"]), ("edit", EMBED_ORIGIN, done["sceneId"])
        )
        self.assertEqual(session["theme"]["partnerName"], "Acme")
        secret_part = session["url"].partition("#")[2]
        self.assertGreater(len(secret_part), 20, "the session's secret travels in the URL's fragment")
        extended = self.client.extend_embed_session(session["embedSessionId"], 3600)
        self.assertEqual(extended["embedSessionId"], session["embedSessionId"])
        self.assertGreater(extended["expiresAt"], session["expiresAt"])
        self.client.revoke_embed_session(session["embedSessionId"])
        with self.assertRaises(SceneStudioError) as ended:
            self.client.extend_embed_session(session["embedSessionId"], 3600)
        self.assertEqual((ended.exception.status, ended.exception.code), (404, "not_found"))

        self.client.delete_scene(done["sceneId"])
        with self.assertRaises(SceneStudioError) as gone:
            self.client.get_scene(done["sceneId"])
        self.assertEqual((gone.exception.status, gone.exception.code), (404, "not_found"))
        self.assertIsNone(self.client.find_scene_by_external_ref(ref))

    def test_2_cancel_and_timeout(self) -> None:
        created = self.client.create_scene("test:duration:60 A slow forest")
        with self.assertRaises(OperationTimeoutError) as timed_out:
            self.client.wait_for_operation(created.operation_id, timeout=0.5)
        self.assertEqual(timed_out.exception.operation_id, created.operation_id)
        cancelled = self.client.cancel_operation(created.operation_id)
        self.assertEqual(cancelled["operationId"], created.operation_id)
        done = self.client.wait_for_operation(created.operation_id, timeout=60)
        self.assertEqual(done["status"], "failed", done)
        self.assertEqual((done["error"]["code"], done["error"]["retryable"]), ("cancelled", True))

    def test_3_problems_raise_with_code_status_and_detail(self) -> None:
        with self.assertRaises(SceneStudioError) as not_an_image:
            self.client.upload_image(b"not an image at all", filename="x.png", content_type="image/png")
        e = not_an_image.exception
        self.assertEqual((e.status, e.code), (422, "unsupported_image_format"))
        self.assertIn(e.code, PROBLEM_CODES)
        self.assertTrue(e.detail and e.title and e.request_id)
        self.assertEqual(e.problem["status"], 422)

        with self.assertRaises(SceneStudioError) as invalid:
            self.client.create_scene("x" * 4001)
        self.assertEqual((invalid.exception.status, invalid.exception.code), (422, "validation_failed"))
        self.assertEqual([f["field"] for f in invalid.exception.errors], ["prompt"])

        with self.assertRaises(SceneStudioError) as bad_id:
            self.client.get_scene("scn_not-an-id")
        self.assertEqual((bad_id.exception.status, bad_id.exception.code), (400, "invalid_id"))

        stranger = SceneStudioClient("sk_test_" + "0" * 40, env("SCENE_STUDIO_API_URL"))
        with self.assertRaises(SceneStudioError) as unauthenticated:
            stranger.get_scene("scn_01JD3Z8Q4W6K2M9T5X7B1C0VHE")
        self.assertEqual((unauthenticated.exception.status, unauthenticated.exception.code), (401, "unauthenticated"))

    def test_4_webhooks_delivered_and_verified(self) -> None:
        endpoint = self.client.create_webhook_endpoint(self.receiver.url, ["operation.succeeded", "scene.deleted"])
        self.assertRegex(endpoint["webhookEndpointId"], ID["whe"])
        self.assertTrue(endpoint["secret"].startswith("whsec_"))
        self.assertEqual((endpoint["url"], endpoint["enabled"]), (self.receiver.url, True))
        self.receiver.secret = endpoint["secret"]
        listed = self.client.list_webhook_endpoints()
        self.assertIn(endpoint["webhookEndpointId"], [e["webhookEndpointId"] for e in listed])
        self.assertTrue(all("secret" not in e for e in listed))
        fetched = self.client.get_webhook_endpoint(endpoint["webhookEndpointId"])
        self.assertEqual(fetched["events"], ["operation.succeeded", "scene.deleted"])
        self.assertNotIn("secret", fetched)

        # A test send: delivered means our receiver verified it and answered 204.
        sent = self.client.test_webhook_endpoint(endpoint["webhookEndpointId"])
        self.assertRegex(sent["messageId"], ID["msg"])
        self.assertEqual((sent["delivered"], sent["attempt"]["statusCode"]), (True, 204), sent)
        [test_event] = self.receiver.events("webhook.test")
        self.assertEqual(test_event["id"], sent["messageId"])
        self.assertEqual(test_event["event"]["data"], {"webhookEndpointId": endpoint["webhookEndpointId"]})

        # A tampered body fails verification, here and at the receiver over HTTP.
        body, received_headers = self.receiver.raw[0]
        headers = {k: v for k, v in received_headers.items() if k.startswith("webhook-") or k == "content-type"}
        tampered = body.replace(b"webhook.test", b"webhook.fake")
        with self.assertRaisesRegex(WebhookVerificationError, "No matching signature"):
            verify_webhook(tampered, headers, endpoint["secret"])
        request = urllib.request.Request(
            self.receiver.url.replace("/hooks", "/"), data=tampered, headers=headers, method="POST"
        )
        with self.assertRaises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        refused.exception.close()
        self.assertEqual(refused.exception.code, 400)
        self.assertEqual(self.receiver.rejected, ["No matching signature found"])
        # The same delivery, replayed ten minutes later, is refused as too old.
        with self.assertRaisesRegex(WebhookVerificationError, "too old"):
            verify_webhook(body, headers, endpoint["secret"], now=time.time() + 600)

        created = self.client.create_scene("test:succeed A lighthouse", external_ref=f"hook-{uuid.uuid4()}")
        done = self.client.wait_for_operation(created.operation_id, timeout=60)
        self.assertEqual(done["status"], "succeeded", done)
        [succeeded] = poll_until(lambda: self.receiver.events("operation.succeeded"), bool, "operation.succeeded")
        self.assertEqual(succeeded["event"]["data"], done)
        self.client.delete_scene(done["sceneId"])
        [deleted] = poll_until(lambda: self.receiver.events("scene.deleted"), bool, "scene.deleted")
        self.assertEqual(deleted["event"]["data"]["sceneId"], done["sceneId"])

        self.client.delete_webhook_endpoint(endpoint["webhookEndpointId"])
        with self.assertRaises(SceneStudioError) as gone:
            self.client.get_webhook_endpoint(endpoint["webhookEndpointId"])
        self.assertEqual(gone.exception.code, "not_found")

    def test_9_every_public_method_was_called(self) -> None:
        public = {
            n for n in dir(SceneStudioClient) if not n.startswith("_") and callable(getattr(SceneStudioClient, n))
        }
        self.assertEqual(public - self.called, set(), "public methods no test here calls")


if __name__ == "__main__":
    unittest.main()
