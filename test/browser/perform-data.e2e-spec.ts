import { BrowserContext, Page } from 'playwright-core';
import { createEmbedSession, parseEmbedUrl, readyScene } from '../factories/embed.factory';
import { awaitOperation } from '../factories/scene.factory';
import { setUpEmbedStack } from '../support/embed-stack';
import { pollUntil } from '../support/poll';
import { waitForVersion } from '../support/studio-frame';

const PROMPT_MARKER = 'qzx-prompt-5e02';
const EDIT_MARKER = 'qzx-edit-5e02';
const MARKERS = [PROMPT_MARKER, EDIT_MARKER];
/** Software WebGL (SwiftShader) draws slowly: waits for frames get generous deadlines. */
const RENDER_TIMEOUT = 30_000;

interface Captured {
  url: string;
  /** Headers and body, as one lower-cased text (latin1: every byte one character). */
  text: string;
}

/**
 * Everything the studio origin sends a page, as the browser's network saw it: each response's
 * headers and body (Playwright's `response` events), and the event stream chunk by chunk as it
 * arrives (CDP `Network.streamResourceContent`, since a stream's body is never finished).
 */
class NetworkCapture {
  readonly responses: Captured[] = [];
  readonly failures: string[] = [];
  private readonly streams = new Map<string, { url: string; headers: string; buffered: string; chunks: string[]; finished: boolean }>();
  private readonly reads: Promise<unknown>[] = [];

  static async attach(page: Page, origin: string): Promise<NetworkCapture> {
    const c = new NetworkCapture();
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    cdp.on('Network.responseReceived', ({ requestId, response }) => {
      if (!response.url.startsWith(origin) || response.mimeType !== 'text/event-stream') return;
      const stream = {
        url: response.url,
        headers: JSON.stringify(response.headers),
        buffered: '',
        chunks: [] as string[],
        finished: false,
      };
      c.streams.set(requestId, stream);
      c.reads.push(
        cdp
          .send('Network.streamResourceContent', { requestId })
          .then(({ bufferedData }) => (stream.buffered = Buffer.from(bufferedData, 'base64').toString('latin1')))
          .catch((e: Error) => c.failures.push(`${response.url}: ${e.message}`)),
      );
    });
    cdp.on('Network.dataReceived', ({ requestId, data }) => {
      const stream = c.streams.get(requestId);
      if (stream && data) stream.chunks.push(Buffer.from(data, 'base64').toString('latin1'));
    });
    // Closed by the server (finished) or dropped by the page (failed): nothing more can arrive.
    const closed = ({ requestId }: { requestId: string }) => {
      const stream = c.streams.get(requestId);
      if (stream) stream.finished = true;
    };
    cdp.on('Network.loadingFinished', closed);
    cdp.on('Network.loadingFailed', closed);
    page.on('response', (response) => {
      if (!response.url().startsWith(origin) || (response.headers()['content-type'] ?? '').startsWith('text/event-stream')) return;
      c.reads.push(
        response
          .body()
          .then((body) =>
            c.responses.push({
              url: response.url(),
              text: `${JSON.stringify(response.headers())}\n${body.toString('latin1')}`.toLowerCase(),
            }),
          )
          .catch((e: Error) => c.failures.push(`${response.url()}: ${e.message}`)),
      );
    });
    return c;
  }

  /** The event streams so far: headers, what was buffered before streaming began, then every chunk. */
  get eventStreams(): (Captured & { finished: boolean })[] {
    return [...this.streams.values()].map((s) => ({
      url: s.url,
      text: `${s.headers}\n${s.buffered}${s.chunks.join('')}`.toLowerCase(),
      finished: s.finished,
    }));
  }

  /** Every response body read. */
  async settled(): Promise<Captured[]> {
    await Promise.all(this.reads);
    return [...this.responses, ...this.eventStreams];
  }
}

const markersIn = (captured: Captured[]) => MARKERS.filter((m) => captured.some((c) => c.text.includes(m)));

/**
 * docs/embed.md, "What each mode receives", in a real browser: a perform page, open while
 * the scene is edited in another session, never receives the prompt or an instruction, in any
 * response or event-stream chunk; an edit_and_perform page beside it does (which shows the
 * capture would see them), and the perform page works from what it gets.
 */
