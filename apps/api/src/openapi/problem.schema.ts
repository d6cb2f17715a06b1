import { API_ERROR_TABLE } from '../api-errors';

/** RFC 9457 problem details as this API writes them (docs/api.md, "Errors"). */
export const PROBLEM_SCHEMA = {
  type: 'object',
  description: 'RFC 9457 problem details. `code` is stable and machine-readable.',
  required: ['type', 'title', 'status', 'code', 'detail', 'requestId'],
  properties: {
    type: { type: 'string', format: 'uri', examples: ['http://localhost:3000/problems/validation_failed'] },
    title: { type: 'string', examples: ['Request validation failed'] },
    status: { type: 'integer', examples: [422] },
    code: { type: 'string', enum: API_ERROR_TABLE.codes() },
    detail: { type: 'string' },
    requestId: { type: 'string', description: 'Same value as the X-Request-Id response header.' },
    errors: {
      type: 'array',
      description: 'Present for field problems (`validation_failed`).',
      items: {
        type: 'object',
        required: ['field', 'code', 'message'],
        properties: {
          field: { type: 'string', examples: ['prompt'] },
          code: { type: 'string', examples: ['too_long'] },
          message: { type: 'string' },
        },
      },
    },
  },
} as const;
