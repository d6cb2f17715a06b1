import { BrowserContext, Frame, Page } from 'playwright-core';
import sharp from 'sharp';
import { parseEmbedUrl } from '../factories/embed.factory';

/** A studio event as the parent page received it; a Blob in the payload is summarised. */
export interface ReceivedStudioEvent {
  type: string;
  payload: Record<string, any>;
}

export type StudioMode = 'edit' | 'perform' | 'edit_and_perform';

/** Where the parent page keeps the events: `window.studioEvents`, or the reference page's `partnerEvents`. */
type EventList = 'studioEvents' | 'partnerEvents';

/** The iframe attributes docs/embed.md requires of a partner page. */
export const STUDIO_IFRAME = {
  title: 'Scene camera studio',
  allow: 'gamepad; hid; fullscreen',
  referrerpolicy: 'no-referrer',
  sandbox: 'allow-scripts allow-same-origin allow-pointer-lock allow-forms',
} as const;

/** The iframe this helper adds to a partner page. */
export const FRAME_ID = 'studio-under-test';

export interface EmbeddedStudio {
  frame: Frame;
  sessionId: string;
  /** The session secret, for calls a script inside the studio page could make. */
  secret: string;
}

/**
 * Shows an embed URL inside an already loaded partner page the way docs/embed.md tells partners
 * to: a container of the given size at the top of the page, a message listener accepting only
 * the embed origin and this iframe's window (registered first), then the iframe with the
 * required attributes, and only then its `src`. Events land in `window.studioEvents`. Resolves
 * once the studio posted `ready`.
 */
export async function embedStudio(page: Page, url: string, size: { width: number; height: number }): Promise<EmbeddedStudio> {
  const { origin, sessionId, secret } = parseEmbedUrl(url);
  await page.evaluate(
    ({ url, origin, size, attrs, id }) => {
      const w = window as any;
      w.studioEvents = [];
      window.addEventListener('message', (event) => {
        const iframe = document.getElementById(id) as HTMLIFrameElement | null;
        if (event.origin !== origin || !iframe || event.source !== iframe.contentWindow) return;
        const msg = event.data;
        if (!msg || msg.source !== 'scene-studio' || msg.version !== 1 || typeof msg.type !== 'string') return;
        w.studioEvents.push(msg);
      });
      const stage = document.createElement('div');
      stage.id = `${id}-stage`;
      // CSSOM writes pass the partner page's `style-src 'self'`; style attributes would not.
      stage.style.width = `${size.width}px`;
      stage.style.height = `${size.height}px`;
      const iframe = document.createElement('iframe');
      iframe.id = id;
      iframe.title = attrs.title;
      iframe.setAttribute('allow', attrs.allow);
      iframe.setAttribute('referrerpolicy', attrs.referrerpolicy);
      iframe.setAttribute('sandbox', attrs.sandbox);
      iframe.style.width = '100%';
      iframe.style.height = '100%';
      iframe.style.border = '0';
      iframe.style.display = 'block';
      stage.append(iframe);
      // At the top, inside the viewport: Chromium throttles animation frames of off-screen
      // cross-origin frames, and the studio polls its inputs on animation frames.
      document.body.prepend(stage);
      iframe.src = url;
    },
    { url, origin, size, attrs: STUDIO_IFRAME, id: FRAME_ID },
  );
  await waitForEvent(page, 'ready', 20_000);
  const frame = await (await page.locator(`#${FRAME_ID}`).elementHandle())!.contentFrame();
  if (!frame) throw new Error('the studio iframe has no frame');
  return { frame, sessionId, secret };
}

/** Resizes the container of the iframe added by `embedStudio`. */
export async function resizeStudio(page: Page, size: { width: number; height: number }): Promise<void> {
  await page.evaluate(
    ({ id, size }) => {
      const stage = document.getElementById(`${id}-stage`)!;
      stage.style.width = `${size.width}px`;
      stage.style.height = `${size.height}px`;
    },
    { id: FRAME_ID, size },
  );
}

