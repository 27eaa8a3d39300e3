/**
 * Screenshot baselines for the UI tests: a small PNG decoder (node:zlib; 8-bit RGB/RGBA, not
 * interlaced, which is what Chromium writes) and a pixel diff with a tolerance. A missing
 * baseline is written (and the test says so); UPDATE_BASELINES=1 rewrites them on purpose.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateSync } from 'node:zlib';
import { SHOTS } from '../helpers/browser.js';

export const BASELINES = join(dirname(fileURLToPath(import.meta.url)), 'baselines');

export interface Image {
  width: number;
  height: number;
  /** RGBA, 4 bytes a pixel. */
  data: Uint8Array;
}

export function decodePng(buf: Buffer): Image {
  if (buf.readUInt32BE(0) !== 0x89504e47) throw new Error('not a PNG');
  let at = 8;
  let width = 0;
  let height = 0;
  let colorType = 0;
  const idat: Buffer[] = [];
  while (at < buf.length) {
    const len = buf.readUInt32BE(at);
    const type = buf.toString('latin1', at + 4, at + 8);
    const body = buf.subarray(at + 8, at + 8 + len);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      if (body[8] !== 8 || body[12] !== 0) throw new Error('only 8-bit, non-interlaced PNGs');
      colorType = body[9]!;
    } else if (type === 'IDAT') idat.push(body);
    else if (type === 'IEND') break;
    at += 12 + len;
  }
  const bpp = colorType === 6 ? 4 : colorType === 2 ? 3 : 0;
  if (!bpp) throw new Error(`unsupported PNG colour type ${colorType}`);
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  const cur = new Uint8Array(stride);
  let prev = new Uint8Array(stride);
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? cur[i - bpp]! : 0;
      const b = prev[i]!;
      const c = i >= bpp ? prev[i - bpp]! : 0;
      let v = line[i]!;
      if (f === 1) v += a;
      else if (f === 2) v += b;
      else if (f === 3) v += (a + b) >> 1;
      else if (f === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      cur[i] = v & 255;
    }
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      data[o] = cur[x * bpp]!;
      data[o + 1] = cur[x * bpp + 1]!;
      data[o + 2] = cur[x * bpp + 2]!;
      data[o + 3] = bpp === 4 ? cur[x * bpp + 3]! : 255;
    }
    prev = Uint8Array.from(cur);
  }
  return { width, height, data };
}

/** The share of pixels whose largest channel difference exceeds `threshold` (0-255). */
export function diffRatio(a: Image, b: Image, threshold = 40): number {
  if (a.width !== b.width || a.height !== b.height) return 1;
  let differ = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    const d = Math.max(Math.abs(a.data[i]! - b.data[i]!), Math.abs(a.data[i + 1]! - b.data[i + 1]!), Math.abs(a.data[i + 2]! - b.data[i + 2]!));
    if (d > threshold) differ++;
  }
  return differ / (a.width * a.height);
}

/** Compares a screenshot with its stored baseline; returns the differing share (0 when the baseline was just written). */
export function compareWithBaseline(name: string, png: Buffer): { ratio: number; written: boolean } {
  mkdirSync(BASELINES, { recursive: true });
  const file = join(BASELINES, `${name}.png`);
  if (!existsSync(file) || process.env.UPDATE_BASELINES === '1') {
    writeFileSync(file, png);
    console.warn(`baseline ${name}.png written (first run or UPDATE_BASELINES=1): review it and commit it`);
    return { ratio: 0, written: true };
  }
  const ratio = diffRatio(decodePng(readFileSync(file)), decodePng(png));
  // The differing shot goes next to the other screenshots (gitignored), for a look side by side.
  if (ratio > 0) {
    mkdirSync(SHOTS, { recursive: true });
    writeFileSync(join(SHOTS, `${name}.actual.png`), png);
  }
  return { ratio, written: false };
}
