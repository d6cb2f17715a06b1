/**
 * Runs first (main.ts imports it before anything else): the embed URL's fragment is the
 * session's bearer secret, so it leaves the address bar before any other code runs or any
 * request is made — it must not survive in history, bookmarks, or a copied address.
 */
const fragment = location.hash.startsWith('#') ? location.hash.slice(1) : '';
if (location.href.includes('#')) {
  history.replaceState(null, '', location.pathname + location.search);
}

let pending: string | null = fragment.length > 0 ? fragment : null;

/**
 * Hands the secret over once; later calls get null. The API client is then the only holder,
 * so nothing else (the debug hook, the parent bridge) can reach it by accident.
 */
export function takeSessionSecret(): string | null {
  const secret = pending;
  pending = null;
  return secret;
}

/** `/embed/{embedSessionId}` → the id; null for any other path. */
export function embedSessionIdFromPath(pathname: string = location.pathname): string | null {
  const match = /\/embed\/([^/]+)\/?$/.exec(pathname);
  return match ? decodeURIComponent(match[1]) : null;
}
