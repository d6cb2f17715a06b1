import { DomainError, ErrorCode } from '@app/core';

export type EndedReason = 'expired' | 'revoked';

export const EmbedSessionErrors = {
  originNotAllowed: () =>
    new DomainError(
      ErrorCode.OriginNotAllowed,
      'This origin is not approved for the organization. Live organizations may use their approved HTTPS origins; test organizations also exact http://localhost:<port> origins.',
    ),
  /** For the studio: the secret is unknown or malformed. */
  unauthenticated: () => new DomainError(ErrorCode.Unauthenticated, 'This studio session is not valid.'),
  /** For the studio: a known secret of a session that ended (only its holder learns why). */
  ended: (reason: EndedReason) => new DomainError(ErrorCode.SessionEnded, 'This studio session has ended.', { extensions: { reason } }),
  forbidden: () => new DomainError(ErrorCode.Forbidden, "This session's mode does not allow this action."),
};
