import { EventEmitter } from 'node:events';
import type pino from 'pino';
import { BufferedLogDestination, LOG_FLUSH_INTERVAL_MS } from './logging.module';

/**
 * sonic-boom as it behaves with a minimum length: lines wait in a buffer; `flush` starts one
 * asynchronous write of all of it, unless a write is already under way (then it does nothing);
 * a finished write emits `write` with its byte count.
 */
class FakeSonicBoom extends EventEmitter {
  buffered = '';
  inWrite: string | null = null;
  file = '';

  write(line: string): boolean {
    this.buffered += line;
    return true;
  }

  flush(): void {
    if (this.inWrite !== null) return;
    this.inWrite = this.buffered;
    this.buffered = '';
  }

  flushSync(): void {
    this.file += this.buffered;
    this.buffered = '';
  }

  /** The write under way reaches the file. */
  finishWrite(): void {
    const data = this.inWrite ?? '';
    this.inWrite = null;
    this.file += data;
    this.emit('write', Buffer.byteLength(data));
  }
}

describe(BufferedLogDestination.name, () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function setUp() {
    const out = new FakeSonicBoom();
    const sut = new BufferedLogDestination(out as unknown as ReturnType<typeof pino.destination>);
    return { out, sut };
  }

  it('writes a line within one interval', () => {
    const { out, sut } = setUp();
    sut.write('{"msg":"one"}\n');
    jest.advanceTimersByTime(LOG_FLUSH_INTERVAL_MS);
    out.finishWrite();
    expect(out.file).toBe('{"msg":"one"}\n');
  });

  it('writes a line that came while a write was under way, though nothing is logged after it', () => {
    const { out, sut } = setUp();
    sut.write('{"msg":"boot"}\n');
    jest.advanceTimersByTime(LOG_FLUSH_INTERVAL_MS);
    // The write of "boot" is still under way when "listening" comes and the next flush is due.
    sut.write('{"msg":"listening"}\n');
    jest.advanceTimersByTime(LOG_FLUSH_INTERVAL_MS);
    out.finishWrite();
    // A quiet process: no further line. The next interval still writes "listening".
    jest.advanceTimersByTime(LOG_FLUSH_INTERVAL_MS);
    out.finishWrite();
    expect(out.file).toBe('{"msg":"boot"}\n{"msg":"listening"}\n');
  });

  it('does not flush when everything was written', () => {
    const { out, sut } = setUp();
    sut.write('{"msg":"é"}\n');
    jest.advanceTimersByTime(LOG_FLUSH_INTERVAL_MS);
    out.finishWrite();
    const flush = jest.spyOn(out, 'flush');
    jest.advanceTimersByTime(10 * LOG_FLUSH_INTERVAL_MS);
    expect(flush).not.toHaveBeenCalled();
  });

  it('writes through once asked to', () => {
    const { out, sut } = setUp();
    sut.write('{"msg":"before"}\n');
    sut.writeThrough();
    sut.write('{"msg":"after"}\n');
    expect(out.file).toBe('{"msg":"before"}\n{"msg":"after"}\n');
  });
});
