#!/usr/bin/env node
// Every platform's app icon from one source, src-main/electron/resources/icon.png (512x512
// RGBA): a PNG set for Linux (<size>x<size>.png, the folder form electron-builder takes), an
// .ico for Windows and an .icns for macOS. Both containers simply wrap PNGs, so no image tool
// is needed: the PNG is decoded with zlib, box-filtered down to each size and re-encoded.
// Usage: node scripts/icons.mjs [source.png] [outDir]   (default outDir: dist/icons)
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync, inflateSync } from 'node:zlib';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const ICON_SOURCE = join(ROOT, 'src-main', 'electron', 'resources', 'icon.png');
export const ICON_OUT = join(ROOT, 'dist', 'icons');
/** Linux's hicolor sizes; the .ico and .icns take the ones their formats define. */
export const PNG_SIZES = [16, 24, 32, 48, 64, 128, 256, 512];
export const ICO_SIZES = [16, 24, 32, 48, 64, 128, 256];
/** ICNS types holding PNG data, by pixel size (ic11..ic14 are the @2x variants). */
export const ICNS_TYPES = [
  ['icp4', 16],
  ['icp5', 32],
  ['ic11', 32],
  ['icp6', 64],
  ['ic12', 64],
  ['ic07', 128],
  ['ic08', 256],
  ['ic13', 256],
  ['ic09', 512],
  ['ic14', 512],
];

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const CRC_TABLE = new Uint32Array(256).map((_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** {width, height} from a PNG's IHDR (also used by the tests to check the containers). */
export function pngSize(buf) {
  if (!buf.subarray(0, 8).equals(PNG_SIGNATURE) || buf.toString('latin1', 12, 16) !== 'IHDR') throw new Error('not a PNG');
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

/** Decodes an 8-bit, non-interlaced RGB or RGBA PNG to RGBA pixels. */
export function decodePng(buf) {
  const { width, height } = pngSize(buf);
  const depth = buf[24];
  const colorType = buf[25];
  const interlace = buf[28];
  if (depth !== 8 || (colorType !== 6 && colorType !== 2) || interlace !== 0) {
    throw new Error(`icon source must be an 8-bit non-interlaced RGB(A) PNG (depth ${depth}, color type ${colorType}, interlace ${interlace})`);
  }
  const idat = [];
  for (let off = 8; off < buf.length; ) {
    const len = buf.readUInt32BE(off);
    const type = buf.toString('latin1', off + 4, off + 8);
    if (type === 'IDAT') idat.push(buf.subarray(off + 8, off + 8 + len));
    if (type === 'IEND') break;
    off += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const bpp = colorType === 6 ? 4 : 3;
  const stride = width * bpp;
  const px = Buffer.alloc(width * height * 4);
  let prev = Buffer.alloc(stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? line[i - bpp] : 0;
      const b = prev[i];
      const c = i >= bpp ? prev[i - bpp] : 0;
      let add = 0;
      if (filter === 1) add = a;
      else if (filter === 2) add = b;
      else if (filter === 3) add = (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        add = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      } else if (filter !== 0) throw new Error(`bad PNG filter ${filter}`);
      line[i] = (line[i] + add) & 0xff;
    }
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      px[o] = line[x * bpp];
      px[o + 1] = line[x * bpp + 1];
      px[o + 2] = line[x * bpp + 2];
      px[o + 3] = bpp === 4 ? line[x * bpp + 3] : 255;
    }
    prev = line;
  }
  return { width, height, px };
}

function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** Encodes RGBA pixels as a PNG (filter 0 on every row; zlib does the rest). */
export function encodePng({ width, height, px }) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  const raw = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) px.copy(raw, y * (width * 4 + 1) + 1, y * width * 4, (y + 1) * width * 4);
  return Buffer.concat([PNG_SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}

/** Area-averaged downscale with premultiplied alpha (no dark fringes on the transparent edge). */
export function resize(img, size) {
  if (img.width === size && img.height === size) return img;
  if (size > img.width || size > img.height) throw new Error(`icon source is ${img.width}x${img.height}, cannot make ${size}x${size}`);
  const px = Buffer.alloc(size * size * 4);
  const sx = img.width / size;
  const sy = img.height / size;
  for (let y = 0; y < size; y++) {
    const y0 = Math.floor(y * sy);
    const y1 = Math.max(y0 + 1, Math.floor((y + 1) * sy));
    for (let x = 0; x < size; x++) {
      const x0 = Math.floor(x * sx);
      const x1 = Math.max(x0 + 1, Math.floor((x + 1) * sx));
      let r = 0, g = 0, b = 0, a = 0, n = 0;
      for (let yy = y0; yy < y1; yy++) {
        for (let xx = x0; xx < x1; xx++) {
          const o = (yy * img.width + xx) * 4;
          const al = img.px[o + 3];
          r += img.px[o] * al;
          g += img.px[o + 1] * al;
          b += img.px[o + 2] * al;
          a += al;
          n++;
        }
      }
      const o = (y * size + x) * 4;
      if (a > 0) {
        px[o] = Math.round(r / a);
        px[o + 1] = Math.round(g / a);
        px[o + 2] = Math.round(b / a);
      }
      px[o + 3] = Math.round(a / n);
    }
  }
  return { width: size, height: size, px };
}

/** ICO: a 6-byte header, one 16-byte entry per image, then the PNGs (Vista+ reads PNG entries). */
export function icoFromPngs(pngs) {
  const header = Buffer.alloc(6);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2); // 1 = icon
  header.writeUInt16LE(pngs.length, 4);
  let offset = 6 + 16 * pngs.length;
  const entries = pngs.map((png) => {
    const { width, height } = pngSize(png);
    const e = Buffer.alloc(16);
    e[0] = width >= 256 ? 0 : width; // 0 means 256
    e[1] = height >= 256 ? 0 : height;
    e.writeUInt16LE(1, 4); // colour planes
    e.writeUInt16LE(32, 6); // bits per pixel
    e.writeUInt32LE(png.length, 8);
    e.writeUInt32LE(offset, 12);
    offset += png.length;
    return e;
  });
  return Buffer.concat([header, ...entries, ...pngs]);
}

/** ICNS: 'icns' + total length, then (type, length including its 8-byte header, PNG data) blocks. */
export function icnsFromPngs(typed) {
  const blocks = typed.map(([type, png]) => {
    const head = Buffer.alloc(8);
    head.write(type, 0, 'latin1');
    head.writeUInt32BE(png.length + 8, 4);
    return Buffer.concat([head, png]);
  });
  const body = Buffer.concat(blocks);
  const head = Buffer.alloc(8);
  head.write('icns', 0, 'latin1');
  head.writeUInt32BE(body.length + 8, 4);
  return Buffer.concat([head, body]);
}

/** Replaces a file whole (write beside it, then rename): a reader never sees half an icon. */
function writeAtomic(file, data) {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, file);
}

