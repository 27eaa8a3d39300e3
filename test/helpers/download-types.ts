/** Stored content types that could run on the UI's origin (item 13): test/security/13-download-types.test.ts, http-adapter.test.ts. */
export const EXECUTABLE: Array<[string, string]> = [
  ['evil.js', 'text/javascript'],
  ['evil.mjs', 'application/javascript; charset=utf-8'],
  ['evil.html', 'text/html'],
  ['evil.xhtml', 'application/xhtml+xml'],
  ['evil.svg', 'image/svg+xml'],
  ['evil.xml', 'application/xml'],
  ['evil2.xml', 'text/xml'],
  ['evil.css', 'text/css'],
  ['evil.wasm', 'application/wasm'],
  ['evil.ecma', 'application/ecmascript'],
];
