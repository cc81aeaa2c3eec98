/** Markup already escaped: what `html` returns, and what it puts in unescaped. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ENTITIES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** `text` safe in an element's content and in a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

function part(value: unknown): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(part).join("");
  if (value === undefined || value === null || value === false) return "";
  return escapeHtml(String(value));
}

/**
 * A template of markup: every value is escaped — whatever a resource's name, a condition's message or an
 * Event's note holds is shown as text, never run — but Html (another template's result) and arrays of it,
 * which are put in as they are; undefined, null and false put nothing.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let text = strings[0] ?? "";
  values.forEach((value, index) => {
    text += part(value) + (strings[index + 1] ?? "");
  });
  return new Html(text);
}