/** Writes outDir/png/<n>x<n>.png, outDir/icon.ico and outDir/icon.icns; returns their paths. */
export function generateIcons(source = ICON_SOURCE, outDir = ICON_OUT) {
  const img = decodePng(readFileSync(source));
  const pngs = new Map(PNG_SIZES.map((size) => [size, encodePng(resize(img, size))]));
  mkdirSync(join(outDir, 'png'), { recursive: true });
  const written = [];
  for (const [size, png] of pngs) {
    const file = join(outDir, 'png', `${size}x${size}.png`);
    writeAtomic(file, png);
    written.push(file);
  }
  const ico = join(outDir, 'icon.ico');
  writeAtomic(ico, icoFromPngs(ICO_SIZES.map((s) => pngs.get(s))));
  const icns = join(outDir, 'icon.icns');
  writeAtomic(icns, icnsFromPngs(ICNS_TYPES.map(([type, s]) => [type, pngs.get(s)])));
  written.push(ico, icns);
  return written;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [source, outDir] = process.argv.slice(2);
  const written = generateIcons(source ? resolve(source) : ICON_SOURCE, outDir ? resolve(outDir) : ICON_OUT);
  process.stdout.write(`icons: ${written.length} files in ${dirname(written[written.length - 1])}\n`);
}
