// Types for scripts/icons.mjs (a plain Node script, imported by the packaging tests).
export interface Rgba {
  width: number;
  height: number;
  px: Buffer;
}
export const ICON_SOURCE: string;
export const ICON_OUT: string;
export const PNG_SIZES: number[];
export const ICO_SIZES: number[];
export const ICNS_TYPES: Array<[string, number]>;
export function pngSize(buf: Buffer): { width: number; height: number };
export function decodePng(buf: Buffer): Rgba;
export function encodePng(img: Rgba): Buffer;
export function resize(img: Rgba, size: number): Rgba;
export function icoFromPngs(pngs: Buffer[]): Buffer;
export function icnsFromPngs(typed: Array<[string, Buffer]>): Buffer;
export function generateIcons(source?: string, outDir?: string): string[];
