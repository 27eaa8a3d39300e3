/**
 * JSON as people write it in settings files: `//` and `/* *\/` comments and trailing commas are
 * accepted (Gemini CLI and Cursor read theirs that way). Used to merge an entry into a user's
 * own file without losing what else is in it (docs/hosts.md "`agent-rooms connect` and `agent-rooms doctor`").
 */

/** The text without comments and trailing commas; strings are left exactly as they are. */
export function stripJsonComments(text: string): string {
  let out = '';
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < n && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < n && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
    } else if (c === ',') {
      // A comma followed (after blanks and comments) by a closing bracket is dropped.
      let j = i + 1;
      let rest = '';
      for (;;) {
        while (j < n && /\s/.test(text[j]!)) j++;
        if (text[j] === '/' && text[j + 1] === '/') {
          while (j < n && text[j] !== '\n') j++;
        } else if (text[j] === '/' && text[j + 1] === '*') {
          const end = text.indexOf('*/', j + 2);
          j = end < 0 ? n : end + 2;
        } else break;
      }
      rest = text[j] ?? '';
      if (rest !== '}' && rest !== ']') out += c;
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

export type JsonObject = Record<string, unknown>;

/**
 * Parses a settings file's text leniently. Returns the object, or an error message when the
 * text is not an object even leniently (the caller then refuses to touch the file).
 */
export function parseLenientObject(text: string): { value: JsonObject; strict: boolean } | { error: string } {
  if (text.trim() === '') return { value: {}, strict: true };
  let strict = true;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    strict = false;
    try {
      v = JSON.parse(stripJsonComments(text));
    } catch (err) {
      return { error: (err as Error).message };
    }
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return { error: 'the top level is not a JSON object' };
  return { value: v as JsonObject, strict };
}