/** The events received so far (`window.studioEvents`, or the reference page's `partnerEvents`). */
export function studioEvents(page: Page, list: EventList = 'studioEvents'): Promise<ReceivedStudioEvent[]> {
  return page.evaluate((name) => {
    const summarise = (v: unknown): unknown => (v instanceof Blob ? { blob: true, size: v.size, type: v.type } : v);
    return ((window as any)[name] as ReceivedStudioEvent[]).map((e) => ({
      type: e.type,
      payload: Object.fromEntries(Object.entries(e.payload ?? {}).map(([k, v]) => [k, summarise(v)])),
    }));
  }, list);
}

export async function waitForEvent(
  page: Page,
  type: string,
  timeoutMs = 10_000,
  list: EventList = 'studioEvents',
): Promise<ReceivedStudioEvent> {
  await page.waitForFunction(
    ([name, t]) => ((window as any)[name] as ReceivedStudioEvent[] | undefined)?.some((e) => e.type === t) === true,
    [list, type] as const,
    { timeout: timeoutMs },
  );
  return (await studioEvents(page, list)).find((e) => e.type === type)!;
}

interface ShortTake {
  /** The take lasts until the studio drew more than this many frames into it. */
  frames: number;
  /** The deadline for those frames and for `recording.completed` (`recording.started` gets 30 s). */
  timeoutMs: number;
  list?: EventList;
}

/**
 * Starts a take with the Start recording button and waits (up to `timeoutMs`) until the studio
 * drew more than `frames` frames into it: software WebGL is slow, so a count, not a duration.
 */
export async function startShortTake(page: Page, frame: Frame, { frames, timeoutMs, list = 'studioEvents' }: ShortTake): Promise<void> {
  await frame.getByRole('button', { name: 'Start recording' }).click();
  await waitForEvent(page, 'recording.started', 30_000, list);
  const drawn = await frame.evaluate(() => (window as any).__studio.renderedFrames() as number);
  await frame.waitForFunction(([n, k]) => (window as any).__studio.renderedFrames() > n + k, [drawn, frames] as const, {
    timeout: timeoutMs,
  });
}

/** A take of a few frames (`startShortTake`), stopped with its button; its `recording.completed` event. */
export async function recordShortTake(page: Page, frame: Frame, options: ShortTake): Promise<ReceivedStudioEvent> {
  await startShortTake(page, frame, options);
  await frame.getByRole('button', { name: 'Stop recording' }).click();
  return waitForEvent(page, 'recording.completed', options.timeoutMs, options.list);
}

/**
 * Waits until the studio shows scene `version` (its first frame drawn), with a deadline for
 * software WebGL. A missed deadline says what the studio showed instead (its scene state, the
 * stream, the frames drawn and its last events to the parent), so a failure on CI can be read
 * from its log.
 */
export async function waitForVersion(frame: Frame, version: number, timeoutMs = 30_000): Promise<void> {
  try {
    await frame.waitForFunction(
      (v) => {
        const s = (window as any).__studio;
        return s.state().loadedVersion === v && s.firstFrameAt !== null;
      },
      version,
      { timeout: timeoutMs },
    );
  } catch (e) {
    const seen = await frame
      .evaluate(() => {
        const s = (window as any).__studio;
        const { phase, scene, streamConnected, edits } = s.state();
        const events = (s.events() as ReceivedStudioEvent[]).slice(-8);
        return { phase, scene, streamConnected, edits, firstFrameAt: s.firstFrameAt, renderedFrames: s.renderedFrames(), events };
      })
      .catch((err: Error) => `unreadable: ${err.message}`);
    throw new Error(`version ${version} was not on screen within ${timeoutMs} ms; the studio showed ${JSON.stringify(seen)}`, {
      cause: e,
    });
  }
}

