/** Is the caret inside an open ``` (or ~~~) code fence: an odd number of fence lines before it? */
export function insideFence(text: string, caret: number): boolean {
  let n = 0;
  for (const line of text.slice(0, caret).split('\n')) if (/^\s*(```|~~~)/.test(line)) n++;
  return n % 2 === 1;
}

/** What stays in the composer once `sent` went out: anything typed after it while it was on its way. */
export function afterSend(current: string, sent: string): string {
  if (current === sent) return '';
  return current.startsWith(sent) ? current.slice(sent.length).replace(/^\s+/, '') : current;
}
