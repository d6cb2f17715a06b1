import { SseParser, type ServerSentEvent } from './sse.parser';

/** A parser that keeps what it hands out. */
function parser() {
  const events: ServerSentEvent[] = [];
  const comments: string[] = [];
  const sut = new SseParser(
    (event) => events.push(event),
    (text) => comments.push(text),
  );
  return { sut, events, comments };
}

const STREAM = [
  ': connected',
  'id: 7',
  'event: scene.status',
  'data: {"status":"ready",',
  'data: "version":2}',
  '',
  'retry: 3000',
  '',
  'data: plain',
  '',
  '',
].join('\n');

const STREAM_EVENTS: ServerSentEvent[] = [
  { type: 'scene.status', data: '{"status":"ready",\n"version":2}', lastEventId: '7' },
  { type: 'message', data: 'plain', lastEventId: '7' },
];

describe(SseParser.name, () => {
  it('dispatches an event at the blank line that ends it, with its type, data and id', () => {
    const { sut, events } = parser();
    sut.push('id: 1\nevent: edit.updated\ndata: {"turns":[]}\n');
    expect(events).toEqual([]);
    sut.push('\n');
    expect(events).toEqual([{ type: 'edit.updated', data: '{"turns":[]}', lastEventId: '1' }]);
  });

  it('calls an event without `event:` a message, as the HTML standard does', () => {
    const { sut, events } = parser();
    sut.push('data: hello\n\n');
    expect(events).toEqual([{ type: 'message', data: 'hello', lastEventId: null }]);
  });

  it('joins multi-line data with line feeds', () => {
    const { sut, events } = parser();
    sut.push('data: one\ndata: two\ndata\ndata: three\n\n');
    expect(events[0].data).toBe('one\ntwo\n\nthree');
  });

  it('gives the same events however the stream is cut into chunks, whatever its line endings', () => {
    for (const eol of ['\n', '\r\n', '\r']) {
      const stream = STREAM.split('\n').join(eol);
      for (const size of [1, 2, 3, 5, 8, 13]) {
        const { sut, events } = parser();
        for (let i = 0; i < stream.length; i += size) sut.push(stream.slice(i, i + size));
        expect(events).toEqual(STREAM_EVENTS);
      }
    }
  });

  it('accepts CRLF and lone CR line endings as well as LF', () => {
    for (const eol of ['\r\n', '\r', '\n']) {
      const { sut, events } = parser();
      sut.push(STREAM.split('\n').join(eol));
      expect(events).toEqual(STREAM_EVENTS);
    }
  });

  it('treats a CRLF split between two chunks as one line break, not an empty line', () => {
    const { sut, events } = parser();
    sut.push('data: a\r');
    sut.push('\ndata: b\r');
    sut.push('\n\r\n');
    expect(events).toEqual([{ type: 'message', data: 'a\nb', lastEventId: null }]);
  });

  it('passes comments (heartbeats) to their own callback, never as events', () => {
    const { sut, events, comments } = parser();
    sut.push(': heartbeat\n\n:\n\n');
    expect(comments).toEqual([' heartbeat', '']);
    expect(events).toEqual([]);
  });

  it('records the retry hint only when it is a whole number of milliseconds', () => {
    const { sut } = parser();
    expect(sut.retryMs).toBeNull();
    sut.push('retry: 2500\n\n');
    expect(sut.retryMs).toBe(2500);
    sut.push('retry: soon\nretry: 1.5\nretry: -1\n\n');
    expect(sut.retryMs).toBe(2500);
  });

  it('removes one space after the colon, no more', () => {
    const { sut, events } = parser();
    sut.push('data:tight\n\ndata:  spaced\n\n');
    expect(events.map((e) => e.data)).toEqual(['tight', ' spaced']);
  });

  it('keeps the last event id for later events and ignores an id holding NUL', () => {
    const { sut, events } = parser();
    sut.push('id: 4\ndata: a\n\ndata: b\n\nid: 5\0\ndata: c\n\n');
    expect(events.map((e) => e.lastEventId)).toEqual(['4', '4', '4']);
  });

  it('dispatches nothing for a block without data, and forgets its type', () => {
    const { sut, events } = parser();
    sut.push('event: scene.status\nid: 3\n\ndata: after\n\n');
    expect(events).toEqual([{ type: 'message', data: 'after', lastEventId: '3' }]);
  });

  it('ignores fields it does not know', () => {
    const { sut, events } = parser();
    sut.push('colour: blue\ndata: kept\n\n');
    expect(events).toEqual([{ type: 'message', data: 'kept', lastEventId: null }]);
  });

  it('holds back an event whose closing blank line has not arrived', () => {
    const { sut, events } = parser();
    sut.push('data: partial\ndata: still');
    expect(events).toEqual([]);
    sut.push(' coming\n\n');
    expect(events).toEqual([{ type: 'message', data: 'partial\nstill coming', lastEventId: null }]);
  });
});
