import { IdPrefix, idPattern } from '@app/core';
import { ApiParam } from '@nestjs/swagger';

/** An example id of `prefix`, as the documents show them. */
export function exampleId(prefix: IdPrefix): string {
  return `${prefix}_01JD3Z8Q4W6K2M9T5X7B1C0VHE`;
}

/**
 * Documents a path id with the pattern its route's ParseIdPipe checks (the same prefix, the same
 * expression from core's ids), so a client can validate an id before sending it; anything else is
 * `400 invalid_id`.
 */
export function ApiIdParam(name: string, prefix: IdPrefix): MethodDecorator {
  return ApiParam({ name, required: true, schema: { type: 'string', pattern: idPattern(prefix), example: exampleId(prefix) } });
}
