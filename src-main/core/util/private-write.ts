import { closeSync, constants, fchmodSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';

/**
 * Replacing a file that holds a credential (a host's MCP config, `agent-rooms connect`) without a
 * name anyone can plant (docs/security.md "Third round"): the new text goes to a temporary file
 * beside it with a random name, created new (O_CREAT|O_EXCL|O_NOFOLLOW: a name that exists, a link
 * included, fails instead of being followed), 0600 from the start, then renamed over the file
 * (rename replaces a link at the destination, never writes through it). The temporary name used
 * to be `<file>.agent-rooms-<pid>.tmp`: a link planted there received the credential.
 */

// O_NOFOLLOW does not exist on Windows; O_EXCL alone already refuses an existing name there.
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW;

/** The temporary name beside `file`: 16 random bytes, so no one can know it in advance. */
export function privateTempName(file: string): string {
  return join(dirname(file), `.${basename(file)}.${randomBytes(16).toString('hex')}.tmp`);
}

/** Writes `text` as the new content of `file` (0600), through a fresh private temporary file and a rename. */
export function replaceFilePrivate(file: string, text: string | Buffer): void {
  const tmp = privateTempName(file);
  const fd = openSync(tmp, CREATE_NEW, 0o600);
  let renamed = false;
  try {
    try {
      // The mode is the file's own, whatever the umask: set on the descriptor, not by name.
      fchmodSync(fd, 0o600);
      const b = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
      let off = 0;
      while (off < b.length) off += writeSync(fd, b, off, b.length - off);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
    renamed = true;
  } finally {
    if (!renamed) {
      try {
        unlinkSync(tmp);
      } catch {
        // already gone
      }
    }
  }
}
