import { DomainError, ErrorCode, ErrorDeclarations } from '@app/core';

/** The embed sessions' own codes (docs/api.md, "Errors"; the studio's: docs/embed.md). */
export enum EmbedSessionErrorCode {
  OriginNotAllowed = 'origin_not_allowed',
  SessionEnded = 'session_ended',
}

/** What each answers over HTTP; the HTTP apps assemble it (CoreModule.forRoot({ errors })). */
export const EMBED_SESSION_ERRORS: ErrorDeclarations<EmbedSessionErrorCode> = {
  [EmbedSessionErrorCode.OriginNotAllowed]: {
    status: 422,
    title: 'Origin not allowed',
    action:
      "Use one of the organization's approved origins exactly (scheme, host and port), or have an operator approve this one; test organizations may also use `http://localhost:<port>`.",
  },
  // A spent credential: the studio asks for a new session, as for a missing one.
  [EmbedSessionErrorCode.SessionEnded]: {
    status: 401,
    title: 'Session ended',
    action: 'Create a new embed session from your backend and load its URL; `reason` says whether the session expired or was revoked.',
    challenge: true,
  },
};

export type EndedReason = 'expired' | 'revoked';

export const EmbedSessionErrors = {
  originNotAllowed: () =>
    new DomainError(
      EmbedSessionErrorCode.OriginNotAllowed,
      'This origin is not approved for the organization. Live organizations may use their approved HTTPS origins; test organizations also exact http://localhost:<port> origins.',
    ),
  /** For the studio: the secret is unknown or malformed. */
  unauthenticated: () => new DomainError(ErrorCode.Unauthenticated, 'This studio session is not valid.'),
  /** For the studio: a known secret of a session that ended (only its holder learns why). */
  ended: (reason: EndedReason) =>
    new DomainError(EmbedSessionErrorCode.SessionEnded, 'This studio session has ended.', { extensions: { reason } }),
  forbidden: () => new DomainError(ErrorCode.Forbidden, "This session's mode does not allow this action."),
};
