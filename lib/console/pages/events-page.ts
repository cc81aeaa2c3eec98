import type { ServedSnapshot } from "../console-snapshot.js";
import { type Html, html } from "../html.js";
import { MOST_EVENTS } from "../read-events.js";
import { badge } from "./page-layout.js";

/** The Events the operator recorded within the ManagementPlane's window, newest first. */
export function eventsPage(snapshot: ServedSnapshot): Html {
  const { events, settings } = snapshot;
  const within = `the last ${settings.spec.recentEventsMinutes} minutes (the ManagementPlane's spec.recentEventsMinutes)`;
  if (events.length === 0) return html`<p class="muted">The operator recorded no Event within ${within}.</p>`;
  return html`<p class="muted">${events.length === MOST_EVENTS ? `The newest ${MOST_EVENTS}` : "Every Event"} the operator recorded within ${within}.</p>
<table><thead><tr><th>Time</th><th>Type</th><th>Reason</th><th>About</th><th>Note</th></tr></thead><tbody>${events.map(
    (
      e,
    ) => html`<tr><td><time datetime="${e.time}">${e.time}</time></td><td>${badge(e.type, e.type === "Warning" ? "bad" : "neutral")}</td><td>${e.reason}</td>
<td><code>${e.regarding}</code>${e.related ? html`<div class="muted">for ${e.related}</div>` : ""}</td><td class="message">${e.note}</td></tr>`,
  )}</tbody></table>`;
}
