import { ArgumentMetadata, Injectable, ValidationError, ValidationPipe } from '@nestjs/common';
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

export function toFieldErrors(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((e) => {
    const field = parent ? `${parent}.${e.property}` : e.property;
    const own = Object.entries(e.constraints ?? {}).map(([constraint, message]) => ({
      field,
      // A validator may name its own code through `context: { code }`.
      code: (e.contexts?.[constraint] as { code?: string } | undefined)?.code ?? FIELD_CODES[constraint] ?? 'invalid',
      message: constraint === 'whitelistValidation' ? `${field} is not a known field` : message,
    }));
    return [...own, ...toFieldErrors(e.children ?? [], field)];
  });
}

/**
 * Validates DTOs at the edge: unknown fields refused, values transformed to their declared types.
 * A body that is not a JSON object is `invalid_json` before any field rule is looked at.
 */
@Injectable()
export class DomainValidationPipe extends ValidationPipe {
  constructor() {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      transform: true,
      stopAtFirstError: false,
      validationError: { target: false, value: false },
      exceptionFactory: (errors) => DomainError.validation(toFieldErrors(errors)),
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
