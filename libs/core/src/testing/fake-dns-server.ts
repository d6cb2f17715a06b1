import ipaddr from 'ipaddr.js';
import { createSocket, RemoteInfo, Socket } from 'node:dgram';

/**
 * How the fake answers one question: addresses (A and AAAA records, by family; a family without
 * any is an empty NOERROR answer, which resolvers call ENODATA), `nxdomain`, `servfail`, or
 * `silence` (the query is read and never answered, as a dead or firewalled server does).
 */
export type FakeDnsAnswer = { addresses: string[] } | 'nxdomain' | 'servfail' | 'silence';

export interface FakeDnsQuery {
  name: string;
  /** `A`, `AAAA`, or the numeric type of anything else. */
  type: string;
  at: number;
}

const TYPES: Record<number, string> = { 1: 'A', 28: 'AAAA' };

/**
 * A DNS server on 127.0.0.1 (UDP) for tests of outbound name resolution: it records every query
 * and answers as `answer` decides, so a test can make a name resolve to a private address, fail,
 * or never answer. Point OUTBOUND_DNS_SERVERS (or a HostResolver) at `server`. Only what a stub
 * resolver needs is spoken: one question, answers by compression pointer, no EDNS.
 */
export class FakeDnsServer {
  answer: (name: string, type: string) => FakeDnsAnswer = () => 'nxdomain';
  readonly queries: FakeDnsQuery[] = [];

  private constructor(private readonly socket: Socket) {
    socket.on('message', (message, peer) => this.reply(message, peer));
  }

  static async start(): Promise<FakeDnsServer> {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    return new FakeDnsServer(socket);
  }

  /** `127.0.0.1:<port>`, as OUTBOUND_DNS_SERVERS takes it. */
  get server(): string {
    return `127.0.0.1:${this.socket.address().port}`;
  }

  /** The queries for `name` (any type). */
  queriesFor(name: string): FakeDnsQuery[] {
    return this.queries.filter((q) => q.name === name.toLowerCase());
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }

  private reply(query: Buffer, peer: RemoteInfo): void {
    const question = parseQuestion(query);
    if (!question) return;
    const type = TYPES[question.type] ?? String(question.type);
    this.queries.push({ name: question.name, type, at: Date.now() });
    const answer = this.answer(question.name, type);
    if (answer === 'silence') return;
    const rcode = answer === 'nxdomain' ? 3 : answer === 'servfail' ? 2 : 0;
    const records = typeof answer === 'object' ? answer.addresses.filter((a) => familyType(a) === question.type) : [];
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2); // the id
    // QR, the query's RD, RA, and the rcode.
    header.writeUInt16BE(0x8080 | (query.readUInt16BE(2) & 0x0100) | rcode, 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(records.length, 6);
    const answers = records.map((address) => {
      const rdata = Buffer.from(ipaddr.parse(address).toByteArray());
      const rr = Buffer.alloc(12);
      rr.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
      rr.writeUInt16BE(question.type, 2);
      rr.writeUInt16BE(1, 4); // IN
      rr.writeUInt32BE(60, 6); // TTL
      rr.writeUInt16BE(rdata.length, 10);
      return Buffer.concat([rr, rdata]);
    });
    this.socket.send(Buffer.concat([header, query.subarray(12, question.end), ...answers]), peer.port, peer.address);
  }
}

function familyType(address: string): number {
  return ipaddr.parse(address).kind() === 'ipv6' ? 28 : 1;
}

/** The first question of a query: its name (lower case, no trailing dot), type and where it ends. */
function parseQuestion(message: Buffer): { name: string; type: number; end: number } | null {
  if (message.length < 17 || message.readUInt16BE(4) < 1) return null;
  const labels: string[] = [];
  let at = 12;
  while (at < message.length && message[at] !== 0) {
    const length = message[at];
    if (length > 63 || at + 1 + length > message.length) return null;
    labels.push(message.toString('latin1', at + 1, at + 1 + length));
    at += 1 + length;
  }
  if (at + 5 > message.length) return null;
  return { name: labels.join('.').toLowerCase(), type: message.readUInt16BE(at + 1), end: at + 5 };
}
