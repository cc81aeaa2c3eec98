/** Longest part of an untrusted text that a message quotes. */
export const MAX_QUOTED_UNTRUSTED = 64;

/**
 * `text`, read from an input not yet trusted (a licence token that does not verify), as it may be quoted
 * in a message that reaches a status, an Event or a log: at most MAX_QUOTED_UNTRUSTED characters, in
 * double quotes, every character outside printable ASCII written as an escape (`\n`, `\u202e`), so that
 * it can neither break a line, forge a second message, reorder the text around it nor fill the status.
 */
export function quoteUntrusted(text: string, max = MAX_QUOTED_UNTRUSTED): string {
  const characters = [...text];
  const kept = characters.slice(0, max).join("");
  const escaped = kept.replace(/[^\x20-\x7e]|["\\]/gu, escapeCharacter);
  const cut = characters.length > max ? `… (${characters.length} characters)` : "";
  return `"${escaped}"${cut}`;
}

const NAMED_ESCAPES: Readonly<Record<string, string>> = {
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  '"': '\\"',
  "\\": "\\\\",
};

function escapeCharacter(character: string): string {
  const named = NAMED_ESCAPES[character];
  if (named) return named;
  const code = character.codePointAt(0) ?? 0;
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, "0")}`;
}
