import type {
  ArtifactKind,
  CameraPathDocument,
  CameraPathKind,
  CameraPathSummary,
  CreatedEdit,
  EditTurn,
  EndedReason,
  Problem,
  SavedCameraPath,
  SceneArtifactInfo,
  SceneSpec,
  StudioSession,
} from './studio-api.types';

/** A failed studio API call. `status` 0 means the request never got an answer (network). */
export class StudioApiError extends Error {
  override name = 'StudioApiError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly problem: Problem | null = null,
    /** The answer's `Retry-After` in seconds (429, 503), when it had one. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }

  get isNetwork(): boolean {
    return this.status === 0;
  }

  /** The session is over (or the secret was never valid): nothing else will succeed. */
  get isSessionEnded(): boolean {
    return this.status === 401;
  }

  get endedReason(): EndedReason {
    return this.problem?.reason === 'expired' ? 'expired' : 'revoked';
  }
}

const BASE = '/studio-api/v1';

/**
 * The only holder of the session secret. Every call sends it as a bearer token, and any 401
 * (`session_ended` or `unauthenticated`) is reported once through `onSessionEnded`, so the
 * studio stops at once whichever call noticed first.
 */
export class StudioApiClient {
  readonly #secret: string;
  #endedReported = false;

  constructor(
    secret: string,
    private readonly onSessionEnded: (reason: EndedReason) => void,
  ) {
    this.#secret = secret;
  }

  session(signal?: AbortSignal): Promise<StudioSession> {
    return this.json<StudioSession>('/session', { signal });
  }

  sceneSpec(version: number, signal?: AbortSignal): Promise<SceneSpec> {
    return this.json<SceneSpec>(`/scene/versions/${encodeURIComponent(String(version))}/spec`, { signal });
  }

  async artifacts(version: number, signal?: AbortSignal): Promise<SceneArtifactInfo[]> {
    const body = await this.json<{ artifacts?: SceneArtifactInfo[] }>(`/scene/versions/${encodeURIComponent(String(version))}/artifacts`, {
      signal,
    });
    return Array.isArray(body.artifacts) ? body.artifacts : [];
  }

  async artifact(version: number, kind: ArtifactKind, signal?: AbortSignal): Promise<ArrayBuffer> {
    const res = await this.request(`/scene/versions/${encodeURIComponent(String(version))}/artifacts/${kind}`, { signal });
    return res.arrayBuffer();
  }

