import { createSocket } from 'node:dgram';
import type { TestContext } from 'node:test';

/**
 * A tiny authoritative DNS server on 127.0.0.1 (UDP, a random port) for tests of DNS checks:
 * it answers TXT questions from `records` (name → the TXT strings, one record each; changed by the
 * test at will) and NXDOMAIN for everything else. Point the app at it with
 * `DNS_SERVERS: dns.server`. Never a public resolver in tests. Stopped when the test ends.
 */
export async function dnsServer(t: TestContext) {
  const records = new Map<string, string[]>();
  const questions: string[] = [];
  const socket = createSocket('udp4');
  socket.on('message', (query, peer) => {
    const answer = respond(query, records, questions);
    if (answer) socket.send(answer, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => socket.close(() => resolve())));
  return {
    /** For DNS_SERVERS: `127.0.0.1:<port>`. */
    server: `127.0.0.1:${socket.address().port}`,
    /** Sets (or, with no values, removes) the TXT records of `name`. */
    txt(name: string, ...values: string[]) {
      if (values.length === 0) records.delete(name.toLowerCase());
      else records.set(name.toLowerCase(), values);
    },
    /** Every name asked about, in order (lower case). */
    questions,
  };
}

const TXT = 16;

function respond(query: Buffer, records: Map<string, string[]>, questions: string[]): Buffer | undefined {
  if (query.length < 12) return undefined;
  // The question's name: labels up to the zero byte.
  const labels: string[] = [];
  let at = 12;
  while (at < query.length && query[at] !== 0) {
    const length = query[at]!;
    labels.push(query.subarray(at + 1, at + 1 + length).toString('latin1'));
    at += 1 + length;
  }
  const questionEnd = at + 5; // the zero byte, type and class
  if (questionEnd > query.length) return undefined;
  const type = query.readUInt16BE(at + 1);
  const name = labels.join('.').toLowerCase();
  questions.push(name);
  const values = type === TXT ? records.get(name) : undefined;
  const answers = (values ?? []).map((value) => {
    const chunks: Buffer[] = [];
    const bytes = Buffer.from(value, 'utf8');
    for (let i = 0; i < bytes.length || i === 0; i += 255) {
      const chunk = bytes.subarray(i, i + 255);
      chunks.push(Buffer.from([chunk.length]), chunk);
    }
    const rdata = Buffer.concat(chunks);
    const head = Buffer.alloc(12);
    head.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    head.writeUInt16BE(TXT, 2);
    head.writeUInt16BE(1, 4); // IN
    head.writeUInt32BE(60, 6); // TTL
    head.writeUInt16BE(rdata.length, 10);
    return Buffer.concat([head, rdata]);
  });
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2); // the id
  const known = records.has(name);
  // QR, AA, RD echoed, RA; NXDOMAIN for a name we have nothing for.
  header.writeUInt16BE(0x8580 | (query.readUInt16BE(2) & 0x0100) | (known ? 0 : 3), 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(answers.length, 6);
  return Buffer.concat([header, query.subarray(12, questionEnd), ...answers]);
}
