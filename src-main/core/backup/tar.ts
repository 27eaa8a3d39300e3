import { createReadStream, type WriteStream } from 'node:fs';

/**
 * A minimal POSIX tar (ustar with pax headers for long or non-ASCII names) writer, enough for
 * `agent-rooms export ROOM x.tar`: regular files and folders, read back by any tar.
 */
function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, '0') + '\0';
}

function header(name: string, size: number, type: '0' | '5' | 'x', mtime: number, mode: number): Buffer {
  const h = Buffer.alloc(512, 0);
  h.write(name, 0, 100, 'utf8');
  h.write(octal(mode, 8), 100, 8, 'ascii');
  h.write(octal(0, 8), 108, 8, 'ascii');
  h.write(octal(0, 8), 116, 8, 'ascii');
  h.write(octal(size, 12), 124, 12, 'ascii');
  h.write(octal(Math.floor(mtime / 1000), 12), 136, 12, 'ascii');
  h.write('        ', 148, 8, 'ascii');
  h.write(type, 156, 1, 'ascii');
  h.write('ustar\0', 257, 6, 'ascii');
  h.write('00', 263, 2, 'ascii');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(octal(sum, 7) + ' ', 148, 8, 'ascii');
  return h;
}

function pad(size: number): Buffer {
  const r = size % 512;
  return Buffer.alloc(r === 0 ? 0 : 512 - r, 0);
}

function paxRecord(key: string, value: string): Buffer {
  const body = ` ${key}=${value}\n`;
  let len = Buffer.byteLength(body) + 1;
  while (String(len).length + Buffer.byteLength(body) !== len) len = String(len).length + Buffer.byteLength(body);
  return Buffer.from(`${len}${body}`, 'utf8');
}

export class TarWriter {
  constructor(private readonly out: WriteStream) {}

  private write(b: Buffer): Promise<void> {
    return new Promise((resolve, reject) => {
      this.out.write(b, (err) => (err ? reject(err) : resolve()));
    });
  }

  private async head(name: string, size: number, type: '0' | '5', mtime: number) {
    const simple = /^[\x20-\x7e]*$/.test(name) && Buffer.byteLength(name) <= 99;
    if (!simple) {
      const pax = paxRecord('path', name);
      await this.write(header('PaxHeader', pax.length, 'x', mtime, 0o600));
      await this.write(pax);
      await this.write(pad(pax.length));
    }
    const short = simple ? name : name.replace(/[^\x20-\x7e]/g, '_').slice(-99);
    // An export holds every message of the room: private modes, whoever unpacks it (docs/backup.md).
    await this.write(header(short, size, type, mtime, type === '5' ? 0o700 : 0o600));
  }

  async dir(name: string, mtime = Date.now()) {
    await this.head(name.endsWith('/') ? name : name + '/', 0, '5', mtime);
  }

  async text(name: string, text: string, mtime = Date.now()) {
    const b = Buffer.from(text, 'utf8');
    await this.head(name, b.length, '0', mtime);
    await this.write(b);
    await this.write(pad(b.length));
  }

  /** Streams a file of known size into the archive. */
  async file(name: string, path: string, size: number, mtime = Date.now()) {
    await this.head(name, size, '0', mtime);
    let written = 0;
    for await (const chunk of createReadStream(path)) {
      const c = chunk as Buffer;
      const take = c.subarray(0, Math.max(0, size - written));
      written += take.length;
      if (take.length) await this.write(take);
    }
    if (written < size) await this.write(Buffer.alloc(size - written, 0));
    await this.write(pad(size));
  }

  async finish() {
    await this.write(Buffer.alloc(1024, 0));
    await new Promise<void>((resolve, reject) => this.out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  }
}
