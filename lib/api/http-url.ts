import * as z from "zod";

/** A DNS name or an IPv4 address (dot-separated labels), or an IPv6 address in brackets. */
const HOST = String.raw`([A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?(\.[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])`;

/**
 * A path segment: RFC 3986's unreserved characters (`~` aside), `:`, `@` and percent-encodings. Left out
 * are the sub-delimiters and every other character a shell reads — dollar, backtick, semicolon, pipe,
 * ampersand, parentheses, quotes, angle brackets, `*`, `?`, `!`, `~`, `#`, braces, brackets, backslash and
 * blank space: a base URL holds none of them.
 */
const SEGMENT = "([-A-Za-z0-9._:@]|%[0-9A-Fa-f]{2})*";

/** `http[s]://HOST[:PORT][/PATH]`: no user, password, query or fragment. */
export const HTTP_URL = new RegExp(`^https?://${HOST}(:[0-9]{1,5})?(/${SEGMENT})*$`);

/**
 * An http:// or https:// base URL, as a service's client takes one (LiteLLM's `api_base`): a host, an
 * optional port and path, at most `max` characters. No credentials (a user or password would be a secret
 * in the spec), no query or fragment, and no character a shell reads, so that the URL stays one word
 * wherever it is copied to. `example` is shown in the message.
 */
export function httpUrl(max: number, example: string) {
  return z
    .string()
    .min(1)
    .max(max)
    .regex(HTTP_URL, {
      message: `must be an http:// or https:// URL: a host, an optional port and path, no user, query or fragment, and no blank space or character a shell reads ($ \` ; | & ( ) quotes < > * ? ! ~ # { } [ ] \\) (e.g. ${example})`,
    });
}
