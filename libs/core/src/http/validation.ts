import { ArgumentMetadata, Injectable, ValidationError, ValidationPipe } from '@nestjs/common';
import type { ValidatorOptions } from 'class-validator';
import { DomainError, ErrorCode, FieldError } from '../errors';

/** class-validator constraint names mapped to the stable field codes partners see. */
const FIELD_CODES: Record<string, string> = {
  whitelistValidation: 'unknown_field',
  isDefined: 'required',
  isNotEmpty: 'required',
  minLength: 'too_short',
  maxLength: 'too_long',
  isLength: 'invalid_length',
  min: 'too_small',
  max: 'too_large',
  isInt: 'invalid_type',
  isString: 'invalid_type',
  isBoolean: 'invalid_type',
  isObject: 'invalid_type',
  nestedValidation: 'invalid_type',
  isIn: 'invalid_value',
  isEnum: 'invalid_value',
  matches: 'invalid_format',
  isHexColor: 'invalid_format',
};

/**
 * The most entries a `validation_failed` problem lists: a body of thousands of bad array items
 * (a camera path's samples) would otherwise answer megabytes of errors.
 */
export const MAX_FIELD_ERRORS = 100;

/** Where a rule broke: `theme.accentColor`, and array items by index, `document.keyframes[2].quaternion`. */
export function fieldPath(parent: string, property: string): string {
  if (/^\d+$/.test(property)) return `${parent}[${property}]`;
  return parent ? `${parent}.${property}` : property;
}

export function toFieldErrors(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((e) => {
    // class-validator names an item of a nested array by its index (`ValidateNested({ each: true })`).
    const field = fieldPath(parent, e.property);
    const own = Object.entries(e.constraints ?? {}).map(([constraint, message]) => ({
      field,
      // A validator may name its own code through `context: { code }`.
      code: (e.contexts?.[constraint] as { code?: string } | undefined)?.code ?? FIELD_CODES[constraint] ?? 'invalid',
      message: constraint === 'whitelistValidation' ? `${field} is not a known field` : message,
    }));
    return [...own, ...toFieldErrors(e.children ?? [], field)];
  });
}

/** How every DTO is validated: unknown fields refused at every level, every rule reported, no values echoed. */
export const DTO_VALIDATION: ValidatorOptions = {
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: true,
  stopAtFirstError: false,
  validationError: { target: false, value: false },
};

/**
 * Validates DTOs at the edge: unknown fields refused, values transformed to their declared types.
 * A body that is not a JSON object is `invalid_json` before any field rule is looked at.
 */
@Injectable()
export class DomainValidationPipe extends ValidationPipe {
  constructor() {
    super({
      ...DTO_VALIDATION,
      transform: true,
      exceptionFactory: (errors) => DomainError.validation(toFieldErrors(errors).slice(0, MAX_FIELD_ERRORS)),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && metadata.metatype && metadata.metatype !== Object) {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        throw new DomainError(ErrorCode.InvalidJson, 'The request body must be a JSON object.');
      }
    }
    return super.transform(value, metadata);
  }
}