/**
 * A standard-mapping gamepad the test holds in its hand: `navigator.getGamepads()` returns it
 * in every frame of the context, and `window.__testGamepad` (same frame) moves its sticks and
 * buttons. Installed as an init script, so it exists before the studio's first poll.
 */
export async function installGamepadStub(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const pad = {
      id: 'Test pad (STANDARD GAMEPAD Vendor: 045e Product: 02ea)',
      index: 0,
      connected: true,
      mapping: 'standard',
      timestamp: 0,
      axes: [0, 0, 0, 0],
      buttons: Array.from({ length: 17 }, () => ({ pressed: false, touched: false, value: 0 })),
      vibrationActuator: null,
    };
    Object.defineProperty(window, '__testGamepad', { value: pad });
    Object.defineProperty(Navigator.prototype, 'getGamepads', {
      configurable: true,
      value: function getGamepads() {
        pad.timestamp = performance.now();
        return [pad, null, null, null];
      },
    });
  });
}

/** Luma statistics of a PNG screenshot: a blank or single-colour image has no variance. */
export async function imageStats(png: Buffer): Promise<{ width: number; height: number; lumaStdDev: number; distinctColors: number }> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let sum = 0;
  let sumSq = 0;
  const colors = new Set<number>();
  const n = info.width * info.height;
  for (let i = 0; i < data.length; i += 3) {
    const luma = 0.2126 * data[i] + 0.7152 * data[i + 1] + 0.0722 * data[i + 2];
    sum += luma;
    sumSq += luma * luma;
    colors.add(((data[i] >> 3) << 10) | ((data[i + 1] >> 3) << 5) | (data[i + 2] >> 3));
  }
  const mean = sum / n;
  return {
    width: info.width,
    height: info.height,
    lumaStdDev: Math.sqrt(Math.max(0, sumSq / n - mean * mean)),
    distinctColors: colors.size,
  };
}

/** The bytes of the Blob `field` of the last `type` event the parent received (a take's or a render's video). */
export async function postedBlob(page: Page, type: string, field = 'video', list: EventList = 'studioEvents'): Promise<Buffer> {
  const base64 = await page.evaluate(
    async ([t, f, l]) => {
      const events = ((window as any)[l] as { type: string; payload: Record<string, unknown> }[]).filter((e) => e.type === t);
      const blob = events[events.length - 1]?.payload[f];
      if (!(blob instanceof Blob)) throw new Error(`no ${t} event with a Blob in ${f}`);
      const bytes = new Uint8Array(await blob.arrayBuffer());
      let binary = '';
      for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      return btoa(binary);
    },
    [type, field, list] as const,
  );
  return Buffer.from(base64, 'base64');
}

/**
 * On the reference partner page (examples/partner-app, already open in `page` at `partnerOrigin`):
 * generates a scene from a prompt, as a person would, and opens a perform studio on it. Returns
 * the studio's frame, showing version 1, and the session's id from the `ready` event.
 */
export async function openPerformStudioOnPartnerPage(page: Page, partnerOrigin: string): Promise<{ frame: Frame; embedSessionId: string }> {
  await page.goto(partnerOrigin);
  await page.getByLabel('Prompt').fill('A quiet lake among pines at sunset, a wooden cabin on the shore');
  await page.getByRole('button', { name: 'Generate' }).click();
  await page.getByRole('status').filter({ hasText: 'is ready' }).waitFor({ timeout: 30_000 });
  await page.getByLabel('Mode').selectOption('perform');
  await page.getByRole('button', { name: 'Open studio' }).click();
  const ready = await waitForEvent(page, 'ready', 30_000, 'partnerEvents');
  const frame = await (await page.locator('iframe[title="Scene camera studio"]').elementHandle())!.contentFrame();
  if (!frame) throw new Error('the partner page has no studio frame');
  await waitForVersion(frame, 1, 30_000);
  return { frame, embedSessionId: ready.payload.embedSessionId as string };
}
