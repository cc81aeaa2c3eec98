/**
 * The URL of a connection (`status.connection.url`), without credentials: scheme, host and port; an IPv6
 * address in brackets, as RFC 3986 writes it.
 */
export function connectionUrl(scheme: string, host: string, port: number): string {
  return `${scheme}://${host.includes(":") ? `[${host}]` : host}:${port}`;
}
