/**
 * What one organization's webhooks may take of the shared fleet (docs/api.md, "Webhooks"): every
 * event fans out to each subscribed endpoint, and every delivery is a signed POST the workers
 * send, so the number of endpoints is bounded.
 */
export const WEBHOOK_LIMITS = {
  /** Live (not deleted) endpoints of one organization, enabled or not; the next is `409 limit_exceeded`. */
  endpointsPerOrganization: 20,
  /** Page sizes of the lists (`limit`). */
  page: { default: 50, max: 100 },
} as const;
