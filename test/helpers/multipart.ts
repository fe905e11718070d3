import { randomBytes } from 'node:crypto';
import sharp from 'sharp';

export interface Part {
  name: string;
  data: Buffer | string;
  filename?: string;
  type?: string;
}

/** A multipart/form-data body built by hand, so tests need no form library. */
export function multipartForm(parts: Part[]): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----shopd${randomBytes(8).toString('hex')}`;
  const chunks = parts.flatMap((part) => {
    const filename = part.filename === undefined ? '' : `; filename="${part.filename}"`;
    const type = part.type === undefined ? '' : `Content-Type: ${part.type}\r\n`;
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"${filename}\r\n${type}\r\n`;
    return [Buffer.from(head), Buffer.from(part.data), Buffer.from('\r\n')];
  });
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** A small real PNG. */
export function pngImage(width = 8, height = 8, colour = '#c0ffee'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: colour } })
    .png()
    .toBuffer();
}

/** An ICO by hand: a 6-byte header, one 16-byte directory entry, then a PNG payload. */
export async function icoImage(): Promise<Buffer> {
  const png = await pngImage(16, 16);
  const header = Buffer.alloc(22);
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(1, 4); // one image
  header.writeUInt8(16, 6); // width
  header.writeUInt8(16, 7); // height
  header.writeUInt16LE(1, 10); // colour planes
  header.writeUInt16LE(32, 12); // bits per pixel
  header.writeUInt32LE(png.length, 14);
  header.writeUInt32LE(22, 18); // payload offset
  return Buffer.concat([header, png]);
}
