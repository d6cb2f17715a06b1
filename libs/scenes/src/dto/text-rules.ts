import { ValidateBy, ValidationOptions } from 'class-validator';

/** Length in Unicode code points, as the contract counts prompt characters. */
export const codePoints = (s: string): number => [...s].length;

// NUL cannot be stored in PostgreSQL text; other C0 controls have no place in these fields.
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

/** Between `min` and `max` code points: `too_short` or `too_long` when not. */
export function CodePointLength(min: number, max: number): PropertyDecorator {
  const atLeast = ValidateBy(
    {
      name: 'minCodePoints',
      validator: {
        validate: (v: unknown) => typeof v !== 'string' || codePoints(v) >= min,
        defaultMessage: (a) => `${a?.property} must be at least ${min} character${min === 1 ? '' : 's'} long`,
      },
    },
    { context: { code: 'too_short' } },
  );
  const atMost = ValidateBy(
    {
      name: 'maxCodePoints',
      validator: {
        validate: (v: unknown) => typeof v !== 'string' || codePoints(v) <= max,
        defaultMessage: (a) => `${a?.property} must be at most ${max} characters long`,
      },
    },
    { context: { code: 'too_long' } },
  );
  return (target, key) => {
    atLeast(target, key);
    atMost(target, key);
  };
}

export function NotBlank(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'notBlank',
      validator: {
        validate: (v: unknown) => typeof v !== 'string' || v.length === 0 || v.trim().length > 0,
        defaultMessage: (a) => `${a?.property} must contain more than whitespace`,
      },
    },
    { ...options, context: { code: 'blank' } },
  );
}

export function NoControlCharacters(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'noControlCharacters',
      validator: {
        validate: (v: unknown) => typeof v !== 'string' || !CONTROL.test(v),
        defaultMessage: (a) => `${a?.property} must not contain control characters`,
      },
    },
    { ...options, context: { code: 'invalid_characters' } },
  );
}

/** An e-mail address anywhere in the value: externalRef must be an internal record id, never personal data. */
const EMAIL_LIKE = /[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:"]+/;

export function NotEmailLike(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'notEmailLike',
      validator: {
        validate: (v: unknown) => typeof v !== 'string' || !EMAIL_LIKE.test(v),
        defaultMessage: (a) => `${a?.property} looks like an e-mail address; use an internal record id, never personal data`,
      },
    },
    { ...options, context: { code: 'looks_like_email' } },
  );
}