  /**
   * A large file (a splat world: megabytes to hundreds of megabytes), read chunk by chunk so the
   * page can show how far the download is. `total` is the file's size where the response says
   * (not when it arrives compressed: then only the received bytes are known).
   */
  async artifactWithProgress(
    version: number,
    kind: ArtifactKind,
    onChunk: (chunk: Uint8Array, received: number, total: number | null) => void,
    signal?: AbortSignal,
  ): Promise<ArrayBuffer> {
    const res = await this.request(`/scene/versions/${encodeURIComponent(String(version))}/artifacts/${kind}`, { signal });
    const length = Number(res.headers.get('Content-Length'));
    const total = !res.headers.get('Content-Encoding') && Number.isFinite(length) && length > 0 ? length : null;
    if (!res.body) return res.arrayBuffer();
    const reader = res.body.getReader();
    const chunks: Uint8Array[] = [];
    let received = 0;
    for (;;) {
      let step: ReadableStreamReadResult<Uint8Array>;
      try {
        step = await reader.read();
      } catch (e) {
        if (signal?.aborted) throw e;
        throw new StudioApiError(0, 'network_error', 'The studio could not reach the server.');
      }
      if (step.done) break;
      chunks.push(step.value);
      received += step.value.length;
      onChunk(step.value, received, total);
    }
    const bytes = new Uint8Array(received);
    let offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.length;
    }
    return bytes.buffer;
  }

  async sourceImage(signal?: AbortSignal): Promise<Blob> {
    const res = await this.request('/source-image', { signal });
    return res.blob();
  }

  async edits(signal?: AbortSignal): Promise<EditTurn[]> {
    const body = await this.json<{ turns?: EditTurn[] }>('/edits', { signal });
    return Array.isArray(body.turns) ? body.turns : [];
  }

  createEdit(instruction: string): Promise<CreatedEdit> {
    return this.send<CreatedEdit>('POST', '/edits', { instruction });
  }

  /** Starts a revert: an edit turn whose result is version `version` again, as the next version. */
  revertTo(version: number): Promise<CreatedEdit> {
    return this.json<CreatedEdit>(`/scene/versions/${encodeURIComponent(String(version))}:revert`, { method: 'POST' });
  }

  /** The scene's saved camera paths, newest first (docs/camera-paths.md); perform modes only. */
  async cameraPaths(kind?: CameraPathKind, signal?: AbortSignal): Promise<CameraPathSummary[]> {
    const body = await this.json<{ cameraPaths?: CameraPathSummary[] }>(`/camera-paths${kind ? `?kind=${kind}` : ''}`, { signal });
    return Array.isArray(body.cameraPaths) ? body.cameraPaths : [];
  }

  cameraPath(cameraPathId: string, signal?: AbortSignal): Promise<SavedCameraPath> {
    return this.json<SavedCameraPath>(`/camera-paths/${encodeURIComponent(cameraPathId)}`, { signal });
  }

  createCameraPath(kind: CameraPathKind, name: string, document: CameraPathDocument): Promise<SavedCameraPath> {
    return this.send<SavedCameraPath>('POST', '/camera-paths', { kind, name, document });
  }

  /** A new name and document; the kind stays what it was. */
  updateCameraPath(cameraPathId: string, name: string, document: CameraPathDocument): Promise<SavedCameraPath> {
    return this.send<SavedCameraPath>('PUT', `/camera-paths/${encodeURIComponent(cameraPathId)}`, { name, document });
  }

  /** Succeeds for any id the server accepts, whether or not it still exists. */
  async deleteCameraPath(cameraPathId: string): Promise<void> {
    await this.request(`/camera-paths/${encodeURIComponent(cameraPathId)}`, { method: 'DELETE' });
  }

  /** The raw event-stream response; the caller reads and parses the body. */
  events(signal: AbortSignal, lastEventId: string | null): Promise<Response> {
    const headers: Record<string, string> = { Accept: 'text/event-stream' };
    if (lastEventId) headers['Last-Event-ID'] = lastEventId;
    return this.request('/events', { signal, headers });
  }

  /** A JSON body sent, a JSON answer read. */
  private send<T>(method: 'POST' | 'PUT', path: string, body: unknown): Promise<T> {
    return this.json<T>(path, { method, body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } });
  }

  private async json<T>(path: string, init: RequestInit): Promise<T> {
    const res = await this.request(path, init);
    try {
      return (await res.json()) as T;
    } catch {
      throw new StudioApiError(res.status, 'invalid_response', 'The studio received an unreadable answer.');
    }
  }

  private async request(path: string, init: RequestInit): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set('Authorization', `Bearer ${this.#secret}`);
    let res: Response;
    try {
      res = await fetch(BASE + path, {
        ...init,
        headers,
        cache: 'no-store',
        credentials: 'omit',
        referrerPolicy: 'no-referrer',
      });
    } catch (e) {
      if (init.signal?.aborted) throw e;
      throw new StudioApiError(0, 'network_error', 'The studio could not reach the server.');
    }
    if (res.ok) return res;

    const problem = await readProblem(res);
    const error = new StudioApiError(
      res.status,
      problem?.code ?? `http_${res.status}`,
      problem?.detail ?? problem?.title ?? `The server answered ${res.status}.`,
      problem,
      retryAfterSeconds(res.headers.get('Retry-After'), Date.now()),
    );
    if (error.isSessionEnded && !this.#endedReported) {
      this.#endedReported = true;
      this.onSessionEnded(error.endedReason);
    }
    throw error;
  }
}

async function readProblem(res: Response): Promise<Problem | null> {
  try {
    const body: unknown = await res.json();
    return body && typeof body === 'object' ? body : null;
  } catch {
    return null;
  }
}

/** `Retry-After` as seconds from `now`: delay-seconds or an HTTP date (RFC 9110); null when absent or unreadable. */
export function retryAfterSeconds(value: string | null, now: number): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  // An HTTP date names its weekday and month (`Fri, 27 Nov 2026 10:00:00 GMT`).
  const at = /^[A-Za-z]{3}, /.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}
