/**
 * A supertest parser (`.buffer(true).parse(binaryBody)`) that keeps an answer as the bytes it
 * was, whatever its content type: images, splats, event streams.
 */
export function binaryBody(
  res: { on(event: string, listener: (chunk?: Buffer) => void): unknown },
  done: (err: Error | null, body: Buffer) => void,
): void {
  const chunks: Buffer[] = [];
  res.on('data', (c) => chunks.push(c!));
  res.on('end', () => done(null, Buffer.concat(chunks)));
}
