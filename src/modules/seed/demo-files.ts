/**
 * The demo shop's files, made on the spot so nothing binary is committed: a short e-book (a valid
 * one-page PDF) and a small program that checks its own licence through the shop's licence API.
 */
export interface DemoFile {
  name: string;
  contentType: string;
  bytes: Buffer;
}

/** Text for a PDF string literal: backslashes and parentheses escaped, ASCII only. */
function pdfText(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?').replace(/[\\()]/g, (c) => `\\${c}`);
}

/** A one-page PDF with a title and lines of text, its cross-reference table computed from the bytes. */
export function demoEbook(): DemoFile {
  const lines = [
    'Thank you for buying this demo e-book from the shopd demo shop.',
    'It is a real PDF file: the download link on your order page served it,',
    'counted it against the limit and logged it for the shop owner.',
    '',
    'Chapter 1. Digital goods, delivered properly',
    'A file product keeps its bytes private until an order is paid. Each order',
    'gets signed links that expire and count down, and a refund ends them.',
  ];
  const content = [
    'BT /F1 22 Tf 72 760 Td (The Little Book of Digital Delivery) Tj ET',
    ...lines.map((line, i) => `BT /F1 12 Tf 72 ${720 - i * 18} Td (${pdfText(line)}) Tj ET`),
  ].join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`,
  ];
  let pdf = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(pdf, 'latin1'));
    pdf += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(pdf, 'latin1');
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  pdf += offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return {
    name: 'little-book-of-digital-delivery.pdf',
    contentType: 'application/pdf',
    bytes: Buffer.from(pdf, 'latin1'),
  };
}

/**
 * "Chronicle Notes": a Node.js program that activates the key it is given at the shop that sold it
 * and then verifies the signed licence token it got back, offline, with the shop's public keys.
 */
export function demoProgram(): DemoFile {
  const source = `#!/usr/bin/env node
// Chronicle Notes 1.0 (a shopd demo program). Usage:
//   node chronicle-notes.mjs <shop API base, e.g. http://127.0.0.1:3000/v2/public/shops/1> <licence key>
// It activates this computer on the licence, then checks the signed token (needs: npm install jose).
import { hostname } from 'node:os';
const [base, licenseKey] = process.argv.slice(2);
if (!base || !licenseKey) {
  console.error('usage: node chronicle-notes.mjs <shop API base> <licence key>');
  process.exit(2);
}
const res = await fetch(\`\${base}/licenses/activate\`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ licenseKey, instanceName: hostname() }),
});
const answer = await res.json();
if (!res.ok) {
  console.error(\`Not activated: \${answer.message}\`);
  process.exit(1);
}
const { createRemoteJWKSet, jwtVerify } = await import('jose');
const { payload } = await jwtVerify(answer.data.token, createRemoteJWKSet(new URL(\`\${base}/licenses/jwks\`)));
console.log(\`Chronicle Notes is licensed (\${payload.status}); instance \${answer.data.instanceId}.\`);
`;
  return { name: 'chronicle-notes.mjs', contentType: 'text/javascript', bytes: Buffer.from(source) };
}