describe('a perform page receives no prompt or instruction, in a real browser', () => {
  const stack = setUpEmbedStack();
  const contexts: BrowserContext[] = [];
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });

  async function edit(sceneId: string, instruction: string): Promise<number> {
    const editor = await createEmbedSession(stack.api, stack.org, { sceneId, origin: stack.partner.origin, mode: 'edit' });
    const bearer = { Authorization: `Bearer ${parseEmbedUrl(editor.body.url).secret}` };
    const started = await stack.studio.http().post('/studio-api/v1/edits').set(bearer).send({ instruction });
    expect(started.status).toBe(202);
    const done = await awaitOperation(stack.api, stack.org, started.body.operationId);
    expect(done.body.status).toBe('succeeded');
    return done.body.version as number;
  }

  async function openStudio(sceneId: string, mode: 'perform' | 'edit_and_perform') {
    const session = await createEmbedSession(stack.api, stack.org, { sceneId, origin: stack.partner.origin, mode });
    expect(session.status).toBe(201);
    const context = await stack.browser.newContext({ viewport: { width: 1280, height: 800 }, reducedMotion: 'reduce' });
    contexts.push(context);
    const page = await context.newPage();
    const capture = await NetworkCapture.attach(page, stack.embedOrigin);
    // Opened on its own: the page's whole network is this page's.
    await page.goto(session.body.url as string);
    return { page, capture, sessionId: session.body.embedSessionId as string };
  }

  it('not in any response body, header or event-stream chunk, while an edit happens in another session', async () => {
    const sceneId = await readyScene(stack.api, stack.org, { prompt: `A calm lake among pines at sunset ${PROMPT_MARKER}` });
    // The scene has a history before the pages open…
    expect(await edit(sceneId, `add fog ${EDIT_MARKER}`)).toBe(2);
    const perform = await openStudio(sceneId, 'perform');
    const both = await openStudio(sceneId, 'edit_and_perform');
    for (const { page } of [perform, both]) await waitForVersion(page.mainFrame(), 2, RENDER_TIMEOUT);

    // …and another turn while they are open: both pages follow it to version 3.
    expect(await edit(sceneId, `make it night ${EDIT_MARKER}`)).toBe(3);
    for (const { page } of [perform, both]) await waitForVersion(page.mainFrame(), 3, RENDER_TIMEOUT);

    // The perform page works from what it got: active, the spec's presets listed, the first in use.
    const frame = perform.page.mainFrame();
    expect(await frame.evaluate(() => (window as any).__studio.state())).toMatchObject({
      phase: 'active',
      mode: 'perform',
      loadedVersion: 3,
    });
    const presets = frame.locator('#camera-presets button');
    expect(await presets.count()).toBeGreaterThanOrEqual(3);
    const firstPreset = (await presets.first().innerText()).trim();
    await frame.waitForFunction((name) => (window as any).__studio.state().perform.framing.activeView === name, firstPreset);

    // Ending the sessions closes their streams: every chunk ever sent has then arrived.
    for (const { page, capture, sessionId } of [perform, both]) {
      expect((await stack.api.http().delete(`/v1/embed-sessions/${sessionId}`).set(stack.org.auth)).status).toBe(204);
      await page.mainFrame().waitForFunction(() => (window as any).__studio.state().phase === 'ended', undefined, { timeout: 10_000 });
      await pollUntil(
        () => Promise.resolve(capture.eventStreams),
        (streams) => streams.length > 0 && streams.every((s) => s.finished),
        { what: 'the event streams to end', timeoutMs: 10_000 },
      );
    }

    const performGot = await perform.capture.settled();
    const bothGot = await both.capture.settled();
    expect(perform.capture.failures).toEqual([]);
    expect(both.capture.failures).toEqual([]);

    // What the perform page received: its session, the specs of both versions, the whole stream.
    const urls = performGot.map((c) => new URL(c.url).pathname);
    expect(urls).toEqual(
      expect.arrayContaining([
        `/embed/${perform.sessionId}`,
        '/studio-api/v1/session',
        '/studio-api/v1/scene/versions/2/spec',
        '/studio-api/v1/scene/versions/3/spec',
        '/studio-api/v1/events',
      ]),
    );
    const streamText = perform.capture.eventStreams.map((s) => s.text).join('\n');
    expect(streamText).toContain('event: scene.status');
    expect(streamText).toContain('"version":3');
    expect(streamText).toContain('event: session.ended');
    expect(streamText).not.toContain('event: edit.updated');
    expect(urls).not.toContain('/studio-api/v1/edits');
    expect(markersIn(performGot)).toEqual([]);

    // The same capture on the edit_and_perform page sees both: in the specs and in the stream's history.
    expect(markersIn(bothGot)).toEqual(MARKERS);
    expect(markersIn(both.capture.eventStreams)).toEqual([EDIT_MARKER]);
  });
});
