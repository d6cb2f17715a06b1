import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import { Counter, Registry } from 'prom-client';
import { ProcessStops, ProcessStopsDependencies, STOP_MARGIN_MS } from './process-stops';

const TIMEOUT_MS = 25_000;

/** Lets the stop's promise chain run as far as it can. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

function setUp() {
  const events: string[] = [];
  const proc = Object.assign(new EventEmitter(), {
    pid: 4242,
    exitCode: undefined as number | string | null | undefined,
    kill: jest.fn((_pid: number, signal: string) => events.push(`kill ${signal}`)),
    exit: jest.fn((code: number) => events.push(`exit ${code}`)),
  });
  let finishClose: () => void = () => undefined;
  let failClose: (e: Error) => void = () => undefined;
  const app = {
    close: jest.fn(
      (reason?: string) =>
        new Promise<void>((resolve, reject) => {
          events.push(`close app (${reason})`);
          finishClose = () => {
            events.push('app closed');
            resolve();
          };
          failClose = reject;
        }),
    ),
  };
  const lines: Array<{ level: string; fields: Record<string, unknown>; msg: string }> = [];
  const log = (level: string) => (fields: Record<string, unknown>, msg: string) => lines.push({ level, fields, msg });
  const logger = { fatal: log('fatal'), error: log('error'), info: log('info') } as unknown as ProcessStopsDependencies['logger'];
  const registry = new Registry();
  const fatalErrors = new Counter({ name: 'process_fatal_errors_total', help: 'h', labelNames: ['kind'] as const, registers: [registry] });
  const ops = {
    close: jest.fn((done: () => void) => {
      events.push('close ops');
      done();
    }),
    closeIdleConnections: jest.fn(),
  };
  const sut = new ProcessStops({ app, logger, fatalErrors, shutdownTimeoutMs: TIMEOUT_MS, proc }).install();
  sut.closeLast(ops as unknown as Server);
  const count = async (kind: string) => (await fatalErrors.get()).values.find((v) => v.labels.kind === kind)?.value;
  return { sut, proc, app, lines, events, count, finishClose: () => finishClose(), failClose: (e: Error) => failClose(e) };
}

describe(ProcessStops.name, () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('counts both kinds from zero, before anything happened', async () => {
    const { count } = setUp();
    expect(await count('uncaughtException')).toBe(0);
    expect(await count('unhandledRejection')).toBe(0);
  });

  it('an uncaught exception: one fatal line, counted, the app closed, then the ops server, then exit 1', async () => {
    const { proc, lines, events, count, finishClose } = setUp();
    const error = new TypeError('Cannot read properties of undefined');
    proc.emit('uncaughtException', error, 'uncaughtException');
    await settle();

    expect(lines).toEqual([
      {
        level: 'fatal',
        fields: { kind: 'uncaughtException', err: error },
        msg: 'uncaughtException: a programming error; the process stops and exits 1',
      },
    ]);
    expect(await count('uncaughtException')).toBe(1);
    expect(proc.exitCode).toBe(1);
    // Still draining: nothing has exited, the ops server still answers.
    expect(events).toEqual(['close app (uncaughtException)']);

    finishClose();
    await settle();
    expect(events).toEqual(['close app (uncaughtException)', 'app closed', 'close ops', 'exit 1']);
  });

  it('an unhandled rejection with a non-error value: logged by its type, counted by its kind', async () => {
    const { proc, lines, count, finishClose, events } = setUp();
    proc.emit('unhandledRejection', { apiKey: 'sk_live_secret' }, Promise.resolve());
    proc.emit('unhandledRejection', 'plain text', Promise.resolve());
    finishClose();
    await settle();

    expect(lines.map((l) => l.fields.err)).toEqual([
      { name: 'non-error Object', message: 'a value of type Object' },
      { name: 'non-error string', message: 'plain text' },
    ]);
    expect(JSON.stringify(lines)).not.toContain('sk_live_secret');
    expect(await count('unhandledRejection')).toBe(2);
    expect(events.filter((e) => e.startsWith('close app') || e.startsWith('exit'))).toEqual(['close app (unhandledRejection)', 'exit 1']);
  });

  it('a second fatal error during the drain is logged and counted, and starts no second stop', async () => {
    const { proc, app, lines, count, finishClose, events } = setUp();
    proc.emit('uncaughtException', new Error('first'), 'uncaughtException');
    await settle();
    proc.emit('unhandledRejection', new Error('second'), Promise.resolve());
    proc.emit('SIGTERM', 'SIGTERM');
    await settle();

    expect(app.close).toHaveBeenCalledTimes(1);
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      ['fatal', 'uncaughtException: a programming error; the process stops and exits 1'],
      ['fatal', 'unhandledRejection while stopping (uncaughtException); the stop goes on'],
      ['info', 'received SIGTERM while stopping (uncaughtException); the stop goes on'],
    ]);
    expect(await count('uncaughtException')).toBe(1);
    expect(await count('unhandledRejection')).toBe(1);
    finishClose();
    await settle();
    expect(events.filter((e) => e.startsWith('exit') || e.startsWith('kill'))).toEqual(['exit 1']);
  });

  it('exits 1 at SHUTDOWN_TIMEOUT + the margin when the stop hangs, not before', async () => {
    const { proc, lines, events } = setUp();
    proc.emit('uncaughtException', new Error('boom'), 'uncaughtException');
    await settle();

    jest.advanceTimersByTime(TIMEOUT_MS + STOP_MARGIN_MS - 1);
    expect(proc.exit).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(events).toEqual(['close app (uncaughtException)', 'exit 1']);
    expect(lines.at(-1)).toMatchObject({
      level: 'error',
      msg: `still stopping ${TIMEOUT_MS + STOP_MARGIN_MS} ms after uncaughtException; exiting now`,
    });
  });

  it('keeps nothing alive with its deadline', async () => {
    const { proc } = setUp();
    const timers = jest.spyOn(global, 'setTimeout');
    proc.emit('uncaughtException', new Error('boom'), 'uncaughtException');
    await settle();
    expect((timers.mock.results[0].value as NodeJS.Timeout).hasRef()).toBe(false);
  });

  it('exits 1 when closing fails', async () => {
    const { proc, lines, events, failClose } = setUp();
    proc.emit('uncaughtException', new Error('boom'), 'uncaughtException');
    await settle();
    failClose(new Error('pool already ended'));
    await settle();
    expect(events).toEqual(['close app (uncaughtException)', 'exit 1']);
    expect(lines.at(-1)).toMatchObject({ level: 'error', msg: 'stopping after uncaughtException failed; exiting now' });
  });

  describe('a stop signal', () => {
    it('closes the app with the signal, then the ops server, then re-raises the signal without its listener', async () => {
      const { proc, app, events, finishClose } = setUp();
      proc.emit('SIGTERM', 'SIGTERM');
      await settle();
      proc.emit('SIGINT', 'SIGINT');
      finishClose();
      await settle();

      expect(app.close).toHaveBeenCalledTimes(1);
      expect(events).toEqual(['close app (SIGTERM)', 'app closed', 'close ops', 'kill SIGTERM']);
      expect(proc.kill).toHaveBeenCalledWith(4242, 'SIGTERM');
      expect(proc.listenerCount('SIGTERM')).toBe(0);
      expect(proc.exitCode).toBeUndefined();
    });

    it('ends in exit 1 when a fatal error happened while it drained', async () => {
      const { proc, lines, count, events, finishClose } = setUp();
      proc.emit('SIGTERM', 'SIGTERM');
      await settle();
      proc.emit('uncaughtException', new Error('late'), 'uncaughtException');
      finishClose();
      await settle();

      expect(lines.map((l) => l.msg)).toContain('uncaughtException while stopping (SIGTERM); the stop goes on');
      expect(await count('uncaughtException')).toBe(1);
      expect(events).toEqual(['close app (SIGTERM)', 'app closed', 'close ops', 'exit 1']);
    });
  });

  it('closes at once an ops server handed over while stopping', async () => {
    const { sut, proc } = setUp();
    proc.emit('SIGTERM', 'SIGTERM');
    await settle();
    const late = { close: jest.fn() };
    sut.closeLast(late as unknown as Server);
    expect(late.close).toHaveBeenCalled();
  });
});
