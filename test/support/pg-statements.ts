/**
 * Counts the statements clients send to PostgreSQL, read from the frontend protocol as a
 * TcpProxy passes it on: a simple query (`Q`) is one statement, and so is each `Execute` (`E`) of
 * the extended protocol (node-postgres's parameterised queries). Each connection's first message
 * (the startup packet, or an SSL request before it) has no type byte and is skipped.
 */
export class PgStatementCounter {
  count = 0;
  private readonly connections = new Map<number, { buffer: Buffer; started: boolean }>();

  readonly feed = (connection: number, chunk: Buffer): void => {
    let state = this.connections.get(connection);
    if (!state) this.connections.set(connection, (state = { buffer: Buffer.alloc(0), started: false }));
    state.buffer = Buffer.concat([state.buffer, chunk]);
    for (;;) {
      if (!state.started) {
        if (state.buffer.length < 8) return;
        const length = state.buffer.readUInt32BE(0);
        if (state.buffer.length < length) return;
        // An SSL or GSS request (code 80877103 / 80877104) is followed by the real startup packet.
        const code = state.buffer.readUInt32BE(4);
        state.started = code !== 80877103 && code !== 80877104;
        state.buffer = state.buffer.subarray(length);
        continue;
      }
      if (state.buffer.length < 5) return;
      const length = state.buffer.readUInt32BE(1);
      if (state.buffer.length < 1 + length) return;
      const type = String.fromCharCode(state.buffer[0]);
      if (type === 'Q' || type === 'E') this.count++;
      state.buffer = state.buffer.subarray(1 + length);
    }
  };
}
