import { ConfigError } from '@app/core/config';
import { DomainError } from '@app/core/errors';

/** Every command's options carry `--json`. */
export type Json = { json?: boolean };

/** Writes to stdout and resolves once the bytes are handed to the OS (before process.exit). */
export function write(text: string): Promise<void> {
  return new Promise((resolve) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`, () => resolve()));
}

export function printResult(json: boolean, value: Record<string, unknown>, human: string): Promise<void> {
  return write(json ? JSON.stringify(value) : human);
}

/** A command line commander refused (an unknown option, a missing required one). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The stable code and the message of a failure: what `--json` prints as `{"error": …}`. */
function describe(e: unknown): { code: string; message: string } {
  if (e instanceof DomainError) {
    return { code: e.code, message: [e.message, ...(e.errors ?? []).map((f) => `${f.field}: ${f.message}`)].join(' ') };
  }
  // Its problems name the variables, never their values.
  if (e instanceof ConfigError) return { code: 'invalid_configuration', message: `Invalid configuration: ${e.problems.join('; ')}` };
  if (e instanceof UsageError) return { code: 'usage', message: e.message };
  return { code: 'error', message: e instanceof Error ? e.message : String(e) };
}

/** With `--json` the failure is the one JSON object on stdout; otherwise a line on stderr. */
export function printError(json: boolean, e: unknown): Promise<void> {
  const { code, message } = describe(e);
  if (json) return write(JSON.stringify({ error: { code, message } }));
  return new Promise((resolve) => process.stderr.write(`error: ${message}\n`, () => resolve()));
}
