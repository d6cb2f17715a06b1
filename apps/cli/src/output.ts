import { DomainError } from '@app/core';

/** Writes to stdout and resolves once the bytes are handed to the OS (before process.exit). */
export function write(text: string): Promise<void> {
  return new Promise((resolve) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`, () => resolve()));
}

export function printResult(json: boolean, value: Record<string, unknown>, human: string): Promise<void> {
  return write(json ? JSON.stringify(value) : human);
}

export function printError(json: boolean, e: unknown): Promise<void> {
  const code = e instanceof DomainError ? e.code : 'error';
  const message =
    e instanceof DomainError
      ? [e.message, ...(e.errors ?? []).map((f) => `${f.field}: ${f.message}`)].join(' ')
      : e instanceof Error
        ? e.message
        : String(e);
  if (json) return write(JSON.stringify({ error: { code, message } }));
  return new Promise((resolve) => process.stderr.write(`error: ${message}\n`, () => resolve()));
}
