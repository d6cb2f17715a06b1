/** `Authorization: Bearer <token>`: the scheme case-insensitive, one token, spaces or tabs around it. */
const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

/** The token of an `Authorization: Bearer …` header, or null when the header is absent or malformed. */
export function bearerToken(header: string | string[] | undefined): string | null {
  if (typeof header !== 'string') return null;
  const m = BEARER.exec(header);
  return m ? m[1] : null;
}
