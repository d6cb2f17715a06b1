/** What the index needs of a stream: whose session it is, and which scene that session shows. */
export interface Indexed {
  sessionId: string;
  sceneId: string;
}

const NONE: ReadonlySet<never> = new Set();

/**
 * The open streams of one studio process, by session and by scene, so that news of one session or
 * one scene costs work in proportion to the streams it concerns, never to all of them.
 */
export class OpenStreams<S extends Indexed> {
  private readonly sessions = new Map<string, Set<S>>();
  private readonly scenes = new Map<string, Set<S>>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Sessions with an open stream here. */
  get sessionCount(): number {
    return this.sessions.size;
  }

  add(stream: S): void {
    if (!addTo(this.sessions, stream.sessionId, stream)) return;
    addTo(this.scenes, stream.sceneId, stream);
    this.count += 1;
  }

  /** Whether it was indexed; and whether it was its session's last stream here. */
  delete(stream: S): { removed: boolean; sessionEmpty: boolean } {
    if (!removeFrom(this.sessions, stream.sessionId, stream)) return { removed: false, sessionEmpty: false };
    removeFrom(this.scenes, stream.sceneId, stream);
    this.count -= 1;
    return { removed: true, sessionEmpty: !this.sessions.has(stream.sessionId) };
  }

  has(stream: S): boolean {
    return this.sessions.get(stream.sessionId)?.has(stream) ?? false;
  }

  ofSession(sessionId: string): ReadonlySet<S> {
    return this.sessions.get(sessionId) ?? NONE;
  }

  ofScene(sceneId: string): ReadonlySet<S> {
    return this.scenes.get(sceneId) ?? NONE;
  }

  hasScene(sceneId: string): boolean {
    return this.scenes.has(sceneId);
  }

  sessionIds(): string[] {
    return [...this.sessions.keys()];
  }

  all(): S[] {
    const out: S[] = [];
    for (const streams of this.sessions.values()) out.push(...streams);
    return out;
  }
}

function addTo<S>(map: Map<string, Set<S>>, key: string, stream: S): boolean {
  let set = map.get(key);
  if (!set) {
    set = new Set();
    map.set(key, set);
  }
  if (set.has(stream)) return false;
  set.add(stream);
  return true;
}

function removeFrom<S>(map: Map<string, Set<S>>, key: string, stream: S): boolean {
  const set = map.get(key);
  if (!set?.delete(stream)) return false;
  if (set.size === 0) map.delete(key);
  return true;
}
