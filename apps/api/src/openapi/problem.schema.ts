import { API_ERROR_TABLE } from '../api-errors';

/** RFC 9457 problem details as this API writes them (docs/api.md, "Errors"). */
export const PROBLEM_SCHEMA = {
  type: 'object',
  description: 'RFC 9457 problem details. `code` is stable and machine-readable.',
  required: ['type', 'title', 'status', 'code', 'detail', 'requestId'],
  properties: {
    type: {
      type: 'string',
      format: 'uri',
      description:
        '`{PUBLIC_API_URL}/problems/{code}`: a public page (no API key) with the status, title and what to do; JSON with `Accept: application/json`.',
      examples: ['http://localhost:3000/problems/validation_failed'],
    },
    title: { type: 'string', examples: ['Request validation failed'] },
    status: { type: 'integer', examples: [422] },
    code: { type: 'string', enum: API_ERROR_TABLE.codes() },
    detail: { type: 'string' },
    requestId: { type: 'string', description: 'Same value as the X-Request-Id response header.' },
    errors: {
      type: 'array',
      description:
        'Every independent rule the request broke, so all can be fixed at once: the fields of `validation_failed`, and each ' +
        'scene-source rule a `sourceAssetId` image breaks (`source_image_too_small`, `source_image_aspect_ratio`). The top-level ' +
        '`code` is then the first of them. Absent for other problems.',
      items: {
        type: 'object',
        required: ['field', 'code', 'message'],
        properties: {
          field: {
            type: 'string',
            description:
              'The field, as a path into the body or the query parameter: `prompt`, `theme.accentColor`, `document.keyframes[2]`.',
            examples: ['prompt'],
          },
          code: { type: 'string', description: 'A field code (docs/api.md, "Errors") or a problem code.', examples: ['too_long'] },
          message: { type: 'string' },
        },
      },
    },
  },
} as const;
