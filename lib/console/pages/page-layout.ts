import { type Html, html } from "../html.js";

/** The console's pages, by path, in the order the navigation lists them. */
export const PAGES = [
  { path: "/", title: "Overview" },
  { path: "/resources", title: "Resources" },
  { path: "/capabilities", title: "Capabilities" },
  { path: "/graph", title: "Dependencies" },
  { path: "/licence", title: "Licence" },
  { path: "/events", title: "Events" },
] as const;

export type PagePath = (typeof PAGES)[number]["path"];

/** Where the style sheet is served: the pages load no script and no other resource. */
export const STYLESHEET_PATH = "/console.css";

/** What the frame of a page shows besides its body. */
export interface Frame {
  readonly title: string;
  /** The page the navigation marks as current; none for the login and refusal pages. */
  readonly current?: PagePath;
  /** Who is signed in; the navigation and sign-out are shown only then. */
  readonly user?: string;
  /** Seconds after which the page reloads itself; 0 or undefined: never. */
  readonly refreshSeconds?: number;
  /** When the cluster was read, said under the title. */
  readonly observedAt?: string;
}

/** A whole page: the frame around `body`. No script: the console works, and is safe, with none. */
export function page(frame: Frame, body: Html): string {
  const nav = frame.user
    ? html`<nav aria-label="Console">${PAGES.map(
        (p) => html`<a href="${p.path}"${p.path === frame.current ? html` aria-current="page"` : ""}>${p.title}</a>`,
      )}</nav>
      <form class="signout" method="post" action="/logout"><span>${frame.user}</span><button type="submit">Sign out</button></form>`
    : "";
  const refresh =
    frame.refreshSeconds && frame.refreshSeconds > 0
      ? html`<meta http-equiv="refresh" content="${frame.refreshSeconds}">`
      : "";
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${refresh}
<title>${frame.title} · navique ai-core console</title>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
</head>
<body>
<header><span class="product">navique ai-core</span>${nav}</header>
<main>
<h1>${frame.title}</h1>
${frame.observedAt ? html`<p class="observed">Read from the cluster at <time datetime="${frame.observedAt}">${frame.observedAt}</time>; read-only.</p>` : ""}
${body}
</main>
</body>
</html>
`.text;
}

/** A status as a badge: green for what is well, red for what is not, grey for what is unknown. */
export function badge(text: string, tone: "good" | "bad" | "neutral" | "warn"): Html {
  return html`<span class="badge ${tone}">${text}</span>`;
}

/** The style of every page. */
export const STYLESHEET = `
:root { color-scheme: light; --good: #1a7f37; --bad: #cf222e; --warn: #9a6700; --muted: #57606a; --line: #d0d7de; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2328; background: #f6f8fa; }
header { display: flex; gap: 1.5rem; align-items: center; padding: 0.6rem 1.5rem; background: #1f2328; color: #fff; }
header .product { font-weight: 600; }
header nav { display: flex; gap: 1rem; flex: 1; }
header a { color: #d0d7de; text-decoration: none; }
header a[aria-current="page"] { color: #fff; border-bottom: 2px solid #fff; }
.signout { display: flex; gap: 0.5rem; align-items: center; color: #d0d7de; }
main { padding: 1rem 1.5rem 3rem; max-width: 1400px; }
h1 { font-size: 1.4rem; margin: 0.4rem 0; }
h2 { font-size: 1.1rem; margin: 1.4rem 0 0.5rem; }
.observed { color: var(--muted); margin-top: 0; }
table { border-collapse: collapse; width: 100%; background: #fff; border: 1px solid var(--line); }
th, td { text-align: left; padding: 0.35rem 0.6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #f0f3f6; font-weight: 600; }
td.message { max-width: 48rem; }
.badge { display: inline-block; padding: 0 0.45rem; border-radius: 1rem; font-size: 12px; font-weight: 600; color: #fff; }
.badge.good { background: var(--good); } .badge.bad { background: var(--bad); } .badge.warn { background: var(--warn); } .badge.neutral { background: var(--muted); }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(14rem, 1fr)); gap: 0.8rem; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 0.7rem 0.9rem; }
.card .figure { font-size: 1.5rem; font-weight: 600; }
.muted { color: var(--muted); }
details summary { cursor: pointer; color: var(--muted); }
.finding { background: #fff; border: 1px solid var(--line); border-left: 4px solid var(--bad); padding: 0.5rem 0.8rem; margin: 0.5rem 0; }
.notice { background: #fff8c5; border: 1px solid #d4a72c; padding: 0.5rem 0.8rem; margin: 0.5rem 0; }
.refusal { background: #fff; border: 1px solid var(--line); border-left: 4px solid var(--bad); padding: 0.8rem 1rem; }
form.login { background: #fff; border: 1px solid var(--line); padding: 1rem; max-width: 36rem; }
form.login textarea { width: 100%; font-family: ui-monospace, monospace; }
button { font: inherit; padding: 0.25rem 0.8rem; }
.graph { background: #fff; border: 1px solid var(--line); overflow: auto; }
.graph svg { display: block; max-width: 100%; height: auto; }
.graph svg text { font: 12px system-ui, sans-serif; }
code { font-family: ui-monospace, monospace; font-size: 12px; }
`;
