import type { ApiErrorCode } from '@apps/api/api-errors';
import type { StudioErrorCode } from '@apps/studio/studio-errors';
import type { Response } from 'supertest';

/** Asserts a response is an RFC 9457 problem (docs/api.md, "Errors") with this status and code. */
export function expectProblem(
  res: Response,
  status: number,
  code: ApiErrorCode | StudioErrorCode | `${ApiErrorCode | StudioErrorCode}`,
): void {
  if (res.status !== status || res.body?.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${res.status} ${JSON.stringify(res.body)}`);
  }
  expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  expect(res.headers['x-request-id']).toBeTruthy();
  expect(res.body).toMatchObject({
    type: expect.stringMatching(new RegExp(`/problems/${code}$`)),
    title: expect.any(String),
    status,
    code,
    detail: expect.any(String),
    requestId: res.headers['x-request-id'],
  });
}
